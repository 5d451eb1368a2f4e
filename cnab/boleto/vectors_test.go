package boleto

import (
	"testing"
	"time"
)

// slipVector is one complete slip from a public source: the beneficiary and
// title in, the nosso número, barcode and digitable line out.
type slipVector struct {
	name     string
	source   string // where the values can be checked
	b        Beneficiary
	sequence int64
	amount   int64 // cents
	due      string
	nn       NossoNumero
	barcode  string
	line     string // as printed
}

func date(t *testing.T, s string) time.Time {
	t.Helper()
	if s == "" {
		return time.Time{}
	}
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestSlipVectors(t *testing.T) {
	t.Parallel()
	for _, v := range slipVectors {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			nn, err := NewNossoNumero(v.b, v.sequence)
			if err != nil {
				t.Fatalf("NewNossoNumero: %v", err)
			}
			if nn != v.nn {
				t.Errorf("NewNossoNumero = %+v, want %+v", nn, v.nn)
			}
			bc, err := New(v.b, nn, v.amount, date(t, v.due))
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			if got := bc.String(); got != v.barcode {
				t.Errorf("barcode\n got %s\nwant %s", got, v.barcode)
			}
			if got := bc.FormattedLine(); got != v.line {
				t.Errorf("line\n got %s\nwant %s", got, v.line)
			}
			fromLine, err := ParseLine(v.line)
			if err != nil {
				t.Fatalf("ParseLine(%q): %v", v.line, err)
			}
			if fromLine != bc {
				t.Errorf("ParseLine(%q) = %s, want %s", v.line, fromLine, bc)
			}
			fromBarcode, err := ParseBarcode(v.barcode)
			if err != nil {
				t.Fatalf("ParseBarcode(%q): %v", v.barcode, err)
			}
			if fromBarcode != bc {
				t.Errorf("ParseBarcode(%q) = %s, want %s", v.barcode, fromBarcode, bc)
			}
		})
	}
}

var slipVectors = []slipVector{
	{
		name:     "itau/175",
		source:   "brcobranca spec/brcobranca/boleto/itau_spec.rb",
		b:        Beneficiary{Bank: "341", Agency: "0810", Account: "53678", Wallet: "175"},
		sequence: 12345678, amount: 0, due: "2009-08-14",
		nn:      NossoNumero{Number: "12345678", Digit: "4", Printed: "175/12345678-4"},
		barcode: "34191432900000000001751234567840810536789000",
		line:    "34191.75124 34567.840813 05367.890000 1 43290000000000",
	},
	{
		name:     "itau/175/amount",
		source:   "brcobranca spec/brcobranca/boleto/itau_spec.rb",
		b:        Beneficiary{Bank: "341", Agency: "0810", Account: "53678", Wallet: "175"},
		sequence: 258281, amount: 13500, due: "2008-02-02",
		nn:      NossoNumero{Number: "00258281", Digit: "7", Printed: "175/00258281-7"},
		barcode: "34191377000000135001750025828170810536789000",
		line:    "34191.75009 25828.170818 05367.890000 1 37700000013500",
	},
	{
		name:     "itau/109/2029",
		source:   "brcobranca spec/brcobranca/boleto/itau_spec.rb",
		b:        Beneficiary{Bank: "341", Agency: "1248", Account: "02124", AccountDigit: "6", Wallet: "109"},
		sequence: 10152, amount: 675787, due: "2029-05-20",
		nn:      NossoNumero{Number: "00010152", Digit: "7", Printed: "109/00010152-7"},
		barcode: "34194254800006757871090001015271248021246000",
		line:    "34191.09008 01015.271248 80212.460002 4 25480000675787",
	},
	{
		name:     "bradesco/06",
		source:   "brcobranca spec/brcobranca/boleto/bradesco_spec.rb",
		b:        Beneficiary{Bank: "237", Agency: "1172", Account: "0403005", Wallet: "06"},
		sequence: 75896452, amount: 295295, due: "2009-04-30",
		nn:      NossoNumero{Number: "00075896452", Digit: "5", Printed: "06/00075896452-5"},
		barcode: "23795422300002952951172060007589645204030050",
		line:    "23791.17209 60007.589645 52040.300502 5 42230000295295",
	},
	{
		name:     "bradesco/03",
		source:   "brcobranca spec/brcobranca/boleto/bradesco_spec.rb",
		b:        Beneficiary{Bank: "237", Agency: "4042", Account: "61900", Wallet: "03"},
		sequence: 777700168, amount: 13500, due: "2008-02-02",
		nn:      NossoNumero{Number: "00777700168", Digit: "5", Printed: "03/00777700168-5"},
		barcode: "23791377000000135004042030077770016800619000",
		line:    "23794.04201 30077.770011 68006.190000 1 37700000013500",
	},
}
