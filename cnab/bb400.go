package cnab

// Banco do Brasil (001), CNAB 400: "Cobrança BB – Layout de Arquivo Remessa
// CNAB400 – Manual Técnico, convênios com numeração acima de 1.000.000",
// versão Abril 2012. Positions below are the manual's "Posição" column.
// Only 7-digit covenants (nosso número of 17 digits without a check digit)
// are written in this layout.
var bb400 = register(&spec{
	bank: "001", bankName: "Banco do Brasil", layout: CNAB400,
	versions: []string{"2012-04"},
	eol:      "\r\n", finalEOL: true,
	required: []string{"agency", "agency_digit", "account", "account_digit", "wallet", "wallet_variation", "covenant"},
	wallets:  []string{"11", "12", "15", "17", "31", "51"},
	kinds: map[Kind]string{
		KindDuplicataMercantil: "01", KindNotaPromissoria: "02", KindRecibo: "05",
		KindDuplicataServico: "12",
	},
	prepare:     bb400Prepare,
	prepareDrop: bb400Number,
	header:      []*record{&bb400Header},
	detail:      []*record{&bb400Detail, &bb400Fine},
	trailer:     []*record{&bb400Trailer},
})

var bb400Header = record{name: "header", fields: []field{
	lit(1, 1, "Identificação do Registro Header", "0"),
	lit(2, 2, "Tipo de Operação", "1"),
	lit(3, 9, "Identificação por Extenso do Tipo de Operação", "REMESSA"),
	lit(10, 11, "Identificação do Tipo de Serviço", "01"),
	lit(12, 19, "Identificação por Extenso do Tipo de Serviço", "COBRANCA"),
	blank(20, 26, "Complemento do Registro"),
	digits(27, 30, "Prefixo da Agência", "beneficiary.agency", agency),
	text(31, 31, "Dígito Verificador do Prefixo da Agência", "beneficiary.agency_digit", agencyDigit),
	digits(32, 39, "Número da Conta Corrente", "beneficiary.account", account),
	text(40, 40, "Dígito Verificador do Número da Conta Corrente", "beneficiary.account_digit", accountDigit),
	zero(41, 46, "Complemento do Registro"),
	text(47, 76, "Nome do Cedente", "beneficiary.name", benefName),
	lit(77, 94, "001BANCODOBRASIL", "001BANCODOBRASIL  "),
	date6(95, 100, "Data da Gravação", "created", created),
	num(101, 107, "Seqüencial da Remessa", "sequence", sequence),
	blank(108, 129, "Complemento do Registro"),
	digits(130, 136, "Número do Convênio Líder", "beneficiary.covenant", covenant),
	blank(137, 394, "Complemento do Registro"),
	num(395, 400, "Seqüencial do Registro", "", recordNumber),
}}

var bb400Detail = record{name: "detail", fields: []field{
	lit(1, 1, "Identificação do Registro Detalhe", "7"),
	num(2, 3, "Tipo de Inscrição do Cedente", "beneficiary.document", benefDocKind),
	taxID(4, 17, "Número do CPF/CNPJ do Cedente", "beneficiary.document", benefDoc),
	digits(18, 21, "Prefixo da Agência", "beneficiary.agency", agency),
	text(22, 22, "Dígito Verificador do Prefixo da Agência", "beneficiary.agency_digit", agencyDigit),
	digits(23, 30, "Número da Conta Corrente do Cedente", "beneficiary.account", account),
	text(31, 31, "Dígito Verificador do Número da Conta Corrente", "beneficiary.account_digit", accountDigit),
	digits(32, 38, "Número do Convênio de Cobrança do Cedente", "beneficiary.covenant", covenant),
	text(39, 63, "Código de Controle da Empresa", "control", control),
	digits(64, 80, "Nosso-Número", "our_number", ourNumber),
	zero(81, 82, "Número da Prestação"),
	zero(83, 84, "Grupo de Valor"),
	blank(85, 87, "Complemento do Registro"),
	blank(88, 88, "Indicativo de Mensagem ou Sacador/Avalista"),
	blank(89, 91, "Prefixo do Título"),
	digits(92, 94, "Variação da Carteira", "beneficiary.wallet_variation", walletVariation),
	zero(95, 95, "Conta Caução"),
	zero(96, 101, "Número do Borderô"),
	blank(102, 106, "Tipo de Cobrança"),
	digits(107, 108, "Carteira de Cobrança", "beneficiary.wallet", wallet),
	lit(109, 110, "Comando", "01"),
	text(111, 120, "Seu Número/Número do Título Atribuído pelo Cedente", "document_number", documentNumber),
	date6(121, 126, "Data de Vencimento", "due", due),
	num(127, 139, "Valor do Título", "amount", amount),
	lit(140, 142, "Número do Banco", "001"),
	zero(143, 146, "Prefixo da Agência Cobradora"),
	blank(147, 147, "Dígito Verificador do Prefixo da Agência Cobradora"),
	digits(148, 149, "Espécie de Titulo", "kind", kindCode),
	lit(150, 150, "Aceite do Título", "N"),
	date6(151, 156, "Data de Emissão", "issued", issued),
	num(157, 158, "Instrução Codificada", "protest_days", bb400Protest),
	zero(159, 160, "Instrução Codificada"),
	num(161, 173, "Juros de Mora por Dia de Atraso", "interest_per_day", interestPerDay),
	date6(174, 179, "Data Limite para Concessão de Desconto", "discount_until", discountUntil),
	num(180, 192, "Valor do Desconto", "discount", discount),
	zero(193, 205, "Valor do IOF/Qtde Unidade Variável"),
	zero(206, 218, "Valor do Abatimento"),
	num(219, 220, "Tipo de Inscrição do Sacado", "payer.document", payerDocKind),
	taxID(221, 234, "Número do CNPJ ou CPF do Sacado", "payer.document", payerDoc),
	text(235, 271, "Nome do Sacado", "payer.name", payerName),
	blank(272, 274, "Complemento do Registro"),
	text(275, 314, "Endereço do Sacado", "payer.address", payerAddress),
	text(315, 326, "Bairro do Sacado", "payer.district", payerDistrict),
	digits(327, 334, "CEP do Endereço do Sacado", "payer.zip", payerZIP),
	text(335, 349, "Cidade do Sacado", "payer.city", payerCity),
	text(350, 351, "UF da Cidade do Sacado", "payer.state", payerState),
	blank(352, 391, "Observações/Mensagem ou Sacador/Avalista"),
	digits(392, 393, "Número de Dias Para Protesto", "protest_days", bb400ProtestTerm),
	blank(394, 394, "Complemento do Registro"),
	num(395, 400, "Seqüencial de Registro", "", recordNumber),
}}

// bb400Fine is the optional detail record type 5, service 99 (cobrança de
// multa), written when the title has a late fee.
var bb400Fine = record{name: "fine", when: hasFine, fields: []field{
	lit(1, 1, "Identificação do Registro Transação", "5"),
	lit(2, 3, "Tipo de Serviço", "99"),
	lit(4, 4, "Código de Multa", "2"),
	date6(5, 10, "Data de Inicio da Cobrança da Multa", "due", fineDate),
	num(11, 22, "Valor/Percentual da Multa", "fine_percent", finePercent),
	blank(23, 394, "Complemento do Registro"),
	num(395, 400, "Número Seqüencial do Registro no Arquivo", "", recordNumber),
}}

var bb400Trailer = record{name: "trailer", fields: []field{
	lit(1, 1, "Identificação do Registro Trailer", "9"),
	blank(2, 394, "Complemento do Registro"),
	num(395, 400, "Número Seqüencial do Registro no Arquivo", "", recordNumber),
}}

func walletVariation(s *state) string { return s.rem.Beneficiary.WalletVariation }

// bb400Protest is the coded instruction for the protest term (note 09 of
// the manual): 07 no protest; 03, 04 and 05 business days; 30 and 45
// calendar days have their own codes; any other term of 6 to 29, 35 or 40
// calendar days is code 06 with the term in positions 392-393.
func bb400Protest(s *state) int64 {
	switch d := s.t.ProtestDays; {
	case d == 0:
		return 7
	case s.t.ProtestBusinessDays, d == 30, d == 45:
		return int64(d)
	default:
		return 6
	}
}

func bb400ProtestTerm(s *state) string {
	if bb400Protest(s) == 6 {
		return itoa(s.t.ProtestDays)
	}
	return "00"
}

func bb400Prepare(s *state) {
	d, business := s.t.ProtestDays, s.t.ProtestBusinessDays
	switch {
	case d == 0:
	case business && (d < 3 || d > 5):
		s.Fail("protest_days", "Banco do Brasil protests after 3, 4 or 5 business days")
	case !business && (d < 6 || d > 30 && d != 35 && d != 40 && d != 45):
		s.Fail("protest_days", "Banco do Brasil protests after 6 to 30, 35, 40 or 45 calendar days")
	}
	bb400Number(s)
}

// bb400Number checks the nosso número of a title or a drop.
func bb400Number(s *state) {
	if len(s.ourNumber) != 17 {
		s.Fail("beneficiary.covenant", "this layout is for 7-digit covenants (nosso número of 17 digits)")
	}
}
