package pagamento

import (
	"io"
	"iter"
	"runtime"
	"strconv"
	"testing"

	"github.com/propfin/propfin/cnab"
)

// payments yields n payments, mixed in runs of one kind so that batches
// open and close along the way: transfers and boletos (A/B and J/J-52).
func payments(n int) iter.Seq[Payment] {
	tr := testTransfer()
	bl := Payment{
		Kind: KindBoleto, Reference: "B1", Cents: 150000, Date: tr.Date, Due: cnab.Date{Year: 2026, Month: 12, Day: 10},
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

// BenchmarkWriteAll writes a whole remittance per iteration at three
// sizes. It reports payments per second and the peak live heap sampled
// while writing: the heap stays flat as the count grows a hundredfold,
// because nothing is kept per payment.
func BenchmarkWriteAll(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			r := testRemittance("237")
			var peak uint64
			b.ReportAllocs()
			for b.Loop() {
				sum, err := WriteAll(io.Discard, r, sampleHeap(payments(n), &peak))
				if err != nil || sum.Payments != n {
					b.Fatalf("%+v %v", sum, err)
				}
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "payments/s")
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
		})
	}
}

// sampleHeap passes the payments through and records the largest live
// heap seen every 500 payments.
func sampleHeap(seq iter.Seq[Payment], peak *uint64) iter.Seq[Payment] {
	return func(yield func(Payment) bool) {
		i := 0
		for p := range seq {
			if i%500 == 0 {
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				*peak = max(*peak, m.HeapAlloc)
			}
			i++
			if !yield(p) {
				return
			}
		}
	}
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

// BenchmarkWriteAllBanks writes the same 100,000 payments for every bank:
// the layouts differ only in their tables, so throughput and the flat
// heap should not.
func BenchmarkWriteAllBanks(b *testing.B) { benchBanks(b, false, payments) }

// benchBanks writes 100,000 payments of seq for every bank, in a PIX file
// when pix is set, reporting payments per second and the peak live heap.
func benchBanks(b *testing.B, pix bool, seq func(n int) iter.Seq[Payment]) {
	const n = 100_000
	for _, code := range Supported() {
		b.Run(code, func(b *testing.B) {
			r := testRemittance(code)
			r.PIX = pix
			var peak uint64
			b.ReportAllocs()
			for b.Loop() {
				sum, err := WriteAll(io.Discard, r, sampleHeap(seq(n), &peak))
				if err != nil || sum.Payments != n {
					b.Fatalf("%+v %v", sum, err)
				}
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "payments/s")
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
		})
	}
}

// pixPayments yields n PIX payments in a PIX file's order: keys of the
// four types in turn, and every tenth a PIX to account data.
func pixPayments(n int) iter.Seq[Payment] {
	base := Payment{Reference: "PIX1", Cents: 32000, Date: cnab.Date{Year: 2026, Month: 11, Day: 23},
		Beneficiary: Beneficiary{Name: "José Antônio", Document: "52998224725"}}
	keys := []struct {
		key string
		typ KeyType
	}{{"+5511987654321", KeyPhone}, {"Maria@Example.com", KeyEmail}, {"529.982.247-25", KeyDocument},
		{"123E4567-E89B-12D3-A456-426614174000", KeyRandom}}
	return func(yield func(Payment) bool) {
		for i := range n {
			p := base
			if i%10 == 9 {
				p.Kind = KindPIX
				p.Account = Account{Bank: "260", ISPB: "18236120", Agency: "1", Account: "12345678", AccountDigit: "9", Type: AccountPayment}
			} else {
				k := keys[i%len(keys)]
				p.Kind, p.PIXKey, p.PIXKeyType = KindPIXKey, k.key, k.typ
			}
			if !yield(p) {
				return
			}
		}
	}
}

// BenchmarkWritePIXBanks writes 100,000 PIX payments in a PIX file for
// every bank: the key checks and the PIX forms of segments A and B.
func BenchmarkWritePIXBanks(b *testing.B) { benchBanks(b, true, pixPayments) }
