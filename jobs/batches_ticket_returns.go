package jobs

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/cnab"
	"github.com/propfin/propfin/cnab/retorno"
	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// The outcomes of a collection return file's line, besides the shared
// ones (storage.Outcome*) and the payments' (storage.Payment*).
const (
	OutcomeRegistered   = "registered"    // the bank registered the title
	OutcomeRejected     = "rejected"      // the bank refused the title's entry
	OutcomeWrittenOff   = "written_off"   // the bank dropped the title
	OutcomeTariffBooked = "tariff_booked" // a tariff on a line of its own, booked as the business's expense
)

// applyTicketReturn acts on a part of a collection return file's lines
// (docs/ledger.md, "Settlement from a bank return file"). Each line's
// title is found by its nosso número among the titles sent from the file's
// accounts, never guessed: none is unmatched, several (two accounts of the
// bank with the same number) are ambiguous unless the check digit tells
// them apart; such a line does nothing whatever its occurrence (a fee
// line with a tariff aside, booked on the file's account: feeLine), its
// message the matching's words and the bank's, its report the amounts
// the line gives (reportAmounts). Then, by the occurrence's class:
//   - entry confirmed: the invoice is registered (ticket_registered,
//     ticket_date: the occurrence's date);
//   - rejected: a title not registered yet was refused (its entry): it
//     leaves its batch and the invoice may be billed again; for a
//     registered title it is an instruction refused, recorded;
//   - written off: the title leaves its batch;
//   - paid: the invoice is settled with what the bank reports
//     (storage.SettleReportedPayments), the rules' expected amount and the
//     difference beside it;
//   - a fee with a tariff (a tariff on a line of its own): the tariff is
//     booked as the business's expense on the account the bank debited
//     (storage.BookReturnTariffs), once per line of the file's content,
//     whether the line names a title or not (feeTariff);
//   - anything else is recorded.
//
// A title's lines act in their order, each on the state the earlier ones
// left (an entry confirmed and then a write-off: written off). A line
// about to book money (a payment, a tariff) first claims its key, the
// file's content and the line (claimBookings): one another reading of the
// same bytes booked is a duplicate naming that reading's job, and books
// nothing; a claim whose line booked nothing is released
// (releaseUnbooked). Every change writes the invoice's history (actor:
// the return file's job).
func applyTicketReturn(ctx context.Context, tx pgx.Tx, rf *ReturnRead, items []ReturnItem) ([]storage.ReturnLine, error) {
	companyID := rf.File.CompanyID
	actor := storage.Actor{Kind: storage.ActorReturnFile, ID: rf.JobID}
	numbers := make([]string, 0, len(items))
	seen := make(map[string]bool, len(items))
	for _, it := range items {
		if n := it.Event.OurNumber; !seen[n] {
			seen[n] = true
			numbers = append(numbers, n)
		}
	}
	matches, err := storage.MatchTickets(ctx, tx, companyID, rf.Accounts, numbers)
	if err != nil {
		return nil, err
	}
	out := make([]storage.ReturnLine, len(items))
	said := make([]string, len(items)) // the bank's words of each line
	var events []storage.TicketEvent
	var b lineBookings
	// each title as the part's lines leave it, so that its lines act in
	// their order, each on the state the earlier ones left
	left := map[int64]*storage.TicketMatch{}
	for i := range items {
		ev := &items[i].Event
		l := &out[i]
		*l = storage.ReturnLine{Line: ev.Line, Code: ev.Code, Occurrence: string(ev.Occurrence), OurNumber: ev.FullOurNumber()}
		words := bankWords(ev)
		said[i] = words
		m, outcome, msg := matchTitle(matches[ev.OurNumber], ev, rf)
		if ev.Occurrence == retorno.Fee && ev.Tariff > 0 {
			if fee, ok := feeLine(l, ev, m, msg, rf, words); ok {
				b.fees, b.feeAt = append(b.fees, fee), append(b.feeAt, i)
			}
			continue
		}
		if outcome != "" {
			l.Outcome, l.Message = outcome, msg+": nothing was done ("+words+")"
			continue
		}
		l.MemberID = m.InvoiceID
		if now, ok := left[m.MemberID]; ok { // as the part's earlier lines of the title left it
			m = now
		} else {
			c := *m
			m = &c
			left[m.MemberID] = m
		}
		fresh := m.State == "sent" && !m.Registered
		switch ev.Occurrence {
		case retorno.EntryConfirmed:
			if !fresh {
				l.Outcome, l.Message = storage.OutcomeRecorded, notChanged(m, words)
				break
			}
			events = append(events, storage.TicketEvent{Match: *m, Kind: storage.TicketRegistered, At: eventTime(ev), Reasons: words})
			m.Registered = true
			l.Outcome, l.Message = OutcomeRegistered, words
		case retorno.Rejected:
			if !fresh {
				l.Outcome, l.Message = storage.OutcomeRecorded, "an instruction refused: "+words
				break
			}
			events = append(events, storage.TicketEvent{Match: *m, Kind: storage.TicketRejected, At: eventTime(ev), Reasons: words})
			m.State = storage.TicketRejected
			l.Outcome, l.Message = OutcomeRejected, words
		case retorno.WrittenOff:
			if m.State != "sent" && m.State != "reverted" {
				l.Outcome, l.Message = storage.OutcomeRecorded, notChanged(m, words)
				break
			}
			events = append(events, storage.TicketEvent{Match: *m, Kind: storage.TicketWrittenOff, At: eventTime(ev), Reasons: words})
			was := m.State
			m.State, m.Registered = storage.TicketWrittenOff, false
			l.Outcome, l.Message = OutcomeWrittenOff, words
			if was == "reverted" && m.DropBatch != 0 {
				l.Message = fmt.Sprintf("the drop asked by the file of collection batch %d is confirmed: %s", m.DropBatch, words)
			}
		case retorno.Paid:
			p, problem := reportedPayment(ev, m, rf, words)
			if problem != "" {
				l.Outcome, l.Message = storage.PaymentNotSettled, problem
				break
			}
			b.pays, b.payAt = append(b.pays, p), append(b.payAt, i)
			var fee *storage.ReturnTariff
			if ev.Tariff > 0 {
				if t, problem := feeTariff(ev, m, rf, words); problem == "" {
					fee = &t
				}
			}
			b.payFee = append(b.payFee, fee)
		default:
			l.Outcome, l.Message = storage.OutcomeRecorded, words
		}
	}
	if err := claimBookings(ctx, tx, rf, out, said, &b); err != nil {
		return nil, err
	}
	pays, payAt, payFee, fees, feeAt := b.pays, b.payAt, b.payFee, b.fees, b.feeAt
	if err := lockChanged(ctx, tx, companyID, events, pays); err != nil {
		return nil, err
	}
	if err := storage.ApplyTicketEvents(ctx, tx, companyID, actor, events); err != nil {
		return nil, err
	}
	settled, err := storage.SettleReportedPayments(ctx, tx, companyID, actor, pays)
	if err != nil {
		return nil, err
	}
	var shorts, overs []storage.LineAlert
	for k, sp := range settled {
		l := &out[payAt[k]]
		describeSettlement(l, sp, &pays[k])
		if sp.Outcome == storage.PaymentShortPaid {
			shorts = append(shorts, shortPayment(rf, l, sp.InvoiceID, 0))
		}
		if sp.Unbooked.IsPositive() {
			overs = append(overs, shortPayment(rf, l, sp.InvoiceID, 0))
		}
		if sp.Outcome == storage.PaymentAlreadyPaid && payFee[k] != nil { // its tariff on a line of its own
			fees, feeAt = append(fees, *payFee[k]), append(feeAt, payAt[k])
		}
	}
	if _, err := storage.RaiseShortPayments(ctx, tx, companyID, shorts); err != nil {
		return nil, err
	}
	if _, err := storage.RaiseOverPayments(ctx, tx, companyID, overs); err != nil {
		return nil, err
	}
	booked, err := storage.BookReturnTariffs(ctx, tx, companyID, fees)
	if err != nil {
		return nil, err
	}
	if err := releaseUnbooked(ctx, tx, rf, out, &b, settled, booked); err != nil {
		return nil, err
	}
	for k, b := range booked {
		l := &out[feeAt[k]]
		outcome := l.Outcome
		describeFee(l, b, &fees[k])
		if outcome == storage.PaymentAlreadyPaid { // a paid line's outcome is its payment's
			l.Outcome = outcome
		}
	}
	return out, nil
}

// lineBookings are the lines of a part of a collection return file that
// book money: the payments (and the tariff of each, booked on its own
// when its invoice is paid already) and the fee lines' tariffs, each with
// its line (an index in the part's report).
type lineBookings struct {
	pays   []storage.ReportedPayment
	payAt  []int
	payFee []*storage.ReturnTariff
	fees   []storage.ReturnTariff
	feeAt  []int
}

// claimBookings claims for the reading the lines about to book money
// (storage.ClaimReturnLines, keyed by the file's content and the line)
// and drops from b those another reading of the same content booked
// (the same bytes stored again for an account named): such a line is a
// duplicate, its message naming the job whose reading booked it. A line
// no reading booked (left ambiguous or unmatched, refused) is read as
// any.
func claimBookings(ctx context.Context, tx pgx.Tx, rf *ReturnRead, out []storage.ReturnLine, said []string, b *lineBookings) error {
	keys := make([]string, 0, len(b.pays)+len(b.fees))
	for _, i := range b.payAt {
		keys = append(keys, storage.ReturnLineKey(rf.File.SHA256, out[i].Line))
	}
	for _, i := range b.feeAt {
		keys = append(keys, storage.ReturnLineKey(rf.File.SHA256, out[i].Line))
	}
	before, err := storage.ClaimReturnLines(ctx, tx, rf.File.CompanyID, rf.JobID, keys)
	if err != nil || len(before) == 0 {
		return err
	}
	booked := func(i int) bool {
		job, ok := before[storage.ReturnLineKey(rf.File.SHA256, out[i].Line)]
		if !ok {
			return false
		}
		l := &out[i]
		by := "an earlier reading of this file"
		if job != 0 {
			by = fmt.Sprintf("job %d's reading of this file", job)
		}
		l.Outcome, l.Message = storage.OutcomeDuplicate, fmt.Sprintf("booked by %s: nothing was done (%s)", by, said[i])
		return true
	}
	var kept lineBookings
	for k, i := range b.payAt {
		if !booked(i) {
			kept.pays, kept.payAt, kept.payFee = append(kept.pays, b.pays[k]), append(kept.payAt, i), append(kept.payFee, b.payFee[k])
		}
	}
	for k, i := range b.feeAt {
		if !booked(i) {
			kept.fees, kept.feeAt = append(kept.fees, b.fees[k]), append(kept.feeAt, i)
		}
	}
	*b = kept
	return nil
}

// releaseUnbooked releases the claims (claimBookings) of the lines that
// booked nothing in the end: a payment not settled, an installment's
// short line (nothing booked), a fee line's tariff not booked. A line of
// an invoice paid already keeps its claim: its tariff is booked and its
// money alerted (over_payment), once. settled is in the order of b.pays;
// booked starts with b.fees, in their order.
func releaseUnbooked(ctx context.Context, tx pgx.Tx, rf *ReturnRead, out []storage.ReturnLine, b *lineBookings,
	settled []storage.SettledPayment, booked []storage.BookedTariff) error {
	var free []string
	for k, sp := range settled {
		if sp.Outcome == storage.PaymentNotSettled || (sp.Outcome == storage.PaymentShortPaid && sp.N == 0) {
			free = append(free, storage.ReturnLineKey(rf.File.SHA256, out[b.payAt[k]].Line))
		}
	}
	for k := range b.fees {
		if o := booked[k].Outcome; o == storage.TariffNoItem || o == storage.TariffNoAccount {
			free = append(free, b.fees[k].Key)
		}
	}
	return storage.ReleaseReturnLines(ctx, tx, rf.File.CompanyID, free)
}

// feeLine reads a fee line with a tariff into its report line (recorded,
// its member the title's invoice when it names one, the matching's words
// otherwise) and returns the tariff to book, or false with the report
// saying why it is not booked.
func feeLine(l *storage.ReturnLine, ev *retorno.Event, m *storage.TicketMatch, msg string, rf *ReturnRead, words string) (storage.ReturnTariff, bool) {
	if m != nil {
		l.MemberID = m.InvoiceID
	} else {
		words += " (" + msg + ")"
	}
	tariff := ev.Tariff.Decimal()
	l.Tariff, l.Outcome, l.Message = &tariff, storage.OutcomeRecorded, words
	fee, problem := feeTariff(ev, m, rf, words)
	if problem != "" {
		l.Message += "; " + problem
		return storage.ReturnTariff{}, false
	}
	return fee, true
}

// feeTariff is the tariff of a fee line, to be booked on the account the
// bank debited: the line's title's, or the file's one account (the one
// the upload named, or the company's only account at the bank) for a line
// that names no title of one account (a monthly tariff); dated the
// occurrence's day, else the credit's, else the file's. It returns why
// the tariff is not booked instead, when no account or day can be told.
func feeTariff(ev *retorno.Event, m *storage.TicketMatch, rf *ReturnRead, words string) (storage.ReturnTariff, string) {
	amount := ev.Tariff.Decimal().StringFixed(2)
	var account int64
	switch {
	case m != nil:
		account = m.AccountID
	case len(rf.Accounts) == 1:
		account = rf.Accounts[0]
	default:
		return storage.ReturnTariff{}, fmt.Sprintf("the bank's tariff %s is not booked: the line names no title of one account, "+
			"and the company has %d accounts at bank %s: upload the file with account_id", amount, len(rf.Accounts), rf.Header.Bank)
	}
	day := financeDate(ev.Date)
	for _, d := range []cnab.Date{ev.CreditDate, rf.Header.Created} {
		if day.IsZero() {
			day = financeDate(d)
		}
	}
	if day.IsZero() {
		return storage.ReturnTariff{}, fmt.Sprintf("the bank's tariff %s is not booked: neither the line nor the file gives a date", amount)
	}
	return storage.ReturnTariff{Key: storage.ReturnTariffKey(rf.File.SHA256, ev.Line), AccountID: account, Date: day,
		Amount: ev.Tariff.Decimal(), Notes: fmt.Sprintf("return file %d, line %d: %s", rf.File.ID, ev.Line, words)}, ""
}

// describeFee says what became of a fee line's tariff.
func describeFee(l *storage.ReturnLine, b storage.BookedTariff, t *storage.ReturnTariff) {
	amount := t.Amount.StringFixed(2)
	switch b.Outcome {
	case storage.TariffBooked:
		l.Outcome = OutcomeTariffBooked
		l.Message += fmt.Sprintf("; the bank's tariff %s booked as the business's expense (entry %d)", amount, b.EntryID)
	case storage.TariffBookedBefore:
		l.Message += fmt.Sprintf("; the bank's tariff %s was booked by an earlier reading of the same file (entry %d): nothing was done",
			amount, b.EntryID)
	case storage.TariffNoItem:
		l.Message += fmt.Sprintf("; the bank's tariff %s is not booked: the company keeps no active transaction item of type tariff", amount)
	default:
		l.Message += fmt.Sprintf("; the bank's tariff %s is not booked: account %d is not the company's", amount, t.AccountID)
	}
}

// lockChanged locks the invoices a part of the file changes, in id order,
// before it changes any, when some change besides payments: the title
// events' writes take their rows in no set order, and two parts in flight
// together (returnChunksApart) that meet on an invoice (two titles of it,
// one in each) must not wait on each other in a cycle. The payments alone
// are locked in id order by their settlement.
func lockChanged(ctx context.Context, tx pgx.Tx, companyID int64, events []storage.TicketEvent, pays []storage.ReportedPayment) error {
	if len(events) == 0 {
		return nil
	}
	ids := make([]int64, 0, len(events)+len(pays))
	for _, e := range events {
		ids = append(ids, e.Match.InvoiceID)
	}
	for _, p := range pays {
		ids = append(ids, p.InvoiceID)
	}
	slices.Sort(ids)
	return storage.LockInvoices(ctx, tx, companyID, slices.Compact(ids))
}

// titleNumber is the title a line names: its nosso número, leading zeros
// aside (as storage.MatchTickets matches it).
func titleNumber(ev *retorno.Event) string { return strings.TrimLeft(ev.OurNumber, "0") }

// matchTitle picks the title of a line among the titles with its number:
// by its check digit when the file gives one. It returns the outcome and
// message when there is no single title.
func matchTitle(found []storage.TicketMatch, ev *retorno.Event, rf *ReturnRead) (*storage.TicketMatch, string, string) {
	var ms []storage.TicketMatch
	for _, m := range found {
		if ev.OurNumberDigit == "" || m.Digit == "" || strings.EqualFold(ev.OurNumberDigit, m.Digit) {
			ms = append(ms, m)
		}
	}
	switch {
	case len(ms) == 1:
		return &ms[0], "", ""
	case len(ms) > 1:
		accounts := make([]string, len(ms))
		for i, m := range ms {
			accounts[i] = fmt.Sprint(m.AccountID)
		}
		return nil, storage.OutcomeAmbiguous, fmt.Sprintf("accounts %s each have a title with nosso número %s: upload the file with account_id",
			strings.Join(accounts, ", "), ev.PrintedOurNumber())
	case len(found) > 0:
		return nil, storage.OutcomeUnmatched, fmt.Sprintf("nosso número %s has check digit %s in the file; the title's is %s",
			ev.OurNumber, ev.OurNumberDigit, found[0].Digit)
	}
	return nil, storage.OutcomeUnmatched, fmt.Sprintf("no title sent from the company's accounts at bank %s has nosso número %s",
		rf.Header.Bank, ev.PrintedOurNumber())
}

// bankWords is what the bank said of a line, for people: the code, its
// meaning and the reasons.
func bankWords(ev *retorno.Event) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", ev.Code, ev.Description)
	if ev.Description == "" {
		b.WriteString("(a code the bank's table does not list)")
	}
	for i, r := range ev.Reasons {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(r.Code)
		if r.Description != "" {
			b.WriteString(" " + r.Description)
		}
	}
	return b.String()
}

// notChanged says why a line changed nothing on its title.
func notChanged(m *storage.TicketMatch, words string) string {
	switch {
	case m.State != "sent":
		return fmt.Sprintf("the title is %s in batch %d: nothing changed (%s)", m.State, m.BatchID, words)
	case m.Registered:
		return "the title is registered already: " + words
	}
	return "nothing changed: " + words
}

// eventTime is the instant a title event is dated with: its occurrence's
// date (midnight UTC), or now when the line has none.
func eventTime(ev *retorno.Event) time.Time {
	if ev.Date.IsZero() {
		return time.Now().UTC()
	}
	return ev.Date.Time()
}

// reportedPayment is a paid line as a payment of its invoice: paid on the
// occurrence's date (the credit date when the line has none), credited on
// the credit date, the amount paid, the late fee (where the layout has it
// apart), the interest (interest and fee together where it has one value)
// the discount and the abatement apart, and the bank's tariff (booked as
// the business's expense); with the file's date, which the payment's is
// not after (storage.SettleReportedPayments).
func reportedPayment(ev *retorno.Event, m *storage.TicketMatch, rf *ReturnRead, words string) (storage.ReportedPayment, string) {
	paidAt := financeDate(ev.Date)
	if paidAt.IsZero() {
		paidAt = financeDate(ev.CreditDate)
	}
	switch {
	case paidAt.IsZero():
		return storage.ReportedPayment{}, "the line gives no payment date: nothing was done (" + words + ")"
	case ev.Paid == 0:
		return storage.ReportedPayment{}, "the line gives no amount paid: nothing was done (" + words + ")"
	}
	note := fmt.Sprintf("return file %d, line %d: %s", rf.File.ID, ev.Line, words)
	if m.State != "sent" {
		note += fmt.Sprintf(" (the title is %s in batch %d)", m.State, m.BatchID)
	}
	return storage.ReportedPayment{InvoiceID: m.InvoiceID, PaidAt: paidAt, CreditAt: financeDate(ev.CreditDate),
		Paid: ev.Paid.Decimal(), LateFee: ev.Fine.Decimal(), Interest: ev.Interest.Decimal(),
		Discount: ev.Discount.Decimal(), Abatement: ev.Abatement.Decimal(), Tariff: ev.Tariff.Decimal(), Note: note,
		FileDate: financeDate(rf.Header.Created)}, ""
}

// describeSettlement fills a paid line's outcome, amounts and message.
func describeSettlement(l *storage.ReturnLine, sp storage.SettledPayment, p *storage.ReportedPayment) {
	l.Outcome = sp.Outcome
	paid := sp.Paid
	l.Paid = &paid
	switch sp.Outcome {
	case storage.PaymentAlreadyPaid:
		l.Message = fmt.Sprintf("%s: the bank reports %s paid on %s; nothing of it was booked (a payment made twice: "+
			"an operator alert is raised, to give it back or apply it)", sp.Problem, p.Paid.StringFixed(2), p.PaidAt)
		return
	case storage.PaymentNotSettled:
		l.Message = sp.Problem + ": nothing was done"
		if sp.Unbooked.IsPositive() { // money the bank credited: the over_payment alert
			l.Message = sp.Problem + "; nothing was booked (an operator alert is raised)"
		}
		return
	case storage.PaymentShortPaid:
		expected, diff := sp.Expected, sp.Difference
		l.Expected, l.Difference = &expected, &diff
		l.Message = fmt.Sprintf("%s; the rules expected %s: the invoice is partially paid until the rest is paid "+
			"(an operator alert is raised)", sp.Problem, sp.Expected.StringFixed(2))
		if sp.N == 0 { // an agreement's installment: nothing booked
			l.Message = fmt.Sprintf("%s; the rules expected %s: the installment is open until paid whole "+
				"(an operator alert is raised)", sp.Problem, sp.Expected.StringFixed(2))
		}
		if sp.Tariff.IsPositive() {
			tariff := sp.Tariff
			l.Tariff = &tariff
			l.Message += tariffWords(sp)
		}
		return
	}
	expected, diff := sp.Expected, sp.Difference
	l.Expected, l.Difference = &expected, &diff
	discount := sp.Discount.StringFixed(2)
	if sp.Abatement.IsPositive() {
		discount += fmt.Sprintf(" (of which %s the abatement granted at the bank, borne by the business)", sp.Abatement.StringFixed(2))
	}
	l.Message = fmt.Sprintf("paid %s on %s, booked with late fee %s, interest %s and discount %s; the rules expected %s",
		p.Paid.StringFixed(2), p.PaidAt, sp.LateFee.StringFixed(2), sp.Interest.StringFixed(2), discount,
		sp.Expected.StringFixed(2))
	switch {
	case sp.OfRest:
		l.Message = fmt.Sprintf("paid %s on %s, booked %s as part %d, the rest of the invoice partly paid before (late fee %s, "+
			"interest %s); the rules expected %s", p.Paid.StringFixed(2), p.PaidAt, sp.Booked.StringFixed(2), sp.N,
			sp.LateFee.StringFixed(2), sp.Interest.StringFixed(2), sp.Expected.StringFixed(2))
	case sp.Paid.GreaterThan(sp.Booked):
		l.Message += fmt.Sprintf("; the bank's parts add up to %s, booked as such", sp.Booked.StringFixed(2))
	}
	if sp.Unbooked.IsPositive() {
		l.Message += fmt.Sprintf("; %s of what came in is booked nowhere (an operator alert is raised, to give it back or apply it)",
			sp.Unbooked.StringFixed(2))
	}
	if sp.Tariff.IsPositive() {
		tariff := sp.Tariff
		l.Tariff = &tariff
		l.Message += tariffWords(sp)
	}
}

// shortPayment is the operator alert of a line paid short, of an invoice
// or of a payment (a payment batch's member): the line's report says what
// was paid and due.
func shortPayment(rf *ReturnRead, l *storage.ReturnLine, invoiceID, paymentID int64) storage.LineAlert {
	what := fmt.Sprintf("invoice %d", invoiceID)
	if invoiceID == 0 {
		what = fmt.Sprintf("payment %d", paymentID)
	}
	return storage.LineAlert{JobID: rf.JobID, Key: storage.ReturnTariffKey(rf.File.SHA256, l.Line),
		InvoiceID: invoiceID, PaymentID: paymentID,
		Message: fmt.Sprintf("return file %d (job %d), line %d, %s: %s", rf.File.ID, rf.JobID, l.Line, what, l.Message)}
}

// tariffWords says what became of the bank's tariff of a settled line.
func tariffWords(sp storage.SettledPayment) string {
	if sp.TariffBooked {
		return fmt.Sprintf("; the bank's tariff %s booked as the business's expense", sp.Tariff.StringFixed(2))
	}
	return fmt.Sprintf("; the bank's tariff %s is not booked: the company keeps no active transaction item of type tariff",
		sp.Tariff.StringFixed(2))
}

// financeDate is a CNAB date as a finance date; zero for none.
func financeDate(d cnab.Date) finance.Date {
	if d.IsZero() {
		return finance.Date{}
	}
	return finance.NewDate(d.Year, d.Month, d.Day)
}
