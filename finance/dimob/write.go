package dimob

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/propfin/propfin/finance"
	"github.com/shopspring/decimal"
)

// The length of each record, without its CRLF (docs/dimob.md, "Records").
const (
	HeaderLength = 374
	R01Length    = 270
	R02Length    = 799
	R04Length    = 323
	T9Length     = 102
)

// eol ends every record, the last one included.
const eol = "\r\n"

// Write writes the declaration's file: the header, R01, one R02 per
// rental, one R04 per sale and the T9 trailer, in the layout of
// docs/dimob.md. It checks the declaration first (Check): when a problem
// blocks, it writes nothing and returns the Problems, warnings included.
// An error of w is returned wrapped.
func (o Options) Write(w io.Writer, d Declaration) error {
	if ps := o.Check(d); ps.Blocks() {
		return ps
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	encode(bw, d)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("dimob: writing the file: %w", err)
	}
	return nil
}

// encode writes every record of d, whatever d holds: a value that does
// not fit its field is written as zeros or cut, so that every record has
// its length. Write calls it only on a declaration Check passed.
func encode(w *bufio.Writer, d Declaration) {
	var r record
	put := func() {
		w.Write(r.b)
		w.WriteString(eol)
		r.b = r.b[:0]
	}
	header(&r)
	put()
	r01(&r, d.Declarant)
	put()
	for i, rental := range d.Rentals {
		r02(&r, d.Declarant, i+1, rental)
		put()
	}
	for i, sale := range d.Sales {
		r04(&r, d.Declarant, i+1, sale)
		put()
	}
	t9(&r)
	put()
}

// header: "DIMOB" and blanks to position 374.
func header(r *record) {
	r.lit("DIMOB")
	r.blanks(369)
}

// r01 is the declarant (ficha Dados Iniciais).
func r01(r *record, d Declarant) {
	r.lit("R01")
	r.taxID(d.CNPJ, 14)
	r.num(d.Year, 4)
	if d.Amended {
		r.lit("1")
		r.digits(strings.TrimSpace(d.ReceiptNumber), receiptWidth)
	} else {
		r.lit("0")
		r.zeros(receiptWidth)
	}
	if s := d.Special; s != nil {
		r.lit("1")
		r.date(s.Date)
		r.num(int(s.Code), 2)
	} else {
		r.lit("0")
		r.zeros(8)
		r.lit("00")
	}
	r.text(d.Name, nameWidth)
	r.taxID(d.ResponsibleCPF, 11)
	r.text(d.Address, declarantAddr)
	r.text(d.UF, 2)
	r.digits(d.Municipality, 4)
	r.blanks(20)
	r.blanks(10)
}

// start writes the first four fields of R02 and R04: the record type, the
// declarant's CNPJ, the year and the record's sequence number.
func start(r *record, kind string, d Declarant, seq int) {
	r.lit(kind)
	r.taxID(d.CNPJ, 14)
	r.num(d.Year, 4)
	r.num(seq, 7)
}

// r02 is one rental of one owner (ficha Locação).
func r02(r *record, d Declarant, seq int, l Rental) {
	start(r, "R02", d, seq)
	r.taxID(l.Owner.TaxID, 14)
	r.text(l.Owner.Name, nameWidth)
	r.taxID(l.Tenant.TaxID, 14)
	r.text(l.Tenant.Name, nameWidth)
	r.text(l.Contract.Number, contractWidth)
	r.date(l.Contract.Date)
	for _, m := range l.Months {
		r.money(m.Rent)
		r.money(m.Commission)
		r.money(m.TaxWithheld)
	}
	r.property(l.Property)
}

// r04 is one brokered sale (ficha Intermediação de Venda).
func r04(r *record, d Declarant, seq int, s Sale) {
	start(r, "R04", d, seq)
	r.taxID(s.Buyer.TaxID, 14)
	r.text(s.Buyer.Name, nameWidth)
	r.taxID(s.Seller.TaxID, 14)
	r.text(s.Seller.Name, nameWidth)
	r.text(s.Contract.Number, contractWidth)
	r.date(s.Contract.Date)
	r.money(s.Amount)
	r.money(s.Commission)
	r.property(s.Property)
}

// t9: "T9" and blanks to position 102.
func t9(r *record) {
	r.lit("T9")
	r.blanks(100)
}

// property writes the last fields of R02 and R04: urban or rural, address,
// CEP, municipality, 20 blanks, UF and 10 blanks.
func (r *record) property(p Property) {
	if p.Rural {
		r.lit("R")
	} else {
		r.lit("U")
	}
	r.text(p.Address, addressWidth)
	r.digits(bareCEP(p.CEP), 8)
	r.digits(p.Municipality, 4)
	r.blanks(20)
	r.text(p.UF, 2)
	r.blanks(10)
}

// record is one record being written; each method appends one field of
// exactly the width it is given.
type record struct{ b []byte }

func (r *record) lit(s string) { r.b = append(r.b, s...) }

// blankRun and zeroRun are longer than any field or reserved run of the
// layout, so that padding is a slice of them.
var blankRun, zeroRun = strings.Repeat(" ", 512), strings.Repeat("0", 512)

func (r *record) blanks(n int) { r.b = appendRun(r.b, blankRun, n) }

func (r *record) zeros(n int) { r.b = appendRun(r.b, zeroRun, n) }

// appendRun appends n characters of run to b.
func appendRun(b []byte, run string, n int) []byte {
	for n > len(run) {
		b, n = append(b, run...), n-len(run)
	}
	return append(b, run[:max(n, 0)]...)
}

// text is an X field: printable ASCII (fold), left-aligned, cut to the
// width and padded with blanks.
func (r *record) text(s string, width int) {
	f, _ := fold(s)
	if len(f) > width {
		f = f[:width]
	}
	r.lit(f)
	r.blanks(width - len(f))
}

// taxID is a CPF/CNPJ field: the bare number left-aligned and padded with
// blanks (a CPF takes 11 of the 14 positions). It is written as text, so
// that an alphanumeric CNPJ keeps its letters.
func (r *record) taxID(s string, width int) { r.text(s, width) }

// digits is an N field holding a code: right-aligned and padded with
// zeros; zeros when s is not digits or does not fit.
func (r *record) digits(s string, width int) {
	if !isDigits(s) || len(s) > width {
		r.zeros(width)
		return
	}
	r.zeros(width - len(s))
	r.lit(s)
}

// num is an N field holding a number; zeros when n is negative or does
// not fit.
func (r *record) num(n, width int) {
	if n < 0 {
		r.zeros(width)
		return
	}
	r.digits(strconv.Itoa(n), width)
}

// money is an R$ field: 14 digits, the last two the cents; zeros for an
// amount that is negative or does not fit.
func (r *record) money(d decimal.Decimal) {
	if d.IsZero() {
		r.zeros(14)
		return
	}
	if d.Exponent() == -2 && d.NumDigits() <= 14 { // in cents, below 10^12: as the ledger's amounts come
		if c := d.CoefficientInt64(); c >= 0 {
			var buf [16]byte
			digits := strconv.AppendInt(buf[:0], c, 10)
			r.zeros(14 - len(digits))
			r.b = append(r.b, digits...)
			return
		}
	}
	cents := d.Round(2)
	if cents.IsNegative() || cents.GreaterThanOrEqual(maxAmount) {
		r.zeros(14)
		return
	}
	r.digits(cents.Shift(2).String(), 14)
}

// date is a DATA field, DDMMAAAA; zeros when there is no date.
func (r *record) date(d finance.Date) {
	y, m, day := d.Date()
	if d.IsZero() || y < 0 || y > 9999 {
		r.zeros(8)
		return
	}
	r.num(day, 2)
	r.num(int(m), 2)
	r.num(y, 4)
}
