package cnab

// Itaú (341), CNAB 240: "Cobrança Bancária – Intercâmbio Eletrônico de
// Arquivos – Layout de Arquivos FEBRABAN 240", Janeiro 2017 (leiaute do
// arquivo 040, do lote 030). Itaú departs from the FEBRABAN fields in the
// account block, the nosso número, the protest and write-off codes and the
// payer's name (30 positions). Positions below are the manual's "Posição".
var itau240 = register(&spec{
	bank: "341", bankName: "Itaú Unibanco", layout: CNAB240,
	versions: []string{"040"},
	eol:      "\r\n", finalEOL: true,
	required: []string{"agency", "account", "account_digit", "wallet"},
	kinds: map[Kind]string{
		KindDuplicataMercantil: "01", KindNotaPromissoria: "02", KindRecibo: "05",
		KindDuplicataServico: "08", KindOther: "99",
	},
	prepare:     itau240Prepare,
	header:      []*record{&itau240FileHeader},
	batchHeader: &itau240BatchHeader,
	detail:      []*record{&itau240P, &itau240Q, &itau240R},
	batchTrail:  &itau240BatchTrailer,
	trailer:     []*record{&itau240FileTrailer},
})

var itauBatchVersions = versionPair{"040": "030"}

var itau240FileHeader = record{name: "file header", fields: fields(
	fileHeaderStart240("341"),
	[]field{
		blank(33, 52, "Brancos"),
		zero(53, 53, "Zeros"),
		digits(54, 57, "Agência", "beneficiary.agency", agency),
		blank(58, 58, "Brancos"),
		zero(59, 65, "Zeros"),
		digits(66, 70, "Conta", "beneficiary.account", account),
		blank(71, 71, "Brancos"),
		digits(72, 72, "DAC", "beneficiary.account_digit", accountDigit),
	},
	fileHeaderFile240("BANCO ITAU SA", version),
	[]field{
		blank(172, 225, "Brancos"),
		zero(226, 228, "Zeros"),
		blank(229, 240, "Brancos"),
	},
)}

var itau240BatchHeader = record{name: "batch header", fields: fields(
	batchHeaderStart240("341", itauBatchVersions.batch, false),
	[]field{
		blank(34, 53, "Brancos"),
		zero(54, 54, "Zeros"),
		digits(55, 58, "Agência", "beneficiary.agency", agency),
		blank(59, 59, "Brancos"),
		zero(60, 66, "Zeros"),
		digits(67, 71, "Conta", "beneficiary.account", account),
		blank(72, 72, "Brancos"),
		digits(73, 73, "DAC", "beneficiary.account_digit", accountDigit),
	},
	batchHeaderEnd240(),
)}

var itau240P = record{name: "segment P", fields: fields(
	segment240("341", "P"),
	[]field{
		zero(18, 18, "Zeros"),
		digits(19, 22, "Agência", "beneficiary.agency", agency),
		blank(23, 23, "Brancos"),
		zero(24, 30, "Zeros"),
		digits(31, 35, "Conta", "beneficiary.account", account),
		blank(36, 36, "Brancos"),
		digits(37, 37, "DAC", "beneficiary.account_digit", accountDigit),
		digits(38, 40, "Nº da Carteira", "beneficiary.wallet", wallet),
		digits(41, 48, "Nosso Número", "our_number", ourNumber),
		digits(49, 49, "DAC do Nosso Número", "our_number", ourDigit),
		blank(50, 57, "Brancos"),
		zero(58, 62, "Zeros"),
		text(63, 72, "Nº do Documento", "document_number", documentNumber),
		blank(73, 77, "Brancos"),
	},
	titleP240(),
	[]field{
		zero(101, 105, "Agência Cobradora"),
		zero(106, 106, "DAC da Agência Cobradora"),
		digits(107, 108, "Espécie do Título", "kind", kindCode),
		lit(109, 109, "Aceite", "N"),
		date8(110, 117, "Data da Emissão do Título", "issued", issued),
		zero(118, 118, "Zeros"),
		date8(119, 126, "Data Base p/ Cobrança de Juros de Mora", "interest_per_day", interestDate),
		num(127, 141, "Juros de 1 Dia", "interest_per_day", interestPerDay),
		zero(142, 142, "Zeros"),
		date8(143, 150, "Data Limite do 1º Desconto", "discount_until", discountUntil),
		num(151, 165, "Valor do 1º Desconto", "discount", discount),
		zero(166, 180, "Valor do IOF"),
		zero(181, 195, "Valor do Abatimento"),
		text(196, 220, "Uso da Empresa", "control", control),
	},
	protestP240(),
	[]field{
		num(224, 224, "Código para Baixa", "write_off_days", ifPositive(writeOffDays, 1, 0)),
		num(225, 226, "Número de Dias para Baixa", "write_off_days", writeOffDays),
		zero(227, 239, "Zeros"),
		blank(240, 240, "Brancos"),
	},
)}

var itau240Q = record{name: "segment Q", fields: fields(
	segment240("341", "Q"),
	[]field{
		num(18, 18, "Tipo de Inscrição do Pagador", "payer.document", payerDocKind),
		taxID(19, 33, "Nº de Inscrição do Pagador", "payer.document", payerDoc),
		text(34, 63, "Nome do Pagador", "payer.name", payerName),
		blank(64, 73, "Brancos"),
		text(74, 113, "Rua, Número e Complemento do Pagador", "payer.address", payerAddress),
		text(114, 128, "Bairro do Pagador", "payer.district", payerDistrict),
		digits(129, 133, "CEP do Pagador", "payer.zip", payerZIP5),
		digits(134, 136, "Sufixo do CEP do Pagador", "payer.zip", payerZIP3),
		text(137, 151, "Cidade do Pagador", "payer.city", payerCity),
		text(152, 153, "Unidade da Federação do Pagador", "payer.state", payerState),
		zero(154, 154, "Tipo de Inscrição Sacador/Avalista"),
		zero(155, 169, "Número de Inscrição do Sacador/Avalista"),
		blank(170, 199, "Nome do Sacador/Avalista"),
		blank(200, 209, "Brancos"),
		zero(210, 212, "Zeros"),
		blank(213, 240, "Brancos"),
	},
)}

// itau240R carries the late fee; the manual asks for it only when there
// is one.
var itau240R = record{name: "segment R", when: hasFine, fields: fields(
	segment240("341", "R"),
	[]field{
		zero(18, 18, "Zeros"),
		zero(19, 26, "Data do 2º Desconto"),
		zero(27, 41, "Valor do 2º Desconto"),
		zero(42, 42, "Zeros"),
		zero(43, 50, "Data do 3º Desconto"),
		zero(51, 65, "Valor do 3º Desconto"),
		num(66, 66, "Código da Multa", "fine_percent", ifPositive(finePercent, 2, 0)),
		date8(67, 74, "Data da Multa", "fine_percent", fineDate),
		num(75, 89, "Multa", "fine_percent", finePercent),
		blank(90, 99, "Brancos"),
		blank(100, 139, "Informação ao Pagador"),
		blank(140, 199, "Brancos"),
		zero(200, 207, "Códigos de Ocorrência do Pagador"),
		zero(208, 215, "Zeros"),
		blank(216, 216, "Brancos"),
		zero(217, 228, "Zeros"),
		blank(229, 230, "Brancos"),
		zero(231, 231, "Zeros"),
		blank(232, 240, "Brancos"),
	},
)}

var itau240BatchTrailer = record{name: "batch trailer", fields: fields(
	batchTrailerStart240("341"),
	simpleTotals240(),
	[]field{
		zero(47, 52, "Qtde. de Títulos em Cobrança Vinculada"),
		zero(53, 69, "Valor Total Títulos em Cobrança Vinculada"),
		zero(70, 115, "Zeros"),
		blank(116, 123, "Aviso Bancário"),
		blank(124, 240, "Brancos"),
	},
)}

var itau240FileTrailer = record{name: "file trailer", fields: fields(
	fileTrailerStart240("341"), fileTrailerEnd240(),
)}

// itau240Prepare: the write-off term has two digits here (note 19).
func itau240Prepare(s *state) {
	if s.t.WriteOffDays > 99 {
		s.Fail("write_off_days", "Itaú CNAB 240 takes a write-off term of up to 99 days")
	}
}
