package cnab

// Santander (033), CNAB 400: "CNAB 400 (padrão Santander) com registro",
// H7800, versão 2.17, Abril/2018. Positions below are the document's
// "Posição inicial/final".
//
// Nota 2 of the document composes the código de transmissão (header 27-46)
// of the agency (4), the first eight positions of the conta movimento and
// the first eight of the conta cobrança, and asks for the same 20 positions
// in the detail (18-37); the detail's complement (383-385) carries "I" and
// the last digit and check digit of a 10-position conta cobrança. The
// complement is taken from the account, so the conta cobrança must be the
// conta movimento (the usual case); an 8-position account leaves it blank.
var santander400 = register(&spec{
	bank: "033", bankName: "Santander", layout: CNAB400,
	versions: []string{"2.17"},
	eol:      "\r\n", finalEOL: true,
	required: []string{"agency", "account", "account_digit", "wallet", "covenant", "transmission_code"},
	wallets:  []string{"101", "201"},
	kinds: map[Kind]string{
		KindDuplicataMercantil: "01", KindNotaPromissoria: "02", KindRecibo: "05",
		KindDuplicataServico: "06",
	},
	prepare:     santander400Prepare,
	prepareDrop: santander400Number,
	header:      []*record{&santander400Header},
	detail:      []*record{&santander400Detail},
	trailer:     []*record{&santander400Trailer},
})

var santander400Header = record{name: "header", fields: []field{
	lit(1, 1, "Código do registro", "0"),
	lit(2, 2, "Código da remessa", "1"),
	lit(3, 9, "Literal de transmissão", "REMESSA"),
	lit(10, 11, "Código do serviço", "01"),
	lit(12, 26, "Literal de serviço", "COBRANCA       "),
	digits(27, 46, "Código de Transmissão", "beneficiary.transmission_code", transmissionCode),
	text(47, 76, "Nome do Beneficiário", "beneficiary.name", benefName),
	lit(77, 79, "Código do Banco", "033"),
	lit(80, 94, "Nome do Banco", "SANTANDER      "),
	date6(95, 100, "Data de Gravação", "created", created),
	zero(101, 116, "Zeros"),
	blank(117, 163, "Mensagem 1"),
	blank(164, 210, "Mensagem 2"),
	blank(211, 257, "Mensagem 3"),
	blank(258, 304, "Mensagem 4"),
	blank(305, 351, "Mensagem 5"),
	blank(352, 385, "Brancos"),
	blank(386, 391, "Brancos"),
	zero(392, 394, "Número da versão da remessa"),
	num(395, 400, "Número sequencial do registro no arquivo", "", recordNumber),
}}

var santander400Detail = record{name: "detail", fields: []field{
	lit(1, 1, "Código do registro", "1"),
	num(2, 3, "Tipo de inscrição do Beneficiário", "beneficiary.document", benefDocKind),
	taxID(4, 17, "CNPJ ou CPF do Beneficiário", "beneficiary.document", benefDoc),
	digits(18, 37, "Agência, conta movimento e conta cobrança do Beneficiário", "beneficiary.transmission_code", transmissionCode),
	text(38, 62, "Número de controle do participante", "control", control),
	digits(63, 70, "Nosso número", "our_number", santander400OurNumber),
	zero(71, 76, "Data do segundo desconto"),
	blank(77, 77, "Branco"),
	num(78, 78, "Informação de multa", "fine_percent", ifPositive(finePercent, 4, 0)),
	num(79, 82, "Percentual multa por atraso", "fine_percent", finePercent),
	zero(83, 84, "Unidade de valor moeda corrente"),
	zero(85, 97, "Valor do título em outra unidade"),
	blank(98, 101, "Brancos"),
	zero(102, 107, "Data para cobrança de multa"),
	num(108, 108, "Código da carteira", "beneficiary.wallet", santanderCollectionType),
	lit(109, 110, "Código da ocorrência", "01"),
	text(111, 120, "Seu número", "document_number", documentNumber),
	date6(121, 126, "Data de vencimento do título", "due", due),
	num(127, 139, "Valor do título", "amount", amount),
	lit(140, 142, "Número do Banco cobrador", "033"),
	digits(143, 147, "Código da agência cobradora", "beneficiary.agency", santander400CollectingAgency),
	digits(148, 149, "Espécie de documento", "kind", kindCode),
	lit(150, 150, "Tipo de aceite", "N"),
	date6(151, 156, "Data da emissão do título", "issued", issued),
	num(157, 158, "Primeira instrução cobrança", "protest_days", ifPositive(protestDays, 6, 7)),
	zero(159, 160, "Segunda instrução cobrança"),
	num(161, 173, "Valor de mora a ser cobrado por dia de atraso", "interest_per_day", interestPerDay),
	date6(174, 179, "Data limite para concessão de desconto", "discount_until", discountUntil),
	num(180, 192, "Valor de desconto a ser concedido", "discount", discount),
	zero(193, 205, "Valor do IOF"),
	zero(206, 218, "Valor do abatimento"),
	num(219, 220, "Tipo de inscrição do pagador", "payer.document", payerDocKind),
	taxID(221, 234, "CNPJ ou CPF do pagador", "payer.document", payerDoc),
	text(235, 274, "Nome do pagador", "payer.name", payerName),
	text(275, 314, "Endereço do pagador", "payer.address", payerAddress),
	text(315, 326, "Bairro do pagador", "payer.district", payerDistrict),
	digits(327, 331, "CEP do pagador", "payer.zip", payerZIP5),
	digits(332, 334, "Complemento do CEP", "payer.zip", payerZIP3),
	text(335, 349, "Município do pagador", "payer.city", payerCity),
	text(350, 351, "UF estado do pagador", "payer.state", payerState),
	blank(352, 381, "Brancos"),
	blank(382, 382, "Brancos"),
	text(383, 383, "Identificador do Complemento", "beneficiary.account", santander400ComplementMark),
	text(384, 385, "Complemento", "beneficiary.account", santander400Complement),
	blank(386, 391, "Brancos"),
	num(392, 393, "Número de dias para protesto", "protest_days", protestDays),
	blank(394, 394, "Branco"),
	num(395, 400, "Número sequencial do registro no arquivo", "", recordNumber),
}}

// santander400Trailer counts the file's records in "quantidade de
// documentos": the document does not say whether titles or records, and
// the public libraries (brcobranca, laravel-boleto) agree on records.
var santander400Trailer = record{name: "trailer", fields: []field{
	lit(1, 1, "Código do registro", "9"),
	num(2, 7, "Quantidade de documentos no arquivo", "", recordNumber),
	num(8, 20, "Valor total dos títulos", "titles", titleTotal),
	zero(21, 394, "Zeros"),
	num(395, 400, "Número sequencial do registro no arquivo", "", recordNumber),
}}

// santander400OurNumber is the nosso número's last seven digits and its
// check digit: the layout has eight positions for it.
func santander400OurNumber(s *state) string {
	full := s.ourNumber + s.ourDigit
	return full[len(full)-8:]
}

// santander400CollectingAgency is the agency and its digit for wallet code
// 5 (rápida com registro), zeros otherwise, as the document asks.
func santander400CollectingAgency(s *state) string {
	if santanderCollectionType(s) == 5 {
		return s.rem.Beneficiary.Agency + s.rem.Beneficiary.AgencyDigit
	}
	return "0"
}

func santander400ComplementMark(s *state) string {
	if len(s.rem.Beneficiary.Account) == 9 {
		return "I"
	}
	return ""
}

func santander400Complement(s *state) string {
	b := &s.rem.Beneficiary
	if len(b.Account) == 9 {
		return b.Account[8:] + b.AccountDigit
	}
	return ""
}

func santander400Prepare(s *state) {
	santander400Number(s)
	if santanderCollectionType(s) == 5 && s.rem.Beneficiary.AgencyDigit == "" {
		s.Fail("beneficiary.agency_digit", "required by Santander for wallet 101 (agência cobradora)")
	}
}

// santander400Number checks that the nosso número of a title or a drop
// fits the layout's eight positions with its check digit.
func santander400Number(s *state) {
	if s.ourNumber[:len(s.ourNumber)-7] != "00000" {
		s.Fail("our_number", "Santander CNAB 400 holds a nosso número of up to 7 digits")
	}
}
