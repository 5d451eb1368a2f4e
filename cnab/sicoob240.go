package cnab

// Sicoob (756), CNAB 240: "Layouts para troca de informações", planilha
// "05.Remessa – Opção CNAB240", Fevereiro/2017 (leiaute do arquivo 081, do
// lote 040). Positions below are the planilha's "Posição De/Até"; the
// planilha asks for CR LF line endings.
var sicoob240 = register(&spec{
	bank: "756", bankName: "Sicoob", layout: CNAB240,
	versions: []string{"081"},
	interest: interestEither,
	eol:      "\r\n", finalEOL: false,
	required: []string{"agency", "agency_digit", "account", "account_digit", "covenant"},
	wallets:  []string{"1"},
	kinds: map[Kind]string{
		KindDuplicataMercantil: "02", KindDuplicataServico: "04", KindNotaPromissoria: "12",
		KindRecibo: "17", KindOther: "99",
	},
	header:      []*record{&sicoob240FileHeader},
	batchHeader: &sicoob240BatchHeader,
	detail:      []*record{&sicoob240P, &sicoob240Q, &sicoob240R},
	batchTrail:  &sicoob240BatchTrailer,
	trailer:     []*record{&sicoob240FileTrailer},
})

var sicoobBatchVersions = versionPair{"081": "040"}

// sicoobAccount240 is the cooperative and account block shared by the
// headers and segment P.
func sicoobAccount240(start int) []field {
	return []field{
		digits(start, start+4, "Prefixo da Cooperativa", "beneficiary.agency", agency),
		text(start+5, start+5, "Dígito Verificador do Prefixo", "beneficiary.agency_digit", agencyDigit),
		digits(start+6, start+17, "Conta Corrente", "beneficiary.account", account),
		text(start+18, start+18, "Dígito Verificador da Conta", "beneficiary.account_digit", accountDigit),
	}
}

var sicoob240FileHeader = record{name: "file header", fields: fields(
	fileHeaderStart240("756"),
	[]field{blank(33, 52, "Código do Convênio no Sicoob")},
	sicoobAccount240(53),
	[]field{zero(72, 72, "Dígito Verificador da Ag/Conta")},
	fileHeaderFile240("SICOOB", version),
	[]field{
		blank(172, 191, "Para Uso Reservado do Banco"),
		blank(192, 211, "Para Uso Reservado da Empresa"),
		blank(212, 240, "Uso Exclusivo FEBRABAN / CNAB"),
	},
)}

var sicoob240BatchHeader = record{name: "batch header", fields: fields(
	batchHeaderStart240("756", sicoobBatchVersions.batch, true),
	[]field{blank(34, 53, "Código do Convênio no Banco")},
	sicoobAccount240(54),
	[]field{blank(73, 73, "Dígito Verificador da Ag/Conta")},
	batchHeaderEnd240(),
)}

var sicoob240P = record{name: "segment P", fields: fields(
	segment240("756", "P"),
	sicoobAccount240(18),
	[]field{
		blank(37, 37, "Dígito Verificador da Ag/Conta"),
		digits(38, 47, "Nosso Número: NumTitulo", "our_number", ourNumberFull),
		lit(48, 49, "Nosso Número: Parcela", "01"),
		digits(50, 51, "Nosso Número: Modalidade", "beneficiary.modality", sicoobModality),
		lit(52, 52, "Nosso Número: Tipo Formulário", "4"),
		blank(53, 57, "Nosso Número: Em branco"),
		digits(58, 58, "Código da Carteira", "beneficiary.wallet", wallet),
		lit(59, 59, "Forma de Cadastr. do Título no Banco", "0"),
		blank(60, 60, "Tipo de Documento"),
		lit(61, 61, "Identificação da Emissão do Boleto", "2"),
		lit(62, 62, "Identificação da Distribuição do Boleto", "2"),
		text(63, 77, "Número do Documento de Cobrança", "document_number", documentNumber),
	},
	titleP240(),
	[]field{
		zero(101, 105, "Agência Encarregada da Cobrança"),
		blank(106, 106, "Dígito Verificador da Agência"),
	},
	chargesP240(0, dueIfInterest),
	[]field{text(196, 220, "Identificação do Título na Empresa", "control", control)},
	protestP240(),
	[]field{
		zero(224, 224, "Código para Baixa/Devolução"),
		blank(225, 227, "Número de Dias para Baixa/Devolução"),
		lit(228, 229, "Código da Moeda", "09"),
		zero(230, 239, "Nº do Contrato da Operação de Créd."),
		blank(240, 240, "Uso Exclusivo FEBRABAN/CNAB"),
	},
)}

var sicoob240Q = record{name: "segment Q", fields: fields(
	segment240("756", "Q"), payerQ240(), correspondentQ240(),
)}

var sicoob240R = record{name: "segment R", fields: fields(
	segment240("756", "R"), discountsFineR240(dueIfFine), messagesR240(),
)}

var sicoob240BatchTrailer = record{name: "batch trailer", fields: fields(
	batchTrailerStart240("756"), simpleTotals240(), otherTotals240(),
)}

var sicoob240FileTrailer = record{name: "file trailer", fields: fields(
	fileTrailerStart240("756"), fileTrailerEnd240(),
)}

// sicoobModality is the collection modality, "01" (simples com registro)
// unless the beneficiary has another.
func sicoobModality(s *state) string {
	if m := s.rem.Beneficiary.Modality; m != "" {
		return m
	}
	return "01"
}
