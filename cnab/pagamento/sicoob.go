package pagamento

// Sicoob (756): we found no copy of Sicoob's own payment layout ("Layout
// CNAB 240 Pagamentos"). Sicoob follows the FEBRABAN 240 layout version
// 08.7; the constants below come from three public transcriptions of
// Sicoob payment files: the TransferenciaSicoob writer of the cnab240
// Ruby library (file layout 087, batch layouts 045 for segments A and B
// and 040 for segment J), the Bancoob remittance of the PHP pagamento
// library (file layout 087, density 01600, batch layout 045) and a
// published Sicoob remittance script citing the Sicoob manual's G029,
// P001, G100 and G101 (file layout 087, density 01600, forma 45 and
// câmara 009 for PIX, the forma de iniciação in segment B 15-17 and the
// key from 128). Everything else is FEBRABAN's
// (docs/cnab-pagamento.md says what is unconfirmed and where the two
// disagree).
var sicoob = register(&bank{
	code: "756", name: "BANCO COOPERATIVO SICOOB S.A.",
	document: "FEBRABAN 240 Pagamentos 08.7 with Sicoob's constants as transcribed by public Sicoob writers",
	eol:      "\r\n", finalEOL: true,
	fileHeader:   &sicoobFileHeader,
	fileTrailer:  &sicoobFileTrailer,
	batchTrailer: &sicoobBatchTrailer,
	batchHeader: func(s *state) *record {
		if isBoletoForma(s.batchForma) {
			return &sicoobBatchHeaderJ
		}
		return &sicoobBatchHeaderA
	},
	detail: febrabanDetail(&sicoobA, &sicoobB, &sicoobBPix, &sicoobJ, &sicoobJ52),
	forma:  savingsForma,
})

// sicoobCovenant is 33-52 as FEBRABAN has it (G007, text); the agreement
// is optional at Sicoob, blanks when not given.
func sicoobCovenant() []field {
	return []field{text(33, 52, "Código do Convênio no Banco", "payer.covenant", payerCovenant)}
}

var (
	sicoobFileHeader   = febrabanFileHeader("756", "BANCO COOPERATIVO SICOOB S.A.", "087", "01600", sicoobCovenant())
	sicoobBatchHeaderA = febrabanBatchHeader("756", "045", sicoobCovenant())
	sicoobBatchHeaderJ = febrabanBatchHeader("756", "040", sicoobCovenant())
	sicoobA            = febrabanA("756")
	sicoobB            = febrabanB("756")
	sicoobBPix         = febrabanBPix("756")
	sicoobJ            = febrabanJ("756")
	sicoobJ52          = febrabanJ52("756", "01")
	sicoobBatchTrailer = febrabanBatchTrailer("756")
	sicoobFileTrailer  = febrabanFileTrailer("756")
)
