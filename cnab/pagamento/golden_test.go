package pagamento

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/propfin/propfin/cnab"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// goldens are the sample remittances of testdata: each NAME.json is
// written and compared with NAME.rem byte for byte.
var goldens = []string{"001", "001_pix", "033", "033_pix", "237", "237_pix", "341", "341_pix", "756", "756_pix"}

// goldenWarnings are the warnings a golden's input gives: Banco do
// Brasil's notice on its PIX records, once per file.
var goldenWarnings = map[string][]string{"001_pix": {bbPIXNotice}}

// writeInput writes the remittance described by a JSON file and returns
// its bytes and warnings.
func writeInput(t *testing.T, name string) ([]byte, []cnab.Problem) {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	in, err := DecodeInput(f)
	if err != nil {
		t.Fatalf("decode %s: %v", name, err)
	}
	var out bytes.Buffer
	var warnings []cnab.Problem
	w, err := NewWriter(&out, in.Remittance, func(p cnab.Problem) { warnings = append(warnings, p) })
	if err != nil {
		t.Fatalf("%s: NewWriter: %v", name, err)
	}
	for p, err := range in.Each() {
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(p); err != nil {
			t.Fatalf("%s: Write: %v", name, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatalf("%s: Close: %v", name, err)
	}
	return out.Bytes(), warnings
}

func TestGolden(t *testing.T) {
	t.Parallel()
	for _, name := range goldens {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, warnings := writeInput(t, name)
			if want := goldenWarnings[name]; len(warnings) != len(want) || len(want) > 0 && warnings[0].Message != want[0] {
				t.Errorf("warnings %v, want %q", warnings, want)
			}
			path := filepath.Join("testdata", name+".rem")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				gl, wl := lines(got), lines(want)
				for i := range max(len(gl), len(wl)) {
					if i >= len(gl) || i >= len(wl) || gl[i] != wl[i] {
						t.Fatalf("differs from %s at line %d:\n got %q\nwant %q", path, i+1, at(gl, i), at(wl, i))
					}
				}
				t.Fatalf("differs from %s", path)
			}
			checkShape(t, got)
		})
	}
}

func lines(b []byte) []string {
	return strings.Split(strings.TrimSuffix(string(b), "\r\n"), "\r\n")
}

func at(ls []string, i int) string {
	if i < len(ls) {
		return ls[i]
	}
	return "(none)"
}

// checkShape checks the format rules every file must keep: CR LF after
// every record including the last, 240 bytes a line, ASCII upper case.
func checkShape(t *testing.T, b []byte) {
	t.Helper()
	if !bytes.HasSuffix(b, []byte("\r\n")) {
		t.Error("the last record does not end with CR LF")
	}
	for i, l := range lines(b) {
		if len(l) != lineWidth {
			t.Errorf("line %d has %d bytes, want %d", i+1, len(l), lineWidth)
		}
		for j := 0; j < len(l); j++ {
			if l[j] < ' ' || l[j] > '~' {
				t.Errorf("line %d position %d: byte %#x is not printable ASCII", i+1, j+1, l[j])
			}
		}
	}
}
