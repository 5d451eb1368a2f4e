package cnab

// Banrisul (041), CNAB 240: "Cobrança Banrisul – Leiaute CNAB 240
// Posições Padrão Febraban" (leiaute do arquivo 040, do lote 020). Positions
// below are the document's "Posição De/Até". Banrisul departs from the
// FEBRABAN fields in the convênio (agency and beneficiary code with its NC
// in its first 13 positions, as in its CNAB 400), the reserved "BE" in the
// file header, the protest code 3 ("não protestar", 2 reserved), the
// species AA (Cobrança Credenciada Banrisul: the beneficiary prints the
// slip) and the fee rate with one decimal place; like its CNAB 400, the
// file ends with the character 0x1A after the trailer's CR LF.
var banrisul240 = register(&spec{
	bank: "041", bankName: "Banrisul", layout: CNAB240,
	versions: []string{"040"},
	interest: interestEither,
	eol:      "\r\n", finalEOL: true, eof: "\x1a",
	required: []string{"agency", "account", "account_digit", "covenant"},
	kinds: map[Kind]string{
		KindDuplicataMercantil: "AA", KindDuplicataServico: "AA", KindRecibo: "AA",
		KindNotaPromissoria: "AA", KindOther: "AA",
	},
	prepare:     banrisul240Prepare,
	header:      []*record{&banrisul240FileHeader},
	batchHeader: &banrisul240BatchHeader,
	detail:      []*record{&banrisul240P, &banrisul240Q, &banrisul240R},
	batchTrail:  &banrisul240BatchTrailer,
	trailer:     []*record{&banrisul240FileTrailer},
})

var banrisulBatchVersions = versionPair{"040": "020"}

// banrisulConvenio240 is the 20-position convênio: the código de cedente
// of the CNAB 400 (agency, and beneficiary code with its NC) in its first
// 13 positions, blanks after.
func banrisulConvenio240(start int) []field {
	return append(banrisulCedente(start), blank(start+13, start+19, "Código do Beneficiário: brancos"))
}

// banrisulAccount240 is the agency and account block of the headers and
// segment P: agency 0AAAA, a blank agency digit, the account 000EECCCCCCC
// and its digit, a blank agency/account digit.
func banrisulAccount240(start int) []field {
	return []field{
		digits(start, start+4, "Agência mantenedora da conta", "beneficiary.agency", agency),
		blank(start+5, start+5, "Dígito verificador da agência"),
		digits(start+6, start+17, "Número da conta corrente", "beneficiary.account", account),
		digits(start+18, start+18, "Dígito verificador da conta", "beneficiary.account_digit", accountDigit),
		blank(start+19, start+19, "Dígito verificador da Ag/Conta"),
	}
}

var banrisul240FileHeader = record{name: "file header", fields: fields(
	fileHeaderStart240("041"),
	banrisulConvenio240(33),
	banrisulAccount240(53),
	fileHeaderFile240("BANRISUL", version),
	[]field{
		blank(172, 179, "Uso reservado do Banco"),
		lit(180, 181, "Uso reservado do Banco – remessa", "BE"),
		blank(182, 191, "Uso reservado do Banco BFQ/BBM"),
		blank(192, 211, "Para uso reservado da empresa"),
		blank(212, 222, "Uso exclusivo FEBRABAN/CNAB"),
		blank(223, 225, "Identificação da cobrança sem papel"),
		blank(226, 228, "Uso exclusivo das VANS"),
		blank(229, 230, "Tipo de serviço"),
		blank(231, 240, "Código das ocorrências"),
	},
)}

var banrisul240BatchHeader = record{name: "batch header", fields: fields(
	batchHeaderStart240("041", banrisulBatchVersions.batch, false),
	banrisulConvenio240(34),
	banrisulAccount240(54),
	batchHeaderEnd240(),
)}

var banrisul240P = record{name: "segment P", fields: fields(
	segment240("041", "P"),
	banrisulAccount240(18),
	[]field{
		digits(38, 47, "Identificação do título no Banco", "our_number", ourNumberFull),
		blank(48, 57, "Identificação do título no Banco: além das 10 primeiras posições"),
		lit(58, 58, "Código da carteira", "1"),
		lit(59, 59, "Forma de cadastramento do título no Banco", "1"),
		blank(60, 60, "Tipo de documento"),
		lit(61, 61, "Identificação da emissão do bloqueto", "2"),
		blank(62, 62, "Identificação da distribuição"),
		text(63, 77, "Número do documento de cobrança", "document_number", documentNumber),
	},
	titleP240(),
	[]field{
		zero(101, 105, "Agência encarregada da cobrança"),
		blank(106, 106, "Dígito verificador da agência"),
		text(107, 108, "Espécie do título", "kind", kindCode),
		lit(109, 109, "Identificação de título aceito/não aceito", "N"),
		date8(110, 117, "Data da emissão do título", "issued", issued),
		num(118, 118, "Código dos juros de mora", "interest_per_day", interestCode(1, 2, 0)),
		date8(119, 126, "Data dos juros de mora", "interest_per_day", interestDate),
		num(127, 141, "Juros de mora por dia/taxa", "interest_per_day", interestValue),
		num(142, 142, "Código do desconto 1", "discount", ifPositive(discount, 1, 0)),
		date8(143, 150, "Data do desconto 1", "discount_until", discountUntil),
		num(151, 165, "Valor ou percentual a ser concedido", "discount", discount),
		zero(166, 180, "Valor do IOF a ser recolhido"),
		zero(181, 195, "Valor do abatimento"),
		text(196, 220, "Identificação do título na empresa", "control", control),
		num(221, 221, "Código para protesto", "protest_days", ifPositive(protestDays, 1, 3)),
		num(222, 223, "Número de dias para protesto", "protest_days", protestDays),
		num(224, 224, "Código para baixa ou devolução", "write_off_days", ifPositive(writeOffDays, 1, 0)),
		num(225, 227, "Número de dias para baixa/devolução", "write_off_days", writeOffDays),
		lit(228, 229, "Código da moeda", "09"),
		zero(230, 239, "Número do contrato da operação de crédito"),
		blank(240, 240, "Uso exclusivo FEBRABAN/CNAB"),
	},
)}

var banrisul240Q = record{name: "segment Q", fields: fields(
	segment240("041", "Q"), payerQ240(), correspondentQ240(),
)}

var banrisul240R = record{name: "segment R", fields: fields(
	segment240("041", "R"),
	[]field{
		zero(18, 18, "Código do desconto 2"),
		zero(19, 26, "Data do desconto 2"),
		zero(27, 41, "Valor/Percentual a ser concedido 2"),
		zero(42, 42, "Código do desconto 3"),
		zero(43, 50, "Data do desconto 3"),
		zero(51, 65, "Valor/Percentual a ser concedido 3"),
		num(66, 66, "Código da multa", "fine_percent", ifPositive(finePercent, 3, 0)),
		date8(67, 74, "Data da multa", "fine_percent", fineDate),
		num(75, 89, "Valor/Percentual a ser aplicado", "fine_percent", banrisulFineRate),
		blank(90, 99, "Informação do Banco ao pagador"),
		blank(100, 139, "Mensagem 3"),
		blank(140, 179, "Mensagem 4"),
		zero(180, 182, "Código do Banco da conta do débito"),
		zero(183, 186, "Código da agência do débito"),
		zero(187, 199, "Conta corrente/DV do débito"),
		zero(200, 207, "Códigos de ocorrência do pagador"),
		blank(208, 240, "Uso exclusivo FEBRABAN/CNAB"),
	},
)}

var banrisul240BatchTrailer = record{name: "batch trailer", fields: fields(
	batchTrailerStart240("041"), simpleTotals240(), otherTotals240(),
)}

var banrisul240FileTrailer = record{name: "file trailer", fields: fields(
	fileTrailerStart240("041"), fileTrailerEnd240(),
)}

// banrisul240Prepare: protest after 3 days or more in calendar days (code
// 2 is reserved), the fee rate with one decimal place, and a write-off
// term whose last two digits the bank reads.
func banrisul240Prepare(s *state) {
	switch d := s.t.ProtestDays; {
	case d > 0 && d < 3:
		s.Fail("protest_days", "Banrisul protests after 3 days or more")
	case d > 0 && s.t.ProtestBusinessDays:
		s.Fail("protest_business_days", "Banrisul protests in calendar days only (code 2 is reserved)")
	}
	if s.fine%10 != 0 {
		s.Fail("fine_percent", "Banrisul takes the fee rate with one decimal place")
	}
	if s.t.WriteOffDays > 99 {
		s.Fail("write_off_days", "Banrisul reads two digits of the write-off term")
	}
}
