package pagamento

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/propfin/propfin/cnab"
)

// cancelMovement is where each bank's segments A and J carry the
// movement, and what a cancellation writes there, as the documents print
// it (docs/cnab-pagamento.md, "Cancellations"): FEBRABAN G060 (15) 9
// exclusão and G061 (16-17) 99 exclusão do registro detalhe incluído
// anteriormente; Itaú's tipo de movimento (15-17, note 10) 998.
var cancelMovement = map[string]struct {
	start, end int
	inclusion  string
	exclusion  string
}{
	"001": {15, 17, "000", "999"},
	"033": {15, 17, "000", "999"},
	"237": {15, 17, "000", "999"},
	"341": {15, 17, "000", "998"},
	"756": {15, 17, "000", "999"},
}

// samplePayments reads a testdata input.
func samplePayments(t *testing.T, name string) (Remittance, []Payment) {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	in, err := DecodeInput(f)
	if err != nil {
		t.Fatal(err)
	}
	var ps []Payment
	for p, err := range in.Each() {
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	return in.Remittance, ps
}

// TestCancelGolden writes, for every bank, a remittance of the first
// payment of its sample and the cancellation of every payment of it
// (testdata/cancel/<bank>.rem; -update rewrites them), and reads it at
// the document's positions: each cancellation is one segment A or J with
// the exclusion's movement and the reference of its payment, never
// followed by its B or J-52, and each batch trailer sums the amounts of
// its segments.
func TestCancelGolden(t *testing.T) {
	t.Parallel()
	for code := range banks {
		t.Run(code, func(t *testing.T) {
			t.Parallel()
			rem, payments := samplePayments(t, code)
			var buf bytes.Buffer
			w, err := NewWriter(&buf, rem, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Write(payments[0]); err != nil {
				t.Fatal(err)
			}
			for _, p := range payments {
				if err := w.Cancel(p); err != nil {
					t.Fatalf("cancel %s: %v", p.Reference, err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if w.Payments() != 1 || w.Cancels() != len(payments) {
				t.Errorf("payments %d, cancels %d; want 1 and %d", w.Payments(), w.Cancels(), len(payments))
			}
			got := buf.Bytes()
			path := filepath.Join("testdata", "cancel", code+".rem")
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
				t.Errorf("differs from %s", path)
			}
			checkShape(t, got)
			checkCancels(t, code, lines(got), payments)
		})
	}
}

func checkCancels(t *testing.T, code string, ls []string, payments []Payment) {
	t.Helper()
	mv := cancelMovement[code]
	var refs []string
	var batchSum int64
	inclusions := 0
	for i, l := range ls {
		switch l[7] {
		case '1':
			batchSum = 0
			continue
		case '5':
			if got := l[23:41]; got != strings.Repeat("0", 18-len(strconv.FormatInt(batchSum, 10)))+strconv.FormatInt(batchSum, 10) {
				t.Errorf("line %d: batch total %s, want %d", i+1, got, batchSum)
			}
			continue
		case '3':
		default:
			continue
		}
		seg := l[13]
		movement := l[mv.start-1 : mv.end]
		amount := l[119:134] // A: Valor do Pagamento
		ref := strings.TrimSpace(l[73:93])
		if seg == 'J' && l[17:19] != "52" {
			amount, ref = l[152:167], strings.TrimSpace(l[182:202])
		}
		switch {
		case (seg == 'A' || seg == 'J' && l[17:19] != "52") && movement == mv.exclusion:
			refs = append(refs, ref)
		case movement == mv.inclusion || seg == 'B' || seg == 'J':
			inclusions++
			if len(refs) > 0 {
				t.Errorf("line %d: segment %c after a cancellation (movement %q)", i+1, seg, movement)
			}
		default:
			t.Errorf("line %d: segment %c movement %q", i+1, seg, movement)
		}
		if seg == 'A' || seg == 'J' && l[17:19] != "52" {
			n, _ := strconv.ParseInt(amount, 10, 64)
			batchSum += n
		}
	}
	if len(refs) != len(payments) {
		t.Fatalf("%d cancellations, want %d", len(refs), len(payments))
	}
	for i, p := range payments {
		if refs[i] != strings.ToUpper(p.Reference) {
			t.Errorf("cancellation %d: reference %q, want %q", i, refs[i], p.Reference)
		}
	}
	if inclusions == 0 {
		t.Error("the payment written before the cancellations is missing")
	}
}

// TestCancelProblems checks that a rejected cancellation leaves the file
// whole: nothing of it is written (not even the batch it would have
// opened), and the payments after it are.
func TestCancelProblems(t *testing.T) {
	t.Parallel()
	rem, payments := samplePayments(t, "237")
	var buf bytes.Buffer
	w, err := NewWriter(&buf, rem, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(payments[0]); err != nil {
		t.Fatal(err)
	}
	bad := payments[len(payments)-1] // a boleto: its batch is not open
	bad.Barcode = "123"
	err = w.Cancel(bad)
	var ps cnab.Problems
	if !errors.As(err, &ps) || ps[0].Title != 1 {
		t.Fatalf("a bad cancellation: %v, want Problems of item 1", err)
	}
	if err := w.Write(payments[1]); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("a file with a rejected cancellation: Close = %v, want it whole", err)
	}
	// the same two payments without the cancellation: the same file
	var plain bytes.Buffer
	w2, _ := NewWriter(&plain, rem, nil)
	for _, p := range payments[:2] {
		if err := w2.Write(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := w2.Close(); err != nil {
		t.Fatal(err)
	}
	if w.Cancels() != 0 || w.Payments() != 2 || !bytes.Equal(buf.Bytes(), plain.Bytes()) {
		t.Errorf("cancels %d, payments %d; the file differs from the one without the rejected cancellation:\n%s\n%s",
			w.Cancels(), w.Payments(), buf.Bytes(), plain.Bytes())
	}
}
