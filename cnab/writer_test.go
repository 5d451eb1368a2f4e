package cnab

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// sample returns the remittance and titles of a testdata input.
func sample(t testing.TB, name string) (Remittance, []Title) {
	t.Helper()
	f, err := os.Open("testdata/" + name + ".json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	in, err := DecodeInput(f)
	if err != nil {
		t.Fatal(err)
	}
	var titles []Title
	for title, err := range in.Each() {
		if err != nil {
			t.Fatal(err)
		}
		titles = append(titles, title)
	}
	return in.Remittance, titles
}

func TestTitleProblems(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		change func(*Title)
		field  string
	}{
		{"no our number", func(t *Title) { t.OurNumber = 0 }, "our_number"},
		{"our number too long", func(t *Title) { t.OurNumber = 123456789012 }, "our_number"},
		{"no document number", func(t *Title) { t.DocumentNumber = " " }, "document_number"},
		{"zero amount", func(t *Title) { t.Amount = decimal.Zero }, "amount"},
		{"negative amount", func(t *Title) { t.Amount = decimal.RequireFromString("-1") }, "amount"},
		{"fraction of a cent", func(t *Title) { t.Amount = decimal.RequireFromString("10.001") }, "amount"},
		{"amount too large", func(t *Title) { t.Amount = decimal.RequireFromString("123456789012.00") }, "amount"},
		{"no due date", func(t *Title) { t.Due = Date{} }, "due"},
		{"due before issue", func(t *Title) { t.Due = Date{2025, 2, 1} }, "due"},
		{"impossible date", func(t *Title) { t.Issued = Date{2025, 2, 30} }, "issued"},
		{"payer without name", func(t *Title) { t.Payer.Name = "" }, "payer.name"},
		{"payer CPF check digit", func(t *Title) { t.Payer.Document = "123.456.789-00" }, "payer.document"},
		{"payer CNPJ check digit", func(t *Title) { t.Payer.Document = "11.222.333/0001-82" }, "payer.document"},
		{"payer zip", func(t *Title) { t.Payer.ZIP = "9000" }, "payer.zip"},
		{"payer state", func(t *Title) { t.Payer.State = "R" }, "payer.state"},
		{"payer city", func(t *Title) { t.Payer.City = "" }, "payer.city"},
		{"payer address", func(t *Title) { t.Payer.Address = "" }, "payer.address"},
		{"fine 100%", func(t *Title) { t.FinePercent = decimal.NewFromInt(100) }, "fine_percent"},
		{"discount without date", func(t *Title) { t.Discount = decimal.NewFromInt(1); t.DiscountUntil = Date{} }, "discount_until"},
		{"discount after due", func(t *Title) { t.Discount = decimal.NewFromInt(1); t.DiscountUntil = Date{2025, 12, 1} }, "discount_until"},
		{"discount above amount", func(t *Title) { t.Discount = decimal.NewFromInt(5000); t.DiscountUntil = t.Due }, "discount"},
		{"protest too long", func(t *Title) { t.ProtestDays = 100 }, "protest_days"},
		{"unknown kind", func(t *Title) { t.Kind = "XX" }, "kind"},
		{"write-off too long", func(t *Title) { t.WriteOffDays = 1000 }, "write_off_days"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rem, titles := sample(t, "237_400")
			var out bytes.Buffer
			w, err := NewWriter(&out, rem, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Write(titles[0]); err != nil {
				t.Fatalf("valid title: %v", err)
			}
			bad := titles[1]
			tt.change(&bad)
			err = w.Write(bad)
			var ps Problems
			if !errors.As(err, &ps) || !errors.Is(err, ErrInvalid) {
				t.Fatalf("got %v, want Problems", err)
			}
			if !slices.ContainsFunc(ps, func(p Problem) bool { return p.Title == 1 && p.Field == tt.field }) {
				t.Errorf("got %v, want a problem of title 1 field %s", ps, tt.field)
			}
			if err := w.Close(); !errors.Is(err, ErrIncomplete) {
				t.Errorf("Close: got %v, want ErrIncomplete", err)
			}
		})
	}
}

func TestRemittanceProblems(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		change func(*Remittance)
		field  string
	}{
		{"unknown bank", func(r *Remittance) { r.Bank = "999" }, "bank"},
		{"Caixa has no 400", func(r *Remittance) { r.Bank = "104" }, "bank"},
		{"bad layout", func(r *Remittance) { r.Layout = 300 }, "bank"},
		{"unknown version", func(r *Remittance) { r.Version = "1" }, "version"},
		{"no sequence", func(r *Remittance) { r.Sequence = 0 }, "sequence"},
		{"sequence too large", func(r *Remittance) { r.Sequence = 12345678 }, "sequence"},
		{"no creation time", func(r *Remittance) { r.Created = time.Time{} }, "created"},
		{"no name", func(r *Remittance) { r.Beneficiary.Name = "" }, "beneficiary.name"},
		{"bad CNPJ", func(r *Remittance) { r.Beneficiary.Document = "11222333000180" }, "beneficiary.document"},
		{"no covenant", func(r *Remittance) { r.Beneficiary.Covenant = "" }, "beneficiary.covenant"},
		{"letters in the agency", func(r *Remittance) { r.Beneficiary.Agency = "12A4" }, "beneficiary.agency"},
		{"account too long", func(r *Remittance) { r.Beneficiary.Account = "123456789" }, "beneficiary.account"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rem, _ := sample(t, "237_400")
			tt.change(&rem)
			var out bytes.Buffer
			_, err := NewWriter(&out, rem, nil)
			var ps Problems
			if !errors.As(err, &ps) {
				t.Fatalf("got %v, want Problems", err)
			}
			if !slices.ContainsFunc(ps, func(p Problem) bool { return p.Title == HeaderIndex && p.Field == tt.field }) {
				t.Errorf("got %v, want a remittance problem on %s", ps, tt.field)
			}
			if out.Len() != 0 {
				t.Errorf("wrote %d bytes for an invalid remittance", out.Len())
			}
		})
	}
}

// TestRejectedTitleWritesNothingMore checks that once a title is
// rejected, the later titles are still checked but nothing more is
// written, so a caller streaming to storage cannot mistake a partial file
// for a whole one.
func TestRejectedTitleWritesNothingMore(t *testing.T) {
	t.Parallel()
	rem, titles := sample(t, "341_400")
	bad := titles[0]
	bad.Payer.ZIP = ""
	worse := titles[1]
	worse.Payer.Name = ""
	var out bytes.Buffer
	sum, err := WriteAll(&out, rem, slices.Values([]Title{titles[0], bad, titles[1], worse}))
	if !errors.Is(err, ErrIncomplete) {
		t.Fatalf("got %v, want ErrIncomplete", err)
	}
	var fields []string
	for _, p := range sum.Problems {
		if p.Severity == SeverityError {
			fields = append(fields, itoa(p.Title)+":"+p.Field)
		}
	}
	if want := []string{"1:payer.zip", "3:payer.name"}; !slices.Equal(fields, want) {
		t.Errorf("problems %v, want %v", fields, want)
	}
	// Output is buffered: at most the header and the first title may have
	// reached the writer, never a later title or the trailer.
	if n := strings.Count(out.String(), "\r\n"); n > 2 {
		t.Errorf("wrote %d records, want at most the header and the first title", n)
	}
}

func TestTruncationWarnings(t *testing.T) {
	t.Parallel()
	rem, titles := sample(t, "341_400")
	titles[0].Payer.Name = "Maria Aparecida dos Santos Conceição Ferreira"
	var out bytes.Buffer
	sum, err := WriteAll(&out, rem, slices.Values(titles[:1]))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range sum.Problems {
		if p.Severity != SeverityWarning {
			t.Errorf("unexpected error %v", p)
		}
		got = append(got, itoa(p.Title)+":"+p.Field)
	}
	// The beneficiary's name is longer than Itaú's 30 characters too.
	if want := []string{"-1:beneficiary.name", "0:payer.name", "0:payer.district"}; !slices.Equal(got, want) {
		t.Errorf("warnings %v, want %v", got, want)
	}
	line := strings.Split(out.String(), "\r\n")[1]
	if got := line[234:264]; got != "MARIA APARECIDA DOS SANTOS CON" {
		t.Errorf("payer name written as %q", got)
	}
}

func TestWriteAfterClose(t *testing.T) {
	t.Parallel()
	rem, titles := sample(t, "341_400")
	w, err := NewWriter(&bytes.Buffer{}, rem, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(titles[0]); err == nil {
		t.Error("Write after Close succeeded")
	}
}

// failingWriter fails after n bytes.
type failingWriter struct{ n int }

var errDisk = errors.New("disk full")

func (f *failingWriter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		return 0, errDisk
	}
	f.n -= len(p)
	return len(p), nil
}

func TestWriteErrorIsReturned(t *testing.T) {
	t.Parallel()
	rem, titles := sample(t, "341_400")
	w, err := NewWriter(&failingWriter{n: 1000}, rem, nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 200 {
		if err := w.Write(titles[0]); err != nil {
			if !errors.Is(err, errDisk) {
				t.Fatalf("got %v, want the writer's error", err)
			}
			return
		}
	}
	if err := w.Close(); !errors.Is(err, errDisk) {
		t.Fatalf("Close: got %v, want the writer's error", err)
	}
}

// TestPayerDocuments holds the payers' CPF and CNPJ to propfin's one
// table of them (pix/testdata/taxids.txt, pix.ValidTaxID): every bare
// value the table calls valid is written into a Bradesco 400 title, in
// 221-234 right-aligned and zero-padded (the alphanumeric CNPJ's letters
// as they are), and every other one is refused on payer.document. The
// punctuation people write is dropped first.
func TestPayerDocuments(t *testing.T) {
	t.Parallel()
	var rows []taxIDRow
	for _, c := range taxIDTable(t) {
		if bareDocument(c.value) == c.value { // the rows written bare
			rows = append(rows, c)
		}
	}
	rows = append(rows, taxIDRow{"123.456.789-09", true}, taxIDRow{"12.abc.345/01de-35", true}, taxIDRow{"11 222 333 0001 81", true},
		taxIDRow{"123.456.789-00", false})
	for _, c := range rows {
		bare := bareDocument(c.value)
		rem, titles := sample(t, "237_400")
		var out bytes.Buffer
		w, err := NewWriter(&out, rem, nil)
		if err != nil {
			t.Fatal(err)
		}
		title := titles[0]
		title.Payer.Document = c.value
		err = w.Write(title)
		var ps Problems
		refused := errors.As(err, &ps) && slices.ContainsFunc(ps, func(p Problem) bool { return p.Field == "payer.document" })
		switch {
		case err != nil && !refused:
			t.Errorf("%q: %v", c.value, err)
		case refused == c.valid:
			t.Errorf("%q: refused %v, want valid %v (%v)", c.value, refused, c.valid, err)
		case c.valid:
			if err := w.Close(); err != nil {
				t.Fatalf("%q: %v", c.value, err)
			}
			detail := strings.Split(out.String(), "\r\n")[1]
			if got, want := detail[220:234], fmt.Sprintf("%014s", bare); got != want {
				t.Errorf("%q written as %q, want %q", c.value, got, want)
			}
		}
	}
}

// taxIDRow is a line of propfin's table of CPF and CNPJ values.
type taxIDRow struct {
	value string
	valid bool
}

// taxIDTable reads pix/testdata/taxids.txt, the one table of CPF and CNPJ
// values package pix holds its rule to.
func taxIDTable(t *testing.T) []taxIDRow {
	t.Helper()
	data, err := os.ReadFile("../pix/testdata/taxids.txt")
	if err != nil {
		t.Fatal(err)
	}
	var rows []taxIDRow
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		rows = append(rows, taxIDRow{value: f[0], valid: f[1] == "valid"})
	}
	if len(rows) < 10 {
		t.Fatalf("the table has %d rows", len(rows))
	}
	return rows
}

// TestBatchSplit checks that a CNAB 240 remittance longer than a batch can
// hold goes on in a new batch, each with its own numbering and totals,
// and that the file trailer counts both.
func TestBatchSplit(t *testing.T) {
	t.Parallel()
	rem, titles := sample(t, "104_240")
	var out bytes.Buffer
	w, err := NewWriter(&out, rem, nil)
	if err != nil {
		t.Fatal(err)
	}
	w.batchLimit = 5 // one title of three segments per batch
	for _, title := range titles {
		if err := w.Write(title); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\r\n"), "\r\n")
	want := []struct {
		line       int
		start, end int
		value      string
	}{
		{2, 1, 8, "10400011"},            // batch 1 header
		{3, 4, 13, "0001300001"},         // P, record 1 of batch 1
		{6, 1, 8, "10400015"},            // batch 1 trailer
		{6, 18, 23, "000005"},            // its records
		{6, 24, 29, "000001"},            // its titles
		{6, 30, 46, "00000000000150000"}, // its total
		{7, 1, 8, "10400021"},            // batch 2 header
		{8, 4, 13, "0002300001"},         // P, record 1 of batch 2
		{11, 1, 8, "10400025"},           // batch 2 trailer
		{11, 30, 46, "00000000000234567"},
		{12, 1, 8, "10499999"}, // file trailer
		{12, 18, 23, "000002"}, // batches
		{12, 24, 29, "000012"}, // records
	}
	if len(lines) != 12 {
		t.Fatalf("%d records, want 12:\n%s", len(lines), out.String())
	}
	for _, w := range want {
		if got := lines[w.line-1][w.start-1 : w.end]; got != w.value {
			t.Errorf("line %d %d-%d: got %q, want %q", w.line, w.start, w.end, got, w.value)
		}
	}
}

// TestTestFileAndVersion checks the remittance options that change the
// header: the test-file mark and the layout version.
func TestTestFileAndVersion(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		sample     string
		change     func(*Remittance)
		line       int
		start, end int
		want       string
	}{
		{"Caixa test file", "104_240", func(r *Remittance) { r.Test = true }, 0, 192, 211, "REMESSA-TESTE       "},
		{"BB test batch", "001_240", func(r *Remittance) { r.Test = true }, 1, 52, 53, "TS"},
		{"BB file version 084", "001_240", func(r *Remittance) { r.Version = "084" }, 0, 164, 166, "084"},
		{"BB batch version with 084", "001_240", func(r *Remittance) { r.Version = "084" }, 1, 14, 16, "043"},
		{"BB batch version with 030", "001_240", func(r *Remittance) { r.Version = "030" }, 1, 14, 16, "020"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rem, titles := sample(t, tt.sample)
			tt.change(&rem)
			var out bytes.Buffer
			if _, err := WriteAll(&out, rem, slices.Values(titles)); err != nil {
				t.Fatal(err)
			}
			line := strings.Split(out.String(), "\r\n")[tt.line]
			if got := line[tt.start-1 : tt.end]; got != tt.want {
				t.Errorf("positions %d-%d: got %q, want %q", tt.start, tt.end, got, tt.want)
			}
		})
	}
}

func TestSupportedAndVersions(t *testing.T) {
	t.Parallel()
	got := Supported()
	if !slices.Contains(got, "104/240") || slices.Contains(got, "104/400") {
		t.Errorf("Supported() = %v", got)
	}
	if v := Versions("001", CNAB240); len(v) == 0 || v[0] != "083" {
		t.Errorf("Versions(001, 240) = %v, want the default 083 first", v)
	}
	if v := Versions("999", CNAB400); v != nil {
		t.Errorf("Versions of an unknown bank = %v", v)
	}
}

func TestJSONProblemsNameTheTitle(t *testing.T) {
	t.Parallel()
	in, err := DecodeInput(strings.NewReader(`{"bank":"341","layout":400,"titles":[{"our_number":1},{"our_number":"x"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var got []Problem
	for _, err := range in.Each() {
		var ps Problems
		if errors.As(err, &ps) {
			got = append(got, ps...)
		}
	}
	if len(got) != 1 || got[0].Title != 1 || got[0].Field != "our_number" || !strings.Contains(got[0].Message, "whole number") {
		t.Errorf("got %v, want one problem on title 1 field our_number", got)
	}
	if _, err := DecodeInput(strings.NewReader(`{"bank":"341","colour":1}`)); err == nil || !strings.Contains(err.Error(), "colour") {
		t.Errorf("unknown field: got %v", err)
	}
}

// TestInterestForms checks that interest is written in the form each
// layout takes, and that a form a layout cannot carry is rejected.
func TestInterestForms(t *testing.T) {
	t.Parallel()
	monthly := func(t *Title) {
		t.InterestPerDay = decimal.Zero
		t.InterestMonthlyPercent = decimal.RequireFromString("1.5")
	}
	t.Run("FEBRABAN 240 writes code 2 and the rate", func(t *testing.T) {
		t.Parallel()
		rem, titles := sample(t, "104_240")
		monthly(&titles[1])
		var out bytes.Buffer
		if _, err := WriteAll(&out, rem, slices.Values(titles)); err != nil {
			t.Fatal(err)
		}
		p := strings.Split(out.String(), "\r\n")[5]
		if got := p[117:141]; got != "211042025000000000000150" {
			t.Errorf("positions 118-141: got %q, want code 2, date and 1.50%%", got)
		}
	})
	for _, tt := range []struct {
		sample, field string
		change        func(*Title)
	}{
		{"341_400", "interest_monthly_percent", monthly},
		{"756_400", "interest_per_day", func(*Title) {}},
		{"104_240", "interest_monthly_percent", func(t *Title) { t.InterestMonthlyPercent = decimal.NewFromInt(1) }},
	} {
		t.Run(tt.sample+" rejects "+tt.field, func(t *testing.T) {
			t.Parallel()
			rem, titles := sample(t, tt.sample)
			title := titles[1]
			if tt.sample == "756_400" {
				title.InterestMonthlyPercent = decimal.Zero
				title.InterestPerDay = decimal.RequireFromString("0.50")
			}
			tt.change(&title)
			w, err := NewWriter(&bytes.Buffer{}, rem, nil)
			if err != nil {
				t.Fatal(err)
			}
			err = w.Write(title)
			var ps Problems
			if !errors.As(err, &ps) || !slices.ContainsFunc(ps, func(p Problem) bool { return p.Field == tt.field }) {
				t.Errorf("got %v, want a problem on %s", err, tt.field)
			}
		})
	}
}

func TestProblemJSON(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(Problem{Title: 3, Field: "payer.zip", Message: "want the 8-digit CEP", Severity: SeverityWarning})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"title":3,"field":"payer.zip","message":"want the 8-digit CEP","severity":"warning"}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}

func TestHundredths(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true},
		{"12.34", 1234, true},
		{"12.340000", 1234, true},
		{"1e3", 100000, true},
		{"0.001", 0, false},
		{"-1", 0, false},
		{"999999999999999e10", 0, false},
		{"1e16", 0, false},
		{"99999999999999.99", 9999999999999999, true},
		{"1e-9999", 0, false},
	}
	for _, tt := range tests {
		s := &state{}
		got := s.hundredths(decimal.RequireFromString(tt.in), "amount")
		if s.Failed() == tt.ok || got != tt.want {
			t.Errorf("hundredths(%s) = %d, failed %v; want %d, ok %v", tt.in, got, s.Failed(), tt.want, tt.ok)
		}
	}
}

// TestFileFull checks that a title that would overflow the file's record
// count is rejected with a clear message, before the trailer would fail.
func TestFileFull(t *testing.T) {
	t.Parallel()
	for name, limit := range map[string]int{"341_400": 4, "104_240": 11} {
		rem, titles := sample(t, name)
		w, err := NewWriter(&bytes.Buffer{}, rem, nil)
		if err != nil {
			t.Fatal(err)
		}
		w.fileLimit = limit // room for the first title and the trailers only
		if err := w.Write(titles[0]); err != nil {
			t.Fatalf("%s: first title: %v", name, err)
		}
		err = w.Write(titles[1])
		var ps Problems
		if !errors.As(err, &ps) || ps[0].Title != 1 || ps[0].Field != "titles" || !strings.Contains(ps[0].Message, "file is full") {
			t.Errorf("%s: got %v, want the file-full problem on title 1", name, err)
		}
	}
}

func TestJSONProblemsForEveryTitle(t *testing.T) {
	t.Parallel()
	in, err := DecodeInput(strings.NewReader(`{"bank":"341","layout":400,"titles":[
		{"due":"2025-13-01"},{"our_number":7},{"amount":"abc"},{"payer":{"zip":5}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, err := range in.Each() {
		var ps Problems
		if errors.As(err, &ps) {
			got = append(got, itoa(ps[0].Title)+":"+ps[0].Field)
		}
	}
	if want := []string{"0:due", "2:amount", "3:payer.zip"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	_, err = DecodeInput(strings.NewReader(`{"bank":"341","layout":400,"created":"yesterday"}`))
	var ps Problems
	if !errors.As(err, &ps) || ps[0].Field != "created" {
		t.Errorf("created: got %v", err)
	}
}

func TestSkipKeepsIndexes(t *testing.T) {
	t.Parallel()
	rem, titles := sample(t, "341_400")
	w, err := NewWriter(&bytes.Buffer{}, rem, nil)
	if err != nil {
		t.Fatal(err)
	}
	w.Skip() // title 0 did not decode
	bad := titles[0]
	bad.Payer.Name = ""
	var ps Problems
	if err := w.Write(bad); !errors.As(err, &ps) || ps[0].Title != 1 {
		t.Errorf("got %v, want a problem on title 1", err)
	}
	if err := w.Close(); !errors.Is(err, ErrIncomplete) {
		t.Errorf("Close: got %v, want ErrIncomplete", err)
	}
}

// TestBBWalletIssuer checks notes 17.3P and 18.3P of Banco do Brasil's 240
// layout: only wallet 17 lets the beneficiary issue and deliver slips.
func TestBBWalletIssuer(t *testing.T) {
	t.Parallel()
	rem, titles := sample(t, "001_240")
	rem.Beneficiary.Wallet = "11"
	var out bytes.Buffer
	if _, err := WriteAll(&out, rem, slices.Values(titles)); err != nil {
		t.Fatal(err)
	}
	p := strings.Split(out.String(), "\r\n")[2]
	if got := p[57:62]; got != "11111" {
		t.Errorf("positions 58-62 for wallet 11: got %q, want 11111", got)
	}
}

// TestTotalTooLarge checks that a trailer total the titles overflow is
// reported against "titles", like a full file, rather than against no
// field at all.
func TestTotalTooLarge(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		amount string // the largest the detail takes
		n      int    // titles whose sum overflows the trailer total
	}{
		{"033_400", "99999999999.99", 2},     // 13 digits, total 13
		{"041_400", "99999999999.99", 2},     // 13 digits, total 13
		{"104_240", "9999999999999.99", 101}, // 15 digits, batch total 17
	} {
		name := c.name
		rem, titles := sample(t, name)
		w, err := NewWriter(&bytes.Buffer{}, rem, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range c.n {
			title := titles[0]
			title.OurNumber = int64(i + 1)
			title.Amount = decimal.RequireFromString(c.amount)
			if err := w.Write(title); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		err = w.Close()
		var ps Problems
		if !errors.As(err, &ps) || len(ps) != 1 || ps[0].Title != HeaderIndex || ps[0].Field != "titles" || !strings.Contains(ps[0].Message, "too large") {
			t.Errorf("%s: Close() = %v, want one remittance problem on titles, too large", name, err)
		}
	}
}

// TestExpiredDiscountLeftOut: a title whose discount ends before its issue
// date (a bank refuses such a discount date: FEBRABAN C047-A "Data do
// Desconto Inválida", Santander's Nota 23) is written, in every layout,
// as a title without a discount (code 0, no date, no value), with a
// warning on discount_until; a discount ending on the issue date stays.
func TestExpiredDiscountLeftOut(t *testing.T) {
	t.Parallel()
	for _, sp := range Supported() {
		name := strings.Replace(sp, "/", "_", 1)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rem, titles := sample(t, name)
			i := slices.IndexFunc(titles, func(t Title) bool { return t.Discount.IsPositive() })
			if i < 0 {
				t.Fatal("no title with a discount in the sample")
			}
			write := func(edit func(*Title)) (string, []Problem) {
				t.Helper()
				title := titles[i]
				edit(&title)
				var out bytes.Buffer
				sum, err := WriteAll(&out, rem, slices.Values([]Title{title}))
				if err != nil {
					t.Fatal(err)
				}
				return out.String(), sum.Problems
			}
			issued := titles[i].Issued
			onIssue, _ := write(func(t *Title) { t.DiscountUntil = issued })
			none, _ := write(func(t *Title) { t.Discount, t.DiscountUntil = decimal.Zero, Date{} })
			expired, problems := write(func(t *Title) { t.DiscountUntil = DateOf(issued.Time().AddDate(0, 0, -1)) })
			if expired != none {
				t.Errorf("the expired discount was written:\n%s\nwant as without a discount:\n%s", expired, none)
			}
			if onIssue == none {
				t.Errorf("a discount ending on the issue date was left out")
			}
			want := "the discount's last day " + DateOf(issued.Time().AddDate(0, 0, -1)).String() + " is before the issue date " +
				issued.String() + ": the discount has expired and the title goes without it"
			if !slices.ContainsFunc(problems, func(p Problem) bool {
				return p.Title == 0 && p.Field == "discount_until" && p.Severity == SeverityWarning && p.Message == want
			}) {
				t.Errorf("problems %v, want a warning on discount_until: %q", problems, want)
			}
		})
	}
}
