package retorno

import (
	"strings"
	"unicode/utf8"

	"github.com/propfin/propfin/cnab"
)

// kind is how a field's characters are read.
type kind uint8

const (
	kindText      kind = iota // text, trailing and leading spaces removed
	kindDigits                // digits (or blanks); kept as written, spaces removed
	kindCode                  // the occurrence code, as written
	kindMoney                 // 9(n)V99: an amount in cents; blanks read as zero
	kindDate6                 // DDMMAA; zeros or blanks are no date
	kindDate8                 // DDMMAAAA; zeros or blanks are no date
	kindReasons               // consecutive two-character reason codes
	kindOurNumber             // the nosso número, split by the layout's rule
	kindCodes                 // a payment's occurrence codes, where "00" is a code
	kindReasons3              // consecutive three-character reason codes
	kindDateYMD               // AAAAMMDD; zeros or blanks are no date
	kindMoneyDC               // 9(n)V99 followed by D (debit) or C (credit): a signed amount
	kindDocType               // a CPF/CNPJ type: 1 or 01 is cpf, 2 or 02 cnpj
)

var kindNames = [...]string{"text", "digits", "code", "money", "date6", "date8", "reasons", "our_number", "codes", "reasons3", "date_ymd", "money_dc", "doc_type"}

func (k kind) String() string { return kindNames[k] }

// slot is the Event field a record field is read into.
type slot uint8

const (
	toCode slot = iota + 1
	toReasons
	toOurNumber
	toOurDigit
	toDocument
	toControl
	toWallet
	toAmount
	toPaid
	toCredited
	toTariff
	toInterest
	toFine
	toDiscount
	toAbatement
	toIOF
	toOtherExpenses
	toOtherCredits
	toDue
	toDate
	toCreditDate
	toPayer
	toBarcode
	toDiscountAbatement // segment J: discount and abatement in one value
	toChannel           // the liquidation channel's code
	toWalletCode
	toSpecies
	toModality
	toInstalment
	toCurrency
	toAgency // the beneficiary's
	toAgencyDigit
	toAccount
	toAccountDigit
	toBeneficiaryCode
	toCollectingBank
	toCollectingAgency
	toCollectingAgencyDigit
	toPayerDocument
	toPayerDocumentType // read by kindDocType

	numSlots // not a slot: the number of slots
)

// field is one column range of a return record as the bank's document
// lists it: 1-based, inclusive positions, so that a table reads side by
// side with the document.
type field struct {
	name       string // the field's name in the bank's document
	start, end int
	kind       kind
	to         slot
	// at is where a text field's characters are in its record's texts
	// (record.spans).
	at int
}

func (f *field) width() int { return f.end - f.start + 1 }

// inLine returns the field's characters in line.
func (f *field) inLine(line []byte) []byte { return line[f.start-1 : f.end] }

// inTexts returns a text field's characters in its record's texts.
func (f *field) inTexts(texts string) string { return texts[f.at : f.at+f.width()] }

// record is the table of one record (detail, segment) of one layout: only
// the fields read into events; the rest of the record is ignored.
type record struct {
	name   string
	fields []field

	// spans are the parts of the record that hold its text fields, put
	// together into one string when a record is read: the event's texts
	// are slices of it, so that a record costs one allocation of the
	// length of its texts, and the line itself is never made a string.
	// Set by plan, with the fields' at.
	spans   []span
	planned bool
}

// span is a part of a record: 0-based, end excluded.
type span struct{ from, to int }

// textual reports whether a field of kind k is text, kept in the event
// as written, rather than an amount or a date.
func (k kind) textual() bool {
	switch k {
	case kindMoney, kindMoneyDC, kindDate6, kindDate8, kindDateYMD:
		return false
	}
	return true
}

// spanGap is the widest gap between two text fields that are still copied
// as one span, the characters between them with them.
const spanGap = 8

// plan sets the record's spans and where each text field is in them,
// once, when a layout that has the record is registered. The fields are
// in the order of their positions (TestTables).
func (r *record) plan() {
	if r == nil || r.planned {
		return
	}
	at := 0 // where the last span starts in the texts
	for i := range r.fields {
		f := &r.fields[i]
		if !f.kind.textual() {
			continue
		}
		n := len(r.spans)
		if n > 0 && f.start-1 <= r.spans[n-1].to+spanGap {
			r.spans[n-1].to = max(r.spans[n-1].to, f.end)
		} else {
			if n > 0 {
				at += r.spans[n-1].to - r.spans[n-1].from
			}
			r.spans = append(r.spans, span{from: f.start - 1, to: f.end})
			n++
		}
		f.at = at + f.start - 1 - r.spans[n-1].from
	}
	r.planned = true
}

// texts returns the record's text fields in line, its spans, as one
// string; buf is where they are put together.
func (r *record) texts(line []byte, buf *[]byte) string {
	switch len(r.spans) {
	case 0:
		return ""
	case 1:
		return string(line[r.spans[0].from:r.spans[0].to])
	}
	b := (*buf)[:0]
	for _, s := range r.spans {
		b = append(b, line[s.from:s.to]...)
	}
	*buf = b
	return string(b)
}

func fd(start, end int, name string, k kind, to slot) field {
	return field{name: name, start: start, end: end, kind: k, to: to}
}

// decoder reads the fields of a record into an event.
type decoder struct {
	// split divides the nosso número field into number and check digit.
	split func(raw string) (number, digit string)
}

// read fills ev from line with rec's fields, buf holding their texts on
// the way. line is exactly as long as the layout's records. The first
// field that cannot be read is returned as a *FieldError.
func (d *decoder) read(rec *record, line []byte, ev *Event, buf *[]byte) error {
	texts := rec.texts(line, buf)
	fields := textFieldsOf(ev)
	for i := range rec.fields {
		f := &rec.fields[i]
		switch f.kind {
		case kindText:
			fields.set(f.to, trimSpace(f.inTexts(texts)))
		case kindDigits:
			raw := f.inTexts(texts)
			v := trimSpace(raw)
			if !allDigits(v) {
				return fieldErr(f, raw, "must be digits")
			}
			fields.set(f.to, v)
		case kindCode:
			ev.Code = trimSpace(f.inTexts(texts))
		case kindMoney:
			c, ok := parseCents(f.inLine(line))
			if !ok {
				return fieldErr(f, string(f.inLine(line)), "must be an amount in digits")
			}
			setMoney(ev, f.to, c)
		case kindDate6, kindDate8:
			dt, ok := parseDate(f.inLine(line))
			if !ok {
				return fieldErr(f, string(f.inLine(line)), "must be a date "+dateForm(f.kind)+" or zeros")
			}
			setDate(ev, f.to, dt)
		case kindReasons:
			ev.Reasons = appendReasons(ev.Reasons, f.inTexts(texts), 2)
		case kindReasons3:
			ev.Reasons = appendReasons(ev.Reasons, f.inTexts(texts), 3)
		case kindDateYMD:
			dt, ok := parseDateYMD(f.inLine(line))
			if !ok {
				return fieldErr(f, string(f.inLine(line)), "must be a date AAAAMMDD or zeros")
			}
			setDate(ev, f.to, dt)
		case kindCodes:
			ev.Reasons = appendCodes(ev.Reasons, f.inTexts(texts))
		case kindMoneyDC:
			c, ok := parseSignedCents(f.inLine(line))
			if !ok {
				return fieldErr(f, string(f.inLine(line)), "must be an amount in digits followed by D or C")
			}
			setMoney(ev, f.to, c)
		case kindDocType:
			fields.set(f.to, docType(trimSpace(f.inTexts(texts))))
		case kindOurNumber:
			n, dg := d.split(f.inTexts(texts))
			ev.OurNumber, ev.OurNumberDigit = n, dg
		}
	}
	return nil
}

func dateForm(k kind) string {
	if k == kindDate6 {
		return "DDMMAA"
	}
	return "DDMMAAAA"
}

// textFields are an event's text fields by slot, nil for a slot that is
// no text: found once for a record, rather than for each field.
type textFields [numSlots]*string

func textFieldsOf(ev *Event) textFields {
	return textFields{
		toOurNumber:             &ev.OurNumber,
		toOurDigit:              &ev.OurNumberDigit,
		toDocument:              &ev.DocumentNumber,
		toControl:               &ev.Control,
		toWallet:                &ev.Wallet,
		toPayer:                 &ev.Payer,
		toBarcode:               &ev.Barcode,
		toChannel:               &ev.Channel.Code,
		toWalletCode:            &ev.WalletCode,
		toSpecies:               &ev.Species,
		toModality:              &ev.Modality,
		toInstalment:            &ev.Instalment,
		toCurrency:              &ev.Currency,
		toCollectingBank:        &ev.CollectingBank,
		toCollectingAgency:      &ev.CollectingAgency,
		toCollectingAgencyDigit: &ev.CollectingAgencyDigit,
		toPayerDocument:         &ev.PayerDocument,
		toPayerDocumentType:     &ev.PayerDocumentType,
		toAgency:                &ev.Beneficiary.Agency,
		toAgencyDigit:           &ev.Beneficiary.AgencyDigit,
		toAccount:               &ev.Beneficiary.Account,
		toAccountDigit:          &ev.Beneficiary.AccountDigit,
		toBeneficiaryCode:       &ev.Beneficiary.Code,
	}
}

// set sets the text field to. An empty text is not written over an empty
// field: the event is on Next's stack, but written through a pointer, and
// each pointer written costs a write barrier while the garbage collector
// marks.
func (t *textFields) set(to slot, v string) {
	if p := t[to]; p != nil && (v != "" || *p != "") {
		*p = v
	}
}

func setMoney(ev *Event, to slot, c Cents) {
	switch to {
	case toAmount:
		ev.Amount = c
	case toPaid:
		ev.Paid = c
	case toCredited:
		ev.Credited = c
	case toTariff:
		ev.Tariff = c
	case toInterest:
		ev.Interest = c
	case toFine:
		ev.Fine = c
	case toDiscount:
		ev.Discount = c
	case toAbatement:
		ev.Abatement = c
	case toDiscountAbatement:
		ev.Discount = c
	case toIOF:
		ev.IOF = c
	case toOtherExpenses:
		ev.OtherExpenses = c
	case toOtherCredits:
		ev.OtherCredits = c
	}
}

func setDate(ev *Event, to slot, d cnab.Date) {
	switch to {
	case toDue:
		ev.Due = d
	case toDate:
		ev.Date = d
	case toCreditDate:
		ev.CreditDate = d
	}
}

// appendReasons adds the codes of width characters of raw. Blanks mean
// no reason, and so do zeros in a field of several codes (where they pad
// the unused places).
func appendReasons(rs []Reason, raw string, width int) []Reason {
	if noReasons(raw, width) {
		return rs
	}
	if rs == nil {
		n := 0
		for i := 0; i+width <= len(raw); i += width {
			if isReason(raw, i, width) {
				n++
			}
		}
		if n == 0 {
			return nil
		}
		rs = make([]Reason, 0, n) // one allocation for the usual case
	}
	for i := 0; i+width <= len(raw); i += width {
		if isReason(raw, i, width) {
			rs = append(rs, Reason{Code: trimSpace(raw[i : i+width])})
		}
	}
	return rs
}

// noReasons reports, without looking at each code, a field that has
// none: blanks, or zeros in a field of several codes. (A field of blanks
// and zeros may still have one: a code such as "0 0".)
func noReasons(raw string, width int) bool {
	return blanks(raw) || len(raw) > width && allZeros(raw)
}

// isReason reports whether the code at raw[i:i+width] is a reason: not
// blank, and not zeros in a field of several codes.
func isReason(raw string, i, width int) bool {
	c := trimSpace(raw[i : i+width])
	return c != "" && (len(raw) == width || !allZeros(c))
}

// appendCodes adds the non-blank two-character codes of raw that are not
// in rs already (a payment's later segments repeat its codes).
func appendCodes(rs []Reason, raw string) []Reason {
next:
	for i := 0; i+2 <= len(raw); i += 2 {
		c := trimSpace(raw[i : i+2])
		if c == "" {
			continue
		}
		for _, r := range rs {
			if r.Code == c {
				continue next
			}
		}
		rs = append(rs, Reason{Code: c})
	}
	return rs
}

// trimSpace returns s without its leading and trailing white space, as
// strings.TrimSpace does, and faster on the fields of a record, whose
// padding is blanks: anything else at either end of the field is left to
// strings.TrimSpace.
func trimSpace(s string) string {
	i, j := 0, len(s)
	for i < j && s[i] == ' ' {
		i++
	}
	for j > i && s[j-1] == ' ' {
		j--
	}
	if i < j && (!plainByte(s[i]) || !plainByte(s[j-1])) {
		return strings.TrimSpace(s[i:j])
	}
	return s[i:j]
}

// plainByte reports whether c is a character of its own that is not
// white space: ASCII, above the blank.
func plainByte(c byte) bool { return c > ' ' && c < utf8.RuneSelf }

// allZeros reports whether s has nothing but zeros.
func allZeros[S ~string | ~[]byte](s S) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != '0' {
			return false
		}
	}
	return true
}

// blanks reports whether s has nothing but blanks.
func blanks(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != ' ' {
			return false
		}
	}
	return true
}

// blankOrZeros reports whether s has nothing but blanks and zeros.
func blankOrZeros[S ~string | ~[]byte](s S) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != '0' && s[i] != ' ' {
			return false
		}
	}
	return true
}

func allDigits[S ~string | ~[]byte](s S) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// parseCents reads an amount with two implied decimals. A field of blanks
// is zero (some banks leave unused amounts blank).
func parseCents[S ~string | ~[]byte](raw S) (Cents, bool) {
	i := 0
	for i < len(raw) && raw[i] == ' ' {
		i++ // leading blanks
	}
	var v int64
	for ; len(raw)-i >= 8; i += 8 {
		d, ok := eightDigits(raw[i : i+8])
		if !ok {
			return 0, false
		}
		v = v*100_000_000 + int64(d)
	}
	for ; i < len(raw); i++ {
		d := raw[i] - '0'
		if d > 9 {
			return 0, false
		}
		v = v*10 + int64(d)
	}
	return Cents(v), true
}

// eightDigits reads the number of eight characters, the first the most
// significant, all at once in one 64-bit word (a byte per digit, then
// pairs, fours and the eight added up by multiplications), and reports
// whether they are all digits.
func eightDigits[S ~string | ~[]byte](s S) (uint32, bool) {
	_ = s[7] // one bounds check for the eight
	x := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
	const high, zeros, six = 0xF0F0F0F0F0F0F0F0, 0x3030303030303030, 0x0606060606060606
	if x&high != zeros || (x+six)&high != zeros {
		return 0, false // a byte not in '0' to '9': a high half other than 3, or a low one above 9
	}
	x -= zeros
	x = (x * (10<<8 + 1)) >> 8
	x = ((x & 0x00FF00FF00FF00FF) * (100<<16 + 1)) >> 16
	x = ((x & 0x0000FFFF0000FFFF) * (10000<<32 + 1)) >> 32
	return uint32(x), true
}

// docType names a CPF/CNPJ type code: 1 (or 01) is "cpf", 2 (or 02)
// "cnpj"; zeros or blanks are none; another code is kept as written.
func docType(code string) string {
	switch strings.TrimLeft(code, "0") {
	case "":
		return ""
	case "1":
		return "cpf"
	case "2":
		return "cnpj"
	}
	return code
}

// parseSignedCents reads an amount followed by D (debit, negative) or C
// (credit). Blanks, or zeros with a blank or zero sign (files that fill
// the unused field with zeros), are zero.
func parseSignedCents[S ~string | ~[]byte](raw S) (Cents, bool) {
	n := len(raw) - 1
	c, ok := parseCents(raw[:n])
	if !ok {
		return 0, false
	}
	switch raw[n] {
	case 'C':
		return c, true
	case 'D':
		return -c, true
	case ' ', '0':
		return c, c == 0
	}
	return 0, false
}

// parseDate reads DDMMAA (years 2000 to 2099) or DDMMAAAA. Zeros or
// blanks are no date, and so is Banrisul's "SEMREG" (an unregistered
// title has no due date).
func parseDate[S ~string | ~[]byte](raw S) (cnab.Date, bool) {
	if blankOrZeros(raw) || string(raw) == "SEMREG" {
		return cnab.Date{}, true
	}
	if !allDigits(raw) {
		return cnab.Date{}, false
	}
	day := atoi(raw[0:2])
	month := atoi(raw[2:4])
	year := atoi(raw[4:])
	if len(raw) == 6 {
		year += 2000
	}
	if month < 1 || month > 12 || day < 1 || day > daysIn(year, month) {
		return cnab.Date{}, false
	}
	return cnab.Date{Year: year, Month: timeMonth(month), Day: day}, true
}

// parseDateYMD reads AAAAMMDD; zeros or blanks are no date.
func parseDateYMD[S ~string | ~[]byte](raw S) (cnab.Date, bool) {
	if len(raw) != 8 || blankOrZeros(raw) {
		return cnab.Date{}, len(raw) == 8
	}
	var dmy [8]byte
	copy(dmy[0:2], raw[6:8])
	copy(dmy[2:4], raw[4:6])
	copy(dmy[4:8], raw[0:4])
	return parseDate(dmy[:])
}

func atoi[S ~string | ~[]byte](s S) int {
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}

func daysIn(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
