package cnab

import (
	"io"
	"iter"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the user and system CPU time this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// titlesFrom yields n titles made from a template, each with its own
// nosso número and document number, without holding them: the way a
// worker streams titles from a database cursor. Every 1,000 titles it
// samples the heap into *peak.
func titlesFrom(template Title, n int, peak *uint64) iter.Seq[Title] {
	return func(yield func(Title) bool) {
		var ms runtime.MemStats
		for i := range n {
			t := template
			t.OurNumber = int64(i + 1)
			if i%1000 == 0 && peak != nil {
				runtime.ReadMemStats(&ms)
				*peak = max(*peak, ms.HeapAlloc)
			}
			if !yield(t) {
				return
			}
		}
	}
}

func benchmarkRemittance(b *testing.B, name string, n int) {
	rem, titles := sample(b, name)
	template := titles[1] // fine, interest, discount and protest: every record
	var peak uint64
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		sum, err := WriteAll(io.Discard, rem, titlesFrom(template, n, &peak))
		if err != nil || sum.Titles != n {
			b.Fatalf("%d titles, %v", sum.Titles, err)
		}
	}
	cpu := cpuTime() - cpu0
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "titles/s")
	// On a shared machine the wall clock counts other processes' time
	// too; titles per second of this process's CPU time does not.
	b.ReportMetric(float64(n)*float64(b.N)/cpu.Seconds(), "titles/cpu-s")
	b.ReportMetric(float64(peak), "peak-heap-B")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkRemittance writes 10,000 and 100,000 titles, and nearly as many
// as one file holds (999,999 records), in a CNAB 400 and a CNAB 240 layout. titles/s is the throughput; peak-heap-B,
// sampled while writing, stays at the garbage collector's minimum heap
// target (about 4 MB) whatever the number of titles when memory does not
// grow with them.
func BenchmarkRemittance(b *testing.B) {
	for _, c := range []struct {
		name string
		n    int
	}{
		{"341_400", 10_000}, {"341_400", 100_000}, {"341_400", 400_000},
		{"104_240", 10_000}, {"104_240", 100_000}, {"104_240", 300_000},
	} {
		b.Run(c.name+"/"+itoa(c.n), func(b *testing.B) { benchmarkRemittance(b, c.name, c.n) })
	}
}

// BenchmarkDrops writes a file of 100,000 drops alone (the file of an
// account after many titles were reverted), in a CNAB 400 and a CNAB 240
// layout: drops/s, and the peak heap, which does not grow with them.
func BenchmarkDrops(b *testing.B) {
	for _, name := range []string{"341_400", "104_240"} {
		b.Run(name, func(b *testing.B) {
			const n = 100_000
			rem, titles := sample(b, name)
			t := titles[1]
			var ms runtime.MemStats
			var peak uint64
			b.ReportAllocs()
			cpu0 := cpuTime()
			for b.Loop() {
				w, err := NewWriter(io.Discard, rem, nil)
				if err != nil {
					b.Fatal(err)
				}
				for i := range n {
					if err := w.Drop(Drop{OurNumber: int64(i + 1), DocumentNumber: t.DocumentNumber, Control: t.Control,
						Amount: t.Amount, Due: t.Due}); err != nil {
						b.Fatal(err)
					}
					if i%1000 == 0 {
						runtime.ReadMemStats(&ms)
						peak = max(peak, ms.HeapAlloc)
					}
				}
				if err := w.Close(); err != nil || w.Drops() != n {
					b.Fatalf("%d drops, %v", w.Drops(), err)
				}
			}
			cpu := cpuTime() - cpu0
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "drops/s")
			b.ReportMetric(float64(n)*float64(b.N)/cpu.Seconds(), "drops/cpu-s")
			b.ReportMetric(float64(peak), "peak-heap-B")
			b.ReportMetric(0, "ns/op")
		})
	}
}
