package pagamento

// Santander (033): "Layout de Arquivo Padrão CNAB 240, Pagamento a
// Fornecedores, Tributos e Concessionárias", Versão Agosto/2009
// (YLEC2403_v06.1). We could read only the document's table of contents;
// the positions and constants below are those of a public transcription
// of it (the Santander payment remittance of the Pagamento2Net library),
// checked against the FEBRABAN 240 layout, which it follows except where
// noted: file layout 060, batch layouts 031 (segments A and B) and 030
// (segment J), the agreement code as 20 digits, and Santander's own fields
// at the end of segment B. PIX (forma 45, câmara 009, batch layout 031)
// is from a second public transcription of a Santander PIX file; segment B
// of a PIX has the FEBRABAN PIX form (G100, G101), which no Santander
// source we had confirms (docs/cnab-pagamento.md).
var santander = register(&bank{
	code: "033", name: "BANCO SANTANDER",
	document: "Santander Layout de Arquivo Padrão CNAB 240 Pagamento a Fornecedores, Versão Agosto/2009, as transcribed by Pagamento2Net",
	eol:      "\r\n", finalEOL: true,
	fileHeader:   &santanderFileHeader,
	fileTrailer:  &santanderFileTrailer,
	batchTrailer: &santanderBatchTrailer,
	batchHeader: func(s *state) *record {
		if isBoletoForma(s.batchForma) {
			return &santanderBatchHeaderJ
		}
		return &santanderBatchHeaderA
	},
	detail:     febrabanDetail(&santanderA, &santanderB, &santanderBPix, &santanderJ, &santanderJ52),
	forma:      savingsForma,
	checkPayer: santanderCheckPayer,
})

// santanderCheckPayer: the agreement code (código do convênio) is
// required, up to 20 digits.
func santanderCheckPayer(s *state) {
	requireDigits(s, "payer.covenant", s.rem.Payer.Covenant, 20)
}

// santanderCovenant is 33-52, "Código do Convênio no Banco", written as a
// number: right-aligned with zeros.
func santanderCovenant() []field {
	return []field{digits(33, 52, "Código do Convênio no Banco", "payer.covenant", payerCovenant)}
}

// santanderB is segment B of a transfer. Santander replaces FEBRABAN's
// 211-240 with the time a TED is to be sent (211-214, zeros: as soon as
// possible), blanks, a history code for the credit (226-229, zeros: the
// default) and the notice to the beneficiary (230).
var santanderB = record{name: "segment B", detail: true, fields: fields(
	segment240("033", "B"),
	febrabanBParty(),
	[]field{
		zero(211, 214, "Horário de Envio de TED"),
		blank(215, 225, "Brancos"),
		zero(226, 229, "Código Histórico para Crédito"),
		lit(230, 230, "Emissão de Aviso ao Favorecido", "0"),
		blank(231, 240, "Ocorrências para o Retorno"),
	},
)}

var (
	santanderFileHeader   = febrabanFileHeader("033", "BANCO SANTANDER", "060", "00000", santanderCovenant())
	santanderBatchHeaderA = febrabanBatchHeader("033", "031", santanderCovenant())
	santanderBatchHeaderJ = febrabanBatchHeader("033", "030", santanderCovenant())
	santanderA            = febrabanA("033")
	santanderBPix         = febrabanBPix("033")
	santanderJ            = febrabanJ("033")
	santanderJ52          = febrabanJ52("033", "01")
	santanderBatchTrailer = febrabanBatchTrailer("033")
	santanderFileTrailer  = febrabanFileTrailer("033")
)
