package pagamento

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/propfin/propfin/cnab"
)

// FuzzInput feeds arbitrary JSON to the input decoder and the writer: no
// panic, every problem names a payment index in range and a field, and a
// file written without error has the shape of a remittance.
func FuzzInput(f *testing.F) {
	for _, name := range goldens {
		b, err := os.ReadFile(filepath.Join("testdata", name+".json"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"bank":"237","payments":[{"kind":"boleto","barcode":"1"}]}`))
	f.Add([]byte(`{"bank":"341","sequence":1,"payments":[{}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := DecodeInput(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, cnab.ErrInvalid) {
				t.Fatalf("DecodeInput error %v is not a Problems", err)
			}
			return
		}
		var out bytes.Buffer
		w, err := NewWriter(&out, in.Remittance, func(cnab.Problem) {})
		if err != nil {
			if !errors.Is(err, cnab.ErrInvalid) {
				t.Fatalf("NewWriter error %v is not a Problems", err)
			}
			return
		}
		failed, undecoded := false, false
		for p, err := range in.Each() {
			if err != nil {
				undecoded = true // Each stops here; the writer never saw it
			} else if err = w.Write(p); err != nil {
				failed = true
			}
			var ps cnab.Problems
			if errors.As(err, &ps) {
				for _, pr := range ps {
					if pr.Title < 0 || pr.Title >= len(in.Payments) {
						t.Fatalf("problem %v names payment %d of %d", pr, pr.Title, len(in.Payments))
					}
				}
			} else if err != nil {
				t.Fatal(err)
			}
		}
		err = w.Close()
		if failed {
			if !errors.Is(err, cnab.ErrIncomplete) {
				t.Fatalf("Close after rejected payments = %v", err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if !undecoded {
			checkShape(t, out.Bytes())
		}
	})
}
