package boleto

import (
	"testing"
	"time"
)

var (
	benchBeneficiary = Beneficiary{Bank: "341", Agency: "1248", Account: "02124", AccountDigit: "6", Wallet: "109"}
	benchDue         = time.Date(2029, 5, 20, 0, 0, 0, 0, time.UTC)
	benchSink        string
	benchBarcode     Barcode
)

// BenchmarkNossoNumero is the per-title work of a remittance writer: the
// nosso número and its check digit, for each bank.
func BenchmarkNossoNumero(b *testing.B) {
	seen := map[string]bool{}
	for _, v := range slipVectors {
		if seen[v.b.Bank] {
			continue
		}
		seen[v.b.Bank] = true
		b.Run(v.b.Bank, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				nn, err := NewNossoNumero(v.b, v.sequence)
				if err != nil {
					b.Fatal(err)
				}
				benchSink = nn.Number
			}
		})
	}
}

// BenchmarkGenerate builds a slip: nosso número, barcode and digitable
// line.
func BenchmarkGenerate(b *testing.B) {
	b.ReportAllocs()
	for i := int64(0); b.Loop(); i++ {
		nn, err := NewNossoNumero(benchBeneficiary, 10152+i%1000)
		if err != nil {
			b.Fatal(err)
		}
		bc, err := New(benchBeneficiary, nn, 675787, benchDue)
		if err != nil {
			b.Fatal(err)
		}
		benchSink = bc.Line()
	}
}

// BenchmarkLine is the digitable line of a barcode.
func BenchmarkLine(b *testing.B) {
	bc, err := ParseBarcode("34194254800006757871090001015271248021246000")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		benchSink = bc.Line()
	}
}

func BenchmarkParseLine(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		bc, err := ParseLine("34191.09008 01015.271248 80212.460002 4 25480000675787")
		if err != nil {
			b.Fatal(err)
		}
		benchBarcode = bc
	}
}

func BenchmarkParseBarcode(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		bc, err := ParseBarcode("34194254800006757871090001015271248021246000")
		if err != nil {
			b.Fatal(err)
		}
		benchBarcode = bc
	}
}
