package cnab

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/propfin/propfin/cnab/fixedwidth"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestLayoutTables checks every record table of every bank: the fields
// cover positions 1 to the record width exactly once, in order, and every
// constant is as wide as its field.
func TestLayoutTables(t *testing.T) {
	t.Parallel()
	for key, sp := range specs {
		for _, rec := range allRecords(sp) {
			pos := 1
			for _, f := range rec.fields {
				where := key.bank + "/" + itoa(int(key.layout)) + " " + rec.name + " " + f.Name
				if f.Name == "" {
					t.Errorf("%s: field at %d has no name", where, f.Start)
				}
				if f.Start != pos {
					t.Errorf("%s: starts at %d, want %d (gap or overlap)", where, f.Start, pos)
				}
				if f.End < f.Start {
					t.Errorf("%s: ends at %d before its start %d", where, f.End, f.Start)
				}
				if f.Kind == fixedwidth.Const && len(f.Lit) != f.Width() {
					t.Errorf("%s: constant %q is %d bytes, field is %d", where, f.Lit, len(f.Lit), f.Width())
				}
				if (f.Kind == fixedwidth.Date6 && f.Width() != 6) || ((f.Kind == fixedwidth.Date8 || f.Kind == fixedwidth.DateYMD) && f.Width() != 8) {
					t.Errorf("%s: date field of width %d", where, f.Width())
				}
				pos = f.End + 1
			}
			if pos != int(key.layout)+1 {
				t.Errorf("%s/%d %s: fields end at %d, want %d", key.bank, key.layout, rec.name, pos-1, key.layout)
			}
		}
	}
}

func allRecords(sp *spec) []*record { return allRecordsOf(sp) }

// writeInput writes the remittance described by a testdata JSON file.
func writeInput(t testing.TB, path string) ([]byte, []Problem) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	in, err := DecodeInput(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var buf bytes.Buffer
	var warnings []Problem
	w, err := NewWriter(&buf, in.Remittance, func(p Problem) { warnings = append(warnings, p) })
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	for title, err := range in.Each() {
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if err := w.Write(title); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return buf.Bytes(), warnings
}

// TestGolden writes each testdata/*.json remittance and compares it with
// the .rem file beside it. Run with -update to rewrite the goldens after a
// deliberate change, and read the diff.
func TestGolden(t *testing.T) {
	t.Parallel()
	inputs, _ := filepath.Glob("testdata/*.json")
	if len(inputs) == 0 {
		t.Fatal("no testdata inputs")
	}
	for _, in := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			t.Parallel()
			got, _ := writeInput(t, in)
			golden := strings.TrimSuffix(in, ".json") + ".rem"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("output differs from %s:\n%s", golden, firstDiff(got, want))
			}
		})
	}
}

// TestEverySpecHasGolden makes sure no bank layout ships without one.
func TestEverySpecHasGolden(t *testing.T) {
	t.Parallel()
	for key := range specs {
		path := filepath.Join("testdata", key.bank+"_"+itoa(int(key.layout))+".json")
		if _, err := os.Stat(path); err != nil {
			t.Errorf("bank %s CNAB %d: no golden input %s", key.bank, key.layout, path)
		}
	}
}

// TestGoldenFormat checks the format rules on every golden: each record is
// exactly the layout's width, printable upper-case ASCII, ends with the
// bank's line ending, and the file ends (or not) with one.
func TestGoldenFormat(t *testing.T) {
	t.Parallel()
	for key, sp := range specs {
		path := filepath.Join("testdata", key.bank+"_"+itoa(int(key.layout))+".json")
		if _, err := os.Stat(path); err != nil {
			continue // reported by TestEverySpecHasGolden
		}
		data, _ := writeInput(t, path)
		if !bytes.HasSuffix(data, []byte(sp.eof)) {
			t.Errorf("%s: does not end with the end-of-file mark %q", path, sp.eof)
		}
		data = data[:len(data)-len(sp.eof)]
		if got := bytes.HasSuffix(data, []byte(sp.eol)); got != sp.finalEOL {
			t.Errorf("%s: ends with a line ending = %v, bank wants %v", path, got, sp.finalEOL)
		}
		lines := bytes.Split(bytes.TrimSuffix(data, []byte(sp.eol)), []byte(sp.eol))
		for i, line := range lines {
			if len(line) != int(sp.layout) {
				t.Errorf("%s line %d: %d bytes, want %d", path, i+1, len(line), sp.layout)
			}
			for j, c := range line {
				if c < ' ' || c > 'Z' && c != '_' {
					t.Errorf("%s line %d column %d: byte %q is not upper-case printable ASCII", path, i+1, j+1, c)
					break
				}
			}
		}
		if sp.eol == "\r\n" && bytes.Count(data, []byte("\n")) != bytes.Count(data, []byte("\r\n")) {
			t.Errorf("%s: a bare LF among CR LF line endings", path)
		}
	}
}

func firstDiff(got, want []byte) string {
	gl := strings.Split(string(got), "\n")
	wl := strings.Split(string(want), "\n")
	for i := 0; i < len(gl) || i < len(wl); i++ {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			col := 0
			for col < len(g) && col < len(w) && g[col] == w[col] {
				col++
			}
			return "line " + itoa(i+1) + " column " + itoa(col+1) + ":\n got  " + g + "\n want " + w
		}
	}
	return "same lines, different bytes"
}
