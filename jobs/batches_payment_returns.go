package jobs

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/propfin/propfin/cnab/retorno"
	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// The outcomes of a payment return file's line, besides the shared ones
// (storage.Outcome*) and storage.PaymentAlreadyPaid,
// storage.PaymentNotSettled and storage.PaymentShortPaid.
const (
	OutcomePaid      = "paid"      // the bank paid: the entry is paid
	OutcomeFailed    = "failed"    // the bank refused the payment
	OutcomeScheduled = "scheduled" // the bank took the payment for its date
	OutcomeCancelled = "cancelled" // the bank cancelled the payment, as a file asked
)

// applyPaymentReturn acts on a part of a payment return file's lines
// (docs/ledger.md, "A payable paid from a bank return file"). Each line's
// payment is found by its reference (seu número, which the bank returns
// as it was sent) among the payments sent from the file's accounts, never
// guessed: none is unmatched. Then, by the occurrence's class:
//   - paid: the payment and its entry are paid, on the date and with the
//     amount the bank reports (storage.ApplyPaymentEvents); the amount sent
//     is beside it, and the difference; paid less than the amount sent
//     (short_paid), nothing is done and an operator alert is raised; not
//     settled or paid already (not_settled, already_paid: money out that
//     nothing books), nothing is done and an unbooked_payment alert is
//     raised. An owner's transfer voided since with its undone payment is
//     paid all the same (the money left), its void reversed: the owner owes
//     it, and the line says what was written;
//   - rejected: the payment failed, with the bank's reasons; the entry may
//     join another batch;
//   - scheduled: the bank's number is kept;
//   - a cancellation confirmed (FEBRABAN's BF, exclusão efetuada; Itaú's
//     CE: confirmsCancellation) of a reverted payment a file asked to
//     cancel: the payment is cancelled;
//   - anything else is recorded.
func applyPaymentReturn(ctx context.Context, tx pgx.Tx, rf *ReturnRead, items []ReturnItem) ([]storage.ReturnLine, error) {
	companyID := rf.File.CompanyID
	refs := make([]string, 0, len(items))
	for i := range items {
		refs = append(refs, paymentReference(&items[i].Event))
	}
	matches, err := storage.MatchPayments(ctx, tx, companyID, rf.Accounts, refs)
	if err != nil {
		return nil, err
	}
	today, err := storage.CompanyToday(ctx, tx, companyID)
	if err != nil {
		return nil, err
	}
	days := paymentDays{file: financeDate(rf.Header.Created), today: today}
	out := make([]storage.ReturnLine, len(items))
	var events []storage.PaymentEvent
	var shorts, unbooked []storage.LineAlert
	changed := map[int64]bool{}
	for i := range items {
		ev := &items[i].Event
		l := &out[i]
		*l = storage.ReturnLine{Line: ev.Line, Code: ev.Code, Occurrence: string(ev.Occurrence), OurNumber: ev.OurNumber}
		m := matches[refs[i]]
		if m == nil {
			l.Outcome, l.Message = storage.OutcomeUnmatched, unmatchedPayment(ev, rf)
			continue
		}
		l.MemberID = m.TransactionID
		e, ok := paymentEvent(l, ev, m, days, changed[m.MemberID])
		if ok {
			changed[m.MemberID] = true
			events = append(events, e)
		}
		switch l.Outcome {
		case storage.PaymentShortPaid:
			shorts = append(shorts, shortPayment(rf, l, 0, m.MemberID))
		case storage.PaymentNotSettled, storage.PaymentAlreadyPaid:
			unbooked = append(unbooked, unbookedPayment(rf, l, m.MemberID))
		}
	}
	voids, err := storage.ApplyPaymentEvents(ctx, tx, companyID, storage.Actor{Kind: storage.ActorReturnFile, ID: rf.JobID}, events)
	if err != nil {
		return nil, err
	}
	for _, v := range voids {
		for i := range out {
			if out[i].MemberID == v.TransferID && out[i].Outcome == OutcomePaid {
				out[i].Message += ". " + v.Message()
			}
		}
	}
	if _, err := storage.RaiseShortPayments(ctx, tx, companyID, shorts); err != nil {
		return nil, err
	}
	if _, err := storage.RaiseUnbookedPayments(ctx, tx, companyID, unbooked); err != nil {
		return nil, err
	}
	return out, nil
}

// unbookedPayment is the alert of a paid line that booked nothing
// (not_settled, already_paid): the bank says the money left, and nothing
// in the ledger says where it went. Its message is the line's, with the
// amount the bank reports paid.
func unbookedPayment(rf *ReturnRead, l *storage.ReturnLine, paymentID int64) storage.LineAlert {
	a := shortPayment(rf, l, 0, paymentID)
	if l.Paid != nil {
		a.Message += fmt.Sprintf(" (the bank reports %s paid: money out of the account that nothing books)", l.Paid.StringFixed(2))
	}
	return a
}

// paymentReference is the payment a line names: its reference (seu
// número), in capitals as the batch wrote it.
func paymentReference(ev *retorno.Event) string { return strings.ToUpper(ev.DocumentNumber) }

// unmatchedPayment says why a line names no payment.
func unmatchedPayment(ev *retorno.Event, rf *ReturnRead) string {
	if ev.DocumentNumber == "" {
		return "the line gives no reference (seu número): nothing was done"
	}
	return fmt.Sprintf("no payment sent from the company's accounts at bank %s has reference %s",
		rf.Header.Bank, ev.DocumentNumber)
}

// paymentDays are the days a paid line's date is held to: the file's own
// date (zero: the header has none) and today in the company's time zone.
type paymentDays struct {
	file, today finance.Date
}

// paymentEvent fills a matched line's outcome and message and returns the
// change it makes, if any. seen: an earlier line of the same part changed
// the payment.
func paymentEvent(l *storage.ReturnLine, ev *retorno.Event, m *storage.PaymentMatch, days paymentDays, seen bool) (storage.PaymentEvent, bool) {
	words := paymentWords(ev)
	e := storage.PaymentEvent{Match: *m, BankNumber: ev.OurNumber, Info: words}
	switch {
	case seen:
		l.Outcome, l.Message = storage.OutcomeRecorded, "an earlier line of this file changed the payment: nothing more was done ("+words+")"
		return e, false
	case ev.Occurrence == retorno.Paid:
		return paidEvent(l, ev, m, days, e)
	case confirmsCancellation(ev) && m.State == "reverted" && m.CancelBatch != 0:
		e.Kind = storage.PaymentCancelled
		l.Outcome = OutcomeCancelled
		l.Message = fmt.Sprintf("the cancellation asked by the file of payment batch %d is confirmed: %s", m.CancelBatch, words)
		return e, true
	case ev.Occurrence == retorno.Rejected && (m.State == "sent" || m.State == "reverted"):
		e.Kind = storage.PaymentFailed
		l.Outcome, l.Message = OutcomeFailed, words
		return e, true
	case ev.Occurrence == retorno.Scheduled && m.State == "sent":
		e.Kind = storage.PaymentScheduled
		l.Outcome, l.Message = OutcomeScheduled, words
		return e, true
	case ev.Occurrence == retorno.Rejected, ev.Occurrence == retorno.Scheduled:
		l.Outcome, l.Message = storage.OutcomeRecorded, fmt.Sprintf("the payment is %s in batch %d: nothing changed (%s)",
			m.State, m.BatchID, words)
		return e, false
	}
	l.Outcome, l.Message = storage.OutcomeRecorded, words
	return e, false
}

// confirmsCancellation reports whether a line confirms the cancellation
// of a payment, when a file asked for it: FEBRABAN's BF (exclusão
// efetuada, an instruction confirmed), and Itaú's CE (SISPAG note 8,
// "PAGAMENTO CANCELADO"), which the table reads as a refusal since
// SISPAG has no code of its own for a cancellation done: said of a payment
// whose cancellation was asked, it is that cancellation done.
func confirmsCancellation(ev *retorno.Event) bool {
	return ev.Occurrence == retorno.InstructionConfirmed || (ev.Bank == "341" && ev.Code == "CE")
}

// paymentWords is what the bank said of a payment, for people: each of
// its occurrence codes once, with its meaning. A payment's code is the
// first of its codes (retorno reads them all as its reasons), so it is not
// told twice as bankWords would tell a title's code and reasons.
func paymentWords(ev *retorno.Event) string {
	if strings.TrimSpace(ev.Code) == "" && len(ev.Reasons) == 0 {
		return "no occurrence code (positions 231-240 blank)"
	}
	if len(ev.Reasons) == 0 || ev.Reasons[0].Code != ev.Code {
		return bankWords(ev)
	}
	parts := make([]string, len(ev.Reasons))
	for i, r := range ev.Reasons {
		parts[i] = r.Code + " " + r.Description
		if r.Description == "" {
			parts[i] += "(a code the bank's table does not list)"
		}
	}
	return strings.Join(parts, "; ")
}

// paidEvent is a paid line as the payment of its entry: on the date the
// bank paid (the date it was scheduled for when the line has none), of the
// amount it paid (the amount sent when the line has none), with a boleto's
// interest and discount as the bank reports them. A payment that cannot be
// settled (its entry paid or deleted, or in another batch since; its date,
// the one the line gives or the one taken for it, after the file's own
// date or after today: storage.PaidDateProblem) changes nothing, nor does
// one the bank paid short: less than the amount sent (with a boleto's
// interest, less its discount), short_paid. An owner's transfer voided
// since it was reverted is paid all the same: the money left
// (storage.ApplyPaymentEvents records what the owner owes).
func paidEvent(l *storage.ReturnLine, ev *retorno.Event, m *storage.PaymentMatch, days paymentDays, e storage.PaymentEvent) (storage.PaymentEvent, bool) {
	var notes []string
	paidAt := financeDate(ev.Date)
	scheduled := paidAt.IsZero()
	if scheduled {
		paidAt = financeDate(ev.Due)
		notes = append(notes, "the line gives no date of payment: the date it was scheduled for is taken")
	}
	paid := ev.Paid.Decimal()
	if ev.Paid == 0 {
		paid = ev.Amount.Decimal()
		notes = append(notes, "the line gives no amount paid: the amount sent is taken")
	}
	l.Paid = &paid
	problem := ""
	switch {
	case m.TransactionID == 0:
		problem = "the entry was deleted"
	case !paidAt.IsZero() && storage.PaidDateProblem(paidAt, days.file, days.today) != "":
		problem = storage.PaidDateProblem(paidAt, days.file, days.today)
		if scheduled {
			problem = "the line gives no date of payment, and the date it was scheduled for, taken for it, is too late: " + problem
		}
	case m.State == "paid" || m.Paid:
		l.Outcome = storage.PaymentAlreadyPaid
		l.Message = fmt.Sprintf("the entry is paid: the bank reports %s paid on %s; nothing was done (check for a payment made twice)",
			paid.StringFixed(2), paidAt)
		return e, false
	case m.State == "added":
		problem = fmt.Sprintf("the payment is not in a file yet (added to batch %d)", m.BatchID)
	case m.OtherBatch != 0:
		problem = fmt.Sprintf("the entry is in payment batch %d since; check for a payment made twice", m.OtherBatch)
	case paidAt.IsZero():
		problem = "the line gives no date"
	case !paid.IsPositive():
		problem = "the line gives no amount"
	}
	if problem != "" {
		l.Outcome, l.Message = storage.PaymentNotSettled, problem+": nothing was done ("+e.Info+")"
		return e, false
	}
	e.Kind, e.PaidAt, e.Paid = storage.PaymentPaid, paidAt, paid
	if ev.Barcode != "" { // a boleto's line (segment J) gives the interest and discount in the amount
		e.Parts, e.Interest, e.Discount = true, ev.Interest.Decimal(), ev.Discount.Decimal().Add(ev.Abatement.Decimal())
	}
	expected, diff := m.Amount, paid.Sub(m.Amount)
	l.Expected, l.Difference = &expected, &diff
	if due := m.Amount.Add(e.Interest).Sub(e.Discount); paid.LessThan(due) {
		l.Outcome = storage.PaymentShortPaid
		sent := "the batch sent " + m.Amount.StringFixed(2)
		if e.Parts {
			sent += "; the bank reports " + bankParts(e)
		}
		l.Message = fmt.Sprintf("the bank paid %s on %s, %s less than the %s due (%s): "+
			"a short payment is not booked by a return file, nothing was done (an operator alert is raised; %s)",
			paid.StringFixed(2), paidAt, due.Sub(paid).StringFixed(2), due.StringFixed(2), sent, e.Info)
		return e, false
	}
	l.Outcome = OutcomePaid
	l.Message = fmt.Sprintf("paid %s on %s; the batch sent %s", paid.StringFixed(2), paidAt, m.Amount.StringFixed(2))
	if e.Parts && !(e.Interest.IsZero() && e.Discount.IsZero()) {
		l.Message += fmt.Sprintf("; the bank reports %s", bankParts(e))
	}
	if m.State == "reverted" {
		notes = append(notes, fmt.Sprintf("the payment had been reverted in batch %d; the bank paid it all the same", m.BatchID))
	}
	if m.State == "failed" {
		notes = append(notes, "an earlier return file had reported it failed")
	}
	if m.Void != 0 {
		notes = append(notes, fmt.Sprintf("the transfer was void (entry %d reverses it): the payment is recorded all the same", m.Void))
	}
	if !diff.IsZero() {
		notes = append(notes, "the amount paid differs from the amount sent by "+diff.StringFixed(2))
	}
	if len(notes) > 0 {
		l.Message += "; " + strings.Join(notes, "; ")
	}
	return e, true
}

// bankParts are a boleto's interest and discount as the bank reports them
// on its line (segment J), the discount first: what the bank took off and
// added, not what the batch sent.
func bankParts(e storage.PaymentEvent) string {
	return fmt.Sprintf("discount %s, interest %s", e.Discount.StringFixed(2), e.Interest.StringFixed(2))
}
