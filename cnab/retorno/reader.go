package retorno

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/propfin/propfin/cnab"
)

// Options tell NewReader which bank and layout the caller expects. Zero
// values mean "whatever the header says"; a header that says otherwise is
// refused.
type Options struct {
	Bank   string
	Layout cnab.Layout
}

// Header is what the file header says about the file.
type Header struct {
	Bank     string      `json:"bank"`
	BankName string      `json:"bank_name"`
	Layout   cnab.Layout `json:"layout"`
	// Document is the bank's layout document the reader follows.
	Document string `json:"document"`
	// Company is the beneficiary's (or paying company's) name.
	Company string `json:"company"`
	// Covenant is the beneficiary code the header carries, where it has
	// one (Caixa's código do beneficiário).
	Covenant string `json:"covenant,omitempty"`
	// Created is the file's generation date.
	Created cnab.Date `json:"created"`
	// Sequence is the file's sequence number (NSA), where the header has
	// one.
	Sequence int `json:"sequence,omitempty"`
	// Beneficiary is the beneficiary's account as the header names it
	// (its Code is the Covenant where the header has one).
	Beneficiary Account `json:"beneficiary,omitzero"`
}

// maxLine is the longest line the reader accepts before it gives up: far
// more than any layout, so that a file without line breaks is reported
// rather than read into memory.
const maxLine = 4096

// Reader reads the events of one return file, one at a time, in constant
// memory.
type Reader struct {
	sc     *bufio.Scanner
	lay    *layout
	header Header
	line   int // number of the last line read

	// hasPend says that a title or payment is being assembled: a CNAB
	// 240 title waiting for its segment U or a payment for its segment B,
	// a CNAB 400 title for the PIX record that may follow it. It is
	// assembled in the Event that Next returns, never copied on the way;
	// only when Next returns an error before the event is complete does it
	// wait in carried for the next call.
	hasPend bool
	carried Event
	// skipDetails drops the segments of a title or batch already reported
	// as an error, so that one bad record gives one error.
	skipTitle, skipBatch bool
	payBatch             bool // the current CNAB 240 batch is payments

	records, batches int // counted for the CNAB 240 trailer
	// zSegments counts the segments Z (the bank's authentication of a
	// payment) of payment batches: Banco do Brasil's file trailer counts
	// the records without them (checkTrailer240).
	zSegments int
	done      bool // the file trailer was read
	fatal     bool
	// queued is an error found on a line that also completed a pending
	// event: the event is returned first, the error on the next call.
	queued error

	// peeked is a line read but put back, returned by the next read: the
	// line after the header, read by NewReader to check that the records
	// follow the header's layout, or a record that starts the next event
	// (unread). It is valid until the scanner reads on.
	peeked    []byte
	hasPeeked bool
	// texts holds a record's texts while they are put together.
	texts []byte
	// padded counts the CNAB 240 lines read with their trailing blanks
	// put back; shortest is the shortest of them.
	padded, shortest int
	// cut counts the lines longer than the layout by trailing blanks
	// only, read cut to its length; longest is the longest of them.
	cut, longest int
	// bom says that the file began with a UTF-8 byte-order mark, skipped.
	bom bool
}

// utf8BOM is the UTF-8 byte-order mark an editor may write before the
// first line.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// NewReader reads the file header from r, detects the bank and layout
// (CNAB 240 or 400 by the header's length and content) and returns a
// reader of the file's events. A file that is not a return file of a
// layout read here, or not of opt's bank and layout, is refused with an
// error wrapping ErrRefused that says why.
func NewReader(r io.Reader, opt Options) (*Reader, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 512), maxLine)
	sc.Split(scanLines)
	rd := &Reader{sc: sc}
	first, ok, err := rd.nextLine()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRefused, err)
	}
	if !ok {
		return nil, refused("the file is empty")
	}
	line := rd.cutHeader(string(first))
	lay, err := detect(line)
	if err != nil {
		return nil, err
	}
	if opt.Bank != "" && opt.Bank != lay.bank {
		return nil, refused("the header is of bank %s (%s), not %s", lay.bank, lay.bankName, opt.Bank)
	}
	if opt.Layout != 0 && opt.Layout != lay.width {
		return nil, refused("the file is CNAB %d, not CNAB %d", lay.width, opt.Layout)
	}
	rd.lay = lay
	if len(line) < int(lay.width) {
		rd.notePadded(len(line))
		line = padBlanks(line, int(lay.width))
	}
	rd.header = readHeader(lay, line)
	rd.records = 1
	if err := rd.checkRecords(); err != nil {
		return nil, err
	}
	return rd, nil
}

// cutHeader returns the first line without the blanks it has past the
// layout's length: 240 for a line shaped as a CNAB 240 header (lot 0000,
// record type 0 at 4-8), else 400. A line with anything else past the
// length is returned whole (detect refuses it, naming its length).
func (rd *Reader) cutHeader(line string) string {
	width := int(cnab.CNAB400)
	if len(line) >= 8 && line[3:8] == "00000" {
		width = int(cnab.CNAB240)
	}
	if len(line) > width && blanksOnly(line[width:]) {
		rd.noteCut(len(line))
		return line[:width]
	}
	return line
}

// blanksOnly reports whether s is blanks only.
func blanksOnly[T string | []byte](s T) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != ' ' {
			return false
		}
	}
	return true
}

// checkRecords reads the first record after the header and refuses, with
// one message, a file whose records follow another bank's layout than
// its header names: in CNAB 240 the bank code every record begins with,
// in CNAB 400 a record type the header's bank does not have.
func (rd *Reader) checkRecords() error {
	line, ok, err := rd.nextLine()
	if err != nil {
		rd.queued, rd.fatal = err, true // returned by Next
		return nil
	}
	if !ok {
		return nil // the missing trailer is reported by Next
	}
	for ok && blankLine(line) {
		line, ok, err = rd.nextLine()
		if err != nil || !ok {
			return nil
		}
	}
	rd.peeked, rd.hasPeeked = line, true
	rd.line--
	lay := rd.lay
	switch {
	case lay.width == cnab.CNAB240 && len(line) >= 3 && string(line[0:3]) != lay.bank:
		return refused("the header is of bank %s (%s) but its records are of bank %q (line %d): not one bank's file",
			lay.bank, lay.bankName, string(line[0:3]), rd.line+1)
	case lay.width == cnab.CNAB400 && len(line) > 0 && !lay.knows400(line[0]):
		return refused("the header is of bank %s (%s) but line %d is a record of type %q, which its layout does not have: the records follow another bank's layout",
			lay.bank, lay.bankName, rd.line+1, line[0])
	}
	return nil
}

// knows400 reports whether typ is a record type of the CNAB 400 layout.
func (l *layout) knows400(typ byte) bool {
	if l.detailOf[typ] != nil || typ == '9' || strings.IndexByte(l.skip, typ) >= 0 {
		return true
	}
	return l.pix != nil && typ == l.pix.typ
}

// Warnings returns what was read but not as the layout has it, one
// message per kind of problem for the whole file: lines whose trailing
// blanks were stripped on the way (read as if padded back). Complete once
// reading has ended.
func (rd *Reader) Warnings() []string {
	var out []string
	if rd.bom {
		out = append(out, "the file starts with a UTF-8 byte-order mark (EF BB BF): skipped")
	}
	switch rd.padded {
	case 0:
	case 1:
		out = append(out, fmt.Sprintf("1 line had lost its trailing blanks (it has %d characters): read as if padded to %d",
			rd.shortest, rd.lay.width))
	default:
		out = append(out, fmt.Sprintf("%d lines had lost their trailing blanks (the shortest has %d characters): read as if padded to %d",
			rd.padded, rd.shortest, rd.lay.width))
	}
	switch rd.cut {
	case 0:
	case 1:
		out = append(out, fmt.Sprintf("1 line had trailing blanks past the layout's %d characters (it has %d): read as cut to %d",
			rd.lay.width, rd.longest, rd.lay.width))
	default:
		out = append(out, fmt.Sprintf("%d lines had trailing blanks past the layout's %d characters (the longest has %d): read as cut to %d",
			rd.cut, rd.lay.width, rd.longest, rd.lay.width))
	}
	return out
}

func (rd *Reader) notePadded(n int) {
	if rd.padded == 0 || n < rd.shortest {
		rd.shortest = n
	}
	rd.padded++
}

func (rd *Reader) noteCut(n int) {
	rd.longest = max(rd.longest, n)
	rd.cut++
}

// fit returns a record line at the layout's length when it differs from
// it by trailing blanks only: a CNAB 240 line that lost them padded back
// (every CNAB 240 record ends in blanks), a line with blanks past the
// length cut to it, each noted for Warnings. Any other line is returned
// as it is, for its record to report its length. Each line is fitted
// once, as the scanner gives it (a line put back is not fitted again).
func (rd *Reader) fit(line []byte) []byte {
	width := int(rd.lay.width)
	switch {
	case blankLine(line) || len(line) == width:
		return line
	case len(line) < width && rd.lay.width == cnab.CNAB240:
		rd.notePadded(len(line))
		return padLine(line, width)
	case len(line) > width && blanksOnly(line[width:]):
		rd.noteCut(len(line))
		return line[:width]
	}
	return line
}

// padBlanks returns line with blanks added up to width.
func padBlanks(line string, width int) string {
	return line + strings.Repeat(" ", width-len(line))
}

// padLine returns a copy of line with blanks added up to width.
func padLine(line []byte, width int) []byte {
	return append(line[:len(line):len(line)], bytes.Repeat([]byte{' '}, width-len(line))...)
}

// blankLine reports a line that is no record: empty (a final line break,
// a stray CR LF) or the DOS end-of-file mark.
func blankLine(line []byte) bool {
	return len(line) == 0 || len(line) == 1 && line[0] == '\x1a'
}

// Header returns what the file header says.
func (rd *Reader) Header() Header { return rd.header }

// Next returns the next event. At the end of the file it returns io.EOF.
// A line it cannot read is returned as a *LineError naming the line;
// reading can go on with the next call unless the error is Fatal.
func (rd *Reader) Next() (Event, error) {
	var ev Event
	err := rd.next(&ev)
	return ev, err
}

// next reads lines into ev, the zero Event, until an event is complete.
// It returns nil with the event in ev, or an error with ev zero. ev stays
// zero while no event is pending: a record read into it either makes the
// event pending or fails, and a failure returns at once.
func (rd *Reader) next(ev *Event) error {
	if rd.hasPend {
		*ev, rd.carried = rd.carried, Event{}
	}
	for {
		if err := rd.queued; err != nil {
			rd.queued = nil
			return rd.keepPending(ev, err)
		}
		if rd.fatal {
			return rd.keepPending(ev, io.EOF)
		}
		line, ok, err := rd.nextLine()
		if err != nil {
			rd.fatal = true
			if emit, err := rd.flush(ev, err); !emit {
				return rd.keepPending(ev, err)
			}
			return nil // the event read before the line; the line's error next
		}
		if !ok {
			rd.fatal = true
			var err error
			if !rd.done {
				err = &LineError{Line: rd.line + 1, Reason: "the file ends without its trailer (truncated?)"}
			}
			if rd.hasPend {
				rd.queued = err
				rd.emitPending(ev)
				return nil
			}
			if err != nil {
				return err
			}
			return io.EOF
		}
		if blankLine(line) {
			continue
		}
		if rd.done {
			return rd.keepPending(ev, rd.lineErr("", "a line after the file trailer"))
		}
		var emit bool
		if rd.lay.width == cnab.CNAB400 {
			emit, err = rd.line400(line, ev)
		} else {
			emit, err = rd.line240(line, ev)
		}
		if emit {
			return nil
		}
		if err != nil {
			return rd.keepPending(ev, err)
		}
	}
}

// keepPending returns err with ev zero, the event being assembled in it
// carried to the next call.
func (rd *Reader) keepPending(ev *Event, err error) error {
	if rd.hasPend {
		rd.carried = *ev
	}
	*ev = Event{}
	return err
}

// unread puts back a line that starts the next event, to be read again
// by the next call once the pending event is returned: every event is
// assembled where Next returns it.
func (rd *Reader) unread(line []byte) {
	rd.peeked, rd.hasPeeked = line, true
	rd.line--
	if rd.lay.width == cnab.CNAB240 {
		rd.records-- // counted again when read again
	}
}

// All returns the events as an iterator; a *LineError is yielded with the
// zero Event and iteration goes on, other errors end it.
func (rd *Reader) All() iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		for {
			ev, err := rd.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if !yield(ev, err) {
				return
			}
			var le *LineError
			if err != nil && (!errors.As(err, &le) || le.Fatal) {
				return
			}
		}
	}
}

// nextLine returns the next line without its line ending, in the layout's
// single-byte form. The line is valid until the next call.
func (rd *Reader) nextLine() ([]byte, bool, error) {
	if rd.hasPeeked {
		rd.hasPeeked = false
		rd.line++
		return rd.peeked, true, nil
	}
	if !rd.sc.Scan() {
		if err := rd.sc.Err(); err != nil {
			reason := err.Error()
			if errors.Is(err, bufio.ErrTooLong) {
				reason = fmt.Sprintf("longer than %d characters: not a CNAB file, or line breaks are missing", maxLine)
			}
			return nil, false, &LineError{Line: rd.line + 1, Reason: reason, Fatal: true}
		}
		return nil, false, nil
	}
	rd.line++
	b := rd.sc.Bytes()
	if rd.line == 1 && bytes.HasPrefix(b, utf8BOM) {
		b, rd.bom = b[len(utf8BOM):], true
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1] // a CR left by a CR CR LF ending
	}
	if n := len(b); n > 0 && b[n-1] == '\x1a' && rd.lay != nil && n != int(rd.lay.width) {
		b = b[:n-1] // the DOS end-of-file mark after the last record
	}
	if rd.lay == nil {
		return toSingleByte(b), true, nil
	}
	if len(b) > int(rd.lay.width) {
		b = toSingleByte(b)
	}
	return rd.fit(b), true, nil
}

// scanLines splits lines ending in LF, CR LF or a lone CR (files that
// passed through old Macintosh tools); the last line may have no ending.
func scanLines(data []byte, atEOF bool) (int, []byte, error) {
	if atEOF && len(data) == 0 {
		return 0, nil, nil
	}
	lf := bytes.IndexByte(data, '\n')
	end := lf
	if end < 0 {
		end = len(data)
	}
	if cr := bytes.IndexByte(data[:end], '\r'); cr >= 0 {
		switch {
		case cr+1 == lf:
			return lf + 1, data[:cr], nil // CR LF
		case cr+1 < len(data) || atEOF:
			return cr + 1, data[:cr], nil // a lone CR
		}
		return 0, nil, nil // a CR at the end of what was read: LF may follow
	}
	if lf >= 0 {
		return lf + 1, data[:lf], nil
	}
	if atEOF {
		return len(data), data, nil
	}
	return 0, nil, nil
}

// toSingleByte returns the line in one byte per character. A line
// written in UTF-8 with accented letters is longer in bytes than the
// layout; its characters are turned into their Latin-1 bytes so that
// positions hold. Other lines are taken as they are (ASCII or Latin-1).
func toSingleByte(b []byte) []byte {
	if !utf8.Valid(b) || utf8.RuneCount(b) == len(b) {
		return b
	}
	out := make([]byte, 0, len(b))
	for _, r := range string(b) {
		if r > 0xFF {
			r = '?'
		}
		out = append(out, byte(r))
	}
	return out
}

// toUTF8 turns text read from a line into UTF-8, writing it only when it
// changes (see textFields.set).
func toUTF8(s *string) {
	if u := fromLatin1(*s); u != *s {
		*s = u
	}
}

// fromLatin1 returns text read from a line as UTF-8.
func fromLatin1(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			var b strings.Builder
			for j := 0; j < len(s); j++ {
				b.WriteRune(rune(s[j]))
			}
			return b.String()
		}
	}
	return s
}

func (rd *Reader) lineErr(record, reason string) *LineError {
	return &LineError{Line: rd.line, Record: record, Reason: reason}
}

// readErr turns a field problem into a LineError of the current line.
func (rd *Reader) readErr(record string, err error) error {
	var fp *fieldProblem
	if errors.As(err, &fp) {
		return &LineError{Line: rd.line, Record: record, Field: fp.field, Value: fp.value, Reason: fp.reason}
	}
	return &LineError{Line: rd.line, Record: record, Reason: err.Error()}
}

// checkWidth reports a line that is not as long as the layout's records.
// A line longer than the layout by more than blanks (fit cuts those)
// names what it has past the length.
func (rd *Reader) checkWidth(line []byte) error {
	width := int(rd.lay.width)
	if len(line) == width {
		return nil
	}
	msg := fmt.Sprintf("has %d characters, CNAB %d records have %d", len(line), width, width)
	if len(line) > width {
		past := line[width:]
		if len(past) > 20 {
			past = past[:20]
		}
		msg += fmt.Sprintf(" (past them: %q)", fromLatin1(string(past)))
	}
	return rd.lineErr("", msg)
}

// start begins an event of the current line in ev, which is the zero
// Event whenever no event is pending (next keeps it so). Only the fields
// set are written: the event is on Next's stack, but written through a
// pointer, each of its pointers costs a write barrier while the garbage
// collector marks.
func (rd *Reader) start(ev *Event, kind Kind) {
	ev.Line, ev.Bank, ev.Layout, ev.Kind = rd.line, rd.lay.bank, rd.lay.width, kind
}

// complete describes an event read in full with codes (nil when it is
// described already) and converts its texts: the payer's document to its
// CPF's or CNPJ's length (payerDocument).
func (rd *Reader) complete(ev *Event, codes *codeIndex) {
	if codes != nil {
		codes.describe(ev)
	}
	if ev.Kind == KindTitle {
		rd.lay.settle(ev)
		rd.lay.describeChannel(ev)
	}
	toUTF8(&ev.Payer)
	toUTF8(&ev.Control)
	toUTF8(&ev.DocumentNumber)
	if ev.PayerDocument != "" {
		if doc := payerDocument(ev.PayerDocument, ev.PayerDocumentType); doc != ev.PayerDocument {
			ev.PayerDocument = doc
		}
	}
}

// line400 reads one CNAB 400 record. A title waiting for the PIX record
// that may follow its detail is complete when the line after it cannot
// be read (that line is no PIX record of it): it is returned first, the
// line's error on the next call.
func (rd *Reader) line400(line []byte, ev *Event) (bool, error) {
	emit, err := rd.record400(line, ev)
	if err != nil && rd.hasPend {
		return rd.flush(ev, err)
	}
	return emit, err
}

// record400 reads one CNAB 400 record into ev.
func (rd *Reader) record400(line []byte, ev *Event) (bool, error) {
	if err := rd.checkWidth(line); err != nil {
		return false, err
	}
	typ := line[0]
	if rec := rd.lay.detailOf[typ]; rec != nil {
		if rd.lay.pix != nil {
			return rd.detail400(rec, line, ev)
		}
		rd.start(ev, KindTitle)
		if err := rd.lay.read(rec, line, ev, &rd.texts); err != nil {
			return false, rd.readErr(rec.name, err)
		}
		rd.complete(ev, &rd.lay.codeIndex)
		return true, nil
	}
	switch {
	case rd.lay.pix != nil && typ == rd.lay.pix.typ:
		return rd.pix400(line, ev)
	case typ == '9':
		rd.done = true
		return rd.flush(ev, nil)
	case typ == '0':
		return false, rd.lineErr("header", "a second file header")
	case strings.IndexByte(rd.lay.skip, typ) >= 0:
	default:
		return false, rd.lineErr("", fmt.Sprintf("record type %q is not in the layout", typ))
	}
	return false, nil
}

// detail400 reads a detail record of a layout whose titles may be
// followed by a PIX record: the title waits for the next record, and a
// detail that finds a title waiting returns it first.
func (rd *Reader) detail400(rec *record, line []byte, ev *Event) (bool, error) {
	if rd.hasPend {
		rd.unread(line)
		rd.emitPending(ev)
		return true, nil
	}
	rd.start(ev, KindTitle)
	if err := rd.lay.read(rec, line, ev, &rd.texts); err != nil {
		rd.skipTitle = true
		return false, rd.readErr(rec.name, err)
	}
	rd.hasPend, rd.skipTitle = true, false
	return rd.detailFollows(ev)
}

// detailFollows looks at the record after a title just made pending and
// puts it back: when it is the next title's detail, the pending title is
// complete and returned at once (as detail400 would return it on reading
// that detail); anything else is read as usual by next. A line that
// cannot be read ends the file, as it would in next (the scanner would
// not give the same line twice): the title is returned, the line's error
// on the next call.
func (rd *Reader) detailFollows(ev *Event) (bool, error) {
	line, ok, err := rd.nextLine()
	if err != nil {
		rd.fatal = true
		return rd.flush(ev, err)
	}
	if !ok {
		return false, nil // the end of the file, met again by next
	}
	rd.unread(line)
	if len(line) != int(rd.lay.width) || rd.lay.detailOf[line[0]] == nil {
		return false, nil
	}
	rd.emitPending(ev)
	return true, nil
}

// line240 reads one CNAB 240 record (a line that lost its trailing
// blanks on the way, FTP in text mode, e-mail, an editor, is padded back
// by fit). Every line counts as a record, read or not, for the trailer's
// count. A segment letter in lower case is read as its upper case.
func (rd *Reader) line240(line []byte, ev *Event) (bool, error) {
	rd.records++
	if err := rd.checkWidth(line); err != nil {
		return false, err
	}
	if string(line[0:3]) != rd.lay.bank {
		return false, rd.lineErr("", fmt.Sprintf("bank code %q, the file header says %s", string(line[0:3]), rd.lay.bank))
	}
	switch line[7] {
	case '1':
		return rd.batchHeader240(line, ev)
	case '3':
		seg := upperASCII(line[13])
		if rd.payBatch && seg == 'Z' {
			rd.zSegments++
		}
		if rd.skipBatch {
			return false, nil
		}
		if rd.payBatch {
			return rd.payment240(line, seg, ev)
		}
		return rd.collection240(line, seg, ev)
	case '5':
		rd.skipBatch = false
		return rd.flush(ev, nil)
	case '9':
		rd.done = true
		return rd.flush(ev, rd.checkTrailer240(line))
	case '0':
		return false, rd.lineErr("file header", "a second file header")
	default:
		return false, rd.lineErr("", fmt.Sprintf("record type %q (position 8) is not in the layout", line[7]))
	}
}

// batchHeader240 opens a batch: collection (service 01) or payments.
func (rd *Reader) batchHeader240(line []byte, ev *Event) (bool, error) {
	rd.batches++
	rd.skipBatch, rd.skipTitle = false, false
	rd.payBatch = string(line[9:11]) != "01"
	var err error
	if rd.payBatch && rd.lay.payment == nil {
		rd.skipBatch = true
		err = rd.lineErr("batch header", fmt.Sprintf("service %q: only collection batches (01) are read for bank %s", string(line[9:11]), rd.lay.bank))
	}
	return rd.flush(ev, err)
}

// flush completes the pending event, if any, in ev and returns true, err
// queued for the next call; or, with nothing pending, false and err.
func (rd *Reader) flush(ev *Event, err error) (bool, error) {
	if !rd.hasPend {
		return false, err
	}
	rd.queued = err
	rd.emitPending(ev)
	return true, nil
}

// emitPending completes the pending title or payment in ev.
func (rd *Reader) emitPending(ev *Event) {
	rd.hasPend = false
	if ev.Kind == KindPayment {
		describePayment(&rd.lay.payment.codeIndex, ev)
		rd.complete(ev, nil)
	} else {
		rd.complete(ev, &rd.lay.codeIndex)
	}
}

// upperASCII is an ASCII letter in upper case; other bytes as they are.
func upperASCII(b byte) byte {
	if 'a' <= b && b <= 'z' {
		return b - ('a' - 'A')
	}
	return b
}

// collection240 reads segments T and U (seg, in upper case) and skips
// the segments Y (optional, of every kind: FEBRABAN C004). Any other
// segment is an error on its line: a record the reader cannot place is
// reported, never dropped in silence.
func (rd *Reader) collection240(line []byte, seg byte, ev *Event) (bool, error) {
	switch seg {
	case 'T':
		if rd.hasPend {
			rd.unread(line)
			rd.emitPending(ev)
			return true, nil
		}
		rd.start(ev, KindTitle)
		if err := rd.lay.read(rd.lay.segT, line, ev, &rd.texts); err != nil {
			rd.skipTitle = true
			return false, rd.readErr("segment T", err)
		}
		rd.hasPend, rd.skipTitle = true, false
		return false, nil
	case 'U':
		if rd.skipTitle {
			rd.skipTitle = false
			return false, nil
		}
		if !rd.hasPend {
			return false, rd.lineErr("segment U", "no segment T before it")
		}
		rd.hasPend = false
		code := ev.Code
		if err := rd.lay.read(rd.lay.segU, line, ev, &rd.texts); err != nil {
			return false, rd.readErr("segment U", err)
		}
		if ev.Code == "" || ev.Code != code {
			ev.Code = code // the code of segment T prevails
		}
		rd.complete(ev, &rd.lay.codeIndex)
		return true, nil
	case 'Y':
		return false, nil // optional data (e-mail, PIX, ...): nothing read here
	}
	return false, rd.lineErr("", fmt.Sprintf("segment %q: not a segment of a collection batch (T and U are read, Y is skipped)", seg))
}

// checkTrailer240 compares the file trailer's record count with the
// records read: every record, as FEBRABAN and the banks' documents count
// them, or every record but the payment batches' segments Z, as Banco do
// Brasil's payment returns count them (docs/cnab-retorno.md, "Counts").
// A count that is neither is an error naming both.
func (rd *Reader) checkTrailer240(line []byte) error {
	n, err := strconv.Atoi(string(line[23:29]))
	if err != nil || n == 0 {
		return nil // a bank that leaves the count blank
	}
	if n == rd.records || rd.zSegments > 0 && n == rd.records-rd.zSegments {
		return nil
	}
	has := strconv.Itoa(rd.records)
	if rd.zSegments > 0 {
		z := "segments"
		if rd.zSegments == 1 {
			z = "segment"
		}
		has += fmt.Sprintf(", %d without its %d %s Z", rd.records-rd.zSegments, rd.zSegments, z)
	}
	return rd.lineErr("file trailer", fmt.Sprintf("counts %d records, the file has %s (records missing or added)", n, has))
}
