package cnab

// Banco do Brasil (001), CNAB 240: "Particularidades BB – Leiaute CNAB 240",
// Agosto/2017, over the FEBRABAN 240 layout. Positions below are the
// document's "Posição De/Até" columns.
var bb240 = register(&spec{
	bank: "001", bankName: "Banco do Brasil", layout: CNAB240,
	versions: []string{"083", "084", "082", "080", "040", "030"},
	interest: interestEither,
	eol:      "\r\n", finalEOL: true,
	required: []string{"agency", "agency_digit", "account", "account_digit", "wallet", "wallet_variation", "covenant"},
	wallets:  []string{"11", "12", "15", "17", "31", "51"},
	kinds: map[Kind]string{
		KindDuplicataMercantil: "02", KindDuplicataServico: "04", KindNotaPromissoria: "12",
		KindRecibo: "17",
	},
	header:      []*record{&bb240FileHeader},
	batchHeader: &bb240BatchHeader,
	detail:      []*record{&bb240P, &bb240Q, &bb240R},
	batchTrail:  &bb240BatchTrailer,
	trailer:     []*record{&bb240FileTrailer},
})

// bbBatchVersions is note 07.1: each file version goes with one batch
// version.
var bbBatchVersions = versionPair{"084": "043", "083": "042", "082": "041", "080": "040", "040": "030", "030": "020"}

// bbCovenant240 is field 07.0 / 11.1 split as BB1 to BB4: the covenant
// (9), 0014 for cobrança cedente, the wallet (2) and its variation (3).
func bbCovenant240(start int) []field {
	return []field{
		digits(start, start+8, "Número do convênio de cobrança BB", "beneficiary.covenant", covenant),
		lit(start+9, start+12, "Cobrança Cedente BB", "0014"),
		digits(start+13, start+14, "Número da carteira de cobrança BB", "beneficiary.wallet", wallet),
		digits(start+15, start+17, "Número da variação da carteira de cobrança BB", "beneficiary.wallet_variation", walletVariation),
	}
}

var bb240FileHeader = record{name: "file header", fields: fields(
	fileHeaderStart240("001"),
	bbCovenant240(33),
	[]field{
		blank(51, 52, "Campo reservado BB"),
		digits(53, 57, "Agência Mantenedora da Conta", "beneficiary.agency", agency),
		text(58, 58, "Dígito Verificador da Agência", "beneficiary.agency_digit", agencyDigit),
		digits(59, 70, "Número da Conta Corrente", "beneficiary.account", account),
		text(71, 71, "Dígito Verificador da Conta", "beneficiary.account_digit", accountDigit),
		blank(72, 72, "Dígito Verificador da Ag/Conta"),
	},
	fileHeaderFile240("BANCO DO BRASIL S.A.", version),
	[]field{
		blank(172, 191, "Para Uso Reservado do Banco"),
		blank(192, 211, "Para Uso Reservado da Empresa"),
		blank(212, 240, "Uso Exclusivo FEBRABAN / CNAB"),
	},
)}

var bb240BatchHeader = record{name: "batch header", fields: fields(
	batchHeaderStart240("001", bbBatchVersions.batch, true),
	bbCovenant240(34),
	[]field{
		text(52, 53, "Campo que identifica remessa de testes", "test", bbTestMark),
		digits(54, 58, "Agência Mantenedora da Conta", "beneficiary.agency", agency),
		text(59, 59, "Dígito Verificador da Agência", "beneficiary.agency_digit", agencyDigit),
		digits(60, 71, "Número da Conta Corrente", "beneficiary.account", account),
		text(72, 72, "Dígito Verificador da Conta", "beneficiary.account_digit", accountDigit),
		blank(73, 73, "Dígito Verificador da Ag/Conta"),
	},
	batchHeaderEnd240(),
)}

var bb240P = record{name: "segment P", fields: fields(
	segment240("001", "P"),
	[]field{
		digits(18, 22, "Agência Mantenedora da Conta", "beneficiary.agency", agency),
		text(23, 23, "Dígito Verificador da Agência", "beneficiary.agency_digit", agencyDigit),
		digits(24, 35, "Número da Conta Corrente", "beneficiary.account", account),
		text(36, 36, "Dígito Verificador da Conta", "beneficiary.account_digit", accountDigit),
		blank(37, 37, "Dígito Verificador da Ag/Conta"),
		text(38, 57, "Identificação do Título no Banco", "our_number", ourNumberText),
		num(58, 58, "Código da Carteira", "beneficiary.wallet", bbWalletCode),
		lit(59, 59, "Forma de Cadastr. do Título no Banco", "1"),
		lit(60, 60, "Tipo de Documento", "1"),
		num(61, 61, "Identificação da Emissão do Bloqueto", "beneficiary.wallet", bbIssuer),
		num(62, 62, "Identificação da Distribuição", "beneficiary.wallet", bbIssuer),
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
		zero(224, 224, "Código para Baixa/Devolução"),
		zero(225, 227, "Número de Dias para Baixa/Devolução"),
		lit(228, 229, "Código da Moeda", "09"),
		zero(230, 239, "Nº do Contrato da Operação de Créd."),
		blank(240, 240, "Autorização de Pagamento Parcial"),
	},
)}

var bb240Q = record{name: "segment Q", fields: fields(
	segment240("001", "Q"), payerQ240(), correspondentQ240(),
)}

var bb240R = record{name: "segment R", fields: fields(
	segment240("001", "R"), discountsFineR240(fineDate), messagesR240(),
)}

var bb240BatchTrailer = record{name: "batch trailer", fields: fields(
	batchTrailerStart240("001"), simpleTotals240(), otherTotals240(),
)}

var bb240FileTrailer = record{name: "file trailer", fields: fields(
	fileTrailerStart240("001"), fileTrailerEnd240(),
)}

// bbWalletCode is note 14.3P for cobrança simples: 7 for wallet 17, 1 for
// wallets 11 and 12, 2 for 31 (caucionada) and 4 for 51 (descontada).
func bbWalletCode(s *state) int64 {
	switch s.rem.Beneficiary.Wallet {
	case "17":
		return 7
	case "31":
		return 2
	case "51":
		return 4
	}
	return 1
}

// bbIssuer is notes 17.3P and 18.3P: the beneficiary issues and delivers
// the slips (2) in wallet 17; wallets 11, 12, 31 and 51 must say the bank
// does (1).
func bbIssuer(s *state) int64 {
	if s.rem.Beneficiary.Wallet == "17" {
		return 2
	}
	return 1
}

// bbTestMark is field BB5 of 11.1: TS for a test file, blanks otherwise.
func bbTestMark(s *state) string {
	if s.rem.Test {
		return "TS"
	}
	return ""
}
