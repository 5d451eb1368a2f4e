package boleto

import (
	"errors"
	"testing"
	"time"
)

func digitsOf(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			out = append(out, s[i])
		}
	}
	return string(out)
}

func addSeeds(f *testing.F) {
	for _, v := range slipVectors {
		f.Add(v.line)
		f.Add(v.barcode)
	}
	f.Add("")
	f.Add("8" + slipVectors[0].barcode[1:])
	f.Add("34191.09008 01015.271248 80212.460002 4 2548000067578é")
}

// FuzzParseLine: a line that parses is the line of the barcode it yields,
// digit for digit, and the barcode reads back the same.
func FuzzParseLine(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		bc, err := ParseLine(s)
		if err != nil {
			if !errors.Is(err, ErrLength) && !errors.Is(err, ErrCharacter) && !errors.Is(err, ErrCheckDigit) && !errors.Is(err, ErrInvalid) {
				t.Fatalf("ParseLine(%q) error %v matches no sentinel", s, err)
			}
			return
		}
		if got := bc.Line(); got != digitsOf(s) {
			t.Fatalf("ParseLine(%q).Line() = %s", s, got)
		}
		again, err := ParseBarcode(bc.String())
		if err != nil || again != bc {
			t.Fatalf("ParseBarcode(%s) = %s, %v", bc, again, err)
		}
		formatted, err := ParseLine(bc.FormattedLine())
		if err != nil || formatted != bc {
			t.Fatalf("ParseLine(%q) = %s, %v", bc.FormattedLine(), formatted, err)
		}
	})
}

// FuzzParseBarcode: a barcode that parses is its own digits, and its
// digitable line reads back to it.
func FuzzParseBarcode(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		bc, err := ParseBarcode(s)
		if err != nil {
			if !errors.Is(err, ErrLength) && !errors.Is(err, ErrCharacter) && !errors.Is(err, ErrCheckDigit) && !errors.Is(err, ErrInvalid) {
				t.Fatalf("ParseBarcode(%q) error %v matches no sentinel", s, err)
			}
			return
		}
		if bc.String() != digitsOf(s) {
			t.Fatalf("ParseBarcode(%q) = %s", s, bc)
		}
		fromLine, err := ParseLine(bc.Line())
		if err != nil || fromLine != bc {
			t.Fatalf("ParseLine(%s) = %s, %v", bc.Line(), fromLine, err)
		}
	})
}

// FuzzNew: any beneficiary, sequence, amount and due date either gives a
// *FieldError or a barcode that parses back with the same amount and
// factor.
func FuzzNew(f *testing.F) {
	for _, v := range slipVectors {
		b := v.b
		f.Add(b.Bank, b.Agency, b.Account, b.Wallet, b.Covenant, b.Station, b.Modality, v.sequence, v.amount, int64(10000))
	}
	f.Fuzz(func(t *testing.T, bank, agency, account, wallet, covenant, station, modality string, seq, amount, days int64) {
		b := Beneficiary{Bank: bank, Agency: agency, Account: account, Wallet: wallet, Covenant: covenant, Station: station, Modality: modality}
		due := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, int(days%40000))
		nn, err := NewNossoNumero(b, seq)
		if err != nil {
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("NewNossoNumero error %v is not a *FieldError", err)
			}
			return
		}
		bc, err := New(b, nn, amount, due)
		if err != nil {
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("New error %v is not a *FieldError", err)
			}
			return
		}
		back, err := ParseLine(bc.Line())
		if err != nil || back != bc {
			t.Fatalf("ParseLine(%s) = %s, %v", bc.Line(), back, err)
		}
		factor, _ := Factor(due)
		if bc.Amount() != amount || bc.Factor() != factor || bc.Bank() != bank {
			t.Fatalf("barcode %s: amount %d factor %d bank %s, want %d %d %s", bc, bc.Amount(), bc.Factor(), bc.Bank(), amount, factor, bank)
		}
	})
}
