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
	nn       NossoNumero // only Number is compared when the source shows no Printed form
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
			if v.nn.Printed == "" && nn.Number != v.nn.Number {
				t.Errorf("NewNossoNumero().Number = %q, want %q", nn.Number, v.nn.Number)
			}
			if v.nn.Printed != "" && nn != v.nn {
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

// Sources of the vectors (values only; see docs/boleto.md):
//
//	brcobranca: github.com/kivanio/brcobranca, spec/brcobranca/boleto/*_spec.rb
//	openboleto: github.com/openboleto/openboleto, tests/Banco/*Test.php
//	pyboleto:   github.com/eduardocereto/pyboleto, tests/test_banco_*.py
//	python-boleto: github.com/Trust-Code/python-boleto, tests/test_banco_*.py
var slipVectors = []slipVector{
	// Banco do Brasil
	{
		name: "bb/covenant7", source: "brcobranca banco_brasil_spec.rb",
		b:        Beneficiary{Bank: "001", Covenant: "1238798", Agency: "4042", Account: "61900", Wallet: "18"},
		sequence: 7777700168, amount: 13500, due: "2008-02-03",
		nn:      NossoNumero{Number: "12387987777700168", Printed: "12387987777700168"},
		barcode: "00193377100000135000000001238798777770016818",
		line:    "00190.00009 01238.798779 77700.168188 3 37710000013500",
	},
	{
		name: "bb/covenant7/amount", source: "brcobranca banco_brasil_spec.rb",
		b:        Beneficiary{Bank: "001", Covenant: "1238798", Wallet: "18"},
		sequence: 7777700168, amount: 72356, due: "2008-02-01",
		nn:      NossoNumero{Number: "12387987777700168", Printed: "12387987777700168"},
		barcode: "00194376900000723560000001238798777770016818",
		line:    "00190.00009 01238.798779 77700.168188 4 37690000072356",
	},
	{
		name: "bb/covenant7/openboleto", source: "openboleto BancoDoBrasilTest.php",
		b:        Beneficiary{Bank: "001", Covenant: "1234567", Agency: "1545", Account: "10403005", Wallet: "18"},
		sequence: 1, amount: 1050, due: "2013-01-01",
		nn:      NossoNumero{Number: "12345670000000001", Printed: "12345670000000001"},
		barcode: "00197556500000010500000001234567000000000118",
		line:    "00190.00009 01234.567004 00000.001180 7 55650000001050",
	},
	{
		name: "bb/covenant6", source: "openboleto BancoDoBrasilTest.php",
		b:        Beneficiary{Bank: "001", Covenant: "123456", Agency: "1545", Account: "10403005", Wallet: "18"},
		sequence: 1, amount: 1050, due: "2013-01-01",
		nn:      NossoNumero{Number: "12345600001", Digit: "7", Printed: "12345600001-7"},
		barcode: "00191556500000010501234560000115451040300518",
		line:    "00191.23454 60000.115455 10403.005183 1 55650000001050",
	},
	{
		name: "bb/covenant6/brcobranca", source: "brcobranca banco_brasil_spec.rb",
		b:        Beneficiary{Bank: "001", Covenant: "123879", Agency: "4042", Account: "61900", Wallet: "18"},
		sequence: 1234, amount: 13500, due: "2008-02-01",
		nn:      NossoNumero{Number: "12387901234"},
		barcode: "00192376900000135001238790123440420006190018",
		line:    "00191.23876 90123.440423 00061.900189 2 37690000013500",
	},
	{
		name: "bb/covenant4", source: "openboleto BancoDoBrasilTest.php",
		b:        Beneficiary{Bank: "001", Covenant: "1234", Agency: "1545", Account: "10403005", Wallet: "18"},
		sequence: 1, amount: 1050, due: "2013-01-01",
		nn:      NossoNumero{Number: "12340000001", Digit: "1", Printed: "12340000001-1"},
		barcode: "00195556500000010501234000000115451040300518",
		line:    "00191.23405 00000.115451 10403.005183 5 55650000001050",
	},
	{
		name: "bb/covenant4/brcobranca", source: "brcobranca banco_brasil_spec.rb",
		b:        Beneficiary{Bank: "001", Covenant: "1238", Agency: "4042", Account: "61900", Wallet: "18"},
		sequence: 123456, amount: 13500, due: "2008-02-01",
		nn:      NossoNumero{Number: "12380123456"},
		barcode: "00191376900000135001238012345640420006190018",
		line:    "00191.23801 12345.640424 00061.900189 1 37690000013500",
	},
	// Santander
	{
		name: "santander/102", source: "brcobranca santander_spec.rb",
		b:        Beneficiary{Bank: "033", Agency: "0059", Covenant: "1899775", Wallet: "102"},
		sequence: 90000267, amount: 2500, due: "2011-10-09",
		nn:      NossoNumero{Number: "000090000267", Digit: "0", Printed: "000090000267-0"},
		barcode: "03398511500000025009189977500009000026700102",
		line:    "03399.18997 77500.009004 00267.001022 8 51150000002500",
	},
	{
		name: "santander/102/2012", source: "brcobranca santander_spec.rb",
		b:        Beneficiary{Bank: "033", Agency: "0059", Covenant: "1899775", Wallet: "102"},
		sequence: 90002720, amount: 5400, due: "2012-09-08",
		nn:      NossoNumero{Number: "000090002720", Digit: "7", Printed: "000090002720-7"},
		barcode: "03399545000000054009189977500009000272070102",
		line:    "03399.18997 77500.009004 02720.701024 9 54500000005400",
	},
	{
		name: "santander/openboleto", source: "openboleto SantanderTest.php",
		b:        Beneficiary{Bank: "033", Agency: "1234", Covenant: "1234567", Wallet: "102"},
		sequence: 12345678901, amount: 2300, due: "2013-01-01",
		nn:      NossoNumero{Number: "012345678901", Digit: "0", Printed: "012345678901-0"},
		barcode: "03392556500000023009123456701234567890100102",
		line:    "03399.12347 56701.234561 78901.001020 2 55650000002300",
	},
	// Banrisul
	{
		name: "banrisul/2015", source: "brcobranca banrisul_spec.rb",
		b:        Beneficiary{Bank: "041", Agency: "1102", Account: "1454204", Covenant: "9000150"},
		sequence: 22832563, amount: 127890, due: "2015-06-26",
		nn:      NossoNumero{Number: "22832563", Digit: "51", Printed: "22832563-51"},
		barcode: "04191647100001278902111029000150228325634059",
		line:    "04192.11107 29000.150226 83256.340593 1 64710000127890",
	},
	{
		name: "banrisul/first-factor-cycle", source: "brcobranca banrisul_spec.rb",
		b:        Beneficiary{Bank: "041", Agency: "1102", Covenant: "9000150"},
		sequence: 9274, amount: 55000, due: "2000-07-04",
		nn:      NossoNumero{Number: "00009274", Digit: "22", Printed: "00009274-22"},
		barcode: "04194100100000550002111029000150000092744028",
		line:    "04192.11107 29000.150002 00927.440289 4 10010000055000",
	},
	{
		name: "banrisul/9194", source: "brcobranca banrisul_spec.rb",
		b:        Beneficiary{Bank: "041", Agency: "1102", Covenant: "9000150"},
		sequence: 9194, amount: 55000, due: "2000-07-04",
		nn:      NossoNumero{Number: "00009194", Digit: "38", Printed: "00009194-38"},
		barcode: "04198100100000550002111029000150000091944023",
		line:    "04192.11107 29000.150002 00919.440230 8 10010000055000",
	},
	{
		name: "banrisul/pyboleto", source: "pyboleto test_banco_banrisul.py",
		b:        Beneficiary{Bank: "041", Agency: "1102", Covenant: "9000150"},
		sequence: 22832563, amount: 55000, due: "2000-07-04",
		nn:      NossoNumero{Number: "22832563"},
		barcode: "04198100100000550002111029000150228325634059",
		line:    "04192.11107 29000.150226 83256.340593 8 10010000055000",
	},
	{
		name: "banrisul/2017", source: "brcobranca banrisul_spec.rb",
		b:        Beneficiary{Bank: "041", Agency: "0016", Covenant: "0164640"},
		sequence: 3408099, amount: 121600, due: "2017-01-12",
		nn:      NossoNumero{Number: "03408099"},
		barcode: "04192703700001216002100160164640034080994027",
		line:    "04192.10018 60164.640033 40809.940279 2 70370000121600",
	},
	// Caixa
	{
		name: "caixa/code7", source: "openboleto CaixaTest.php",
		b:        Beneficiary{Bank: "104", Agency: "3454", Covenant: "1242119", Wallet: "RG"},
		sequence: 157460299, amount: 2000, due: "2024-11-04",
		nn:      NossoNumero{Number: "14000000157460299", Digit: "6", Printed: "14000000157460299-6"},
		barcode: "10491989000000020001242119000100041574602991",
		line:    "10491.24215 19000.100040 15746.029915 1 98900000002000",
	},
	// Bradesco
	{
		name: "bradesco/06", source: "brcobranca bradesco_spec.rb",
		b:        Beneficiary{Bank: "237", Agency: "1172", Account: "0403005", Wallet: "06"},
		sequence: 75896452, amount: 295295, due: "2009-04-30",
		nn:      NossoNumero{Number: "00075896452"},
		barcode: "23795422300002952951172060007589645204030050",
		line:    "23791.17209 60007.589645 52040.300502 5 42230000295295",
	},
	{
		name: "bradesco/03", source: "brcobranca bradesco_spec.rb",
		b:        Beneficiary{Bank: "237", Agency: "4042", Account: "61900", Wallet: "03"},
		sequence: 777700168, amount: 13500, due: "2008-02-02",
		nn:      NossoNumero{Number: "00777700168"},
		barcode: "23791377000000135004042030077770016800619000",
		line:    "23794.04201 30077.770011 68006.190000 1 37700000013500",
	},
	{
		name: "bradesco/06/openboleto", source: "openboleto BradescoTest.php",
		b:        Beneficiary{Bank: "237", Agency: "1172", Account: "403005", Wallet: "06"},
		sequence: 123456789, amount: 1050, due: "2013-01-01",
		nn:      NossoNumero{Number: "00123456789"},
		barcode: "23798556500000010501172060012345678904030050",
		line:    "23791.17209 60012.345678 89040.300504 8 55650000001050",
	},
	// Itaú
	{
		name: "itau/175", source: "brcobranca itau_spec.rb",
		b:        Beneficiary{Bank: "341", Agency: "0810", Account: "53678", Wallet: "175"},
		sequence: 12345678, amount: 0, due: "2009-08-14",
		nn:      NossoNumero{Number: "12345678", Digit: "4", Printed: "175/12345678-4"},
		barcode: "34191432900000000001751234567840810536789000",
		line:    "34191.75124 34567.840813 05367.890000 1 43290000000000",
	},
	{
		name: "itau/175/amount", source: "brcobranca itau_spec.rb",
		b:        Beneficiary{Bank: "341", Agency: "0810", Account: "53678", Wallet: "175"},
		sequence: 258281, amount: 13500, due: "2008-02-02",
		nn:      NossoNumero{Number: "00258281", Digit: "7", Printed: "175/00258281-7"},
		barcode: "34191377000000135001750025828170810536789000",
		line:    "34191.75009 25828.170818 05367.890000 1 37700000013500",
	},
	{
		name: "itau/109/after-factor-reset", source: "brcobranca itau_spec.rb (due 2029-05-20, factor 2548)",
		b:        Beneficiary{Bank: "341", Agency: "1248", Account: "02124", AccountDigit: "6", Wallet: "109"},
		sequence: 10152, amount: 675787, due: "2029-05-20",
		nn:      NossoNumero{Number: "00010152", Digit: "7", Printed: "109/00010152-7"},
		barcode: "34194254800006757871090001015271248021246000",
		line:    "34191.09008 01015.271248 80212.460002 4 25480000675787",
	},
	{
		name: "itau/112/dac-over-agency-and-account", source: "openboleto ItauTest.php",
		b:        Beneficiary{Bank: "341", Agency: "1724", Account: "12345", Wallet: "112"},
		sequence: 12345678, amount: 1050, due: "2013-01-01",
		nn:      NossoNumero{Number: "12345678", Digit: "8", Printed: "112/12345678-8"},
		barcode: "34191556500000010501121234567881724123458000",
		line:    "34191.12127 34567.881726 41234.580003 1 55650000001050",
	},
	// Sicredi
	{
		name: "sicredi/unregistered", source: "brcobranca sicredi_spec.rb",
		b:        Beneficiary{Bank: "748", Agency: "1234", Station: "18", Covenant: "12345", Wallet: "3"},
		sequence: 12213871, amount: 295295, due: "2012-01-24",
		nn:      NossoNumero{Number: "12213871", Digit: "5", Printed: "12/213871-5"},
		barcode: "74891522200002952953112213871512341812345100",
		line:    "74893.11220 13871.512342 18123.451009 1 52220000295295",
	},
	{
		name: "sicredi/registered/python-boleto", source: "python-boleto test_banco_sicredi.py",
		b:        Beneficiary{Bank: "748", Agency: "0434", Station: "08", Covenant: "36699", Wallet: "1"},
		sequence: 18324121, amount: 9075, due: "2018-01-25",
		nn:      NossoNumero{Number: "18324121", Digit: "9", Printed: "18/324121-9"},
		barcode: "74891741500000090751118324121904340836699106",
		line:    "74891.11836 24121.904346 08366.991068 1 74150000009075",
	},
	// Sicoob
	{
		name: "sicoob/01", source: "openboleto SicoobTest.php",
		b:        Beneficiary{Bank: "756", Agency: "3069", Covenant: "153850", Wallet: "1", Modality: "01"},
		sequence: 203210, amount: 157575, due: "2018-05-25",
		nn:      NossoNumero{Number: "0203210", Digit: "1", Printed: "0203210-1"},
		barcode: "75699753500001575751306901015385002032101001",
		line:    "75691.30698 01015.385006 20321.010017 9 75350000157575",
	},
}

// freeFieldVectors are free fields a source gives without a whole slip.
var freeFieldVectors = []struct {
	source   string
	b        Beneficiary
	sequence int64
	amount   int64
	nn       NossoNumero
	want     string
}{
	{
		source: "brcobranca caixa_spec.rb",
		b:      Beneficiary{Bank: "104", Agency: "1825", Covenant: "245274"}, sequence: 1, amount: 1000,
		nn:   NossoNumero{Number: "14000000000000001", Digit: "4", Printed: "14000000000000001-4"},
		want: "2452740000100040000000017",
	},
	{
		source: "brcobranca itau_spec.rb",
		b:      Beneficiary{Bank: "341", Agency: "1248", Account: "02124", Wallet: "109"}, sequence: 10152, amount: 675787,
		nn:   NossoNumero{Number: "00010152", Digit: "7", Printed: "109/00010152-7"},
		want: "1090001015271248021246000",
	},
	{
		source: "brcobranca sicredi_spec.rb",
		b:      Beneficiary{Bank: "748", Agency: "1234", Station: "18", Covenant: "12345", Wallet: "3"}, sequence: 12213871, amount: 295295,
		nn:   NossoNumero{Number: "12213871", Digit: "5", Printed: "12/213871-5"},
		want: "3112213871512341812345100",
	},
}

func TestFreeFieldVectors(t *testing.T) {
	t.Parallel()
	for _, v := range freeFieldVectors {
		nn, err := NewNossoNumero(v.b, v.sequence)
		if err != nil {
			t.Errorf("%s: NewNossoNumero: %v", v.source, err)
			continue
		}
		if v.nn.Printed != "" && nn != v.nn {
			t.Errorf("%s: NewNossoNumero = %+v, want %+v", v.source, nn, v.nn)
		}
		if nn.Number != v.nn.Number {
			t.Errorf("%s: NewNossoNumero().Number = %s, want %s", v.source, nn.Number, v.nn.Number)
		}
		got, err := FreeField(v.b, nn, v.amount)
		if err != nil {
			t.Errorf("%s: FreeField: %v", v.source, err)
			continue
		}
		if got != v.want {
			t.Errorf("%s: FreeField = %s, want %s", v.source, got, v.want)
		}
	}
}
