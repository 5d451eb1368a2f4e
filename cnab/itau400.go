package cnab

// Itaú (341), CNAB 400: "Cobrança Bancária – Intercâmbio Eletrônico de
// Arquivos", layout de 400 posições, Julho/2021. Positions below are the
// manual's "Posição" column.
var itau400 = register(&spec{
	bank: "341", bankName: "Itaú Unibanco", layout: CNAB400,
	versions: []string{"2021-07"},
	eol:      "\r\n", finalEOL: true,
	required: []string{"agency", "account", "account_digit", "wallet"},
	kinds: map[Kind]string{
		KindDuplicataMercantil: "01", KindNotaPromissoria: "02", KindRecibo: "05",
		KindDuplicataServico: "08", KindOther: "99",
	},
	header:  []*record{&itau400Header},
	detail:  []*record{&itau400Detail, &itau400Fine},
	trailer: []*record{&itau400Trailer},
})

var itau400Header = record{name: "header", fields: []field{
	lit(1, 1, "Tipo de Registro", "0"),
	lit(2, 2, "Operação", "1"),
	lit(3, 9, "Literal de Remessa", "REMESSA"),
	lit(10, 11, "Código do Serviço", "01"),
	lit(12, 26, "Literal de Serviço", "COBRANCA       "),
	digits(27, 30, "Agência", "beneficiary.agency", agency),
	zero(31, 32, "Zeros"),
	digits(33, 37, "Conta", "beneficiary.account", account),
	digits(38, 38, "DAC", "beneficiary.account_digit", accountDigit),
	blank(39, 46, "Brancos"),
	text(47, 76, "Nome da Empresa", "beneficiary.name", benefName),
	lit(77, 79, "Código do Banco", "341"),
	lit(80, 94, "Nome do Banco", "BANCO ITAU SA  "),
	date6(95, 100, "Data de Geração", "created", created),
	blank(101, 394, "Brancos"),
	num(395, 400, "Número Seqüencial", "", recordNumber),
}}

var itau400Detail = record{name: "detail", fields: []field{
	lit(1, 1, "Tipo de Registro", "1"),
	num(2, 3, "Código de Inscrição", "beneficiary.document", benefDocKind),
	taxID(4, 17, "Número de Inscrição", "beneficiary.document", benefDoc),
	digits(18, 21, "Agência", "beneficiary.agency", agency),
	zero(22, 23, "Zeros"),
	digits(24, 28, "Conta", "beneficiary.account", account),
	digits(29, 29, "DAC", "beneficiary.account_digit", accountDigit),
	blank(30, 33, "Brancos"),
	zero(34, 37, "Instrução/Alegação"),
	text(38, 62, "Uso da Empresa", "control", control),
	digits(63, 70, "Nosso Número", "our_number", ourNumber),
	zero(71, 83, "Qtde de Moeda"),
	digits(84, 86, "Nº da Carteira", "beneficiary.wallet", wallet),
	blank(87, 107, "Uso do Banco"),
	text(108, 108, "Carteira", "beneficiary.wallet", itauWalletCode),
	lit(109, 110, "Cód. de Ocorrência", "01"),
	text(111, 120, "Nº do Documento", "document_number", documentNumber),
	date6(121, 126, "Vencimento", "due", due),
	num(127, 139, "Valor do Título", "amount", amount),
	lit(140, 142, "Código do Banco", "341"),
	zero(143, 147, "Agência Cobradora"),
	text(148, 149, "Espécie", "kind", kindCode),
	lit(150, 150, "Aceite", "N"),
	date6(151, 156, "Data de Emissão", "issued", issued),
	// 09 protestar (days in 392-393), or 10 não protestar: "no
	// instruction" (00) would leave the account's standing protest
	// instruction in force, which 10 inhibits.
	num(157, 158, "Instrução 1", "protest_days", ifPositive(protestDays, 9, 10)),
	zero(159, 160, "Instrução 2"),
	num(161, 173, "Juros de 1 Dia", "interest_per_day", interestPerDay),
	date6(174, 179, "Desconto Até", "discount_until", discountUntil),
	num(180, 192, "Valor do Desconto", "discount", discount),
	zero(193, 205, "Valor do I.O.F."),
	zero(206, 218, "Abatimento"),
	num(219, 220, "Código de Inscrição", "payer.document", payerDocKind),
	taxID(221, 234, "Número de Inscrição", "payer.document", payerDoc),
	text(235, 264, "Nome", "payer.name", payerName),
	blank(265, 274, "Brancos"),
	text(275, 314, "Logradouro", "payer.address", payerAddress),
	text(315, 326, "Bairro", "payer.district", payerDistrict),
	digits(327, 334, "CEP", "payer.zip", payerZIP),
	text(335, 349, "Cidade", "payer.city", payerCity),
	text(350, 351, "Estado", "payer.state", payerState),
	blank(352, 381, "Sacador/Avalista"),
	blank(382, 385, "Brancos"),
	date6(386, 391, "Data de Mora", "interest_per_day", interestDate),
	num(392, 393, "Prazo", "protest_days", protestDays),
	blank(394, 394, "Brancos"),
	num(395, 400, "Número Seqüencial", "", recordNumber),
}}

// itau400Fine is the optional fine record (registro de multa, tipo 2),
// written when the title has a late fee.
var itau400Fine = record{name: "fine", when: hasFine, fields: []field{
	lit(1, 1, "Tipo de Registro", "2"),
	lit(2, 2, "Código da Multa", "2"),
	date8(3, 10, "Data da Multa", "due", due),
	num(11, 23, "Multa", "fine_percent", finePercent),
	blank(24, 394, "Brancos"),
	num(395, 400, "Número Seqüencial", "", recordNumber),
}}

var itau400Trailer = record{name: "trailer", fields: []field{
	lit(1, 1, "Tipo de Registro", "9"),
	blank(2, 394, "Brancos"),
	num(395, 400, "Número Seqüencial", "", recordNumber),
}}

func hasFine(s *state) bool { return s.fine > 0 }

// itauWalletCode is the wallet's one-letter code of note 5 of the manual:
// "E" for the dollar wallet 147, "U" for 150, "I" for the others.
func itauWalletCode(s *state) string {
	switch s.rem.Beneficiary.Wallet {
	case "147":
		return "E"
	case "150":
		return "U"
	}
	return "I"
}
