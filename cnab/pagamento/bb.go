package pagamento

import "strings"

// Banco do Brasil (001): "Arquivo de Pagamentos – Particularidades BB,
// Leiaute CNAB 240" (the bank's spreadsheet PgtVer03BB, undated, in a
// copy public since July 2016), which lists the FEBRABAN 240 payment
// layout field by field ("Campo" 01.0 to 08.9) with the bank's notes.
// Positions below are FEBRABAN's, which the document keeps; the
// differences are the agreement code (07.0 and 11.1, BB1 to BB4), the
// blank P014 of the batch header, the J-52 instruction code and the
// bank's rules for boletos. That edition predates PIX, and no later one
// was available to us: PIX payments (forma 45, câmara 009) are written
// with the PIX fields of FEBRABAN's "Layout Padrão CNAB 240" version
// 10.11 (31/07/2023), the standard BB's document amends: segment A
// Informação 2 in the G031 format and segment B in the G100/G101 form
// (docs/cnab-pagamento.md says what is unconfirmed).
var bancoDoBrasil = register(&bank{
	code: "001", name: "BANCO DO BRASIL S.A.",
	document: "Arquivo de Pagamentos – Particularidades BB, Leiaute CNAB 240 (PgtVer03BB), with the PIX fields of FEBRABAN 240 v10.11",
	eol:      "\r\n", finalEOL: true,
	fileHeader:   &bbFileHeader,
	fileTrailer:  &bbFileTrailer,
	batchTrailer: &bbBatchTrailer,
	batchHeaderA: &bbBatchHeaderA,
	batchHeaderJ: &bbBatchHeaderJ,
	detail:       febrabanDetail(&bbA, &bbB, &bbBPix, &bbJ, &bbJ52),
	forma:        savingsForma, // 06.1: 01, 05, 41, 43; 30, 31; 45 (FEBRABAN G029)
	checkPayer:   bbCheckPayer,
	covenant:     true,
	checkPayment: bbCheckPayment,
})

// bbCheckPayer: the payment agreement (convênio de pagamento, BB1) is
// required, up to nine digits.
func bbCheckPayer(s *state) {
	c := s.rem.Payer.Covenant
	switch {
	case c == "":
		s.Fail("payer.covenant", "required by bank 001: the payment agreement number (convênio de pagamento)")
	case !isDigits(c) || len(strings.TrimLeft(c, "0")) > 9:
		s.Fail("payer.covenant", "bank 001 takes a payment agreement of up to 9 digits")
	}
}

// bbPIXNotice is the warning given once per file with PIX payments at
// Banco do Brasil, whose own document for them we have not had.
const bbPIXNotice = "bank 001: PIX records follow FEBRABAN 240 v10.11, not a Banco do Brasil document; have BB validate a test file before sending PIX payments"

// bbCheckPayment applies the bank's notes for a boleto: 13.3J "Valor da
// Mora + Multa: informar zeros, sistema não acata títulos vencidos" and
// 14.3J "não serão acatados títulos vencidos"; a PIX gets the notice
// above, once per file.
func bbCheckPayment(s *state) {
	if (s.p.Kind == KindPIX || s.p.Kind == KindPIXKey) && !s.pixNoticeGiven {
		s.pixNoticeGiven = true
		s.Warn("kind", bbPIXNotice)
	}
	if s.p.Kind != KindBoleto {
		return
	}
	if s.surcharge != 0 {
		s.Fail("surcharge", "bank 001 does not take interest or fine: it refuses overdue boletos (13.3J)")
	}
	if s.p.Date.Time().After(s.p.Due.Time()) {
		s.Fail("date", "bank 001 refuses overdue boletos: the payment date is after the due date (14.3J)")
	}
}

// bbCovenant is 07.0 / 11.1: BB1 the agreement number in nine digits,
// BB2 "0126" (pagamentos), BB3 five blanks and BB4 two blanks ("TS" only
// for a test agreed with the agency, which we never write).
func bbCovenant() []field {
	return []field{
		digits(33, 41, "Código do Convênio no Banco: BB1 nº do convênio de pagamento", "payer.covenant", payerCovenant),
		lit(42, 45, "Código do Convênio no Banco: BB2", "0126"),
		blank(46, 50, "Código do Convênio no Banco: BB3"),
		blank(51, 52, "Código do Convênio no Banco: BB4"),
	}
}

var (
	// 01.0 to 24.0: file layout 083; density not checked by BB, zeros.
	bbFileHeader = febrabanFileHeader("001", "BANCO DO BRASIL S.A.", "083", "00000", bbCovenant())
	// 01.1 to 27.1: batch layout 042 for segments A and B and 030 for
	// segment J, the versions that go with file layout 083; 223-230 blank.
	bbBatchHeaderA = febrabanBatchHeader("001", "042", bbCovenant())
	bbBatchHeaderJ = febrabanBatchHeader("001", "030", bbCovenant())
	// 01.3A to 29.3A. A BB account has no second check digit, so 43 is
	// blank for it (14.3A); 178-217 (G031) carries a PIX to account data
	// in FEBRABAN 10.11's format and is blank otherwise.
	bbA = febrabanA("001", g031PixInfo2()...)
	// 01.3B to 26.3B: the beneficiary's CPF/CNPJ, which BB requires for a
	// TED and checks against the account when the agreement says so.
	bbB = febrabanB("001")
	// Segment B of a PIX, FEBRABAN 10.11 (06.3B to 13.3B): forma de
	// iniciação (G100), the beneficiary's CPF/CNPJ, Informação 11 with
	// the account type of a PIX to account data and Informação 12 with
	// the key (G101).
	bbBPix = withFields(febrabanBPix("001"),
		text(68, 127, "Informação 11: tipo de conta do recebedor", "account.type", pixAccountType),
		raw(128, 226, "Informação 12: chave Pix", "pix_key", pixKey),
	)
	// 01.3J to 21.3J, currency 09.
	bbJ = febrabanJ("001")
	// 01.4.J52 to 18.4.J52: instruction 00 (inclusão) in 16-17, where
	// FEBRABAN's C004 and Bradesco have 01.
	bbJ52 = febrabanJ52("001", "00")
	// 01.5 to 10.5 and 01.9 to 08.9: the FEBRABAN trailers; BB refuses a
	// batch or file whose counts or sum are wrong.
	bbBatchTrailer = febrabanBatchTrailer("001")
	bbFileTrailer  = febrabanFileTrailer("001")
)
