package dimob

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/propfin/propfin/finance"
	"github.com/shopspring/decimal"
)

// ReadError is what Read found wrong in a file: the line (from 1), the
// positions of the field (1-based, inclusive; 0 when the line as a whole
// is wrong) and the field's name in docs/dimob.md.
type ReadError struct {
	Line       int
	Start, End int
	Field      string
	Message    string
}

func (e *ReadError) Error() string {
	if e.Start == 0 {
		return fmt.Sprintf("dimob: line %d: %s", e.Line, e.Message)
	}
	return fmt.Sprintf("dimob: line %d, positions %d-%d (%s): %s", e.Line, e.Start, e.End, e.Field, e.Message)
}

// Read reads a file of the layout Write writes (docs/dimob.md, "Records")
// back into a Declaration, holding every record to its positions: the
// header first, then R01, the R02s, the R04s and T9 last, each record of
// its length and ended by CRLF, nothing after T9; every reserved field
// blank, every N field digits, every R$ field 14 digits, every date a day
// of the calendar (DDMMAAAA) or, where the layout allows it, zeros; the
// declarant's CNPJ and year repeated on every R02 and R04, and their
// sequences counting from 1. The first thing wrong is returned as a
// *ReadError naming its line and positions.
//
// Texts come back as the file holds them (folded to ASCII, cut to their
// field, trailing blanks dropped), CEPs as their 8 digits, and amounts in
// reais with two decimal places. It is the package's own reading of what
// it writes: a file Write wrote reads back into the declaration it was
// given, as far as the layout keeps it.
func Read(r io.Reader) (Declaration, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	rd := reader{}
	var d Declaration
	for {
		raw, err := br.ReadBytes('\n')
		if len(raw) == 0 && errors.Is(err, io.EOF) {
			break
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return Declaration{}, fmt.Errorf("dimob: reading line %d: %w", rd.n+1, err)
		}
		rd.n++
		if !bytes.HasSuffix(raw, []byte(eol)) {
			return Declaration{}, &ReadError{Line: rd.n, Message: "does not end in CRLF"}
		}
		if err := rd.record(string(raw[:len(raw)-len(eol)]), &d); err != nil {
			return Declaration{}, err
		}
	}
	if !rd.trailer {
		return Declaration{}, &ReadError{Line: rd.n + 1, Message: "the file ends before its T9 record"}
	}
	return d, nil
}

// reader is where Read is in the file: the line, and which records it has
// read so far.
type reader struct {
	n                                 int
	header, declarant, sales, trailer bool
	rentalSeq, saleSeq                int
	cnpj, year                        string
}

// record reads one line into d, in the order the layout has them.
func (rd *reader) record(s string, d *Declaration) error {
	if strings.ContainsAny(s, "\r\n") {
		return &ReadError{Line: rd.n, Message: "holds a bare CR or LF"}
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return &ReadError{Line: rd.n, Start: i + 1, End: i + 1, Field: "character",
				Message: fmt.Sprintf("byte 0x%02x is not printable ASCII", s[i])}
		}
	}
	kind := s[:min(len(s), 3)]
	if strings.HasPrefix(s, "DIMOB") {
		kind = "DIMOB"
	} else if strings.HasPrefix(s, "T9") {
		kind = "T9"
	}
	switch {
	case rd.trailer:
		return &ReadError{Line: rd.n, Message: "a record after T9"}
	case !rd.header && kind != "DIMOB":
		return &ReadError{Line: rd.n, Message: fmt.Sprintf("%q where the header (DIMOB) must come first", kind)}
	case rd.header && !rd.declarant && kind != "R01":
		return &ReadError{Line: rd.n, Message: fmt.Sprintf("%q where R01 must follow the header", kind)}
	}
	l := line{n: rd.n, s: s}
	switch kind {
	case "DIMOB":
		if rd.header {
			return &ReadError{Line: rd.n, Message: "a second header"}
		}
		rd.header = true
		l.length(HeaderLength)
		l.blank(6, HeaderLength, "Reservado")
	case "R01":
		if rd.declarant {
			return &ReadError{Line: rd.n, Message: "a second R01"}
		}
		rd.declarant = true
		l.length(R01Length)
		d.Declarant = l.r01()
		rd.cnpj, rd.year = l.field(4, 17), l.field(18, 21)
	case "R02":
		if rd.sales {
			return &ReadError{Line: rd.n, Message: "an R02 after the R04 records"}
		}
		rd.rentalSeq++
		l.length(R02Length)
		rd.start(&l, rd.rentalSeq, "Sequencial da locação")
		d.Rentals = append(d.Rentals, l.r02())
	case "R04":
		rd.sales = true
		rd.saleSeq++
		l.length(R04Length)
		rd.start(&l, rd.saleSeq, "Sequencial da venda")
		d.Sales = append(d.Sales, l.r04())
	case "T9":
		rd.trailer = true
		l.length(T9Length)
		l.blank(3, T9Length, "Reservado")
	default:
		return &ReadError{Line: rd.n, Start: 1, End: 3, Field: "Tipo", Message: fmt.Sprintf("%q is not a record of the layout", kind)}
	}
	if l.err != nil {
		return l.err
	}
	return nil
}

// start reads the fields R02 and R04 open with, after their type: the
// declarant's CNPJ and year, as R01 has them, and the record's sequence.
func (rd *reader) start(l *line, seq int, name string) {
	if got := l.field(4, 17); got != rd.cnpj {
		l.fail(4, 17, "CNPJ do declarante", fmt.Sprintf("%q, not R01's %q", got, rd.cnpj))
	}
	if got := l.field(18, 21); got != rd.year {
		l.fail(18, 21, "Ano-calendário", fmt.Sprintf("%q, not R01's %q", got, rd.year))
	}
	if got := l.num(22, 28, name); l.err == nil && got != seq {
		l.fail(22, 28, name, fmt.Sprintf("%d, want %d (from 1, one more each record)", got, seq))
	}
}

// line is one record being read; the first problem found stays in err and
// every later read returns a zero value.
type line struct {
	n   int
	s   string
	err *ReadError
}

func (l *line) fail(start, end int, field, message string) {
	if l.err == nil {
		l.err = &ReadError{Line: l.n, Start: start, End: end, Field: field, Message: message}
	}
}

// length holds the record to its length (without CRLF).
func (l *line) length(want int) {
	if len(l.s) != want && l.err == nil {
		l.err = &ReadError{Line: l.n, Message: fmt.Sprintf("%.3s has %d characters, want %d", l.s, len(l.s), want)}
	}
}

// field is positions start to end as they are ("" once a problem is
// found, or past the record).
func (l *line) field(start, end int) string {
	if l.err != nil || end > len(l.s) {
		return ""
	}
	return l.s[start-1 : end]
}

// text is an X field without its trailing blanks; a field that starts
// with a blank is not one Write writes (it is left-aligned).
func (l *line) text(start, end int, name string) string {
	f := l.field(start, end)
	if strings.HasPrefix(f, " ") && strings.TrimSpace(f) != "" {
		l.fail(start, end, name, fmt.Sprintf("%q is not left-aligned", f))
	}
	return strings.TrimRight(f, " ")
}

// lit holds a field to its one value.
func (l *line) lit(start, end int, name, want string) {
	if got := l.field(start, end); l.err == nil && got != want {
		l.fail(start, end, name, fmt.Sprintf("%q, want %q", got, want))
	}
}

// blank holds a reserved field to blanks.
func (l *line) blank(start, end int, name string) {
	if f := l.field(start, end); strings.Trim(f, " ") != "" {
		l.fail(start, end, name, fmt.Sprintf("a reserved field holds %q", strings.TrimSpace(f)))
	}
}

// digits is an N field: digits only.
func (l *line) digits(start, end int, name string) string {
	f := l.field(start, end)
	if l.err == nil && !isDigits(f) {
		l.fail(start, end, name, fmt.Sprintf("%q is not digits", f))
	}
	return f
}

func (l *line) num(start, end int, name string) int {
	n, _ := strconv.Atoi(l.digits(start, end, name))
	return n
}

// flag is a one-position N field of 0 or 1.
func (l *line) flag(pos int, name string) bool {
	switch f := l.field(pos, pos); f {
	case "0":
		return false
	case "1":
		return true
	default:
		l.fail(pos, pos, name, fmt.Sprintf("%q, want 0 or 1", f))
		return false
	}
}

// money is an R$ field: 14 digits, the last two the cents.
func (l *line) money(start int, name string) decimal.Decimal {
	cents, _ := strconv.ParseInt(l.digits(start, start+13, name), 10, 64)
	return decimal.New(cents, -2)
}

// date is a DATA field (DDMMAAAA); zeros are no date when zeros allows it.
func (l *line) date(start int, name string, zeros bool) finance.Date {
	f := l.digits(start, start+7, name)
	if l.err != nil {
		return finance.Date{}
	}
	if f == "00000000" {
		if !zeros {
			l.fail(start, start+7, name, "zeros where the layout needs a date")
		}
		return finance.Date{}
	}
	day, _ := strconv.Atoi(f[:2])
	month, _ := strconv.Atoi(f[2:4])
	year, _ := strconv.Atoi(f[4:])
	d := finance.NewDate(year, time.Month(month), day)
	if y, m, dd := d.Date(); y != year || int(m) != month || dd != day || year < 1 {
		l.fail(start, start+7, name, fmt.Sprintf("%q is not a day (DDMMAAAA)", f))
		return finance.Date{}
	}
	return d
}

// r01 reads the declarant.
func (l *line) r01() Declarant {
	var d Declarant
	d.CNPJ = l.text(4, 17, "CNPJ do declarante")
	d.Year = l.num(18, 21, "Ano-calendário")
	d.Amended = l.flag(22, "Declaração retificadora")
	receipt := l.digits(23, 32, "Número do recibo")
	if d.Amended {
		d.ReceiptNumber = strings.TrimLeft(receipt, "0")
	} else if l.err == nil && receipt != strings.Repeat("0", receiptWidth) {
		l.fail(23, 32, "Número do recibo", "a receipt number on an original declaration")
	}
	special := l.flag(33, "Situação especial")
	date := l.date(34, "Data do evento situação especial", !special)
	code := l.num(42, 43, "Código da situação especial")
	switch {
	case special:
		d.Special = &SpecialSituation{Code: SituationCode(code), Date: date}
	case l.err == nil && (code != 0 || !date.IsZero()):
		l.fail(34, 43, "Situação especial", "an event's date or code on a normal declaration")
	}
	d.Name = l.text(44, 103, "Nome empresarial")
	d.ResponsibleCPF = l.text(104, 114, "CPF do responsável")
	d.Address = l.text(115, 234, "Endereço completo do contribuinte")
	d.UF = l.text(235, 236, "UF do contribuinte")
	d.Municipality = l.digits(237, 240, "Código do município do contribuinte")
	l.blank(241, 260, "Reservado")
	l.blank(261, 270, "Reservado")
	return d
}

// r02 reads one rental, after its first four fields.
func (l *line) r02() Rental {
	var r Rental
	r.Owner = Party{TaxID: l.text(29, 42, "CPF/CNPJ do locador"), Name: l.text(43, 102, "Nome do locador")}
	r.Tenant = Party{TaxID: l.text(103, 116, "CPF/CNPJ do locatário"), Name: l.text(117, 176, "Nome do locatário")}
	r.Contract = Contract{Number: l.text(177, 182, "Número do contrato"), Date: l.date(183, "Data do contrato", false)}
	for m := range r.Months {
		at := 191 + 42*m
		r.Months[m] = Month{
			Rent:        l.money(at, monthNames[m]+" rent"),
			Commission:  l.money(at+14, monthNames[m]+" commission"),
			TaxWithheld: l.money(at+28, monthNames[m]+" tax withheld"),
		}
	}
	r.Property = l.property(695)
	return r
}

// r04 reads one sale, after its first four fields.
func (l *line) r04() Sale {
	var s Sale
	s.Buyer = Party{TaxID: l.text(29, 42, "CPF/CNPJ do comprador"), Name: l.text(43, 102, "Nome do comprador")}
	s.Seller = Party{TaxID: l.text(103, 116, "CPF/CNPJ do vendedor"), Name: l.text(117, 176, "Nome do vendedor")}
	s.Contract = Contract{Number: l.text(177, 182, "Número do contrato"), Date: l.date(183, "Data do contrato", false)}
	s.Amount = l.money(191, "Valor da venda")
	s.Commission = l.money(205, "Valor da comissão")
	s.Property = l.property(219)
	return s
}

// property reads the fields R02 and R04 end with, from at (the type of
// the property): U or R, address, CEP, municipality, 20 blanks, UF and 10
// blanks.
func (l *line) property(at int) Property {
	var p Property
	switch f := l.field(at, at); f {
	case "U":
	case "R":
		p.Rural = true
	default:
		l.fail(at, at, "Tipo do imóvel", fmt.Sprintf("%q, want U or R", f))
	}
	p.Address = l.text(at+1, at+60, "Endereço do imóvel")
	p.CEP = l.digits(at+61, at+68, "CEP")
	p.Municipality = l.digits(at+69, at+72, "Código do município do imóvel")
	l.blank(at+73, at+92, "Reservado")
	p.UF = l.text(at+93, at+94, "UF")
	l.blank(at+95, at+104, "Reservado")
	return p
}
