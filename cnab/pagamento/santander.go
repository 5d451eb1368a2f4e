package pagamento

import "strings"

// Santander (033): "Layout de Arquivo Padrão CNAB 240 – Pagamento a
// Fornecedores, Tributos e Concessionárias" (YLEC2403). The bank's own
// document was not available to us in any edition; the positions and
// codes below are those of public field-by-field transcriptions of its
// version 11 (v11.3.1 of April 2021 and v11.7 of June 2026, the editions
// with PIX), one of them checked byte for byte against a file the bank
// accepted, and of the earlier v7 (2012). The layout follows FEBRABAN 240
// except for: the agreement code built by note G009, file layout 060,
// batch layouts 031 (transfers and PIX) and 030 (boletos), forma 03 for a
// TED (G002), blanks in segment A 29 and 43, Santander's own end of
// segment B, blanks in 227-232 of a PIX's segment B, J-52 movement 00
// (G026) and blanks after the file trailer's counts
// (docs/cnab-pagamento.md says what is still unconfirmed).
var santander = register(&bank{
	code: "033", name: "BANCO SANTANDER",
	document: "Santander Layout de Arquivo Padrão CNAB 240 Pagamento a Fornecedores (YLEC2403) v11, as transcribed",
	eol:      "\r\n", finalEOL: true,
	fileHeader:   &santanderFileHeader,
	fileTrailer:  &santanderFileTrailer,
	batchTrailer: &santanderBatchTrailer,
	batchHeaderA: &santanderBatchHeaderA,
	batchHeaderJ: &santanderBatchHeaderJ,
	detail:       febrabanDetail(&santanderA, &santanderB, &santanderBPix, &santanderJ, &santanderJ52),
	forma:        santanderForma,
	checkPayer:   santanderCheckPayer,
	covenant:     true,
	checkPayment: santanderCheckPayment,
})

// santanderForma is G002: 01 crédito em conta corrente Santander, 05
// crédito em conta poupança Santander, 03 "transferências para outros
// bancos (DOC, TED)" whoever the holder, 45 PIX transferência, 30 and 31
// boletos.
func santanderForma(s *state) string {
	if s.isTED() {
		return "03"
	}
	return savingsForma(s)
}

// santanderCheckPayer: the agreement (G009) is the 20-character
// "BBBBAAAACCCCCCCCCCCC", bank 0033, the agency without its digit and
// the 12-digit agreement number. The payer gives the agreement number,
// or the whole code as Santander prints it, which must then begin with
// 0033 and the agency.
func santanderCheckPayer(s *state) {
	p := &s.rem.Payer
	if len(strings.TrimLeft(p.Agency, "0")) > 4 {
		s.Fail("payer.agency", "bank 033 takes a 4-digit agency")
		return
	}
	if len(p.AccountDigit) > 1 {
		s.Fail("payer.account_digit", "bank 033 takes a one-character account check digit (72 is blank in its headers)")
	}
	c := p.Covenant
	switch {
	case c == "":
		s.Fail("payer.covenant", "required by bank 033: the agreement number (código do convênio)")
	case !isDigits(c):
		s.Fail("payer.covenant", "digits only")
	case santanderFullCode(c, p.Agency):
	case len(c) == 20 && strings.HasPrefix(c, "0033"):
		s.Fail("payer.covenant", "a 20-digit agreement code must begin with 0033 and the payer's 4-digit agency (G009)")
	case len(strings.TrimLeft(c, "0")) > 12:
		s.Fail("payer.covenant", "bank 033 takes the agreement number (up to 12 digits) or the 20-digit code of G009")
	}
}

// santanderFullCode tells whether c is G009's whole code for the agency.
func santanderFullCode(c, agency string) bool {
	return len(c) == 20 && c[:8] == santanderAgreementPrefix(agency)
}

// santanderCheckPayment: segment A 43 is blank at Santander, so an
// account check digit has one character.
func santanderCheckPayment(s *state) {
	if len(s.p.Account.AccountDigit) > 1 {
		s.Fail("account.account_digit", "bank 033 takes a one-character account check digit (its segment A has no position 43)")
	}
}

func santanderAgreementPrefix(agency string) string {
	var b [4]byte
	padLeft(b[:], agency)
	return "0033" + string(b[:])
}

// santanderAgreement is G009's code.
func santanderAgreement(s *state) string {
	c := s.rem.Payer.Covenant
	if santanderFullCode(c, s.rem.Payer.Agency) {
		return c
	}
	var b [12]byte
	padLeft(b[:], c)
	return santanderAgreementPrefix(s.rem.Payer.Agency) + string(b[:])
}

// santanderCovenant is 33-52, "Código do Convênio no Banco" (G009).
func santanderCovenant() []field {
	return []field{digits(33, 52, "Código do Convênio no Banco", "payer.covenant", santanderAgreement)}
}

// santanderA is FEBRABAN's segment A with the agency's digit (29) and
// the agency/account digit (43) blank, as Santander's table has them.
var santanderA = withFields(febrabanA("033"),
	blank(29, 29, "Dígito Verificador da Agência"),
	blank(43, 43, "Dígito Verificador da Agência/Conta"),
)

// santanderB is segment B of a transfer. Santander replaces FEBRABAN's
// 211-240 with the time a TED is to be sent (211-214, zeros: as soon as
// possible), blanks, a history code for the credit (226-229, G019,
// zeros: the default), the notice to the beneficiary (230), and the
// fields of a TED to a financial institution (232, G029; 233-240, G030),
// which we do not send.
var santanderB = record{name: "segment B", detail: true, fields: fields(
	segment240("033", "B"),
	febrabanBParty(),
	[]field{
		zero(211, 214, "Horário de Envio de TED"),
		blank(215, 225, "Filler"),
		zero(226, 229, "Código Histórico para Crédito"),
		lit(230, 230, "Emissão de Aviso ao Favorecido", "0"),
		blank(231, 231, "Filler"),
		blank(232, 232, "TED para Instituição Financeira"),
		blank(233, 240, "Identificação da IF no SPB"),
	},
)}

var (
	santanderFileHeader   = febrabanFileHeader("033", "BANCO SANTANDER", "060", "00000", santanderCovenant())
	santanderBatchHeaderA = febrabanBatchHeader("033", "031", santanderCovenant())
	santanderBatchHeaderJ = febrabanBatchHeader("033", "030", santanderCovenant())
	// Segment B of a PIX: 15-16 forma de iniciação (G032), key in
	// Informação 12 (G035), 227-232 "Uso Reservado do Banco", ISPB in
	// 233-240 (G030, X(8): blanks for a key).
	santanderBPix = withFields(febrabanBPix("033"),
		blank(227, 232, "Uso Reservado do Banco"),
		text(233, 240, "Identificação do SPB (ISPB)", "account.ispb", pixISPB),
	)
	santanderJ            = febrabanJ("033")
	santanderJ52          = febrabanJ52("033", "00") // G026
	santanderBatchTrailer = febrabanBatchTrailer("033")
	santanderFileTrailer  = withFields(febrabanFileTrailer("033"), blank(30, 35, "Filler"))
)
