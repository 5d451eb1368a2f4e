package pagamento

// Itaú (341), SISPAG: "SISPAG – Sistema de Contas a Pagar Itaú,
// Intercâmbio Eletrônico de Arquivos, Layout de Arquivos – CNAB240
// Versão 80" (Abril 2012), file layout 080, batch layouts 040 (segments
// A and B) and 030 (segment J). Positions below are the document's
// "Posição" columns and notes. The PIX fields (segment A 18-20, 105-114
// and 150-154, the PIX form of segment B, forma 45) and segment J-52 are
// those of the later editions, "Layout de Arquivos – CNAB – Versão 085"
// and the "Manual Técnico SISPAG" version 086 (Maio 2022), notes 11, 35,
// 36, 37, 38, 40 and 42, which keep every other position and both file
// and batch layout versions.
var itau = register(&bank{
	code: "341", name: "BANCO ITAU SA",
	document: "SISPAG Layout de Arquivos CNAB240 Versão 80 (Abril 2012), with the PIX and J-52 fields of versions 085 and 086 (Maio 2022)",
	eol:      "\r\n", finalEOL: true, pixFileOnly: true,
	fileHeader:   &itauFileHeader,
	fileTrailer:  &itauFileTrailer,
	batchTrailer: &itauBatchTrailer,
	batchHeaderA: &itauBatchHeaderA,
	batchHeaderJ: &itauBatchHeaderJ,
	detail:       febrabanDetail(&itauA, &itauB, &itauBPix, &itauJ, &itauJ52),
	forma:        itauForma,
	checkPayer:   itauCheckPayer,
	checkPayment: itauCheckPayment,
})

// itauForma is note 5: 01 crédito em conta corrente no Itaú, 05 crédito
// em conta poupança no Itaú, 06 crédito em conta corrente de mesma
// titularidade, 41 TED outro titular, 43 TED mesmo titular, 45 PIX
// transferência (085), 30 títulos em cobrança no Itaú, 31 títulos em
// cobrança em outros bancos.
func itauForma(s *state) string {
	if s.p.Kind == KindTransfer && !s.isTED() {
		switch {
		case s.p.Account.Type == AccountSavings:
			return "05"
		case s.sameHolder():
			return "06"
		}
	}
	return febrabanForma(s)
}

// itauCheckPayment: a payment account at another bank (note 11) is one
// number of up to 20 digits, its check digit included; a TED to one also
// needs the institution's ISPB (note 35, "exigência do Banco Central").
func itauCheckPayment(s *state) {
	if !itauPaymentAccount(s) {
		return
	}
	a := &s.p.Account
	if !isDigits(a.AccountDigit) {
		s.Fail("account.account_digit", "bank 341 writes a payment account as one number, check digit included: the digit must be a digit")
	}
	if s.p.Kind == KindTransfer && (len(a.ISPB) != 8 || !isDigits(a.ISPB)) {
		s.Fail("account.ispb", "bank 341 needs the 8-digit ISPB for a TED to a payment account (note 35)")
	}
}

// itauISPBCode is Itaú Unibanco's ISPB: a PIX to account data that gives
// it without a bank code credits an account at Itaú.
const itauISPBCode = "60701190"

// itauAccountAtItau tells whether the credited account is at Itaú, by
// its bank code or, for a PIX without one, by its ISPB.
func itauAccountAtItau(s *state) bool {
	a := &s.p.Account
	return a.Bank == "341" || a.Bank == "" && a.ISPB == itauISPBCode
}

// itauBank is A 21-23: the credited account's bank, Itaú's own code when
// only Itaú's ISPB was given, zeros for a key.
func itauBank(s *state) string {
	if s.p.Kind == KindPIX && s.p.Account.Bank == "" && itauAccountAtItau(s) {
		return "341"
	}
	return s.p.Account.Bank
}

// itauPaymentAccount tells whether the payment credits a payment account
// (conta pagamento) at another institution; at Itaú one is a checking
// account (086 note 11, Iti).
func itauPaymentAccount(s *state) bool {
	return (s.p.Kind == KindPIX || s.p.Kind == KindTransfer) &&
		s.p.Account.Type == AccountPayment && !itauAccountAtItau(s)
}

// itauChamber is note 35: 009 (SPI) for a PIX, zeros for every other
// payment, a TED included (888 is only for a TED to a brokerage, which is
// not written).
func itauChamber(s *state) string {
	if s.p.Kind == KindPIX || s.p.Kind == KindPIXKey {
		return "009"
	}
	return "000"
}

// itauCheckPayer: the header's DAC (note 1) is one digit.
func itauCheckPayer(s *state) {
	if d := s.rem.Payer.AccountDigit; len(d) != 1 || !isDigits(d) {
		s.Fail("payer.account_digit", "bank 341 takes a one-digit account DAC")
	}
}

// itauPayerAccount is positions 53-102 of the file and batch headers
// (note 1): the debited agency, account and DAC, and the company's name.
func itauPayerAccount() []field {
	return []field{
		digits(53, 57, "Número Agência Debitada", "payer.agency", payerAgency),
		blank(58, 58, "Complemento de Registro"),
		digits(59, 70, "Número de C/C Debitada", "payer.account", payerAccount),
		blank(71, 71, "Complemento de Registro"),
		digits(72, 72, "DAC da Agência/Conta Debitada", "payer.account_digit", payerAccountDigit1),
		text(73, 102, "Nome da Empresa", "payer.name", payerName),
	}
}

var itauFileHeader = record{name: "file header", fields: fields(
	control240("341", "0000", "0"),
	[]field{
		blank(9, 14, "Complemento de Registro"),
		lit(15, 17, "Nº da Versão do Layout do Arquivo", "080"),
		num(18, 18, "Tipo de Inscrição da Empresa", "payer.document", payerDocKind),
		taxID(19, 32, "CNPJ Empresa Debitada", "payer.document", payerDoc),
		blank(33, 52, "Complemento de Registro"),
	},
	itauPayerAccount(),
	[]field{
		lit(103, 132, "Nome do Banco", padRight("BANCO ITAU SA", 30)),
		blank(133, 142, "Complemento de Registro"),
		lit(143, 143, "Código Remessa/Retorno", "1"),
		date(144, 151, "Data de Geração do Arquivo", "created", created),
		num(152, 157, "Hora de Geração do Arquivo", "created", createdTime),
		zero(158, 166, "Complemento de Registro"),
		zero(167, 171, "Densidade de Gravação do Arquivo"),
		blank(172, 240, "Complemento de Registro"),
	},
)}

// itauBatchHeader builds a batch header: identification (note 13) and
// reserved positions 33-52 differ between the transfer and boleto
// batches.
func itauBatchHeader(version string) record {
	return record{name: "batch header " + version, fields: fields(
		batchHeaderStart240("341", version),
		[]field{
			num(18, 18, "Tipo Inscrição Empresa Debitada", "payer.document", payerDocKind),
			taxID(19, 32, "CNPJ Empresa Debitada", "payer.document", payerDoc),
			blank(33, 52, "Identificação do Lançamento / Complemento de Registro"),
		},
		itauPayerAccount(),
		[]field{
			blank(103, 132, "Finalidade dos Pagtos do Lote"),
			blank(133, 142, "Complemento Histórico C/C Debitada"),
			text(143, 172, "Nome da Rua, Av, Pça, Etc", "payer.address.street", payerStreet),
			digits(173, 177, "Número do Local", "payer.address.number", payerNumber),
			text(178, 192, "Casa, Apto, Sala, Etc", "payer.address.complement", payerComplement),
			text(193, 212, "Nome da Cidade", "payer.address.city", payerCity),
			digits(213, 220, "CEP", "payer.address.zip", payerZIP),
			text(221, 222, "Sigla do Estado", "payer.address.state", payerState),
			blank(223, 230, "Complemento de Registro"),
			blank(231, 240, "Código Ocorrências p/Retorno"),
		},
	)}
}

var (
	itauBatchHeaderA = itauBatchHeader("040")
	itauBatchHeaderJ = itauBatchHeader("030")
)

var itauA = record{name: "segment A", detail: true, fields: fields(
	segment240("341", "A"),
	[]field{
		num(15, 17, "Tipo de Movimento", "", itauMovement),
		digits(18, 20, "Câmara Centralizadora", "kind", itauChamber),
		digits(21, 23, "Código Banco Favorecido", "account.bank", itauBank),
		text(24, 43, "Agência Conta Favorecido", "account", itauAgencyAccount),
		text(44, 73, "Nome do Favorecido", "beneficiary.name", benefName),
		text(74, 93, "Nº Docto Atribuído pela Empresa", "reference", reference),
		date(94, 101, "Data Prevista para Pagto", "date", payDate),
		lit(102, 104, "Tipo da Moeda", "REA"),
		text(105, 112, "Código ISPB", "account.ispb", itauISPB),
		text(113, 114, "Identificação da Transferência", "account.type", itauTransferID),
		zero(115, 119, "Complemento de Registro"),
		num(120, 134, "Valor Previsto do Pagto", "amount", amount),
		blank(135, 149, "Nº Docto Atribuído pelo Banco"),
		text(150, 154, "Agência da Conta Pagamento", "account.agency", itauPaymentAgency),
		zero(155, 162, "Data Real Efetivação do Pagto"),
		zero(163, 177, "Valor Real Efetivação do Pagto"),
		blank(178, 195, "Informação Complementar p/ Hist. de C/C"),
		blank(196, 197, "Complemento de Registro"),
		zero(198, 203, "Nº do DOC/TED/OP/Cheque no Retorno"),
		taxID(204, 217, "Nº de Inscrição do Favorecido", "beneficiary.document", benefDoc),
		blank(218, 219, "Finalidade do DOC e Status do Funcionário"),
		text(220, 224, "Finalidade da TED", "ted_purpose", tedPurpose),
		blank(225, 229, "Complemento de Registro"),
		lit(230, 230, "Aviso ao Favorecido", "0"),
		blank(231, 240, "Código Ocorrências no Retorno"),
	},
)}

// itauAgencyAccount is note 11: for an account at Itaú, 0, the 4-digit
// agency, a blank, six zeros, the 6-digit account, a blank and the DAC;
// at another bank, the 5-digit agency, a blank, the 12-digit account, a
// blank and the DAC (a two-character DAC takes positions 42 and 43); a
// payment account at another bank, its number and check digit as 20
// digits. A PIX by key has no account: blanks (note 11: optional with
// identification 04).
func itauAgencyAccount(s *state) string {
	a := &s.p.Account
	if s.p.Kind == KindPIXKey {
		return ""
	}
	var b [20]byte
	if itauPaymentAccount(s) {
		padLeft(b[:], a.Account+a.AccountDigit)
		return string(b[:])
	}
	if itauAccountAtItau(s) {
		if len(trimZeros(a.Agency)) > 4 || len(trimZeros(a.Account)) > 6 || len(a.AccountDigit) != 1 {
			s.Fail("account", "an Itaú account is a 4-digit agency, a 6-digit account and a 1-digit DAC")
			return ""
		}
		b[0] = '0'
		padLeft(b[1:5], a.Agency)
		b[5] = ' '
		padLeft(b[6:18], a.Account)
		b[18] = ' '
		b[19] = a.AccountDigit[0]
		return string(b[:])
	}
	padLeft(b[0:5], a.Agency)
	b[5] = ' '
	padLeft(b[6:18], a.Account)
	if len(a.AccountDigit) == 2 {
		b[18], b[19] = a.AccountDigit[0], a.AccountDigit[1]
	} else {
		b[18], b[19] = ' ', a.AccountDigit[0]
	}
	return string(b[:])
}

// padLeft writes the digits of v right-aligned in dst, zero-padded; the
// caller has checked that they fit.
func padLeft(dst []byte, v string) {
	v = trimZeros(v)
	pad := len(dst) - len(v)
	for i := range pad {
		dst[i] = '0'
	}
	copy(dst[pad:], v)
}

func trimZeros(v string) string {
	for len(v) > 1 && v[0] == '0' {
		v = v[1:]
	}
	return v
}

// itauTransferID is the "identificação da transferência" of note 36:
// 01 conta corrente, PG conta pagamento, 03 poupança, 04 chave Pix; PG
// also for a TED to a payment account (note 35); blank for other
// payments.
func itauTransferID(s *state) string {
	switch s.p.Kind {
	case KindPIXKey:
		return "04"
	case KindTransfer:
		if itauPaymentAccount(s) {
			return "PG"
		}
	case KindPIX:
		switch {
		case itauPaymentAccount(s):
			return "PG"
		case s.p.Account.Type == AccountSavings:
			return "03"
		}
		return "01" // a checking account, or a payment account at Itaú (Iti)
	}
	return ""
}

// itauISPB is A 105-112 (note 35, X(08)): the receiving institution of
// a PIX to account data or of a TED to a payment account; blanks
// otherwise.
func itauISPB(s *state) string {
	if s.p.Kind == KindPIX || itauPaymentAccount(s) {
		return s.p.Account.ISPB
	}
	return ""
}

// itauPaymentAgency is A 150-154 (note 42): the agency of a payment
// account at another bank, zero-padded; blanks otherwise.
func itauPaymentAgency(s *state) string {
	if !itauPaymentAccount(s) {
		return ""
	}
	var b [5]byte
	padLeft(b[:], s.p.Account.Agency)
	return string(b[:])
}

// itauB is the optional segment B of a transfer: the beneficiary's CPF or
// CNPJ (note 15) and no address or e-mail.
var itauB = record{name: "segment B", detail: true, fields: fields(
	segment240("341", "B"),
	[]field{
		blank(15, 17, "Complemento de Registro"),
		num(18, 18, "Tipo Inscrição do Favorecido", "beneficiary.document", benefDocKind),
		taxID(19, 32, "Nº de Inscrição do Favorecido", "beneficiary.document", benefDoc),
		blank(33, 62, "Nome da Rua, Av, Pça, Etc"),
		zero(63, 67, "Número do Local"),
		blank(68, 82, "Casa, Apto, Etc"),
		blank(83, 97, "Bairro"),
		blank(98, 117, "Nome da Cidade"),
		zero(118, 125, "CEP"),
		blank(126, 127, "Sigla do Estado"),
		blank(128, 227, "Endereço de E-mail"),
		blank(228, 230, "Complemento de Registro"),
		blank(231, 240, "Código de Ocorrências no Retorno"),
	},
)}

// itauBPix is segment B of a PIX ("obrigatório para PIX", 085/086): the
// key type (note 37: 01 phone, 02 e-mail, 03 CPF/CNPJ, 04 random; blank
// for account data), the beneficiary's document, the TXID (086 note 38,
// optional, not sent), the information for the receiver (note 39) and
// the key (note 40).
var itauBPix = record{name: "segment B (PIX)", detail: true, fields: fields(
	segment240("341", "B"),
	[]field{
		text(15, 16, "Tipo de Chave", "pix_key_type", itauKeyType),
		blank(17, 17, "Complemento de Registro"),
		num(18, 18, "Tipo Inscrição do Favorecido", "beneficiary.document", benefDocKind),
		taxID(19, 32, "Nº de Inscrição do Favorecido", "beneficiary.document", benefDoc),
		blank(33, 62, "TX ID"),
		blank(63, 127, "Informação entre Usuários"),
		raw(128, 227, "Chave Pix", "pix_key", pixKey),
		blank(228, 230, "Complemento de Registro"),
		blank(231, 240, "Código de Ocorrências no Retorno"),
	},
)}

func itauKeyType(s *state) string {
	if s.p.Kind != KindPIXKey {
		return ""
	}
	return initiation(s)
}

var itauJ = record{name: "segment J", detail: true, fields: fields(
	segment240("341", "J"),
	[]field{
		num(15, 17, "Tipo de Movimento", "", itauMovement),
		digits(18, 61, "Código de Barras", "barcode", barcode),
		text(62, 91, "Nome do Favorecido", "beneficiary.name", benefName),
		date(92, 99, "Data do Vencimento (Nominal)", "due", due),
		num(100, 114, "Valor do Título (Nominal)", "nominal", nominal),
		num(115, 129, "Valor do Desconto + Abatimento", "discount", discount),
		num(130, 144, "Valor da Mora + Multa", "surcharge", surcharge),
		date(145, 152, "Data do Pagamento", "date", payDate),
		num(153, 167, "Valor do Pagamento", "amount", amount),
		zero(168, 182, "Complemento de Registro"),
		text(183, 202, "Nº Docto Atribuído pela Empresa", "reference", reference),
		blank(203, 215, "Complemento de Registro"),
		blank(216, 230, "Número Atribuído pelo Banco"),
		blank(231, 240, "Código de Ocorrências p/ Retorno"),
	},
)}

var itauJ52 = record{name: "segment J-52", detail: true, fields: fields(
	segment240("341", "J"),
	[]field{
		lit(15, 17, "Tipo de Movimento", "000"),
		lit(18, 19, "Identificação Registro Opcional", "52"),
	},
	j52Parties240(),
)}

var itauBatchTrailer = record{name: "batch trailer", fields: fields(
	control240("341", "", "5"),
	[]field{
		blank(9, 17, "Complemento de Registro"),
		num(18, 23, "Qtde Registros do Lote", "", batchRecordCount),
		num(24, 41, "Soma Valor dos Pgtos do Lote", "", batchTotal),
		zero(42, 59, "Complemento de Registro"),
		blank(60, 230, "Complemento de Registro"),
		blank(231, 240, "Códigos Ocorrências p/ Retorno"),
	},
)}

var itauFileTrailer = record{name: "file trailer", fields: fields(
	control240("341", "9999", "9"),
	[]field{
		blank(9, 17, "Complemento de Registro"),
		num(18, 23, "Qtde Lotes do Arquivo", "", batchNumber),
		num(24, 29, "Qtde Registros do Arquivo", "", recordNumber),
		blank(30, 240, "Complemento de Registro"),
	},
)}

// itauMovement is SISPAG's tipo de movimento (note 10) of segments A and
// J: 000 inclusão de pagamento, 998 exclusão de pagamento incluído.
func itauMovement(s *state) int64 {
	if s.cancel {
		return 998
	}
	return 0
}
