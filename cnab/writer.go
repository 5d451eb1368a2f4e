package cnab

import (
	"errors"
	"fmt"
	"io"
	"iter"
	"strconv"

	"github.com/propfin/propfin/cnab/fixedwidth"
)

// Writer writes one remittance file as a stream: the header when it is
// created, the detail records of each title on Write, and the trailers on
// Close. It holds one title's records at a time, whatever the size of the
// file. A Writer is not safe for concurrent use.
type Writer struct {
	out   fixedwidth.Output
	spec  *spec
	s     state
	warn  func(Problem)
	fails int // titles rejected
	// dropFails are drops rejected: unlike a title's, a drop's rejection
	// leaves the file whole.
	dropFails int
	done      bool

	batchLimit int // detail records a CNAB 240 batch may hold
	fileLimit  int // records the file may hold

	// details are the detail records with their remittance fields
	// already rendered, in spec.detail order; drop is the drop's record.
	details []detailTemplate
	drop    detailTemplate
}

type detailTemplate struct {
	rec  *record
	line []byte
}

// maxFileRecords is the largest record count a file can carry: CNAB 400
// numbers its records in six digits (395-400) and the CNAB 240 file
// trailer counts them in six digits (24-29).
const maxFileRecords = 999_999

// maxBatchRecords is the largest record number a CNAB 240 batch can carry
// in its five-digit "Nº Sequencial do Registro no Lote"; a longer
// remittance is split into several batches in the same file.
const maxBatchRecords = 99_999

// NewWriter checks the remittance and writes the file's header records to
// w. Warnings (text truncated or characters replaced), in the header and
// later in the titles, are passed to warn, which may be nil. An invalid
// remittance gives a Problems error and nothing is written.
func NewWriter(w io.Writer, r Remittance, warn func(Problem)) (*Writer, error) {
	sp, err := lookupSpec(r.Bank, r.Layout)
	if err != nil {
		return nil, Problems{{Title: HeaderIndex, Field: "bank", Message: err.Error()}}
	}
	wr := &Writer{out: fixedwidth.NewOutput(w, sp.eol), spec: sp, warn: warn,
		batchLimit: maxBatchRecords, fileLimit: maxFileRecords}
	wr.s = state{rem: &r, spec: sp, ProblemLog: ProblemLog{Index: HeaderIndex}, created: r.Created, slip: slipBeneficiary(&r)}
	wr.s.version = sp.versions[0]
	checkRemittance(&wr.s)
	if !wr.s.Failed() {
		wr.renderDetails()
		wr.writeRecords(sp.header)
		wr.openBatch()
	}
	if err := wr.s.Take(wr.warn); err != nil {
		return nil, err
	}
	wr.out.Commit()
	if err := wr.out.Err(); err != nil {
		return nil, err
	}
	return wr, nil
}

// Write checks a title and writes its detail records. A rejected title
// gives a Problems error naming each field; the Writer goes on checking
// the titles that follow so that all problems can be reported, but once a
// title has been rejected it writes nothing more, and Close reports the
// file incomplete.
func (w *Writer) Write(t Title) error {
	if w.done {
		return errors.New("cnab: write after close")
	}
	s := &w.s
	s.Index = w.items()
	if w.full(len(w.spec.detail)) {
		w.fails++
		return Problems{{Title: s.Index, Field: "titles", Message: "the file is full: a CNAB file holds at most " +
			itoa(w.fileLimit) + " records; write the remaining titles to another file (next sequence number)"}}
	}
	w.makeRoom(len(w.spec.detail))
	s.title = t
	s.t = &s.title
	record, batchRecord := s.record, s.batchRecord
	checkTitle(s)
	if !s.Failed() {
		prepareNossoNumero(s)
	}
	if !s.Failed() && w.spec.prepare != nil {
		w.spec.prepare(s)
	}
	if !s.Failed() {
		w.writeDetails()
	}
	s.t = nil
	if err := w.s.Take(w.warn); err != nil {
		s.record, s.batchRecord = record, batchRecord
		w.out.Drop()
		w.fails++
		return err
	}
	s.titles++
	s.total += s.amount
	s.batchTitles++
	s.batchTotal += s.amount
	w.settle()
	return w.out.Err()
}

// Drop checks a request to drop a title the bank registered from an
// earlier file of the account and writes its record (docs/cnab.md,
// "Drops"). A rejected drop gives a Problems error naming each field (its
// Title is the drop's index in the stream, titles and drops counted
// together) and writes nothing; unlike a rejected title it leaves the file
// whole, so the caller may write the file without it and ask again in a
// later one. Its amount counts in the trailers' totals like a title's.
func (w *Writer) Drop(d Drop) error {
	if w.done {
		return errors.New("cnab: drop after close")
	}
	s := &w.s
	s.Index = w.items()
	if w.full(1) {
		w.dropFails++
		return Problems{{Title: s.Index, Field: "drops", Message: "the file is full: a CNAB file holds at most " +
			itoa(w.fileLimit) + " records; ask for the drop in another file"}}
	}
	s.title = Title{OurNumber: d.OurNumber, DocumentNumber: d.DocumentNumber, Control: d.Control,
		Amount: d.Amount, Due: d.Due}
	s.t = &s.title
	checkDrop(s)
	if !s.Failed() {
		prepareNossoNumero(s)
	}
	if !s.Failed() && w.spec.prepareDrop != nil {
		w.spec.prepareDrop(s)
	}
	if !s.Failed() { // a new batch only for a drop that will be written
		w.makeRoom(1)
	}
	record, batchRecord := s.record, s.batchRecord
	if !s.Failed() {
		s.record++
		s.batchRecord++
		fixedwidth.Fill(w.out.Line(w.drop.line), w.drop.rec.fields, w.drop.rec.perTitle, s)
	}
	s.t = nil
	if err := s.Take(w.warn); err != nil {
		s.record, s.batchRecord = record, batchRecord
		w.out.Drop()
		w.dropFails++
		return err
	}
	s.drops++
	s.total += s.amount
	s.batchTitles++
	s.batchTotal += s.amount
	w.settle()
	return w.out.Err()
}

// settle writes the records buffered, or drops them once a title has
// been rejected: the file is then incomplete and no more is written.
func (w *Writer) settle() {
	if w.fails == 0 {
		w.out.Commit()
	} else {
		w.out.Drop()
	}
}

// Skip counts a title the caller could not even turn into a Title (a JSON
// error, a missing database row) as rejected: later titles keep their
// index in the input, and Close reports the file incomplete.
func (w *Writer) Skip() { w.fails++ }

// Close writes the trailer records and flushes. It returns ErrIncomplete
// (and writes no trailer) when a title was rejected.
func (w *Writer) Close() error {
	if w.done {
		return w.out.Err()
	}
	w.done = true
	if w.fails > 0 {
		return fmt.Errorf("%w: %d rejected", ErrIncomplete, w.fails)
	}
	w.s.Index = HeaderIndex
	w.closeBatch()
	w.writeRecords(w.spec.trailer)
	if err := w.s.Take(w.warn); err != nil {
		return err
	}
	return w.out.Finish(w.spec.finalEOL, w.spec.eof)
}

// full reports whether an item of that many detail records might not fit
// in the file together with the trailers (and, in CNAB 240, a new batch's
// header and trailer).
func (w *Writer) full(details int) bool {
	need := details + len(w.spec.trailer)
	if w.spec.batchHeader != nil {
		need += 3
	}
	return w.s.record+need > w.fileLimit
}

// makeRoom closes the current CNAB 240 batch and opens the next when an
// item of that many detail records would not fit in it.
func (w *Writer) makeRoom(details int) {
	if w.spec.batchHeader != nil && w.s.batchRecord+details > w.batchLimit {
		w.closeBatch()
		w.openBatch()
		w.settle()
	}
}

// items is the index in the stream of the next title or drop.
func (w *Writer) items() int { return w.s.titles + w.s.drops + w.fails + w.dropFails }

// openBatch starts a CNAB 240 batch (lote) with its header.
func (w *Writer) openBatch() {
	if w.spec.batchHeader == nil {
		return
	}
	s := &w.s
	s.batch++
	s.batchRecord, s.batchTitles, s.batchTotal = 0, 0, 0
	w.writeRecords([]*record{w.spec.batchHeader})
}

// closeBatch ends the current CNAB 240 batch with its trailer.
func (w *Writer) closeBatch() {
	if w.spec.batchTrail != nil {
		w.writeRecords([]*record{w.spec.batchTrail})
	}
}

// Titles returns the number of titles written so far.
func (w *Writer) Titles() int { return w.s.titles }

// Drops returns the number of drops written so far.
func (w *Writer) Drops() int { return w.s.drops }

// writeRecords adds file or batch headers or trailers to the output.
func (w *Writer) writeRecords(recs []*record) {
	for _, rec := range recs {
		w.s.record++
		fixedwidth.Fill(w.out.Line(rec.template), rec.fields, rec.dynamic, &w.s)
	}
}

// renderDetails renders each detail record's remittance fields once; a
// problem there is a remittance problem.
func (w *Writer) renderDetails() {
	width := int(w.spec.layout)
	for _, rec := range w.spec.detail {
		line := append([]byte(nil), rec.template...)
		fixedwidth.Fill(line[:width], rec.fields, rec.perFile, &w.s)
		w.details = append(w.details, detailTemplate{rec, line})
	}
	line := append([]byte(nil), w.spec.drop.template...)
	fixedwidth.Fill(line[:width], w.spec.drop.fields, w.spec.drop.perFile, &w.s)
	w.drop = detailTemplate{w.spec.drop, line}
}

// writeDetails adds the current title's detail records to the output.
func (w *Writer) writeDetails() {
	for _, d := range w.details {
		if d.rec.when != nil && !d.rec.when(&w.s) {
			continue
		}
		w.s.record++
		w.s.batchRecord++
		fixedwidth.Fill(w.out.Line(d.line), d.rec.fields, d.rec.perTitle, &w.s)
	}
}

// Summary is what WriteAll reports: the titles written and every problem
// found, up to MaxProblems of them.
type Summary struct {
	Titles   int
	Problems Problems // errors and warnings, in order
	Dropped  int      // problems beyond MaxProblems, counted but not kept
}

// MaxProblems bounds the problems a Summary keeps, so that a huge invalid
// batch cannot use unbounded memory.
const MaxProblems = 1000

// WriteAll writes a whole remittance from an iterator of titles. It checks
// every title; when any is rejected the error wraps ErrIncomplete (or is
// the header's Problems) and the summary lists the problems, and the bytes
// written to w must be discarded.
func WriteAll(w io.Writer, r Remittance, titles iter.Seq[Title]) (Summary, error) {
	var sum Summary
	keep := func(p Problem) {
		if len(sum.Problems) < MaxProblems {
			sum.Problems = append(sum.Problems, p)
		} else {
			sum.Dropped++
		}
	}
	wr, err := NewWriter(w, r, keep)
	if err != nil {
		var ps Problems
		if errors.As(err, &ps) {
			for _, p := range ps {
				keep(p)
			}
		}
		return sum, err
	}
	for t := range titles {
		err := wr.Write(t)
		if err == nil {
			continue
		}
		var ps Problems
		if !errors.As(err, &ps) {
			return sum, err
		}
		for _, p := range ps {
			keep(p)
		}
	}
	err = wr.Close()
	sum.Titles = wr.Titles()
	return sum, err
}

func itoa(n int) string { return strconv.Itoa(n) }
