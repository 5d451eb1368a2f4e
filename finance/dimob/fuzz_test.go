package dimob

import (
	"bufio"
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/propfin/propfin/finance"
	"github.com/shopspring/decimal"
)

// recordLength is the length of a record by its type.
func recordLength(line string) (int, bool) {
	for prefix, n := range map[string]int{"DIMOB": HeaderLength, "R01": R01Length, "R02": R02Length, "R04": R04Length, "T9": T9Length} {
		if strings.HasPrefix(line, prefix) {
			return n, true
		}
	}
	return 0, false
}

// checkRecords holds a file to the layout's shape: every record ends in
// CRLF, has its record's length and only printable ASCII, and there is a
// header, an R01, the rentals, the sales and a trailer.
func checkRecords(t *testing.T, file []byte, rentals, sales int) {
	t.Helper()
	s := string(file)
	if !strings.HasSuffix(s, "\r\n") {
		t.Fatalf("the file does not end in CRLF: %q", s[max(0, len(s)-20):])
	}
	lines := strings.Split(strings.TrimSuffix(s, "\r\n"), "\r\n")
	if want := 3 + rentals + sales; len(lines) != want {
		t.Fatalf("%d records, want %d", len(lines), want)
	}
	for i, l := range lines {
		n, ok := recordLength(l)
		if !ok {
			t.Fatalf("record %d begins with %.5q", i+1, l)
		}
		if len(l) != n {
			t.Fatalf("record %d (%.3s) has %d characters, want %d", i+1, l, len(l), n)
		}
		for j := 0; j < len(l); j++ {
			if l[j] < 0x20 || l[j] > 0x7e {
				t.Fatalf("record %d position %d is byte %#x", i+1, j+1, l[j])
			}
		}
	}
}

// fuzzDeclaration is the sample with the fuzzer's values in every kind of
// field: text, tax ids, codes, amounts (cents, any sign and size, and a
// decimal's exponent), dates and the year.
func fuzzDeclaration(text, id, code string, cents int64, exp int32, year, days int, rural bool) Declaration {
	d := sample()
	d.Declarant.Name, d.Declarant.Address, d.Declarant.Year = text, text+text, year
	d.Declarant.ReceiptNumber, d.Declarant.Amended = code, rural
	if rural {
		d.Declarant.Special = &SpecialSituation{Code: SituationCode(days % 7), Date: finance.NewDate(year, time.June, days)}
	}
	money := decimal.New(cents, exp)
	date := finance.NewDate(year, time.January, days)
	for i := range d.Rentals {
		r := &d.Rentals[i]
		r.Owner.Name, r.Tenant.TaxID, r.Contract.Number, r.Contract.Date = text, id, code, date
		r.Property = Property{Rural: rural, Address: text, CEP: code, Municipality: code, UF: id}
		r.Months[(days%12+12)%12] = Month{Rent: money, Commission: money.Neg(), TaxWithheld: money.Shift(-3)}
	}
	d.Sales[0].Buyer = Party{TaxID: id, Name: text}
	d.Sales[0].Amount, d.Sales[0].Commission, d.Sales[0].Contract.Date = money, money.Abs(), date
	return d
}

// FuzzWrite: whatever the declaration holds, writing it never panics and
// every record written is CRLF-terminated and of its record's length; a
// declaration Write refuses gets Problems and no byte.
func FuzzWrite(f *testing.F) {
	f.Add("Imobiliária Conceição", "11222333000181", "7107", int64(600000), int32(-2), 2024, 15, false)
	f.Add("", "", "", int64(0), int32(0), 0, 0, true)
	f.Add(strings.Repeat("ção日本\r\n", 40), "NDP", "01305-000", int64(-1), int32(-5), -3, -400, true)
	f.Add("\xff\x00\t", "123456789012345", "99999999999", int64(1<<62), int32(20), 99999, 1<<20, false)
	f.Add("x", "52998224725", "1234567890", int64(99999999999999), int32(-2), 2024, 31, true)
	allValid := Options{ValidTaxID: func(string) bool { return true }}
	f.Fuzz(func(t *testing.T, text, id, code string, cents int64, exp int32, year, days int, rural bool) {
		if exp < -30 || exp > 30 {
			return // decimal.New of a huge exponent is a huge number, not a new case
		}
		d := fuzzDeclaration(text, id, code, cents, exp, year, days, rural)
		var b bytes.Buffer
		w := bufio.NewWriter(&b)
		encode(w, d)
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		checkRecords(t, b.Bytes(), len(d.Rentals), len(d.Sales))

		for _, o := range []Options{options, allValid} {
			b.Reset()
			err := o.Write(&b, d)
			var ps Problems
			switch {
			case err == nil:
				checkRecords(t, b.Bytes(), len(d.Rentals), len(d.Sales))
			case !errors.As(err, &ps) || !ps.Blocks():
				t.Fatalf("Write = %v, want nil or blocking Problems", err)
			case b.Len() != 0:
				t.Fatalf("a refused declaration wrote %d bytes", b.Len())
			}
		}
	})
}
