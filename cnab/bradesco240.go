package cnab

// Bradesco (237), CNAB 240: "Manual de Procedimentos Operacionais para Troca
// de Arquivos 240 posições", Nº 4008.524.0339, versão 06, 07/2017 (leiaute
// do arquivo 084, do lote 042). Positions below are the manual's "Posição
// De/Até"; the record follows the FEBRABAN layout.
var bradesco240 = register(&spec{
	bank: "237", bankName: "Bradesco", layout: CNAB240,
	versions: []string{"084"},
	interest: interestEither,
	eol:      "\r\n", finalEOL: true,
	required: []string{"agency", "agency_digit", "account", "account_digit", "wallet", "covenant"},
	kinds: map[Kind]string{
		KindDuplicataMercantil: "02", KindDuplicataServico: "04", KindNotaPromissoria: "12",
		KindRecibo: "17", KindOther: "99",
	},
	header:      []*record{&bradesco240FileHeader},
	batchHeader: &bradesco240BatchHeader,
	detail:      []*record{&bradesco240P, &bradesco240Q, &bradesco240R},
	batchTrail:  &bradesco240BatchTrailer,
	trailer:     []*record{&bradesco240FileTrailer},
})

var bradescoBatchVersions = versionPair{"084": "042"}

// bradescoAccount240 is the convênio, agency and account block of the
// headers (07.0-12.0 and 11.1-16.1).
func bradescoAccount240(start int) []field {
	return []field{
		digits(start, start+19, "Código do Convênio no Banco", "beneficiary.covenant", covenant),
		digits(start+20, start+24, "Agência Mantenedora da Conta", "beneficiary.agency", agency),
		text(start+25, start+25, "Dígito Verificador da Agência", "beneficiary.agency_digit", agencyDigit),
		digits(start+26, start+37, "Número da Conta Corrente", "beneficiary.account", account),
		text(start+38, start+38, "Dígito Verificador da Conta", "beneficiary.account_digit", accountDigit),
		blank(start+39, start+39, "Dígito Verificador da Ag/Conta"),
	}
}

var bradesco240FileHeader = record{name: "file header", fields: fields(
	fileHeaderStart240("237"),
	bradescoAccount240(33),
	[]field{
		text(73, 102, "Nome da Empresa", "beneficiary.name", benefName),
		lit(103, 132, "Nome do Banco", padRight("BRADESCO", 30)),
		blank(133, 142, "Uso Exclusivo FEBRABAN / CNAB"),
		lit(143, 143, "Código Remessa / Retorno", "1"),
		date8(144, 151, "Data de Geração do Arquivo", "created", created),
		num(152, 157, "Hora de Geração do Arquivo", "created", createdTime),
		num(158, 163, "Número Seqüencial do Arquivo", "sequence", sequence),
		digits(164, 166, "Nº da Versão do Layout do Arquivo", "version", version),
		lit(167, 171, "Densidade de Gravação do Arquivo", "01600"),
		blank(172, 191, "Para Uso Reservado do Banco"),
		blank(192, 211, "Para Uso Reservado da Empresa"),
		blank(212, 240, "Uso Exclusivo FEBRABAN / CNAB"),
	},
)}

var bradesco240BatchHeader = record{name: "batch header", fields: fields(
	batchHeaderStart240("237", bradescoBatchVersions.batch, true),
	bradescoAccount240(34),
	batchHeaderEnd240(),
)}

var bradesco240P = record{name: "segment P", fields: fields(
	segment240("237", "P"),
	[]field{
		digits(18, 22, "Agência Mantenedora da Conta", "beneficiary.agency", agency),
		text(23, 23, "Dígito Verificador da Agência", "beneficiary.agency_digit", agencyDigit),
		digits(24, 35, "Número da Conta Corrente", "beneficiary.account", account),
		text(36, 36, "Dígito Verificador da Conta", "beneficiary.account_digit", accountDigit),
		blank(37, 37, "Dígito Verificador da Ag/Conta"),
		digits(38, 40, "Identificação do Produto", "beneficiary.wallet", wallet),
		zero(41, 45, "Zeros"),
		digits(46, 56, "Nosso Número", "our_number", ourNumber),
		text(57, 57, "Digito do Nosso Número", "our_number", ourDigit),
		lit(58, 58, "Código da Carteira", "1"),
		lit(59, 59, "Forma de Cadastr. do Título no Banco", "1"),
		lit(60, 60, "Tipo de Documento", "1"),
		lit(61, 61, "Identificação da Emissão do Bloqueto", "2"),
		lit(62, 62, "Identificação da Distribuição", "2"),
		text(63, 77, "Número do Documento de Cobrança", "document_number", documentNumber),
	},
	titleP240(),
	[]field{
		zero(101, 105, "Agência Encarregada da Cobrança"),
		blank(106, 106, "Dígito Verificador da Agência"),
	},
	chargesP240(3, interestDate),
	[]field{text(196, 220, "Identificação do Título na Empresa", "control", control)},
	protestP240(),
	[]field{
		num(224, 224, "Código para Baixa/Devolução", "write_off_days", ifPositive(writeOffDays, 1, 2)),
		num(225, 227, "Número de Dias para Baixa/Devolução", "write_off_days", writeOffDays),
		lit(228, 229, "Código da Moeda", "09"),
		zero(230, 239, "Nº do Contrato da Operação de Créd."),
		blank(240, 240, "Uso Exclusivo FEBRABAN/CNAB"),
	},
)}

var bradesco240Q = record{name: "segment Q", fields: fields(
	segment240("237", "Q"), payerQ240(), correspondentQ240(),
)}

var bradesco240R = record{name: "segment R", fields: fields(
	segment240("237", "R"), discountsFineR240(fineDate), messagesR240(),
)}

var bradesco240BatchTrailer = record{name: "batch trailer", fields: fields(
	batchTrailerStart240("237"), simpleTotals240(), otherTotals240(),
)}

var bradesco240FileTrailer = record{name: "file trailer", fields: fields(
	fileTrailerStart240("237"), fileTrailerEnd240(),
)}
