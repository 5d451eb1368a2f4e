package cnab

import "github.com/propfin/propfin/cnab/boleto"

// Banrisul (041), CNAB 400: "Cobrança Banrisul – Leiaute CNAB 400 Posições
// Padrão Febraban com Código de Agência com 4 Dígitos – Possibilita a
// Partilha dos Créditos", last updated Julho de 2015. Positions below are
// the document's "Início/Fim". The document asks for numeric fields that
// are not used to be left blank, for CR LF after every record and for the
// file-end character 0x1A after the trailer.
var banrisul400 = register(&spec{
	bank: "041", bankName: "Banrisul", layout: CNAB400,
	versions: []string{"2015-07"},
	interest: interestEither,
	eol:      "\r\n", finalEOL: true, eof: "\x1a",
	required: []string{"agency", "covenant"},
	kinds: map[Kind]string{
		KindDuplicataMercantil: "08", KindDuplicataServico: "08", KindRecibo: "08",
		KindNotaPromissoria: "08", KindOther: "08",
	},
	prepare: banrisul400Prepare,
	// "os campos numéricos não utilizados devem ficar em branco"
	blankNumbers: true,
	header:       []*record{&banrisul400Header},
	detail:       []*record{&banrisul400Detail},
	trailer:      []*record{&banrisul400Trailer},
})

// banrisulCedente is the código de cedente AAAACCCCCCCCC: the agency (4)
// and the beneficiary code (9) as the bank prints it, the 7-digit code
// followed by its two check digits NC (code 9000150 is 900015046). Both
// layouts carry it: CNAB 400 in its header and detail, CNAB 240 in the
// first 13 positions of its convênio.
func banrisulCedente(start int) []field {
	return []field{
		digits(start, start+3, "Código de cedente: agência", "beneficiary.agency", agency),
		digits(start+4, start+12, "Código de cedente: código de cedente com NC", "beneficiary.covenant", banrisulCode),
	}
}

// banrisulCode is the beneficiary code with its NC, from package boleto:
// the Covenant is the 7-digit code the slip's free field takes, and the
// NC is the rule of the nosso número. The remittance check has already
// validated the Covenant, so an error here is recorded, not expected.
func banrisulCode(s *state) string {
	code, err := boleto.BanrisulCode(covenant(s))
	if err != nil {
		s.failSlip(err)
	}
	return code
}

var banrisul400Header = record{name: "header", fields: fields(
	[]field{
		lit(1, 9, "01REMESSA", "01REMESSA"),
		blank(10, 26, "Brancos"),
	},
	banrisulCedente(27),
	[]field{
		blank(40, 46, "Brancos"),
		text(47, 76, "Nome da empresa", "beneficiary.name", benefName),
		lit(77, 87, "041BANRISUL", "041BANRISUL"),
		blank(88, 94, "Brancos"),
		date6(95, 100, "Data de gravação do arquivo", "created", created),
		blank(101, 109, "Brancos"),
		blank(110, 113, "Código do serviço"),
		blank(114, 114, "Brancos"),
		blank(115, 115, "Tipo de processamento"),
		blank(116, 116, "Brancos"),
		blank(117, 126, "Código do cliente no Office Banking"),
		blank(127, 394, "Brancos"),
		num(395, 400, "Número sequencial do registro", "", recordNumber),
	},
)}

var banrisul400Detail = record{name: "detail", fields: fields(
	[]field{
		lit(1, 1, "Tipo de registro", "1"),
		blank(2, 17, "Brancos"),
	},
	banrisulCedente(18),
	[]field{
		blank(31, 37, "Brancos"),
		text(38, 62, "Identificação do título para o beneficiário", "control", control),
		digits(63, 72, "Nosso número", "our_number", ourNumberFull),
		blank(73, 104, "Mensagem no bloqueto"),
		blank(105, 107, "Brancos"),
		lit(108, 108, "Tipo de carteira", "1"),
		lit(109, 110, "Código de ocorrência", "01"),
		text(111, 120, "Seu número", "document_number", documentNumber),
		date6(121, 126, "Data de vencimento do título", "due", due),
		num(127, 139, "Valor do título", "amount", amount),
		lit(140, 142, "Banco cobrador", "041"),
		blank(143, 147, "Brancos"),
		digits(148, 149, "Tipo de documento", "kind", kindCode),
		lit(150, 150, "Código de aceite", "N"),
		date6(151, 156, "Data da emissão do título", "issued", issued),
		num(157, 158, "Código da 1ª instrução", "protest_days", ifPositive(protestDays, 9, 23)),
		unused(num(159, 160, "Código da 2ª instrução", "fine_percent", ifPositive(finePercent, 18, 0))),
		text(161, 161, "Código de mora", "interest_per_day", banrisulInterestCode),
		unused(num(162, 173, "Valor ao dia ou taxa mensal de juros", "interest_per_day", interestValue)),
		unused(date6(174, 179, "Data para concessão do desconto", "discount_until", discountUntil)),
		unused(num(180, 192, "Valor do desconto a ser concedido", "discount", discount)),
		blank(193, 205, "Valor IOF"),
		blank(206, 218, "Valor do abatimento"),
		num(219, 220, "Tipo de inscrição do pagador", "payer.document", payerDocKind),
		taxID(221, 234, "Número de inscrição do pagador no MF", "payer.document", payerDoc),
		text(235, 269, "Nome do pagador", "payer.name", payerName),
		blank(270, 274, "Brancos"),
		text(275, 314, "Endereço do pagador", "payer.address", payerAddress),
		blank(315, 321, "Brancos"),
		unused(num(322, 324, "Taxa para multa após o vencimento", "fine_percent", banrisulFineRate)),
		text(325, 326, "Número de dias para multa após o vencimento", "fine_percent", banrisulFineDays),
		digits(327, 334, "CEP", "payer.zip", payerZIP),
		text(335, 349, "Cidade do pagador", "payer.city", payerCity),
		text(350, 351, "UF", "payer.state", payerState),
		blank(352, 355, "Taxa ao dia para pagamento antecipado"),
		blank(356, 356, "Brancos"),
		blank(357, 369, "Valor para cálculo do desconto"),
		unused(num(370, 371, "Número de dias para protesto", "protest_days", protestDays)),
		blank(372, 394, "Brancos"),
		num(395, 400, "Número sequencial do registro", "", recordNumber),
	},
)}

var banrisul400Trailer = record{name: "trailer", fields: []field{
	lit(1, 1, "Tipo de registro", "9"),
	blank(2, 27, "Brancos"),
	num(28, 40, "Total geral dos valores dos títulos", "titles", titleTotal),
	blank(41, 394, "Brancos"),
	num(395, 400, "Número sequencial do registro", "", recordNumber),
}}

// banrisulInterestCode is 0 for an amount per day, 1 for a monthly rate,
// and blank without interest.
func banrisulInterestCode(s *state) string {
	switch {
	case s.interest > 0:
		return "0"
	case s.rate > 0:
		return "1"
	}
	return ""
}

// banrisulFineRate is the fee rate with one decimal place (instruction 18).
func banrisulFineRate(s *state) int64 { return s.fine / 10 }

// banrisulFineDays is 00, "after the due date", when there is a fee.
func banrisulFineDays(s *state) string {
	if s.fine > 0 {
		return "00"
	}
	return ""
}

// banrisul400Prepare applies the document's rules: protest after 3 days or
// more (calendar days, the document names no other), the fee rate with one
// decimal place, and the slip printed by the beneficiary (tipo de documento
// 08, Cobrança Credenciada Banrisul, the one that needs the nosso número).
func banrisul400Prepare(s *state) {
	switch d := s.t.ProtestDays; {
	case d > 0 && d < 3:
		s.Fail("protest_days", "Banrisul protests after 3 days or more")
	case d > 0 && s.t.ProtestBusinessDays:
		s.Fail("protest_business_days", "Banrisul's CNAB 400 protest term is in calendar days")
	}
	if s.fine%10 != 0 {
		s.Fail("fine_percent", "Banrisul takes the fee rate with one decimal place")
	}
	if s.t.WriteOffDays != 0 {
		s.Fail("write_off_days", "not carried in Banrisul's CNAB 400 layout here")
	}
}
