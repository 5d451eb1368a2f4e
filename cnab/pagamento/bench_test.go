package pagamento

import (
	"io"
	"iter"
	"testing"

	"github.com/propfin/propfin/cnab"
)

// payments yields n payments, mixed in runs of one kind so that batches
// open and close along the way: transfers and boletos (A/B and J/J-52).
func payments(n int) iter.Seq[Payment] {
	tr := testTransfer()
	bl := Payment{
		Kind: KindBoleto, Reference: "B1", Cents: 150000, Date: tr.Date, Due: tr.Date,
		Beneficiary: Beneficiary{Name: "Condomínio Edifício Aurora", Document: "60746948000112"},
		Barcode:     "34199165600001500001091234567881234512345000",
	}
	return func(yield func(Payment) bool) {
		for i := range n {
			p := tr
			if i/1000%2 == 1 {
				p = bl
			}
			if !yield(p) {
				return
			}
		}
	}
}

// BenchmarkWriteAll writes a 100,000-payment remittance per iteration; it
// reports payments per second, and allocations per payment stay flat in
// the count because nothing is kept per payment.
func BenchmarkWriteAll(b *testing.B) {
	const n = 100_000
	r := testRemittance("237")
	b.ReportAllocs()
	for b.Loop() {
		sum, err := WriteAll(io.Discard, r, payments(n))
		if err != nil || sum.Payments != n {
			b.Fatalf("%+v %v", sum, err)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "payments/s")
}

// BenchmarkWrite measures one payment at a time, for the allocations of a
// single Write.
func BenchmarkWrite(b *testing.B) {
	w, err := NewWriter(io.Discard, testRemittance("341"), func(cnab.Problem) {})
	if err != nil {
		b.Fatal(err)
	}
	p := testTransfer()
	b.ReportAllocs()
	for b.Loop() {
		if err := w.Write(p); err != nil {
			b.Fatal(err)
		}
	}
}
