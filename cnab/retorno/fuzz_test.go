package retorno

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
)

// checkStream reads everything NewReader accepts from data and fails on
// an error that does not name its line, or an event without one.
func checkStream(t *testing.T, data []byte) {
	rd, err := NewReader(bytes.NewReader(data), Options{})
	if err != nil {
		if !errors.Is(err, ErrRefused) {
			t.Fatalf("NewReader: %v does not wrap ErrRefused", err)
		}
		return
	}
	n := 0
	for ev, err := range rd.All() {
		n++
		if n > len(data)+10 {
			t.Fatal("more results than lines")
		}
		if err != nil {
			var le *LineError
			if !errors.As(err, &le) || le.Line < 1 || !strings.HasPrefix(err.Error(), "line ") {
				t.Fatalf("error %q does not name its line", err)
			}
			continue
		}
		if ev.Line < 2 || ev.Bank == "" || ev.Kind == "" || ev.Occurrence == "" {
			t.Fatalf("incomplete event %+v", ev)
		}
	}
}

func sampleSeeds(f *testing.F) [][]byte {
	var seeds [][]byte
	for _, s := range sampleFiles() {
		data, err := os.ReadFile(s.path())
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, data)
	}
	return seeds
}

// FuzzReader feeds whole files: headers, detection and every reader.
func FuzzReader(f *testing.F) {
	for _, s := range sampleSeeds(f) {
		f.Add(s)
	}
	f.Add([]byte(""))
	f.Add([]byte("\r\n\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkStream(t, data)
	})
}

// FuzzRecords keeps a sample's header and trailer, so that the fuzzed
// records reach the reader of each layout in turn.
func FuzzRecords(f *testing.F) {
	seeds := sampleSeeds(f)
	for i, s := range seeds {
		lines := bytes.Split(bytes.TrimRight(s, "\r\n"), []byte("\n"))
		body := bytes.Join(lines[1:len(lines)-1], []byte("\n"))
		f.Add(uint8(i), body)
	}
	f.Fuzz(func(t *testing.T, which uint8, body []byte) {
		s := seeds[int(which)%len(seeds)]
		lines := bytes.Split(bytes.TrimRight(s, "\r\n"), []byte("\n"))
		data := bytes.Join([][]byte{lines[0], body, lines[len(lines)-1]}, []byte("\n"))
		checkStream(t, data)
	})
}
