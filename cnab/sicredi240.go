package cnab

// Sicredi (748), CNAB 240: "Manual CNAB 240 – Cobrança Sicredi", agosto
// de 2019, leiaute do arquivo 081 e do lote 040. Positions below are the
// manual's "Posição De/Até" columns.
var sicredi240 = register(&spec{
	bank: "748", bankName: "Sicredi", layout: CNAB240,
	versions: []string{"081"},
	interest: interestEither,
	eol:      "\r\n", finalEOL: true,
	required: []string{"agency", "account", "account_digit", "covenant", "station"},
	kinds: map[Kind]string{
		KindDuplicataMercantil: "03", KindDuplicataServico: "05", KindNotaPromissoria: "12",
		KindRecibo: "17", KindOther: "99",
	},
	prepare:     sicredi240Prepare,
	header:      []*record{&sicredi240FileHeader},
	batchHeader: &sicredi240BatchHeader,
	detail:      []*record{&sicredi240P, &sicredi240Q, &sicredi240R},
	batchTrail:  &sicredi240BatchTrailer,
	trailer:     []*record{&sicredi240FileTrailer},
})

var sicrediBatchVersions = versionPair{"081": "040"}

var sicredi240FileHeader = record{name: "file header", fields: fields(
	fileHeaderStart240("748"),
	[]field{
		blank(33, 52, "Código do convênio no banco"),
		digits(53, 57, "Agência mantenedora da conta", "beneficiary.agency", agency),
		blank(58, 58, "Dígito verificador da agência"),
		digits(59, 70, "Conta Corrente do Beneficiário", "beneficiary.account", account),
		digits(71, 71, "Dígito verificador da conta", "beneficiary.account_digit", accountDigit),
		blank(72, 72, "Não utilizado"),
	},
	[]field{
		text(73, 102, "Nome da Empresa", "beneficiary.name", benefName),
		lit(103, 132, "Nome do Banco", padRight("SICREDI", 30)),
		blank(133, 142, "Uso exclusivo FEBRABAN/CNAB"),
		lit(143, 143, "Código remessa / retorno", "1"),
		date8(144, 151, "Data de geração do arquivo", "created", created),
		num(152, 157, "Hora de geração do arquivo", "created", createdTime),
		num(158, 163, "Número sequencial do arquivo", "sequence", sequence),
		digits(164, 166, "Nº da versão do leiaute do arquivo", "version", version),
		lit(167, 171, "Densidade de gravação do arquivo", "01600"),
		blank(172, 191, "Para uso reservado do Banco"),
		blank(192, 211, "Para uso reservado da Empresa"),
		blank(212, 240, "Uso exclusivo FEBRABAN/CNAB"),
	},
)}

var sicredi240BatchHeader = record{name: "batch header", fields: fields(
	batchHeaderStart240("748", sicrediBatchVersions.batch, true),
	[]field{
		blank(34, 53, "Código do convênio no banco"),
		digits(54, 58, "Agência mantenedora da conta", "beneficiary.agency", agency),
		blank(59, 59, "Dígito verificador da agência"),
		digits(60, 71, "Código da conta corrente do associado", "beneficiary.account", account),
		digits(72, 72, "Dígito verificador da conta", "beneficiary.account_digit", accountDigit),
		blank(73, 73, "Dígito verificador da coop/ag/conta"),
	},
	batchHeaderEnd240(),
)}

var sicredi240P = record{name: "segment P", fields: fields(
	segment240("748", "P"),
	[]field{
		digits(18, 22, "Agência mantenedora da conta", "beneficiary.agency", agency),
		blank(23, 23, "Dígito verificador da agência"),
		digits(24, 35, "Número da conta corrente", "beneficiary.account", account),
		digits(36, 36, "Dígito verificador da conta", "beneficiary.account_digit", accountDigit),
		blank(37, 37, "Dígito verificador da coop/ag/conta"),
		text(38, 57, "Identificação do título no banco", "our_number", ourNumberText),
		lit(58, 58, "Código da carteira", "1"),
		lit(59, 59, "Forma de cad. do título no banco", "1"),
		lit(60, 60, "Tipo de documento", "1"),
		lit(61, 61, "Ident. emissão do boleto", "2"),
		lit(62, 62, "Identificação da distribuição", "2"),
		text(63, 77, "Nº do documento de cobrança", "document_number", documentNumber),
	},
	titleP240(),
	[]field{
		zero(101, 105, "Cooperativa / agência cobradora"),
		blank(106, 106, "Dígito verificador da coop./agência"),
	},
	chargesP240(3, interestDate),
	[]field{
		text(196, 220, "Identificação do título na empresa", "control", control),
		num(221, 221, "Código para protesto/negativação", "protest_days", ifPositive(protestDays, 1, 3)),
		num(222, 223, "Número de dias para protesto/negativação", "protest_days", protestDays),
		lit(224, 224, "Código para baixa/devolução", "1"),
		lit(225, 227, "Nº de dias para baixa/devolução", "060"),
		lit(228, 229, "Código da moeda", "09"),
		zero(230, 239, "Nº do contrato da operação de créd."),
		blank(240, 240, "Uso exclusivo FEBRABAN/CNAB"),
	},
)}

var sicredi240Q = record{name: "segment Q", fields: fields(
	segment240("748", "Q"), payerQ240(), correspondentQ240(),
)}

var sicredi240R = record{name: "segment R", fields: fields(
	segment240("748", "R"), discountsFineR240(fineDate), messagesR240(),
)}

var sicredi240BatchTrailer = record{name: "batch trailer", fields: fields(
	batchTrailerStart240("748"), simpleTotals240(), otherTotals240(),
)}

var sicredi240FileTrailer = record{name: "file trailer", fields: fields(
	fileTrailerStart240("748"), fileTrailerEnd240(),
)}

// sicredi240Prepare applies the manual's rules the FEBRABAN pieces do not:
// protest is in calendar days only, and baixa/devolução is always 60 days
// (fields 38.3P and 39.3P).
func sicredi240Prepare(s *state) {
	if s.t.ProtestBusinessDays && s.t.ProtestDays > 0 {
		s.Fail("protest_business_days", "Sicredi protests in calendar days only")
	}
	if s.t.WriteOffDays != 0 && s.t.WriteOffDays != 60 {
		s.Fail("write_off_days", "Sicredi always writes titles off 60 days after the due date")
	}
}
