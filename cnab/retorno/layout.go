package retorno

import (
	"fmt"
	"slices"

	"github.com/propfin/propfin/cnab"
)

// occ is one entry of a bank's occurrence table: the class, the bank's
// description and the table its reason codes are read from (nil when the
// occurrence has no reasons).
type occ struct {
	class   Occurrence
	text    string
	reasons reasonTable
}

// occTable maps the bank's occurrence code to its meaning.
type occTable map[string]occ

// reasonTable maps a reason code to its meaning.
type reasonTable map[string]string

// layout is one bank's return layout: its records and tables.
type layout struct {
	bank     string
	bankName string
	width    cnab.Layout
	document string // the bank's document and its version

	decoder

	// CNAB 400: the detail records by record type (position 1), and the
	// other record types the bank may send that carry no title event.
	details map[byte]*record
	skip    string
	// detailOf is details indexed by record type, built by register.
	detailOf [256]*record

	// CNAB 240 collection: segments T and U.
	segT, segU *record

	// codes is the collection occurrence table; codeIndex finds its
	// entries (built by register).
	codes     occTable
	codeIndex codeIndex

	// amounts says which of paid, credited and tariff the layout
	// carries; the missing one is derived from the other two.
	amounts amounts
	// channels is the table of the layout's liquidation channel field;
	// channelFromReasons, that the channel is instead the reason that
	// came with the paid occurrence (FEBRABAN 240, C047-C).
	channels           reasonTable
	channelFromReasons bool
	// pix, when set, reads the CNAB 400 record that carries the PIX
	// charge of the title whose detail it follows.
	pix *pixRecord

	// payment, when set, reads CNAB 240 payment batches.
	payment *paymentLayout

	// sequence is where a CNAB 400 header has the file's sequence number.
	sequence [2]int
	// header, when set, reads what the bank's header has beyond the
	// common fields; headerAccount, the beneficiary's account in it.
	header        func(h *Header, line string)
	headerAccount *record
}

type layoutKey struct {
	bank  string
	width cnab.Layout
}

var layouts = map[layoutKey]*layout{}

func register(l *layout) *layout {
	if l.split == nil {
		l.split = splitNone
	}
	l.codeIndex = newCodeIndex(l.codes)
	if p := l.payment; p != nil && p.codeIndex.table == nil {
		p.codeIndex = newCodeIndex(p.codes)
	}
	for typ, rec := range l.details {
		l.detailOf[typ] = rec
		rec.plan()
	}
	l.segT.plan()
	l.segU.plan()
	l.headerAccount.plan()
	if p := l.payment; p != nil {
		p.headerAccount.plan()
		p.segA.plan()
		p.segB.plan()
		p.segJ.plan()
	}
	if l.width == cnab.CNAB240 && l.channels == nil {
		l.channelFromReasons = true // FEBRABAN's C047-C: the paid title's reason
	}
	layouts[layoutKey{l.bank, l.width}] = l
	return l
}

// Supported lists the bank and layout pairs read here, as "341/400",
// sorted; a "+pagamento" suffix marks the CNAB 240 layouts whose payment
// batches are read too.
func Supported() []string {
	var out []string
	for k, l := range layouts {
		s := fmt.Sprintf("%s/%d", k.bank, k.width)
		if l.payment != nil {
			s += "+pagamento"
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// Document returns the bank document (and its version) the reader of a
// bank and layout follows, "" when the pair is not read here.
func Document(bank string, l cnab.Layout) string {
	if lay, ok := layouts[layoutKey{bank, l}]; ok {
		return lay.document
	}
	return ""
}

// amounts is how a layout carries what the payer paid, what the bank
// credited and the bank's tariff.
type amounts uint8

const (
	// allAmounts: each of the three has its own positions.
	allAmounts amounts = iota
	// paidFromCredited: the layout carries the amount credited and the
	// tariff; what was paid is their sum (Itaú).
	paidFromCredited
	// creditedFromPaid: the layout carries the amount paid and the
	// tariff, and the amount credited not at all or not always (Sicoob
	// 400 leaves it zero on some paid titles); what was credited, where
	// the record gives none, is paid less the tariff.
	creditedFromPaid
)

// settle derives, on a paid title, the amount the layout does not carry.
// Other occurrences keep what the record says: nothing was paid, and a
// tariff alone is not a credit.
func (l *layout) settle(ev *Event) {
	if ev.Kind != KindTitle || ev.Occurrence != Paid {
		return
	}
	switch l.amounts {
	case paidFromCredited:
		if ev.Paid == 0 && ev.Credited != 0 {
			ev.Paid = ev.Credited + ev.Tariff
		}
	case creditedFromPaid:
		if ev.Credited == 0 && ev.Paid != 0 {
			ev.Credited = ev.Paid - ev.Tariff
		}
	}
}

// codeIndex finds the entries of an occurrence table without hashing the
// code: a code of two digits or capital letters, as nearly all are, by
// its place in an array built once; any other in the table itself. The
// table's maps, looked up for every event, were as costly as reading
// several of its fields.
type codeIndex struct {
	table occTable
	at    [36 * 36]uint16 // by code: 1 + the entry's place in occs, 0 for none
	occs  []occ
}

func newCodeIndex(t occTable) codeIndex {
	x := codeIndex{table: t}
	for code, o := range t {
		if i, ok := indexOf(code); ok {
			x.occs = append(x.occs, o)
			x.at[i] = uint16(len(x.occs))
		}
	}
	return x
}

// indexOf places a code of two digits or capital letters in codeIndex.at.
func indexOf(code string) (int, bool) {
	if len(code) != 2 {
		return 0, false
	}
	a, okA := alnum(code[0])
	b, okB := alnum(code[1])
	return a*36 + b, okA && okB
}

func alnum(c byte) (int, bool) {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0'), true
	case c >= 'A' && c <= 'Z':
		return int(c-'A') + 10, true
	}
	return 0, false
}

// lookup returns the table's entry for code.
func (x *codeIndex) lookup(code string) (occ, bool) {
	if i, ok := indexOf(code); ok {
		if n := x.at[i]; n != 0 {
			return x.occs[n-1], true
		}
		return occ{}, false
	}
	o, ok := x.table[code]
	return o, ok
}

// describe sets the event's class, description and reason meanings from
// the table.
func (x *codeIndex) describe(ev *Event) {
	o, ok := x.lookup(ev.Code)
	if !ok {
		ev.Occurrence = Unknown
		return
	}
	ev.Occurrence, ev.Description = o.class, o.text
	if o.reasons == nil {
		return
	}
	for i := range ev.Reasons {
		ev.Reasons[i].Description = o.reasons[ev.Reasons[i].Code]
	}
}

// Nosso número splitters.

// splitNone keeps the whole field as the number: the layout carries no
// check digit.
func splitNone(raw string) (string, string) { return trimSpace(raw), "" }

// splitLast reads the field, trimmed, as the number followed by a
// one-character check digit.
func splitLast(raw string) (string, string) {
	v := trimSpace(raw)
	if len(v) < 2 {
		return v, ""
	}
	return v[:len(v)-1], v[len(v)-1:]
}
