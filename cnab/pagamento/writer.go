package pagamento

import (
	"errors"
	"fmt"
	"io"
	"iter"

	"github.com/propfin/propfin/cnab"
	"github.com/propfin/propfin/cnab/fixedwidth"
)

// lineWidth is the width of every CNAB 240 record.
const lineWidth = 240

// maxBatchRecords is the largest record number a batch can carry in its
// five-digit "Nº Sequencial do Registro no Lote"; a batch that would pass
// it is closed and the next opened with the same forma.
const maxBatchRecords = 99_999

// Writer writes one payment remittance as a stream: the file header when
// it is created, the segments of each payment on Write, the batch headers
// and trailers as the kind of payment changes, and the trailers on Close.
// It holds one payment's records at a time, whatever the size of the
// file. A Writer is not safe for concurrent use.
type Writer struct {
	out   fixedwidth.Output
	bank  *bank
	s     state
	warn  func(cnab.Problem)
	fails int // payments rejected
	// cancelFails are cancellations rejected: unlike a payment's, a
	// cancellation's rejection leaves the file whole.
	cancelFails int
	done        bool

	batchLimit int
}

// NewWriter checks the remittance and writes the file header to w.
// Warnings (a text truncated or a character replaced), in the header and
// later in the payments, are passed to warn, which may be nil. An invalid
// remittance gives a cnab.Problems error and nothing is written.
func NewWriter(w io.Writer, r Remittance, warn func(cnab.Problem)) (*Writer, error) {
	b, err := lookupBank(r.Bank)
	if err != nil {
		return nil, cnab.Problems{{Title: cnab.HeaderIndex, Field: "bank", Message: err.Error()}}
	}
	wr := &Writer{out: fixedwidth.NewOutput(w, b.eol), bank: b, warn: warn, batchLimit: maxBatchRecords}
	wr.s = state{rem: &r, bank: b, ProblemLog: cnab.ProblemLog{Index: cnab.HeaderIndex}}
	checkRemittance(&wr.s)
	if !wr.s.Failed() {
		wr.writeRecords(b.fileHeader)
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

// Write checks a payment and writes its segments, opening a new batch
// when its forma de lançamento differs from the current batch's. A
// rejected payment gives a cnab.Problems error naming each field; the
// Writer goes on checking the payments that follow so that all problems
// can be reported, but once one has been rejected it writes nothing more,
// and Close reports the file incomplete.
func (w *Writer) Write(p Payment) error {
	if w.done {
		return errors.New("pagamento: write after close")
	}
	s := &w.s
	s.Index = w.items()
	s.resetPayment(p)
	checkPayment(s)
	if !s.Failed() {
		recs := w.bank.detail(s)
		if s.batch == 0 || s.forma != s.batchForma || s.batchRecord+len(recs) > w.batchLimit {
			w.closeBatch()
			w.openBatch(s.forma)
		}
		w.writeRecords(recs...)
	}
	s.p = nil
	if err := w.s.Take(w.warn); err != nil {
		w.out.Drop()
		w.fails++
		return err
	}
	s.payments++
	s.total += s.amount
	s.batchTotal += s.amount
	if w.fails == 0 {
		w.out.Commit()
	} else {
		w.out.Drop()
	}
	return w.out.Err()
}

// Cancel checks a payment sent in an earlier file of the account and
// writes the request to cancel it (exclusão, docs/cnab-pagamento.md,
// "Cancellations"): its segment A (a transfer or a PIX) or J (a boleto)
// as the inclusion's, with the movement of an exclusion (FEBRABAN G060 9
// and G061 99; Itaú 998), in a batch of its forma like a payment. The
// segments that only complete an inclusion (B, J-52) are not written. A
// rejected cancellation gives a cnab.Problems error (its Title is its
// index in the stream, payments and cancellations counted together) and
// writes nothing; unlike a rejected payment it leaves the file whole, so
// the caller may ask again in a later file. Its amount counts in its
// batch's total like a payment's.
func (w *Writer) Cancel(p Payment) error {
	if w.done {
		return errors.New("pagamento: cancel after close")
	}
	s := &w.s
	s.Index = w.items()
	s.resetPayment(p)
	s.cancel = true
	checkPayment(s)
	mark := w.mark()
	if !s.Failed() {
		if s.batch == 0 || s.forma != s.batchForma || s.batchRecord+1 > w.batchLimit {
			w.closeBatch()
			w.openBatch(s.forma)
		}
		w.writeRecords(w.bank.detail(s)[0])
	}
	s.p = nil
	if err := w.s.Take(w.warn); err != nil {
		w.out.Drop()
		w.reset(mark)
		w.cancelFails++
		return err
	}
	s.cancels++
	s.batchTotal += s.amount
	if w.fails == 0 {
		w.out.Commit()
	} else {
		w.out.Drop()
	}
	return w.out.Err()
}

// writerPosition is where the writer is in the file: its counters, kept so
// that a rejected cancellation's records (and a batch it opened) are
// taken back.
type writerPosition struct {
	record, batch, batchRecord int
	batchForma                 string
	batchTotal                 int64
}

func (w *Writer) mark() writerPosition {
	s := &w.s
	return writerPosition{s.record, s.batch, s.batchRecord, s.batchForma, s.batchTotal}
}

func (w *Writer) reset(p writerPosition) {
	s := &w.s
	s.record, s.batch, s.batchRecord, s.batchForma, s.batchTotal = p.record, p.batch, p.batchRecord, p.batchForma, p.batchTotal
}

// items is the index in the stream of the next payment or cancellation.
func (w *Writer) items() int { return w.s.payments + w.s.cancels + w.fails + w.cancelFails }

// Close writes the last batch trailer and the file trailer, and flushes.
// It returns an error wrapping cnab.ErrIncomplete (and writes no trailer)
// when a payment was rejected.
func (w *Writer) Close() error {
	if w.done {
		return w.out.Err()
	}
	w.done = true
	if w.fails > 0 {
		return fmt.Errorf("%w: %d payments rejected", cnab.ErrIncomplete, w.fails)
	}
	w.s.Index = cnab.HeaderIndex
	w.closeBatch()
	w.writeRecords(w.bank.fileTrailer)
	if err := w.s.Take(w.warn); err != nil {
		return err
	}
	return w.out.Finish(w.bank.finalEOL, "")
}

// Payments returns the number of payments written so far.
func (w *Writer) Payments() int { return w.s.payments }

// Cancels returns the number of cancellations written so far.
func (w *Writer) Cancels() int { return w.s.cancels }

// Total returns the sum of the payments written so far, in cents.
func (w *Writer) Total() int64 { return w.s.total }

// Batches returns the number of batches opened so far.
func (w *Writer) Batches() int { return w.s.batch }

// openBatch starts a batch of payments of one forma with its header.
func (w *Writer) openBatch(forma string) {
	s := &w.s
	s.batch++
	s.batchForma = forma
	s.batchRecord, s.batchTotal = 0, 0
	w.writeRecords(w.bank.batchHeader(s.batchForma))
}

// closeBatch ends the current batch, if any, with its trailer.
func (w *Writer) closeBatch() {
	if w.s.batch > 0 {
		w.writeRecords(w.bank.batchTrailer)
	}
}

// writeRecords adds recs one after the other to the output, numbering the
// detail records (type 3) within their batch.
func (w *Writer) writeRecords(recs ...*record) {
	for _, rec := range recs {
		w.s.record++
		if rec.detail {
			w.s.batchRecord++
		}
		fixedwidth.FillAll(w.out.LineOf(lineWidth), rec.fields, &w.s)
	}
}

// Summary is what WriteAll reports: the payments written, their total and
// every problem found, up to cnab.MaxProblems of them.
type Summary struct {
	Payments int
	Total    int64 // cents
	Batches  int
	Problems cnab.Problems // errors and warnings, in order
	Dropped  int           // problems beyond cnab.MaxProblems, counted but not kept
}

// WriteAll writes a whole remittance from an iterator of payments. It
// checks every payment; when any is rejected the error wraps
// cnab.ErrIncomplete (or is the header's cnab.Problems), the summary lists
// the problems, and the bytes written to w must be discarded.
func WriteAll(w io.Writer, r Remittance, payments iter.Seq[Payment]) (Summary, error) {
	var sum Summary
	keep := func(p cnab.Problem) {
		if len(sum.Problems) < cnab.MaxProblems {
			sum.Problems = append(sum.Problems, p)
		} else {
			sum.Dropped++
		}
	}
	keepAll := func(err error) bool {
		var ps cnab.Problems
		if !errors.As(err, &ps) {
			return false
		}
		for _, p := range ps {
			keep(p)
		}
		return true
	}
	wr, err := NewWriter(w, r, keep)
	if err != nil {
		keepAll(err)
		return sum, err
	}
	for p := range payments {
		if err := wr.Write(p); err != nil && !keepAll(err) {
			return sum, err
		}
	}
	err = wr.Close()
	sum.Payments, sum.Total, sum.Batches = wr.Payments(), wr.Total(), wr.Batches()
	return sum, err
}
