package dimob

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

const golden = "testdata/dimob-2024.txt"

// TestWriteGolden: the sample declaration's file is the golden file, byte
// for byte (go test -run TestWriteGolden -update rewrites it).
func TestWriteGolden(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := options.Write(&b, sample()); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("the file differs from %s (run with -update after checking the difference):\n%s", golden, b.String())
	}
}

// spot is one field of the golden file, at the positions docs/dimob.md
// gives (1-based, inclusive) and with the value the sample puts there; a
// text value may leave out its trailing blanks.
type spot struct {
	line       int
	start, end int
	name       string
	want       string
}

// monthStarts is where each month's rent field begins in R02: January at
// 191, each month 42 positions (rent, commission and tax withheld, 14
// each) after the one before (docs/dimob.md, "R02").
var monthStarts = [12]int{191, 233, 275, 317, 359, 401, 443, 485, 527, 569, 611, 653}

var monthAbbr = [12]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}

// monthSpots are the 36 amount fields of one R02 line: rent, commission
// and tax withheld of a month paid once, with the sample's pattern (March
// and December empty, April twice).
func monthSpots(line int, rent, commission, tax, rent2, commission2, tax2 string) []spot {
	zero := strings.Repeat("0", 14)
	var out []spot
	for m, s := range monthStarts {
		r, c, x := rent, commission, tax
		switch m {
		case 2, 11:
			r, c, x = zero, zero, zero
		case 3:
			r, c, x = rent2, commission2, tax2
		}
		out = append(out,
			spot{line, s, s + 13, monthAbbr[m] + " rent", r},
			spot{line, s + 14, s + 27, monthAbbr[m] + " commission", c},
			spot{line, s + 28, s + 41, monthAbbr[m] + " tax withheld", x})
	}
	return out
}

// r02Spots are the fields of an R02 line other than the months.
func r02Spots(line int, seq, ownerID, owner string) []spot {
	return []spot{
		{line, 1, 3, "Tipo", "R02"},
		{line, 4, 17, "CNPJ do declarante", "11444777000161"},
		{line, 18, 21, "Ano-calendário", "2024"},
		{line, 22, 28, "Sequencial da locação", seq},
		{line, 29, 42, "CPF/CNPJ do locador", ownerID},
		{line, 43, 102, "Nome do locador", owner},
		{line, 103, 116, "CPF/CNPJ do locatário", "11222333000181"},
		{line, 117, 176, "Nome do locatário", "Padaria Pao de Acucar Ltda"},
		{line, 177, 182, "Número do contrato", "L-0123"},
		{line, 183, 190, "Data do contrato", "15032023"},
		{line, 695, 695, "Tipo do imóvel", "U"},
		{line, 696, 755, "Endereço do imóvel", "Rua Augusta, 500, loja 2 - Consolacao"},
		{line, 756, 763, "CEP", "01305000"},
		{line, 764, 767, "Código do município", "7107"},
		{line, 768, 787, "Reservado", ""},
		{line, 788, 789, "UF", "SP"},
		{line, 790, 799, "Reservado", ""},
	}
}

// positions are the fields of the golden file at the positions of
// docs/dimob.md, transcribed from its tables apart from write.go, so that
// a slip in either shows here.
func positions() []spot {
	s := []spot{
		{1, 1, 5, "Sistema", "DIMOB"},
		{1, 6, 374, "Reservado", ""},

		{2, 1, 3, "Tipo", "R01"},
		{2, 4, 17, "CNPJ do declarante", "11444777000161"},
		{2, 18, 21, "Ano-calendário", "2024"},
		{2, 22, 22, "Declaração retificadora", "0"},
		{2, 23, 32, "Número do recibo", "0000000000"},
		{2, 33, 33, "Situação especial", "0"},
		{2, 34, 41, "Data do evento", "00000000"},
		{2, 42, 43, "Código da situação especial", "00"},
		{2, 44, 103, "Nome empresarial", "Imobiliaria Conceicao Ltda"},
		{2, 104, 114, "CPF do responsável", "12345678909"},
		{2, 115, 234, "Endereço do contribuinte", "Rua da Consolacao, 1000, sala 12, Consolacao, Sao Paulo - SP, CEP 01302-000"},
		{2, 235, 236, "UF do contribuinte", "SP"},
		{2, 237, 240, "Código do município", "7107"},
		{2, 241, 260, "Reservado", ""},
		{2, 261, 270, "Reservado", ""},
	}
	s = append(s, r02Spots(3, "0000001", "52998224725", "Jose Araujo")...)
	s = append(s, monthSpots(3, "00000000600000", "00000000060000", "00000000075400",
		"00000001200000", "00000000120000", "00000000150800")...)
	s = append(s, r02Spots(4, "0000002", "11144477735", "Maria da Conceicao Ferreira")...)
	s = append(s, monthSpots(4, "00000000400000", "00000000040000", "00000000023723",
		"00000000800000", "00000000080000", "00000000047446")...)
	s = append(s,
		spot{5, 1, 3, "Tipo", "R04"},
		spot{5, 4, 17, "CNPJ do declarante", "11444777000161"},
		spot{5, 18, 21, "Ano-calendário", "2024"},
		spot{5, 22, 28, "Sequencial da venda", "0000001"},
		spot{5, 29, 42, "CPF/CNPJ do comprador", "39053344705"},
		spot{5, 43, 102, "Nome do comprador", "Ana Luiza Goncalves"},
		spot{5, 103, 116, "CPF/CNPJ do vendedor", "71460238001"},
		spot{5, 117, 176, "Nome do vendedor", "Pedro Henrique Muller"},
		spot{5, 177, 182, "Número do contrato", "V-0042"},
		spot{5, 183, 190, "Data do contrato", "20082024"},
		spot{5, 191, 204, "Valor da venda", "00000085000000"},
		spot{5, 205, 218, "Valor da comissão", "00000005100000"},
		spot{5, 219, 219, "Tipo do imóvel", "U"},
		spot{5, 220, 279, "Endereço do imóvel", "Avenida Norte-Sul, 1234, apto 81"},
		spot{5, 280, 287, "CEP", "13025320"},
		spot{5, 288, 291, "Código do município", "6291"},
		spot{5, 292, 311, "Reservado", ""},
		spot{5, 312, 313, "UF", "SP"},
		spot{5, 314, 323, "Reservado", ""},

		spot{6, 1, 2, "Tipo", "T9"},
		spot{6, 3, 102, "Reservado", ""},
	)
	return s
}

// recordLengths are the lengths docs/dimob.md gives, by line of the golden.
var recordLengths = []int{374, 270, 799, 799, 323, 102}

// TestGoldenPositions reads the golden file back field by field at the
// documented positions: every field has the sample's value, the fields of
// each record cover it exactly (no position twice, none left out), and
// every record has its length and ends in CRLF.
func TestGoldenPositions(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(data, []byte("\r\n")) {
		t.Fatal("the last record does not end in CRLF")
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\r\n"), "\r\n")
	if len(lines) != len(recordLengths) {
		t.Fatalf("%d records, want %d", len(lines), len(recordLengths))
	}
	covered := make([][]int, len(lines))
	for i, l := range lines {
		if len(l) != recordLengths[i] {
			t.Errorf("record %d (%.3s) has %d characters, want %d", i+1, l, len(l), recordLengths[i])
		}
		if strings.ContainsAny(l, "\r\n") {
			t.Errorf("record %d holds a bare CR or LF", i+1)
		}
		covered[i] = make([]int, len(l))
	}
	for _, s := range positions() {
		l := lines[s.line-1]
		if s.end > len(l) {
			t.Errorf("line %d %s (%d-%d): past the record's end", s.line, s.name, s.start, s.end)
			continue
		}
		got := l[s.start-1 : s.end]
		want := s.want + strings.Repeat(" ", max(0, s.end-s.start+1-len(s.want)))
		if got != want {
			t.Errorf("line %d %s (%d-%d) = %q, want %q", s.line, s.name, s.start, s.end, got, want)
		}
		for p := s.start; p <= s.end; p++ {
			covered[s.line-1][p-1]++
		}
	}
	for i, c := range covered {
		for p, n := range c {
			if n != 1 {
				t.Errorf("line %d position %d is in %d fields of the table, want 1", i+1, p+1, n)
			}
		}
	}
}

// TestWriteRefusesBlockedDeclaration: a declaration with a blocking
// problem writes nothing and answers its Problems, warnings included.
func TestWriteRefusesBlockedDeclaration(t *testing.T) {
	t.Parallel()
	d := sample()
	d.Rentals[1].Owner.TaxID = "11144477736" // wrong check digit
	d.Rentals[0].Owner.Name = strings.Repeat("Nome Muito Longo ", 5)
	var b bytes.Buffer
	err := options.Write(&b, d)
	var ps Problems
	if !errors.As(err, &ps) {
		t.Fatalf("Write = %v, want Problems", err)
	}
	if b.Len() != 0 {
		t.Errorf("%d bytes written", b.Len())
	}
	if len(ps.Only(Blocking)) != 1 || len(ps.Only(Warning)) != 1 {
		t.Errorf("problems: %v", ps)
	}
	if want := "blocking: rentals[1] (contract L-0123, owner Maria da Conceição Ferreira): owner.tax_id: "; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not name the record as %q", err, want)
	}
}

// TestWriteWithWarnings: warnings alone do not keep the file from being
// written; a name too long is cut to its 60 positions.
func TestWriteWithWarnings(t *testing.T) {
	t.Parallel()
	d := sample()
	d.Rentals[0].Owner.Name = strings.Repeat("Á", 70)
	var b bytes.Buffer
	if err := options.Write(&b, d); err != nil {
		t.Fatal(err)
	}
	line := strings.Split(b.String(), "\r\n")[2]
	if got := line[42:102]; got != strings.Repeat("A", 60) {
		t.Errorf("owner's name = %q", got)
	}
	if line[102:116] != "11222333000181" {
		t.Errorf("the tenant's tax id moved: %q", line[102:116])
	}
}

type failingWriter struct{}

var errDisk = errors.New("disk full")

func (failingWriter) Write([]byte) (int, error) { return 0, errDisk }

func TestWriteReportsWriterError(t *testing.T) {
	t.Parallel()
	err := options.Write(failingWriter{}, sample())
	if !errors.Is(err, errDisk) {
		t.Fatalf("Write = %v, want the writer's error", err)
	}
}

// TestSpecialAndAmended: an amended declaration writes 1 and the receipt,
// a special situation 1, the event's date and its code.
func TestSpecialAndAmended(t *testing.T) {
	t.Parallel()
	d := sample()
	d.Declarant.Amended = true
	d.Declarant.ReceiptNumber = "1234567890"
	d.Declarant.Special = &SpecialSituation{Code: Merger, Date: finance.MustDate("2024-06-30")}
	var b bytes.Buffer
	if err := options.Write(&b, d); err != nil {
		t.Fatal(err)
	}
	r01 := strings.Split(b.String(), "\r\n")[1]
	if got, want := r01[21:43], "1123456789013006202402"; got != want {
		t.Errorf("R01 positions 22-43 = %q, want %q", got, want)
	}
}

// TestMoneyField: an R$ field is the amount in cents, 14 digits, however
// the decimal holds it (two places, none, one, more, zero with either
// exponent), and zeros for an amount negative or of 10^12 reais or more;
// the short way for amounts in cents writes what the general one does.
func TestMoneyField(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		d    decimal.Decimal
		want string
	}{
		{decimal.Decimal{}, "00000000000000"},
		{decimal.New(0, -2), "00000000000000"},
		{decimal.New(1, -2), "00000000000001"},
		{decimal.New(600000, -2), "00000000600000"},
		{decimal.New(6000, 0), "00000000600000"},
		{decimal.New(15, -1), "00000000000150"},
		{decimal.New(123450, -4), "00000000001235"},
		{decimal.New(99999999999999, -2), "99999999999999"},
		{decimal.New(100000000000000, -2), "00000000000000"},
		{decimal.New(1, 12), "00000000000000"},
		{decimal.New(-100, -2), "00000000000000"},
		{decimal.New(-1, 0), "00000000000000"},
	} {
		var r record
		r.money(c.d)
		if got := string(r.b); got != c.want {
			t.Errorf("%s (exponent %d): %q, want %q", c.d, c.d.Exponent(), got, c.want)
		}
	}
}
