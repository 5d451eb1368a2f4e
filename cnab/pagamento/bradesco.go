package pagamento

import "strings"

// Bradesco (237): "Manual de Procedimentos Multipag Bradesco (240
// Posições)", Versão 6 – julho/2023, the FEBRABAN 240 payment layout with
// the PIX fields. Positions below are the document's "Posição De/Até"
// columns; the codes in comments are its field descriptions (G029 forma
// de lançamento, G100 forma de iniciação, P001 câmara, ...).
var bradesco = register(&bank{
	code: "237", name: "BANCO BRADESCO S.A.",
	document: "Manual de Procedimentos Multipag Bradesco (240 Posições), Versão 6 – julho/2023",
	eol:      "\r\n", finalEOL: true, pixFileOnly: true,
	fileHeader:   &bradescoFileHeader,
	fileTrailer:  &bradescoFileTrailer,
	batchTrailer: &bradescoBatchTrailer,
	batchHeaderA: &bradescoBatchHeaderA,
	batchHeaderJ: &bradescoBatchHeaderJ,
	detail:       febrabanDetail(&bradescoA, &bradescoB, &bradescoBPix, &bradescoJ, &bradescoJ52),
	forma:        febrabanForma,
	checkPayer:   requireCovenant,
	covenant:     true,
})

// febrabanDetail picks the segments of a payment: A and B (the PIX form
// of B for a PIX) for transfers, J and J-52 for boletos.
func febrabanDetail(a, b, bPix, j, j52 *record) func(*state) []*record {
	ab, abPix, jj := []*record{a, b}, []*record{a, bPix}, []*record{j, j52}
	return func(s *state) []*record {
		switch s.p.Kind {
		case KindPIX, KindPIXKey:
			return abPix
		case KindBoleto:
			return jj
		}
		return ab
	}
}

// febrabanForma is G029: 01 crédito em conta corrente (an account at the
// payer's bank), 41 TED outra titularidade, 43 TED mesma titularidade,
// 45 Pix transferência, 30 liquidação de títulos do próprio banco, 31
// pagamento de títulos de outros bancos.
func febrabanForma(s *state) string {
	switch s.p.Kind {
	case KindPIX, KindPIXKey:
		return "45"
	case KindBoleto:
		return boletoForma(s)
	}
	switch {
	case !s.isTED():
		return "01"
	case s.sameHolder():
		return "43"
	}
	return "41"
}

func requireCovenant(s *state) { requireCovenantText(s, "the payment agreement code") }

// requireCovenantText requires an agreement code that fits the 20
// characters of 33-52 (G007): a truncated code would name another
// agreement, so it is an error, not a warning.
func requireCovenantText(s *state, what string) {
	c := s.rem.Payer.Covenant
	switch {
	case strings.TrimSpace(c) == "":
		s.Fail("payer.covenant", "required by bank "+s.rem.Bank+": "+what)
	case len([]rune(c)) > 20:
		s.Fail("payer.covenant", "longer than the 20 characters of Código do Convênio (G007)")
	}
}

// control240 is "Controle" (1-8): bank, batch and record type. The file
// header and trailer have the fixed batches 0000 and 9999.
func control240(bank, batch, typ string) []field {
	lot := lit(4, 7, "Lote de Serviço", batch)
	if batch == "" {
		lot = num(4, 7, "Lote de Serviço", "", batchNumber)
	}
	return []field{
		lit(1, 3, "Código do Banco na Compensação", bank),
		lot,
		lit(8, 8, "Tipo de Registro", typ),
	}
}

// segment240 is positions 1-14 of a detail segment.
func segment240(bank, letter string) []field {
	return append(control240(bank, "", "3"),
		num(9, 13, "Nº Seqüencial do Registro no Lote", "", batchRecordNumber),
		lit(14, 14, "Código de Segmento do Reg. Detalhe", letter),
	)
}

// payerAccount240 is positions 18-102 of the FEBRABAN file and batch
// headers: the payer's document, agreement (G007, as text), account and
// name.
func payerAccount240() []field {
	return payerAccountConv(text(33, 52, "Código do Convênio no Banco", "payer.covenant", payerCovenant))
}

// payerAccountConv is positions 18-102 with the bank's own form of the
// agreement code in 33-52.
func payerAccountConv(covenant ...field) []field {
	return fields(
		[]field{
			num(18, 18, "Tipo de Inscrição da Empresa", "payer.document", payerDocKind),
			taxID(19, 32, "Número de Inscrição da Empresa", "payer.document", payerDoc),
		},
		covenant,
		payerAccount53to102(),
	)
}

// payerAccount53to102 is the payer's agency, account, check digits and
// name (G008 to G013).
func payerAccount53to102() []field {
	return []field{
		digits(53, 57, "Agência Mantenedora da Conta", "payer.agency", payerAgency),
		text(58, 58, "Dígito Verificador da Agência", "payer.agency_digit", payerAgencyDigit),
		digits(59, 70, "Número da Conta Corrente", "payer.account", payerAccount),
		text(71, 71, "Dígito Verificador da Conta", "payer.account_digit", payerAccountDigit1),
		text(72, 72, "Dígito Verificador da Ag/Conta", "payer.account_digit", payerAccountDigit2),
		text(73, 102, "Nome da Empresa", "payer.name", payerName),
	}
}

var bradescoFileHeader = record{name: "file header", fields: fields(
	control240("237", "0000", "0"),
	[]field{blank(9, 17, "Uso Exclusivo FEBRABAN / CNAB")},
	payerAccount240(),
	[]field{
		lit(103, 132, "Nome do Banco", padRight("BANCO BRADESCO S.A.", 30)),
		blank(133, 142, "Uso Exclusivo FEBRABAN / CNAB"),
		lit(143, 143, "Código Remessa / Retorno", "1"),
		date(144, 151, "Data de Geração do Arquivo", "created", created),
		num(152, 157, "Hora de Geração do Arquivo", "created", createdTime),
		num(158, 163, "Número Sequencial do Arquivo", "sequence", sequence),
		lit(164, 166, "N° da Versão do Layout do Arquivo", "089"),
		zero(167, 171, "Densidade de Gravação do Arquivo"),
		text(172, 174, "Identificação Remessa PIX", "pix", pixFileMark),
		blank(175, 191, "Para Uso Reservado do Banco"),
		blank(192, 211, "Para Uso Reservado da Empresa"),
		blank(212, 240, "Uso Exclusivo FEBRABAN / CNAB"),
	},
)}

// pixFileMark is G021: the literal PIX in a file of PIX payments.
func pixFileMark(s *state) string {
	if s.rem.PIX {
		return "PIX"
	}
	return ""
}

// batchHeaderStart240 is positions 1-17 of a payment batch header: a
// credit operation (C), service 20 (pagamento fornecedor, G025), the
// batch's forma de lançamento and the batch layout version.
func batchHeaderStart240(bank, version string) []field {
	return append(control240(bank, "", "1"),
		lit(9, 9, "Tipo da Operação", "C"),
		lit(10, 11, "Tipo do Serviço", "20"),
		digits(12, 13, "Forma de Lançamento", "kind", forma),
		lit(14, 16, "Nº da Versão do Layout do Lote", version),
		blank(17, 17, "Uso Exclusivo da FEBRABAN/CNAB"),
	)
}

// payerAddress240 is positions 103-222 of a FEBRABAN payment batch
// header: no message, and the payer's address.
func payerAddress240() []field {
	return []field{
		blank(103, 142, "Mensagem"),
		text(143, 172, "Nome da Rua, Av, Pça, Etc", "payer.address.street", payerStreet),
		digits(173, 177, "Número do Local", "payer.address.number", payerNumber),
		text(178, 192, "Casa, Apto, Sala, Etc", "payer.address.complement", payerComplement),
		text(193, 212, "Nome da Cidade", "payer.address.city", payerCity),
		digits(213, 217, "CEP", "payer.address.zip", payerZIP5),
		digits(218, 220, "Complemento do CEP", "payer.address.zip", payerZIP3),
		text(221, 222, "Sigla do Estado", "payer.address.state", payerState),
	}
}

var bradescoBatchHeaderA = record{name: "batch header (segments A and B)", fields: fields(
	batchHeaderStart240("237", "045"),
	payerAccount240(),
	payerAddress240(),
	[]field{
		lit(223, 224, "Indicativo de Forma de Pagamento do Serviço", "01"),
		blank(225, 230, "Uso Exclusivo FEBRABAN/CNAB"),
		blank(231, 240, "Códigos das Ocorrências p/ Retorno"),
	},
)}

var bradescoBatchHeaderJ = record{name: "batch header (segments J and J-52)", fields: fields(
	batchHeaderStart240("237", "040"),
	payerAccount240(),
	payerAddress240(),
	[]field{
		blank(223, 230, "Uso Exclusivo FEBRABAN/CNAB"),
		blank(231, 240, "Códigos das Ocorrências p/ Retorno"),
	},
)}

// movement240 is positions 15-17 of segments A and J: movement type 0
// (inclusão, G060) and instruction 00 (inclusão de registro detalhe
// liberado, G061), or for a cancellation 9 (exclusão) and 99 (exclusão do
// registro detalhe incluído anteriormente).
func movement240() []field {
	return []field{
		num(15, 15, "Tipo de Movimento", "", movementType),
		num(16, 17, "Código da Instrução p/ Movimento", "", movementInstruction),
	}
}

// movementType is G060 of the current payment: 0 inclusão, 9 exclusão.
func movementType(s *state) int64 {
	if s.cancel {
		return 9
	}
	return 0
}

// movementInstruction is G061 of the current payment: 00 inclusão de
// registro detalhe liberado, 99 exclusão do registro detalhe incluído
// anteriormente.
func movementInstruction(s *state) int64 {
	if s.cancel {
		return 99
	}
	return 0
}

// chamber is P001: 000 for a credit in account, 018 for a TED (STR), 009
// for a PIX (SPI).
func chamber(s *state) string {
	switch {
	case s.p.Kind == KindPIX || s.p.Kind == KindPIXKey:
		return "009"
	case s.isTED():
		return "018"
	}
	return "000"
}

// tedAccountType is P013 for a TED: CC for a checking account, PP for a
// savings account.
func tedAccountType(s *state) string {
	if !s.isTED() {
		return ""
	}
	if s.p.Account.Type == AccountSavings {
		return "PP"
	}
	return "CC"
}

// bradescoA is FEBRABAN's segment A with the PIX fields Bradesco puts in
// "Informação 2" (G031).
var bradescoA = febrabanA("237",
	taxID(178, 191, "Informação 2: CPF/CNPJ do Pix", "beneficiary.document", bradescoPixDoc),
	digits(192, 199, "Informação 2: ISPB do Pix", "account.ispb", pixISPB),
	text(200, 201, "Informação 2: tipo de conta do Pix", "account.type", pixAccountType),
	blank(202, 217, "Informação 2"),
)

// G031, "Formatação para identificação Pagamento via Pix": a PIX to
// account data carries the beneficiary's CPF/CNPJ (14 digits), the ISPB
// and the account type (01 corrente, 02 pagamento, 03 poupança) at the
// start of Informação 2. Other payments leave it blank (zeros for the
// numeric parts).
func bradescoPixDoc(s *state) string {
	if s.p.Kind != KindPIX {
		return ""
	}
	return s.benefDoc
}

// pixAccountCode is the FEBRABAN account type of a PIX to account data:
// 01 conta corrente, 02 conta pagamento, 03 conta poupança.
func pixAccountCode(s *state) string {
	switch s.p.Account.Type {
	case AccountPayment:
		return "02"
	case AccountSavings:
		return "03"
	}
	return "01"
}

var bradescoB = record{name: "segment B", detail: true, fields: fields(
	segment240("237", "B"),
	[]field{
		blank(15, 17, "Forma de Iniciação"),
		num(18, 18, "Tipo de Inscrição do Favorecido", "beneficiary.document", benefDocKind),
		taxID(19, 32, "Nº de Inscrição do Favorecido", "beneficiary.document", benefDoc),
		blank(33, 62, "Logradouro do Favorecido"),
		zero(63, 67, "Nº do Local"),
		blank(68, 82, "Complemento"),
		blank(83, 97, "Bairro"),
		blank(98, 117, "Nome da Cidade"),
		zero(118, 122, "CEP"),
		blank(123, 125, "Complem. CEP"),
		blank(126, 127, "Estado"),
	},
	febrabanBAmounts(),
	[]field{
		blank(211, 225, "Código/Documento do Favorecido"),
		lit(226, 226, "Aviso ao Favorecido", "0"),
		zero(227, 232, "Uso Exclusivo para o SIAPE"),
		zero(233, 240, "Código ISPB"),
	},
)}

// bradescoBPix is segment B of a PIX (G100, G101).
var bradescoBPix = febrabanBPix("237")

// febrabanBPix is segment B of a PIX in the FEBRABAN 240 layout with the
// PIX fields (G100, G101): the forma de iniciação, the beneficiary's
// document, and the key or, for a PIX to account data, the account type
// and ISPB.
func febrabanBPix(bank string) record {
	return record{name: "segment B (PIX)", detail: true, fields: fields(
		segment240(bank, "B"),
		[]field{
			text(15, 17, "Forma de Iniciação", "pix_key_type", initiation),
			num(18, 18, "Tipo de Inscrição do Favorecido", "beneficiary.document", benefDocKind),
			taxID(19, 32, "Nº de Inscrição do Favorecido", "beneficiary.document", benefDoc),
			blank(33, 67, "Informação 10: TX ID"),
			blank(68, 127, "Informação 11: informação entre usuários"),
			raw(128, 226, "Informação 12: chave Pix ou tipo de conta", "pix_key", keyOrAccountType),
			zero(227, 232, "Uso Exclusivo para o SIAPE"),
			digits(233, 240, "Código ISPB", "account.ispb", pixISPB),
		},
	)}
}

// initiation is G100: 01 phone key, 02 e-mail key, 03 CPF/CNPJ key, 04
// random key, 05 account data.
func initiation(s *state) string {
	if s.p.Kind == KindPIX {
		return "05"
	}
	switch s.p.PIXKeyType {
	case KeyPhone:
		return "01"
	case KeyEmail:
		return "02"
	case KeyDocument:
		return "03"
	}
	return "04"
}

// keyOrAccountType is Informação 12: the key (G100 01 to 04) or, for
// account data (05), the account type in its first two positions. The
// document leaves 03 out of the list of forms whose key goes here; we
// write the CPF/CNPJ key here too, where a bank that reads it finds it.
func keyOrAccountType(s *state) string {
	if s.p.Kind == KindPIX {
		return pixAccountCode(s)
	}
	return s.pixKey
}

func pixISPB(s *state) string {
	if s.p.Kind != KindPIX {
		return ""
	}
	return s.p.Account.ISPB
}

var bradescoJ = record{name: "segment J", detail: true, fields: fields(
	segment240("237", "J"),
	movement240(),
	[]field{
		digits(18, 61, "Código de Barras", "barcode", barcode),
		text(62, 91, "Nome do Beneficiário", "beneficiary.name", benefName),
		date(92, 99, "Data do Vencimento (Nominal)", "due", due),
		num(100, 114, "Valor do Título (Nominal)", "nominal", nominal),
		num(115, 129, "Valor do Desconto + Abatimento", "discount", discount),
		num(130, 144, "Valor da Mora + Multa", "surcharge", surcharge),
		date(145, 152, "Data do Pagamento", "date", payDate),
		num(153, 167, "Valor do Pagamento", "amount", amount),
		zero(168, 182, "Quantidade da Moeda"),
		text(183, 202, "Nº do Docto Atribuído pela Empresa", "reference", reference),
		blank(203, 222, "Nº do Docto Atribuído pelo Banco"),
		lit(223, 224, "Código de Moeda", "09"),
		blank(225, 230, "Uso Exclusivo FEBRABAN/CNAB"),
		blank(231, 240, "Códigos das Ocorrências p/ Retorno"),
	},
)}

// j52Parties240 is positions 20-240 of segment J-52 (G067 52,
// identificação dos entes envolvidos): the payer (the company paying),
// the beneficiary of the slip, and no drawer (sacador avalista).
func j52Parties240() []field {
	return []field{
		num(20, 20, "Pagador: Tipo de Inscrição", "payer.document", payerDocKind),
		taxID(21, 35, "Pagador: Número de Inscrição", "payer.document", payerDoc),
		text(36, 75, "Pagador: Nome", "payer.name", payerName),
		num(76, 76, "Beneficiário: Tipo de Inscrição", "beneficiary.document", benefDocKind),
		taxID(77, 91, "Beneficiário: Número de Inscrição", "beneficiary.document", benefDoc),
		text(92, 131, "Beneficiário: Nome", "beneficiary.name", benefName),
		zero(132, 132, "Sacador Avalista: Tipo de Inscrição"),
		zero(133, 147, "Sacador Avalista: Número de Inscrição"),
		blank(148, 187, "Sacador Avalista: Nome"),
		blank(188, 240, "Uso Exclusivo FEBRABAN/CNAB"),
	}
}

var bradescoJ52 = record{name: "segment J-52", detail: true, fields: fields(
	segment240("237", "J"),
	[]field{
		blank(15, 15, "Uso Exclusivo FEBRABAN/CNAB"),
		lit(16, 17, "Código de Movimento Remessa", "01"),
		lit(18, 19, "Identificação Registro Opcional", "52"),
	},
	j52Parties240(),
)}

var (
	bradescoBatchTrailer = febrabanBatchTrailer("237")
	bradescoFileTrailer  = febrabanFileTrailer("237")
)

// febrabanBatchTrailer is the FEBRABAN batch trailer of a payment batch:
// record count, sum of the amounts, zeros for currency quantity and
// debit notice.
func febrabanBatchTrailer(bank string) record {
	return record{name: "batch trailer", fields: fields(
		control240(bank, "", "5"),
		[]field{
			blank(9, 17, "Uso Exclusivo FEBRABAN/CNAB"),
			num(18, 23, "Quantidade de Registros do Lote", "", batchRecordCount),
			num(24, 41, "Somatória de Valores", "", batchTotal),
			zero(42, 59, "Somatória de Quantidade de Moedas"),
			zero(60, 65, "Número Aviso de Débito"),
			blank(66, 230, "Uso Exclusivo FEBRABAN/CNAB"),
			blank(231, 240, "Códigos das Ocorrências p/ Retorno"),
		},
	)}
}

// febrabanFileTrailer is the FEBRABAN file trailer: batch and record
// counts, zeros for the accounts to reconcile.
func febrabanFileTrailer(bank string) record {
	return record{name: "file trailer", fields: fields(
		control240(bank, "9999", "9"),
		[]field{
			blank(9, 17, "Uso Exclusivo FEBRABAN/CNAB"),
			num(18, 23, "Quantidade de Lotes do Arquivo", "", batchNumber),
			num(24, 29, "Quantidade de Registros do Arquivo", "", recordNumber),
			zero(30, 35, "Qtde. de Contas p/ Conc. (Lotes)"),
			blank(36, 240, "Uso Exclusivo FEBRABAN/CNAB"),
		},
	)}
}

func padRight(s string, n int) string {
	for len(s) < n {
		s += " "
	}
	return s[:n]
}
