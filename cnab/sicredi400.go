package cnab

// Sicredi (748), CNAB 400: "Manual CNAB 400 – Cobrança Sicredi", agosto
// de 2019, versão do sistema 2.00. Positions below are the manual's
// "Posição" column (sections 9.1, 9.2 and 9.9). Section 8.8 asks for CR
// LF after every record, the trailer included.
var sicredi400 = register(&spec{
	bank: "748", bankName: "Sicredi", layout: CNAB400,
	versions: []string{"2.00"},
	eol:      "\r\n", finalEOL: true,
	required: []string{"agency", "covenant", "station"},
	kinds: map[Kind]string{
		KindDuplicataMercantil: "A", KindNotaPromissoria: "C", KindRecibo: "G",
		KindDuplicataServico: "J", KindOther: "K",
	},
	prepare: sicredi400Prepare,
	header:  []*record{&sicredi400Header},
	detail:  []*record{&sicredi400Detail},
	trailer: []*record{&sicredi400Trailer},
})

var sicredi400Header = record{name: "header", fields: []field{
	lit(1, 1, "Identificação do registro header", "0"),
	lit(2, 2, "Identificação do arquivo remessa", "1"),
	lit(3, 9, "Literal remessa", "REMESSA"),
	lit(10, 11, "Código do serviço de cobrança", "01"),
	lit(12, 26, "Literal cobrança", "COBRANCA       "),
	digits(27, 31, "Código do beneficiário", "beneficiary.covenant", covenant),
	taxID(32, 45, "CPF/CGC do beneficiário", "beneficiary.document", benefDoc),
	blank(46, 76, "Filler"),
	lit(77, 79, "Número do Sicredi", "748"),
	lit(80, 94, "Literal Sicredi", "SICREDI        "),
	dateYMD(95, 102, "Data de gravação do arquivo", "created", created),
	blank(103, 110, "Filler"),
	num(111, 117, "Número da remessa", "sequence", sequence),
	blank(118, 390, "Filler"),
	text(391, 394, "Versão do sistema", "version", version),
	num(395, 400, "Número sequencial do registro", "", recordNumber),
}}

var sicredi400Detail = record{name: "detail", fields: []field{
	lit(1, 1, "Identificação do registro detalhe", "1"),
	lit(2, 2, "Tipo de cobrança", "A"),
	lit(3, 3, "Tipo de carteira", "A"),
	lit(4, 4, "Tipo de Impressão", "A"),
	blank(5, 16, "Filler"),
	lit(17, 17, "Tipo de moeda", "A"),
	lit(18, 18, "Tipo de desconto", "A"),
	lit(19, 19, "Tipo de juros", "A"),
	blank(20, 47, "Filler"),
	digits(48, 56, "Nosso número Sicredi", "our_number", ourNumberFull),
	blank(57, 62, "Filler"),
	dateYMD(63, 70, "Data da Instrução", "created", created),
	blank(71, 71, "Campo alterado, quando instrução 31"),
	lit(72, 72, "Postagem do título", "N"),
	blank(73, 73, "Filler"),
	lit(74, 74, "Emissão do boleto", "B"),
	blank(75, 76, "Número da parcela do carnê"),
	blank(77, 78, "Número total de parcelas do carnê"),
	blank(79, 82, "Filler"),
	zero(83, 92, "Valor de desconto por dia de antecipação"),
	num(93, 96, "% multa por pagamento em atraso", "fine_percent", finePercent),
	blank(97, 108, "Filler"),
	lit(109, 110, "Instrução", "01"),
	text(111, 120, "Seu número", "document_number", documentNumber),
	date6(121, 126, "Data de vencimento", "due", due),
	num(127, 139, "Valor do título", "amount", amount),
	blank(140, 148, "Filler"),
	text(149, 149, "Espécie de documento", "kind", kindCode),
	lit(150, 150, "Aceite do título", "N"),
	date6(151, 156, "Data de emissão", "issued", issued),
	num(157, 158, "Instrução de protesto automático", "protest_days", ifPositive(protestDays, 6, 0)),
	num(159, 160, "Número de dias p/protesto automático", "protest_days", protestDays),
	num(161, 173, "Valor/% de juros por dia de atraso", "interest_per_day", interestPerDay),
	date6(174, 179, "Data limite p/concessão de desconto", "discount_until", discountUntil),
	num(180, 192, "Valor/% do desconto", "discount", discount),
	zero(193, 194, "Instrução de negativação automática"),
	zero(195, 196, "Número de dias para negativação automática"),
	zero(197, 205, "Filler"),
	zero(206, 218, "Valor do abatimento"),
	num(219, 219, "Tipo de pessoa do pagador", "payer.document", payerDocKind),
	zero(220, 220, "Filler"),
	taxID(221, 234, "CPF/CNPJ do Pagador", "payer.document", payerDoc),
	text(235, 274, "Nome do pagador", "payer.name", payerName),
	text(275, 314, "Endereço do pagador", "payer.address", payerAddress),
	zero(315, 319, "Código do pagador na cooperativa beneficiário"),
	zero(320, 325, "Filler"),
	blank(326, 326, "Filler"),
	digits(327, 334, "CEP do pagador", "payer.zip", payerZIP),
	zero(335, 339, "Código do Pagador junto ao cliente"),
	blank(340, 353, "CPF/CNPJ do Sacador Avalista"),
	blank(354, 394, "Nome do Sacador Avalista"),
	num(395, 400, "Número sequencial do registro", "", recordNumber),
}}

var sicredi400Trailer = record{name: "trailer", fields: []field{
	lit(1, 1, "Identificação do registro trailer", "9"),
	lit(2, 2, "Identificação do arquivo remessa", "1"),
	lit(3, 5, "Número do Sicredi", "748"),
	digits(6, 10, "Código do beneficiário", "beneficiary.covenant", covenant),
	blank(11, 394, "Filler"),
	num(395, 400, "Número seqüencial do registro", "", recordNumber),
}}

// sicredi400Prepare applies the manual's rules: protest after at least 3
// days, in business days for 3 and 4 and in calendar days above; and a
// due date at least seven days after the issue date.
func sicredi400Prepare(s *state) {
	d := s.t.ProtestDays
	switch {
	case d == 0:
	case d < 3:
		s.Fail("protest_days", "Sicredi protests after 3 days or more")
	case s.t.ProtestBusinessDays && d > 4:
		s.Fail("protest_business_days", "Sicredi counts business days only for 3 and 4 days; above that, calendar days")
	case !s.t.ProtestBusinessDays && d <= 4:
		s.Fail("protest_business_days", "Sicredi counts 3 and 4 days as business days")
	}
	week := s.t.Issued
	for range 7 {
		week = week.next()
	}
	if s.t.Due.Before(week) {
		s.Warn("due", "Sicredi's manual asks for a due date at least seven days after the issue date")
	}
}
