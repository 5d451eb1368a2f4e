package cnab

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzInput feeds arbitrary JSON to the decoder and the writer. Whatever
// the input, nothing panics, every problem names a title index and, when
// the remittance is written, every record is exactly the layout's width
// of printable ASCII.
func FuzzInput(f *testing.F) {
	inputs, _ := filepath.Glob("testdata/*.json")
	for _, in := range inputs {
		data, err := os.ReadFile(in)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"bank":"237","layout":400,"titles":[{"amount":"1e9999"}]}`))
	f.Add([]byte(`{"bank":"341","layout":400,"titles":[{"due":"2025-02-30"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := DecodeInput(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("decode error %v does not wrap ErrInvalid", err)
			}
			return
		}
		var out bytes.Buffer
		w, err := NewWriter(&out, in.Remittance, nil)
		if err != nil {
			var ps Problems
			if !errors.As(err, &ps) || len(ps) == 0 {
				t.Fatalf("header error %v is not Problems", err)
			}
			return
		}
		ok := true
		i := 0
		for title, err := range in.Each() {
			if err == nil {
				err = w.Write(title)
			} else {
				w.Skip()
			}
			var ps Problems
			if err != nil && (!errors.As(err, &ps) || len(ps) == 0) {
				t.Fatalf("title error %v is not Problems", err)
			}
			for _, p := range ps {
				if p.Title != i {
					t.Fatalf("problem %v names title %d, want %d", p, p.Title, i)
				}
			}
			ok = ok && err == nil
			i++
		}
		if err := w.Close(); err != nil || !ok {
			return
		}
		sp, _ := lookupSpec(in.Bank, in.Layout)
		rec := bytes.TrimSuffix(out.Bytes(), []byte(sp.eof))
		for _, line := range bytes.Split(bytes.TrimSuffix(rec, []byte(sp.eol)), []byte(sp.eol)) {
			if len(line) != int(sp.layout) {
				t.Fatalf("record of %d bytes: %q", len(line), line)
			}
			for _, c := range line {
				if c < ' ' || c > 'Z' && c != '_' {
					t.Fatalf("byte %q in %q", c, line)
				}
			}
		}
	})
}
