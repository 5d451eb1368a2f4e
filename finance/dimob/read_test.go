package dimob

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/propfin/propfin/finance"
)

// asWritten is d as the file keeps it, which Read gives back: texts
// folded and cut to their fields, CEPs as their digits, receipt numbers
// without leading zeros.
func asWritten(d Declaration) Declaration {
	cut := func(s string, width int) string {
		f, _ := fold(s)
		if len(f) > width {
			f = strings.TrimRight(f[:width], " ")
		}
		return f
	}
	party := func(p Party) Party { return Party{TaxID: cut(p.TaxID, 14), Name: cut(p.Name, nameWidth)} }
	property := func(p Property) Property {
		p.Address, p.CEP, p.UF = cut(p.Address, addressWidth), bareCEP(p.CEP), cut(p.UF, 2)
		return p
	}
	out := d
	dc := &out.Declarant
	dc.Name, dc.Address = cut(dc.Name, nameWidth), cut(dc.Address, declarantAddr)
	if !dc.Amended {
		dc.ReceiptNumber = ""
	}
	dc.ReceiptNumber = strings.TrimLeft(dc.ReceiptNumber, "0")
	out.Rentals = make([]Rental, len(d.Rentals))
	for i, r := range d.Rentals {
		r.Owner, r.Tenant, r.Property = party(r.Owner), party(r.Tenant), property(r.Property)
		out.Rentals[i] = r
	}
	out.Sales = make([]Sale, len(d.Sales))
	for i, s := range d.Sales {
		s.Buyer, s.Seller, s.Property = party(s.Buyer), party(s.Seller), property(s.Property)
		out.Sales[i] = s
	}
	return out
}

// sameDeclaration compares two declarations field by field, amounts as
// numbers (6000 and 6000.00 are the same amount).
func sameDeclaration(t *testing.T, got, want Declaration) {
	t.Helper()
	norm := func(d Declaration) Declaration {
		for i := range d.Rentals {
			for m := range d.Rentals[i].Months {
				mo := &d.Rentals[i].Months[m]
				mo.Rent, mo.Commission, mo.TaxWithheld = mo.Rent.Round(2), mo.Commission.Round(2), mo.TaxWithheld.Round(2)
			}
		}
		for i := range d.Sales {
			d.Sales[i].Amount, d.Sales[i].Commission = d.Sales[i].Amount.Round(2), d.Sales[i].Commission.Round(2)
		}
		if d.Rentals == nil {
			d.Rentals = []Rental{}
		}
		if d.Sales == nil {
			d.Sales = []Sale{}
		}
		return d
	}
	g, w := norm(got), norm(want)
	if !reflect.DeepEqual(g.Declarant, w.Declarant) {
		t.Errorf("declarant:\n got %+v\nwant %+v", g.Declarant, w.Declarant)
	}
	if len(g.Rentals) != len(w.Rentals) || len(g.Sales) != len(w.Sales) {
		t.Fatalf("%d rentals and %d sales, want %d and %d", len(g.Rentals), len(g.Sales), len(w.Rentals), len(w.Sales))
	}
	for i := range w.Rentals {
		gr, wr := g.Rentals[i], w.Rentals[i]
		for m := range wr.Months {
			gm, wm := gr.Months[m], wr.Months[m]
			if !gm.Rent.Equal(wm.Rent) || !gm.Commission.Equal(wm.Commission) || !gm.TaxWithheld.Equal(wm.TaxWithheld) {
				t.Errorf("rentals[%d] %s: %v, want %v", i, monthNames[m], gm, wm)
			}
		}
		gr.Months, wr.Months = [12]Month{}, [12]Month{}
		if !reflect.DeepEqual(gr, wr) {
			t.Errorf("rentals[%d]:\n got %+v\nwant %+v", i, gr, wr)
		}
	}
	for i := range w.Sales {
		gs, ws := g.Sales[i], w.Sales[i]
		if !gs.Amount.Equal(ws.Amount) || !gs.Commission.Equal(ws.Commission) {
			t.Errorf("sales[%d] amounts: %s %s, want %s %s", i, gs.Amount, gs.Commission, ws.Amount, ws.Commission)
		}
		gs.Amount, gs.Commission = ws.Amount, ws.Commission // compared above, as numbers
		if !reflect.DeepEqual(gs, ws) {
			t.Errorf("sales[%d]:\n got %+v\nwant %+v", i, gs, ws)
		}
	}
}

// TestReadGolden: the golden file reads back into the sample declaration,
// as the file keeps it.
func TestReadGolden(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Read(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	sameDeclaration(t, got, asWritten(sample()))
	if got.Rentals[0].Months[3].Rent.String() != "12000" || got.Rentals[1].Owner.Name != "Maria da Conceicao Ferreira" {
		t.Errorf("April's rent %s, second owner %q", got.Rentals[0].Months[3].Rent, got.Rentals[1].Owner.Name)
	}
}

// TestReadWritten: an amended special-situation declaration, with a rural
// property and a text cut to its field, reads back as written.
func TestReadWritten(t *testing.T) {
	t.Parallel()
	d := sample()
	d.Declarant.Amended, d.Declarant.ReceiptNumber = true, "0012345678"
	d.Declarant.Special = &SpecialSituation{Code: TotalSplit, Date: finance.MustDate("2024-09-30")}
	d.Rentals[0].Property.Rural = true
	d.Rentals[1].Tenant.Name = strings.Repeat("Inquilino Ltda ", 6)
	var b bytes.Buffer
	if err := options.Write(&b, d); err != nil {
		t.Fatal(err)
	}
	got, err := Read(&b)
	if err != nil {
		t.Fatal(err)
	}
	sameDeclaration(t, got, asWritten(d))
}

// TestReadRefuses: each change to the golden file is named by its line
// and positions.
func TestReadRefuses(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\r\n")
	lines = lines[:len(lines)-1] // the empty string after the last CRLF
	// edit returns the file with line n (from 1) changed by f.
	edit := func(n int, f func(string) string) string {
		out := append([]string{}, lines...)
		out[n-1] = f(out[n-1])
		return strings.Join(out, "")
	}
	at := func(pos int, s string) func(string) string {
		return func(l string) string { return l[:pos-1] + s + l[pos-1+len(s):] }
	}
	for name, c := range map[string]struct {
		file       string
		line, from int
		message    string
	}{
		"no CRLF at the end":    {strings.TrimSuffix(string(data), "\r\n"), 6, 0, "does not end in CRLF"},
		"a bare LF":             {edit(3, func(l string) string { return strings.Replace(l, "\r\n", "\n", 1) }), 3, 0, "does not end in CRLF"},
		"a record too short":    {edit(3, func(l string) string { return l[:100] + "\r\n" }), 3, 0, "has 100 characters, want 799"},
		"no header":             {strings.Join(lines[1:], ""), 1, 0, "where the header (DIMOB) must come first"},
		"no T9":                 {strings.Join(lines[:5], ""), 6, 0, "ends before its T9"},
		"after T9":              {string(data) + lines[4], 7, 0, "a record after T9"},
		"R02 after R04":         {strings.Join([]string{lines[0], lines[1], lines[4], lines[2], lines[5]}, ""), 4, 0, "an R02 after the R04"},
		"an unknown record":     {edit(5, at(1, "R03")), 5, 1, `"R03" is not a record`},
		"the sequence skips":    {edit(4, at(22, "0000003")), 4, 22, "3, want 2"},
		"another CNPJ":          {edit(3, at(4, "11222333000181")), 3, 4, `not R01's "11444777000161"`},
		"another year":          {edit(5, at(18, "2023")), 5, 18, `not R01's "2024"`},
		"a reserved field":      {edit(2, at(241, "X")), 2, 241, "a reserved field"},
		"an amount with a sign": {edit(3, at(191, "-0000000600000")), 3, 191, "is not digits"},
		"a day that is not":     {edit(3, at(183, "31022023")), 3, 183, "is not a day"},
		"U or R":                {edit(3, at(695, "X")), 3, 695, "want U or R"},
		"a text right-aligned":  {edit(3, at(43, "  Jose Araujo")), 3, 43, "not left-aligned"},
		"a receipt, original":   {edit(2, at(23, "0000000001")), 2, 23, "a receipt number on an original"},
		"not ASCII":             {edit(3, at(50, "\xc3")), 3, 50, "not printable ASCII"},
		"amended is 2":          {edit(2, at(22, "2")), 2, 22, "want 0 or 1"},
	} {
		_, err := Read(strings.NewReader(c.file))
		var re *ReadError
		if !errors.As(err, &re) {
			t.Errorf("%s: Read = %v, want a *ReadError", name, err)
			continue
		}
		if re.Line != c.line || re.Start != c.from || !strings.Contains(re.Message, c.message) {
			t.Errorf("%s: %v, want line %d from %d: %q", name, re, c.line, c.from, c.message)
		}
	}
}

// FuzzRead: Read never panics, and a file it accepts is exactly the file
// Write's encoding makes of what it read: the reading and the writing
// agree on every position.
func FuzzRead(f *testing.F) {
	data, err := os.ReadFile(golden)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte("DIMOB\r\n"))
	f.Add([]byte{})
	var b bytes.Buffer
	d := sample()
	d.Declarant.Amended, d.Declarant.ReceiptNumber = true, "77"
	d.Declarant.Special = &SpecialSituation{Code: Merger, Date: finance.MustDate("2024-02-29")}
	if err := options.Write(&b, d); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes())
	f.Fuzz(func(t *testing.T, file []byte) {
		d, err := Read(bytes.NewReader(file))
		if err != nil {
			return
		}
		var again bytes.Buffer
		w := bufio.NewWriter(&again)
		encode(w, d)
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again.Bytes(), file) {
			t.Fatalf("read and written again, the file differs:\n%q\n%q", file, again.Bytes())
		}
	})
}
