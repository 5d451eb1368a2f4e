package pagamento

// Sicoob (756): "Guia de Importação de Arquivos CNAB 240 – Pagamentos e
// Transferências" (v3.3, 19/05/2025; "Manual de Importação de Arquivos
// CNAB 240" up to v3.1), which prints the FEBRABAN 240 records with
// Sicoob's domains. We read it through a field-by-field public
// transcription (every field with the guide's number, 20.0 to 07.4.J52,
// and its note code) whose files were checked with SicoobNet's validator
// and accepted by the bank. Sicoob's differences from FEBRABAN: file
// layout 087, batch layouts 045 (transfers, TED and PIX) and 040
// (boletos), the agreement required, P013 only "PP", a PIX's account type
// at the end of Informação 2 (24.3A, G031), no ISPB anywhere (a PIX to
// account data is addressed by bank, agency and account), the address of
// segment B split as its own, and J-52 movement 00 (docs/cnab-pagamento.md).
var sicoob = register(&bank{
	code: "756", name: "BANCO COOPERATIVO SICOOB S.A.",
	document: "Sicoob Guia de Importação de Arquivos CNAB 240 – Pagamentos e Transferências v3.3 (19/05/2025), as transcribed",
	eol:      "\r\n", finalEOL: true,
	fileHeader:    &sicoobFileHeader,
	fileTrailer:   &sicoobFileTrailer,
	batchTrailer:  &sicoobBatchTrailer,
	batchHeaderA:  &sicoobBatchHeaderA,
	batchHeaderJ:  &sicoobBatchHeaderJ,
	detail:        febrabanDetail(&sicoobA, &sicoobB, &sicoobBPix, &sicoobJ, &sicoobJ52),
	forma:         savingsForma,
	checkPayer:    sicoobCheckPayer,
	covenant:      true,
	pixByBankCode: true, // no ISPB in Sicoob's layout
})

// sicoobCheckPayer: the agreement ("Número do Convênio" shown in
// SicoobNet after adhesion, 07.0 and 11.1, G007) is required.
func sicoobCheckPayer(s *state) {
	requireCovenantText(s, "the agreement number SicoobNet shows (Número do Convênio)")
}

// sicoobCovenant is 33-52 (G007, alfa, left-aligned).
func sicoobCovenant() []field {
	return []field{text(33, 52, "Código do Convênio no Banco", "payer.covenant", payerCovenant)}
}

// sicoobBank is 09.3A (P002, mandatory): the beneficiary's bank; for a
// PIX by key, which has no account, Sicoob's own code, as in a file the
// bank accepted.
func sicoobBank(s *state) string {
	if s.p.Kind == KindPIXKey {
		return "756"
	}
	return s.p.Account.Bank
}

// sicoobPixAccountType is the end of 24.3A (G031): "38 primeiros
// caracteres com espaço e os 2 últimos com o tipo da conta de destino",
// 01 corrente (also for a key), 02 pagamento, 03 poupança; blank for
// other payments.
func sicoobPixAccountType(s *state) string {
	switch s.p.Kind {
	case KindPIXKey:
		return "01"
	case KindPIX:
		return pixAccountCode(s)
	}
	return ""
}

// sicoobTEDPurpose is 26.3A (P011, numeric): the TED purpose, zeros for
// other payments.
func sicoobTEDPurpose(s *state) string {
	if !s.isTED() {
		return "00000"
	}
	return tedPurpose(s)
}

// sicoobAccountComplement is 27.3A (P013), whose only code is PP (TED to
// a savings account); blank otherwise.
func sicoobAccountComplement(s *state) string {
	if s.isTED() && s.p.Account.Type == AccountSavings {
		return "PP"
	}
	return ""
}

var sicoobA = withFields(
	febrabanA("756",
		blank(178, 215, "Informação 2"),
		text(216, 217, "Informação 2: tipo da conta de destino do Pix", "account.type", sicoobPixAccountType),
	),
	digits(21, 23, "Código do Banco do Favorecido", "account.bank", sicoobBank),
	text(220, 224, "Código Finalidade da TED", "ted_purpose", sicoobTEDPurpose),
	text(225, 226, "Código Finalidade Complementar", "account.type", sicoobAccountComplement),
)

// sicoobB is segment B of a transfer with Sicoob's split of the address
// (logradouro 35, número 5, complemento 15, bairro 15, cidade 15), which
// we do not send, and the rest as FEBRABAN.
var sicoobB = record{name: "segment B", detail: true, fields: fields(
	segment240("756", "B"),
	[]field{
		blank(15, 17, "Forma de Iniciação"),
		num(18, 18, "Tipo de Inscrição do Favorecido", "beneficiary.document", benefDocKind),
		taxID(19, 32, "Nº de Inscrição do Favorecido", "beneficiary.document", benefDoc),
		blank(33, 67, "Logradouro"),
		zero(68, 72, "Número"),
		blank(73, 87, "Complemento"),
		blank(88, 102, "Bairro"),
		blank(103, 117, "Cidade"),
		zero(118, 125, "CEP"),
		blank(126, 127, "UF"),
	},
	febrabanBAmounts(),
	[]field{
		blank(211, 225, "Código/Documento do Favorecido"),
		lit(226, 226, "Aviso ao Favorecido", "0"),
		zero(227, 232, "Código UG Centralizadora (SIAPE)"),
		blank(233, 240, "Uso Exclusivo FEBRABAN/CNAB"),
	},
)}

var (
	sicoobFileHeader   = febrabanFileHeader("756", "BANCO COOPERATIVO SICOOB S.A.", "087", "00000", sicoobCovenant())
	sicoobBatchHeaderA = febrabanBatchHeader("756", "045", sicoobCovenant())
	sicoobBatchHeaderJ = febrabanBatchHeader("756", "040", sicoobCovenant())
	// 13.3B: "Uso Exclusivo FEBRABAN/CNAB", blanks: no ISPB.
	sicoobBPix         = withFields(febrabanBPix("756"), blank(233, 240, "Uso Exclusivo FEBRABAN/CNAB"))
	sicoobJ            = febrabanJ("756")
	sicoobJ52          = febrabanJ52("756", "00") // 07.4.J52, C004: 00
	sicoobBatchTrailer = febrabanBatchTrailer("756")
	sicoobFileTrailer  = febrabanFileTrailer("756")
)
