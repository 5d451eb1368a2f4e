package retorno

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime"
	"testing"
)

// synthetic is a return file of any number of titles, generated while it
// is read: the header of a sample file, its detail records repeated, and
// trailers that count them. It keeps nothing but the sample in memory and
// allocates nothing while read, so that what a benchmark measures is the
// reader.
type synthetic struct {
	head, body [][]byte // lines, with their line breaks
	tail       func(records int) [][]byte
	lines      int // body lines still to emit
	next       int // the next body line
	queue      [][]byte
	cur        []byte
}

func (s *synthetic) Read(p []byte) (int, error) {
	for len(s.cur) == 0 {
		switch {
		case len(s.head) > 0:
			s.cur, s.head = s.head[0], s.head[1:]
		case s.lines > 0:
			s.cur = s.body[s.next%len(s.body)]
			s.next++
			s.lines--
		case s.tail != nil:
			s.queue, s.tail = s.tail(s.next), nil
		case len(s.queue) > 0:
			s.cur, s.queue = s.queue[0], s.queue[1:]
		default:
			return 0, io.EOF
		}
	}
	n := copy(p, s.cur)
	s.cur = s.cur[n:]
	return n, nil
}

func splitLines(data []byte) [][]byte {
	var out [][]byte
	for _, l := range bytes.SplitAfter(data, []byte("\n")) {
		if len(l) > 0 {
			out = append(out, l)
		}
	}
	return out
}

// synthetic400 repeats the detail records of a CNAB 400 sample.
func synthetic400(tb testing.TB, name string, titles int) *synthetic {
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		tb.Fatal(err)
	}
	lines := splitLines(data)
	n := len(lines)
	return &synthetic{
		head: lines[:1], body: lines[1 : n-1], lines: titles,
		tail: func(int) [][]byte { return lines[n-1:] },
	}
}

// synthetic240 repeats the T and U segments of a CNAB 240 sample in one
// batch, with trailers that count the records.
func synthetic240(tb testing.TB, name string, titles int) *synthetic {
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		tb.Fatal(err)
	}
	lines := splitLines(data)
	n := len(lines)
	batchTrailer, fileTrailer := lines[n-2], lines[n-1]
	return &synthetic{
		head: lines[:2], body: lines[2 : n-2], lines: 2 * titles,
		tail: func(records int) [][]byte {
			bt := bytes.Clone(batchTrailer)
			copy(bt[17:23], fmt.Sprintf("%06d", records+2))
			ft := bytes.Clone(fileTrailer)
			copy(ft[23:29], fmt.Sprintf("%06d", records+4))
			return [][]byte{bt, ft}
		},
	}
}

// readCounting reads every event and returns the number of events and
// the largest heap in use seen, sampled every 16384 events.
func readCounting(tb testing.TB, r io.Reader) (events int, peakHeap uint64) {
	rd, err := NewReader(r, Options{})
	if err != nil {
		tb.Fatal(err)
	}
	var ms runtime.MemStats
	for {
		_, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			tb.Fatal(err)
		}
		events++
		if events%16384 == 0 {
			runtime.ReadMemStats(&ms)
			peakHeap = max(peakHeap, ms.HeapInuse)
		}
	}
	return events, peakHeap
}

const benchTitles = 100_000

func benchmarkRead(b *testing.B, linesPerTitle int, file func() io.Reader) {
	b.ReportAllocs()
	var peak uint64
	for b.Loop() {
		events, p := readCounting(b, file())
		if events != benchTitles {
			b.Fatalf("%d events, want %d", events, benchTitles)
		}
		peak = max(peak, p)
	}
	sec := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(float64(benchTitles)/sec, "events/s")
	b.ReportMetric(float64(benchTitles*linesPerTitle)/sec, "lines/s")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
}

// BenchmarkRead400 reads a 100,000-title Itaú CNAB 400 return.
func BenchmarkRead400(b *testing.B) {
	benchmarkRead(b, 1, func() io.Reader { return synthetic400(b, "341_400.ret", benchTitles) })
}

// BenchmarkRead240 reads a 100,000-title Banco do Brasil CNAB 240 return
// (200,000 segments).
func BenchmarkRead240(b *testing.B) {
	benchmarkRead(b, 2, func() io.Reader { return synthetic240(b, "001_240.ret", benchTitles) })
}

// TestFlatMemory reads returns of 10,000 and 400,000 titles and checks
// that the heap in use does not grow with the file.
func TestFlatMemory(t *testing.T) {
	peak := func(titles int) uint64 {
		runtime.GC()
		events, p := readCounting(t, synthetic240(t, "001_240.ret", titles))
		if events != titles {
			t.Fatalf("%d events, want %d", events, titles)
		}
		return p
	}
	small, large := peak(20_000), peak(400_000)
	t.Logf("peak heap in use: %d KiB for 20,000 titles, %d KiB for 400,000", small>>10, large>>10)
	if large > 2*small+(4<<20) {
		t.Errorf("heap grows with the file: %d bytes for 20,000 titles, %d for 400,000", small, large)
	}
}

// TestBytesPerTitle: reading a title allocates the texts of its records,
// put together in one string per record, not whole lines: an Itaú CNAB
// 400 title (a 400-character line) about 150 bytes, a Banco do Brasil
// CNAB 240 title (segments T and U, 480 characters) about 190.
func TestBytesPerTitle(t *testing.T) {
	cases := []struct {
		name  string
		file  func(titles int) io.Reader
		limit uint64 // bytes per title
	}{
		{"Itaú 400", func(n int) io.Reader { return synthetic400(t, "341_400.ret", n) }, 200},
		{"BB 240", func(n int) io.Reader { return synthetic240(t, "001_240.ret", n) }, 240},
	}
	const titles = 10_000
	for _, c := range cases {
		var before, after runtime.MemStats
		r := c.file(titles)
		runtime.ReadMemStats(&before)
		events, _ := readCounting(t, r)
		runtime.ReadMemStats(&after)
		if events != titles {
			t.Fatalf("%s: %d events, want %d", c.name, events, titles)
		}
		perTitle := (after.TotalAlloc - before.TotalAlloc) / titles
		t.Logf("%s: %d bytes allocated per title", c.name, perTitle)
		if perTitle > c.limit {
			t.Errorf("%s: %d bytes allocated per title, want at most %d", c.name, perTitle, c.limit)
		}
	}
}
