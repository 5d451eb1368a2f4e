package storage

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance"
)

// Payments reported by a bank (a return file's paid titles), settled
// set-based: docs/ledger.md, "Settlement from a bank return file". The
// posting is the one of PostInvoicePayment (finance.PostPayment, the same
// entries, splits, settlement lines and paid_* amounts), with the late
// fee, interest and discount the bank reports instead of the ones the
// rules compute; what the rules expected is kept beside it, and the
// difference recorded.

// ReportedPayment is the payment of an invoice as a bank reports it: when
// it was paid and credited, what the payer paid, and the late fee,
// interest and discount in it.
type ReportedPayment struct {
	InvoiceID        int64
	PaidAt, CreditAt finance.Date
	Paid             decimal.Decimal
	LateFee          decimal.Decimal
	Interest         decimal.Decimal
	Discount         decimal.Decimal
	// Abatement is the abatement (abatimento) the bank reports beside the
	// discount: a reduction the beneficiary granted at the bank, booked
	// with the discount item on a line of its own and borne by the
	// business (finance.Settlement.Abatement), whoever the invoice's
	// ticket_discount_action names for the punctuality discount.
	Abatement decimal.Decimal
	// Tariff is the bank's tariff on the title (what the payer paid less
	// what the bank credited): booked as the business's expense with the
	// company's tariff item (finance.BankTariff).
	Tariff decimal.Decimal
	// Note goes to the invoice's history with the payment (the file's
	// line).
	Note string
	// FileDate is the date of the file that reports the payment (its
	// generation date; zero when it gives none): the payment is not
	// after it (reportedDatesProblem).
	FileDate finance.Date
}

// The outcomes of a reported payment.
const (
	PaymentSettled     = "settled"      // marked paid and posted
	PaymentAlreadyPaid = "already_paid" // the invoice was paid: nothing booked but the tariff
	PaymentNotSettled  = "not_settled"  // refused by a rule: Problem says which
	// PaymentShortPaid: the bank reports less paid than its parts add up
	// to (the invoice with the late fee and interest, less the discount
	// and abatement), or than the rest of an invoice partly paid: what
	// came in is booked as a part of the invoice (docs/ledger.md, "Part
	// payments"), which stays partially_paid, and an operator alert is
	// raised. An agreement's installment is paid whole: its short line
	// books nothing (N is zero), the alert raised all the same.
	PaymentShortPaid = "short_paid"
)

// SettledPayment is what became of a reported payment: its outcome (and
// the problem when not settled), what the rules expected on the payment
// date (finance.Settle's total), what was booked (the invoice's total
// with the late fee and interest, less the discount, each as booked),
// what the bank says was paid, and Paid - Expected.
type SettledPayment struct {
	InvoiceID  int64
	Outcome    string
	Problem    string
	Expected   decimal.Decimal
	Booked     decimal.Decimal
	Paid       decimal.Decimal
	Difference decimal.Decimal
	// LateFee, Interest and Discount are the settlement as booked;
	// Abatement the part of Discount that is the bank's abatement.
	LateFee, Interest, Discount, Abatement decimal.Decimal
	// Tariff is the bank's tariff reported with the payment, and
	// TariffBooked whether it was booked: not when the company keeps no
	// active item of type tariff (the payment is settled all the same).
	Tariff       decimal.Decimal
	TariffBooked bool
	// N is the number of the invoice's payment the line booked (its
	// split's; zero when it booked none), and Rest the principal of the
	// invoice still open after it: more than zero for a part (short_paid).
	N    int
	Rest decimal.Decimal
	// OfRest: the line paid the rest of an invoice partly paid before.
	OfRest bool
	// Unbooked is what came in and is booked nowhere: what the bank paid
	// beyond the rest of an invoice partly paid or beyond the bank's own
	// parts, or all of it on an invoice paid already. The return file's
	// job raises an over_payment alert for it, so that the money is given
	// back or applied.
	Unbooked decimal.Decimal
}

// payingInvoice is an invoice as the settlement reads it.
type payingInvoice struct {
	postingInvoice
	status      string
	installment bool // an agreement's installment: paid whole, never in parts
	creditDate  finance.Date
	payments    int // payments posted before (their splits)
	open        int // payment entries not reversed
	paid        finance.PaidSoFar
	paidAmount  decimal.Decimal // what the standing parts paid
	lastPaid    finance.Date    // the latest standing part's paid_at
	part        finance.Part    // what the payment books
	posting     finance.Posting
	booked      finance.Settlement
	report      *ReportedPayment
	guarantees  []finance.Guarantee
	items       []finance.TransactionItem
	fee         *finance.TransactionItem
	discount    *finance.TransactionItem
	tariff      *finance.TransactionItem
	parties     finance.Parties
}

// SettleReportedPayments marks the invoices of payments paid and posts
// them, in tx, a few statements for all of them: the invoices are locked
// (FOR UPDATE, in id order), read with their lines, items, owners and open
// guarantees set-based, posted one by one in Go (finance.PostPayment), and
// written together: the entries, their settlement lines, a history row
// each (actor), the invoices (paid, paid_at, credit_at, status paid, the
// paid_* amounts) and, for an invoice of a contract, its
// auto_transfer_status. An invoice already paid is left as it is
// (already_paid); one a rule refuses (canceled, no fee item for a late
// payment, ...) is not settled, with the rule's words; one the bank paid
// less than its parts add up to is short_paid: what came in is booked as
// a part of the invoice (settlePart), which stays partially_paid; a
// payment of an invoice partly paid pays its rest. Each settled invoice
// gets its payment's row (invoice_payments). A payment whose dates are
// impossible (paid after the file's date or after today, credited before
// it was paid or more than MaxCreditDays after: reportedDatesProblem) is
// not settled, whatever its invoice's state. Several payments of the same
// invoice in payments are settled in their order, each as it would be in
// a call of its own (reportedRounds). The bank's tariff of a line is
// booked whatever its outcome but not_settled (on an already_paid line,
// BookReturnTariffs books it: the return file's job passes it there).
// The answer is in the order of payments.
func SettleReportedPayments(ctx context.Context, tx pgx.Tx, companyID int64, actor Actor, payments []ReportedPayment) ([]SettledPayment, error) {
	out := make([]SettledPayment, len(payments))
	for i := range payments {
		out[i] = SettledPayment{InvoiceID: payments[i].InvoiceID, Paid: payments[i].Paid}
	}
	if len(payments) == 0 {
		return out, nil
	}
	today, err := CompanyToday(ctx, tx, companyID)
	if err != nil {
		return nil, err
	}
	for _, round := range reportedRounds(payments) {
		if err := settleRound(ctx, tx, companyID, actor, payments, out, round, today); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// reportedRounds orders payments (by index) in rounds: the first payment
// of each invoice in the first round, the second in the second, and so
// on, so that a round pays each invoice once and the next one reads the
// invoice as the round left it. A file has one payment a title: one
// round, almost always.
func reportedRounds(payments []ReportedPayment) [][]int {
	var rounds [][]int
	seen := make(map[int64]int, len(payments))
	for i, p := range payments {
		k := seen[p.InvoiceID]
		seen[p.InvoiceID] = k + 1
		if k == len(rounds) {
			rounds = append(rounds, nil)
		}
		rounds[k] = append(rounds[k], i)
	}
	return rounds
}

// settleRound settles the payments of a round (indexes into payments and
// out), each of an invoice of its own.
func settleRound(ctx context.Context, tx pgx.Tx, companyID int64, actor Actor, payments []ReportedPayment, out []SettledPayment,
	round []int, today finance.Date) error {
	ids := make([]int64, len(round))
	for k, i := range round {
		ids[k] = payments[i].InvoiceID
	}
	slices.Sort(ids)
	invoices, err := lockPayingInvoices(ctx, tx, companyID, ids)
	if err != nil {
		return err
	}
	if err := loadPayingData(ctx, tx, companyID, invoices); err != nil {
		return err
	}
	var settled []*payingInvoice
	for _, i := range round {
		p, o := &payments[i], &out[i]
		inv := invoices[p.InvoiceID]
		switch {
		case inv == nil:
			o.Outcome, o.Problem = PaymentNotSettled, "the invoice no longer exists"
		case reportedDatesProblem(p, today) != "":
			o.Outcome, o.Problem = PaymentNotSettled, reportedDatesProblem(p, today)
		case inv.inv.Paid:
			o.Outcome, o.Problem = PaymentAlreadyPaid, "the invoice is paid"
			o.Tariff, o.Unbooked = p.Tariff, p.Paid
		default:
			settle(inv, p, o)
			if inv.report == p { // booked: settled, or a part (short_paid)
				settled = append(settled, inv)
			}
		}
	}
	return writeReportedPayments(ctx, tx, companyID, actor, settled)
}

// settle posts one reported payment in memory: the rules' settlement on
// the payment date (expected), the bank's (booked), and the posting. A
// payment short of what it should settle, or of an invoice partly paid
// already, is a part (settlePart).
func settle(inv *payingInvoice, p *ReportedPayment, o *SettledPayment) {
	if !slices.Contains(payableStatuses, inv.status) {
		o.Outcome, o.Problem = PaymentNotSettled, fmt.Sprintf("the invoice is %s: a %s invoice cannot be marked paid", inv.status, inv.status)
		return
	}
	if inv.paid.Parts == 0 && inv.open > 0 {
		o.Outcome, o.Problem = PaymentNotSettled, "a payment of the invoice is posted and not undone"
		return
	}
	if !inv.lastPaid.IsZero() && p.PaidAt.Before(inv.lastPaid) {
		o.Outcome, o.Problem = PaymentNotSettled, fmt.Sprintf("the bank's payment date %s is before %s, the day of the "+
			"invoice's latest part: parts are booked in the order they were paid", p.PaidAt, inv.lastPaid)
		return
	}
	paid := inv.inv
	paid.Paid, paid.PaidAt = true, p.PaidAt
	expected, err := finance.Settle(paid, p.PaidAt)
	if err != nil {
		refusedPosting(o, p, err)
		return
	}
	booked := expected
	booked.LateFee, booked.Interest = p.LateFee, p.Interest
	booked.Discount, booked.Abatement = p.Discount.Add(p.Abatement), p.Abatement
	if p.LateFee.IsZero() && p.Interest.Equal(expected.LateFee.Add(expected.Interest)) {
		// a layout with one value for both: the rule's parts when they add up
		booked.LateFee, booked.Interest = expected.LateFee, expected.Interest
	}
	booked.Total = booked.Invoice.Add(booked.LateFee).Add(booked.Interest).Sub(booked.Discount)
	short := p.Paid.LessThan(booked.Total)
	switch {
	case inv.installment && short:
		shortInstallment(p, o, expected, booked)
		return
	case inv.paid.Parts == 0 && short:
		var whole bool
		if booked, whole = coveredByRules(p, expected, booked); !whole {
			settlePart(inv, paid, p, o, booked)
			return
		}
	case inv.paid.Parts > 0:
		settlePart(inv, paid, p, o, booked)
		return
	}
	o.Expected, o.Booked, o.Difference = expected.Total, booked.Total, p.Paid.Sub(expected.Total)
	o.Unbooked = decimal.Max(decimal.Zero, p.Paid.Sub(booked.Total))
	o.LateFee, o.Interest, o.Discount, o.Abatement = booked.LateFee, booked.Interest, booked.Discount, booked.Abatement
	inv.part = finance.Part{Due: expected, Amount: booked.Total, Principal: booked.Invoice, LateFee: booked.LateFee,
		Interest: booked.Interest, Discount: booked.Discount, OverPaid: o.Unbooked}
	posting, err := finance.PostPayment(finance.PostingInput{Invoice: paid, Items: inv.items, Parties: inv.parties,
		Settlement: booked, FeeItem: inv.fee, DiscountItem: inv.discount})
	if err != nil {
		refusedPosting(o, p, err)
		return
	}
	posting.Entries = append(posting.Entries, finance.SettleGuarantees(inv.guarantees, inv.inv.BusinessID)...)
	booking(inv, p, o, paid, posting, booked)
}

// refusedPosting is the outcome of a paid line the rules cannot book as
// the invoice and the company's items stand (finance refusing to settle or
// post it: no fee or discount item, no ticket_discount_action for a
// punctuality discount, owners missing): not settled, said in plain words
// with what to do, and all that came in is booked nowhere (Unbooked: the
// return file's job raises the over_payment alert), since the bank has
// credited it.
func refusedPosting(o *SettledPayment, p *ReportedPayment, err error) {
	o.Outcome, o.Unbooked, o.Tariff = PaymentNotSettled, p.Paid, decimal.Zero
	o.Problem = fmt.Sprintf("the bank's payment of %s on %s cannot be booked as the invoice stands (%s): correct the invoice "+
		"or the company's transaction items, then record the payment by hand (POST /invoices/%d/payments)",
		p.Paid.StringFixed(2), p.PaidAt, postingProblemWords(err), p.InvoiceID)
}

// postingProblemWords is a finance error as "field: message; ...".
func postingProblemWords(err error) string {
	var fe *finance.Error
	var ps finance.Problems
	switch {
	case errors.As(err, &fe) && len(fe.Problems) > 0:
		return ProblemsText(fe.Problems)
	case errors.As(err, &ps):
		return ProblemsText(ps)
	}
	return err.Error()
}

// shortInstallment is the outcome of a line paying an agreement's
// installment short: an installment is paid whole (an agreement's
// cancellation and break count its installments paid or not), so nothing
// is booked; short_paid, and the return file's job raises the alert.
func shortInstallment(p *ReportedPayment, o *SettledPayment, expected, bank finance.Settlement) {
	o.Outcome, o.Expected, o.Booked, o.Difference = PaymentShortPaid, expected.Total, decimal.Zero, p.Paid.Sub(expected.Total)
	o.Tariff = p.Tariff
	o.Problem = fmt.Sprintf("the bank paid %s on %s, %s less than the %s its parts add up to (the invoice %s, late fee %s, "+
		"interest %s, discount %s); the invoice is an installment of an agreement, paid whole and not in parts: nothing was booked",
		p.Paid.StringFixed(2), p.PaidAt, bank.Total.Sub(p.Paid).StringFixed(2), bank.Total.StringFixed(2),
		bank.Invoice.StringFixed(2), bank.LateFee.StringFixed(2), bank.Interest.StringFixed(2), bank.Discount.StringFixed(2))
}

// coveredByRules is the settlement a line paid short of the bank's parts
// books when what it paid covers what the rules say is due that day: the
// invoice whole, with the bank's discount, and the bank's late fee and
// interest as far as what came in pays them (the late fee first), so that
// all of it is booked, as a whole payment books what the bank reports.
// whole is false when the line pays less than the rules' due (a part).
func coveredByRules(p *ReportedPayment, expected, bank finance.Settlement) (finance.Settlement, bool) {
	charges := p.Paid.Sub(bank.Invoice).Add(bank.Discount)
	if p.Paid.LessThan(expected.Total) || charges.IsNegative() {
		return bank, false
	}
	booked := bank
	booked.LateFee = decimal.Min(bank.LateFee, charges)
	booked.Interest = charges.Sub(booked.LateFee)
	booked.Total = p.Paid
	return booked, true
}

// settlePart books what the bank paid as a part of the invoice
// (finance.SettlePart against what is due on the payment date for the
// rest, the rules' late fee and interest on it): short of what is due, a
// part (short_paid, the rest open); of an invoice partly paid, paying
// what is due or more, the rest settled (more is recorded as the
// difference, as a whole payment's). bank is the bank's settlement, whose
// words the message of a short line gives.
func settlePart(inv *payingInvoice, paid finance.Invoice, p *ReportedPayment, o *SettledPayment, bank finance.Settlement) {
	due, err := finance.DueOn(paid, p.PaidAt, inv.paid)
	if err != nil {
		refusedPosting(o, p, err)
		return
	}
	amount := decimal.Min(p.Paid, due.Total)
	if inv.paid.Parts == 0 {
		amount = decimal.Min(p.Paid, bank.Total, due.Total)
	}
	part, err := finance.SettlePart(paid, p.PaidAt, inv.paid, amount)
	if err != nil {
		refusedPosting(o, p, err)
		return
	}
	o.Expected, o.Booked, o.Difference = due.Total, part.Amount, p.Paid.Sub(due.Total)
	o.LateFee, o.Interest, o.Discount = part.LateFee, part.Interest, part.Discount
	o.OfRest, o.Unbooked = inv.paid.Parts > 0, p.Paid.Sub(part.Amount)
	inv.part, inv.part.OverPaid = part, o.Unbooked
	posting, err := finance.PostPayment(finance.PostingInput{Invoice: paid, Items: inv.items, Parties: inv.parties,
		Settlement: part.Settlement(), FeeItem: inv.fee, DiscountItem: inv.discount,
		Part: &finance.PartShare{Before: inv.paid.Principal}})
	if err != nil {
		refusedPosting(o, p, err)
		return
	}
	settled := finance.PartGuarantees(inv.guarantees, posting.Entries, part.Settles())
	posting.Entries = append(posting.Entries, finance.SettleGuarantees(settled, inv.inv.BusinessID)...)
	booking(inv, p, o, paid, posting, part.Settlement())
	if part.Settles() {
		return
	}
	// a first part is short of the bank's own parts (the rules' due, which
	// may differ, is the message's "expected"); a later one of the rest
	// the rules say is due
	shortOf, of, what := bank.Total, "the bank's parts add up to", fmt.Sprintf("the invoice %s, late fee %s, interest %s, discount %s",
		bank.Invoice.StringFixed(2), bank.LateFee.StringFixed(2), bank.Interest.StringFixed(2), bank.Discount.StringFixed(2))
	if inv.paid.Parts > 0 {
		shortOf, of, what = due.Total, "due", fmt.Sprintf("the rest %s, late fee %s, interest %s", due.Invoice.StringFixed(2),
			due.LateFee.StringFixed(2), due.Interest.StringFixed(2))
	}
	o.Outcome, o.Problem = PaymentShortPaid, fmt.Sprintf("the bank paid %s on %s, %s less than the %s %s (%s); "+
		"booked as part %d of the invoice (principal %s, late fee %s, interest %s): %s of its total is still open",
		p.Paid.StringFixed(2), p.PaidAt, shortOf.Sub(p.Paid).StringFixed(2), shortOf.StringFixed(2), of, what, o.N,
		part.Principal.StringFixed(2), part.LateFee.StringFixed(2), part.Interest.StringFixed(2), part.Rest.StringFixed(2))
}

// booking keeps a reported payment's posting on its invoice, with the
// bank's tariff, for the writes.
func booking(inv *payingInvoice, p *ReportedPayment, o *SettledPayment, paid finance.Invoice, posting finance.Posting,
	booked finance.Settlement) {
	o.Tariff = p.Tariff
	if p.Tariff.IsPositive() && inv.tariff != nil {
		posting.Entries = append(posting.Entries, finance.BankTariff(*inv.tariff, inv.inv.BusinessID, p.Tariff))
		o.TariffBooked = true
	}
	inv.inv, inv.posting, inv.booked, inv.report, inv.creditDate = paid, posting, booked, p, p.CreditAt
	o.Outcome, o.N, o.Rest = PaymentSettled, inv.payments+1, inv.part.Rest
}

// lockPayingInvoices reads and locks the invoices of ids (of the company
// only), as lockPostingInvoice does one.
func lockPayingInvoices(ctx context.Context, tx pgx.Tx, companyID int64, ids []int64) (map[int64]*payingInvoice, error) {
	rows, err := tx.Query(ctx, `
		SELECT i.id, i.type, i.payer_id, coalesce(i.contract_id, 0), coalesce(i.building_id, c.building_id, 0),
		       i.business_id, i.account_id, i.billing_method, i.paid, i.paid_amount IS NOT NULL, i.status,
		       i.agreement_installment IS NOT NULL,
		       i.total, i.date, i.due_date,
		       i.ticket_late_fee, coalesce(i.ticket_late_fee_item_id, 0),
		       coalesce(i.ticket_late_fee_percentage, 0), coalesce(i.ticket_late_fee_interest, 0),
		       i.ticket_discount, coalesce(i.ticket_discount_mode, ''), coalesce(i.ticket_discount_fixed, 0),
		       coalesce(i.ticket_discount_percentage, 0), coalesce(i.ticket_discount_action, ''),
		       coalesce(i.ticket_discount_days, 0)
		FROM invoices i
		LEFT JOIN contracts c ON c.company_id = i.company_id AND c.id = i.contract_id
		WHERE i.company_id = $1 AND i.id = any($2)
		ORDER BY i.id
		FOR UPDATE OF i`, withValues, companyID, ids)
	if err != nil {
		return nil, translate(err, "invoices paid")
	}
	defer rows.Close()
	out := make(map[int64]*payingInvoice, len(ids))
	for rows.Next() {
		pi := &payingInvoice{}
		inv := &pi.inv
		var typ, mode, action string
		if err := rows.Scan(&inv.ID, &typ, &inv.PayerID, &inv.ContractID, &pi.buildingID, &inv.BusinessID, &inv.AccountID,
			&inv.BillingMethod, &inv.Paid, &pi.posted, &pi.status, &pi.installment, &inv.Total, &inv.Date, &inv.DueDate,
			&inv.TicketLateFee, &inv.TicketLateFeeItemID, &inv.TicketLateFeePercentage, &inv.TicketLateFeeInterest,
			&inv.TicketDiscount, &mode, &inv.TicketDiscountFixed, &inv.TicketDiscountPercentage, &action,
			&inv.TicketDiscountDays); err != nil {
			return nil, translate(err, "invoices paid")
		}
		inv.Type, inv.TicketDiscountMode, inv.TicketDiscountAction =
			finance.InvoiceType(typ), finance.DiscountMode(mode), finance.DiscountAction(action)
		out[inv.ID] = pi
	}
	return out, translate(rows.Err(), "invoices paid")
}

// loadPayingData reads, set-based, what the posting of the invoices needs:
// their payments so far, lines, the items of the lines with the company's
// fee and discount items, their buildings' owners, their open guarantees.
func loadPayingData(ctx context.Context, tx pgx.Tx, companyID int64, invoices map[int64]*payingInvoice) error {
	if len(invoices) == 0 {
		return nil
	}
	ids := sortedKeys(invoices)
	if err := readPaymentCounts(ctx, tx, companyID, ids, invoices); err != nil {
		return err
	}
	if err := readPaidSoFar(ctx, tx, companyID, ids, invoices); err != nil {
		return err
	}
	if err := readPayingLines(ctx, tx, companyID, ids, invoices); err != nil {
		return err
	}
	if err := readPayingItems(ctx, tx, companyID, invoices); err != nil {
		return err
	}
	if err := readPayingOwners(ctx, tx, companyID, invoices); err != nil {
		return err
	}
	return readPayingGuarantees(ctx, tx, companyID, ids, invoices)
}

// The reads by invoice below (and the settlement lines' delete) look each
// invoice up on its own, through its index (a LATERAL subquery kept apart
// by OFFSET 0), so that a chunk reads its invoices' rows and no others,
// whatever the statistics say: planned with statistics taken before the
// ledger held the company's entries, the set-based form read every entry
// of the company to find a chunk's (44,000 rows a chunk after 20,000
// invoices settled, growing with the ledger), and with the statistics
// right, invoice_items was read whole for 2,000 invoices of 100,000
// (40 ms a chunk, growing with the company).

func readPaymentCounts(ctx context.Context, tx pgx.Tx, companyID int64, ids []int64, invoices map[int64]*payingInvoice) error {
	rows, err := tx.Query(ctx, `
		SELECT x.id, count(DISTINCT t.split), count(*) FILTER (WHERE NOT t.reversed)
		FROM unnest($2::bigint[]) AS x(id)
		CROSS JOIN LATERAL (
		    SELECT t.split, EXISTS (SELECT 1 FROM transactions r WHERE r.company_id = t.company_id AND r.reverses_id = t.id) AS reversed
		    FROM transactions t
		    WHERE t.company_id = $1 AND t.invoice_id = x.id AND t.mode = 'invoice'
		    OFFSET 0) t
		GROUP BY x.id`, withValues, companyID, ids)
	if err != nil {
		return translate(err, "payments of invoices paid")
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var payments, open int
		if err := rows.Scan(&id, &payments, &open); err != nil {
			return translate(err, "payments of invoices paid")
		}
		invoices[id].payments, invoices[id].open = payments, open
	}
	return translate(rows.Err(), "payments of invoices paid")
}

// readPaidSoFar reads what the standing parts of the invoices have paid
// (invoice_payments), and the highest n of their rows, standing or undone:
// a part undone that posted no entry has a row and no split, and the next
// payment's number is past both.
func readPaidSoFar(ctx context.Context, tx pgx.Tx, companyID int64, ids []int64, invoices map[int64]*payingInvoice) error {
	rows, err := tx.Query(ctx, `
		SELECT invoice_id, coalesce(sum(principal) FILTER (WHERE undone_at IS NULL), 0)::text,
		       count(*) FILTER (WHERE undone_at IS NULL), coalesce(max(paid_at) FILTER (WHERE undone_at IS NULL), '0001-01-01'),
		       coalesce(sum(amount) FILTER (WHERE undone_at IS NULL), 0)::text, max(n)
		FROM invoice_payments
		WHERE company_id = $1 AND invoice_id = any($2)
		GROUP BY invoice_id`, withValues, companyID, ids)
	if err != nil {
		return translate(err, "parts of invoices paid")
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var p finance.PaidSoFar
		var last finance.Date
		var amount decimal.Decimal
		var n int
		if err := rows.Scan(&id, &p.Principal, &p.Parts, &last, &amount, &n); err != nil {
			return translate(err, "parts of invoices paid")
		}
		if p.Parts == 0 {
			last = finance.Date{}
		}
		pi := invoices[id]
		pi.paid, pi.lastPaid, pi.paidAmount, pi.payments = p, last, amount, max(pi.payments, n)
	}
	return translate(rows.Err(), "parts of invoices paid")
}

func readPayingLines(ctx context.Context, tx pgx.Tx, companyID int64, ids []int64, invoices map[int64]*payingInvoice) error {
	rows, err := tx.Query(ctx, `
		SELECT x.id, l.id, l.item_id, l.amount, coalesce(l.description, ''), coalesce(l.owner_id, 0), coalesce(l.broker_id, 0)
		FROM unnest($2::bigint[]) AS x(id)
		CROSS JOIN LATERAL (
		    SELECT id, item_id, amount, description, owner_id, broker_id FROM invoice_items
		    WHERE company_id = $1 AND invoice_id = x.id AND kind = 'line'
		    OFFSET 0) l
		ORDER BY x.id, l.id`, withValues, companyID, ids)
	if err != nil {
		return translate(err, "lines of invoices paid")
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		l := finance.InvoiceItem{Kind: finance.LineLine}
		if err := rows.Scan(&id, &l.ID, &l.ItemID, &l.Amount, &l.Description, &l.OwnerID, &l.BrokerID); err != nil {
			return translate(err, "lines of invoices paid")
		}
		inv := &invoices[id].inv
		inv.Items = append(inv.Items, l)
	}
	return translate(rows.Err(), "lines of invoices paid")
}

// readPayingItems reads the items of every line and the company's active
// fee and discount items once, as postingItems does for one invoice, and
// gives each invoice the items of its lines and the fee and discount item.
func readPayingItems(ctx context.Context, tx pgx.Tx, companyID int64, invoices map[int64]*payingInvoice) error {
	seen := map[int64]bool{}
	var ids []int64
	for _, pi := range invoices {
		for _, l := range pi.inv.Items {
			if !seen[l.ItemID] {
				seen[l.ItemID] = true
				ids = append(ids, l.ItemID)
			}
		}
	}
	slices.Sort(ids)
	c, err := postingItemsOf(ctx, tx, companyID, ids)
	if err != nil {
		return translate(err, "items of invoices paid")
	}
	for _, pi := range invoices {
		pi.items, pi.fee, pi.discount, pi.tariff = c.items, c.fee, c.discount, c.tariff
		pi.parties = finance.Parties{PayerID: pi.inv.PayerID, BusinessID: pi.inv.BusinessID}
	}
	return nil
}

func readPayingOwners(ctx context.Context, tx pgx.Tx, companyID int64, invoices map[int64]*payingInvoice) error {
	seen := map[int64]bool{}
	var buildings []int64
	for _, pi := range invoices {
		if b := pi.buildingID; b != 0 && !seen[b] {
			seen[b] = true
			buildings = append(buildings, b)
		}
	}
	if len(buildings) == 0 {
		return nil
	}
	rows, err := tx.Query(ctx, `
		SELECT building_id, person_id, coalesce(percentage, 0)
		FROM building_owners
		WHERE company_id = $1 AND building_id = any($2)
		ORDER BY building_id, person_id`, withValues, companyID, buildings)
	if err != nil {
		return translate(err, "owners of invoices paid")
	}
	defer rows.Close()
	owners := map[int64][]finance.Share{}
	for rows.Next() {
		var building int64
		var s finance.Share
		if err := rows.Scan(&building, &s.PersonID, &s.Percentage); err != nil {
			return translate(err, "owners of invoices paid")
		}
		owners[building] = append(owners[building], s)
	}
	if err := rows.Err(); err != nil {
		return translate(err, "owners of invoices paid")
	}
	for _, pi := range invoices {
		pi.parties.Owners = owners[pi.buildingID]
	}
	return nil
}

func readPayingGuarantees(ctx context.Context, tx pgx.Tx, companyID int64, ids []int64, invoices map[int64]*payingInvoice) error {
	rows, err := tx.Query(ctx, `
		SELECT x.id, g.id, g.owner_id, g.amount
		FROM unnest($2::bigint[]) AS x(id)
		CROSS JOIN LATERAL (
		    SELECT g.id, g.owner_id, g.amount - `+guaranteeSettledSQL+` AS amount
		    FROM transactions g
		    WHERE g.company_id = $1 AND g.invoice_id = x.id AND g.mode = 'guaranteed_rent' AND g.extract = 'owner'
		      AND g.type = 'credit' AND g.transfer_key IS NOT NULL
		      AND g.amount > `+guaranteeSettledSQL+`
		    OFFSET 0) g
		ORDER BY x.id, g.id`, withValues, companyID, ids)
	if err != nil {
		return translate(err, "guarantees of invoices paid")
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var g finance.Guarantee
		if err := rows.Scan(&id, &g.ID, &g.OwnerID, &g.Amount); err != nil {
			return translate(err, "guarantees of invoices paid")
		}
		invoices[id].guarantees = append(invoices[id].guarantees, g)
	}
	return translate(rows.Err(), "guarantees of invoices paid")
}

// writeReportedPayments writes the settled invoices together: their
// entries, settlement lines and history, then the invoices. The entries
// and lines go before the invoices' update: the check of their foreign key
// finds the invoice's row as lockPayingInvoices locked it (FOR UPDATE),
// which holds their key share already; after the update it would lock the
// new row version once more (a write of its page and a WAL record per
// invoice).
func writeReportedPayments(ctx context.Context, tx pgx.Tx, companyID int64, actor Actor, settled []*payingInvoice) error {
	if len(settled) == 0 {
		return nil
	}
	if err := insertReportedEntries(ctx, tx, companyID, settled); err != nil {
		return err
	}
	if err := writeSettlementLines(ctx, tx, companyID, settled); err != nil {
		return err
	}
	if err := writeReportedHistories(ctx, tx, companyID, actor, settled); err != nil {
		return err
	}
	if err := markReportedPaid(ctx, tx, companyID, settled); err != nil {
		return err
	}
	if err := insertReportedParts(ctx, tx, companyID, actor, settled); err != nil {
		return err
	}
	if err := keepReportedTransferStatus(ctx, tx, companyID, actor, settled); err != nil {
		return err
	}
	// invoice.paid, as a payment through the API emits it: the invoices
	// as the settlement leaves them (invoice.updated for a part)
	var ids, parts []int64
	for _, pi := range settled {
		if pi.part.Settles() {
			ids = append(ids, pi.inv.ID)
		} else {
			parts = append(parts, pi.inv.ID)
		}
	}
	if err := keepAgreementStatus(ctx, tx, companyID, ids); err != nil { // an agreement's last installment: fulfilled
		return err
	}
	if _, err := EmitRecordEvents(ctx, tx, companyID, EventInvoicePaid, Invoices, ids, ""); err != nil {
		return err
	}
	_, err := EmitRecordEvents(ctx, tx, companyID, EventInvoiceUpdated, Invoices, parts, "")
	return err
}

// reportedStatus is the status a reported payment leaves its invoice in.
func (pi *payingInvoice) reportedStatus() string {
	if pi.part.Settles() {
		return "paid"
	}
	return "partially_paid"
}

// insertReportedParts writes the payment row of every settled invoice
// (invoice_payments), as a part's is written: method ticket (a boleto's
// return), over_paid what the line brought that nothing books.
func insertReportedParts(ctx context.Context, tx pgx.Tx, companyID int64, actor Actor, settled []*payingInvoice) error {
	n := len(settled)
	ids, ns := make([]int64, n), make([]int32, n)
	splits, amounts, principals, fees, interests, discounts := make([]string, n), make([]string, n), make([]string, n),
		make([]string, n), make([]string, n), make([]string, n)
	overs := make([]string, n)
	paidAt, creditAt := make([]finance.Date, n), make([]finance.Date, n)
	for i, pi := range settled {
		p := pi.part
		ids[i], ns[i] = pi.inv.ID, int32(pi.payments+1)
		splits[i] = "invoice-" + strconv.FormatInt(pi.inv.ID, 10) + "-payment-" + strconv.Itoa(pi.payments+1)
		amounts[i], principals[i], fees[i] = p.Amount.String(), p.Principal.String(), p.LateFee.String()
		interests[i], discounts[i], overs[i] = p.Interest.String(), p.Discount.String(), p.OverPaid.String()
		paidAt[i], creditAt[i] = pi.report.PaidAt, pi.creditOrPaid()
	}
	kind := actor.Kind
	if kind == "" {
		kind = ActorSystem
	}
	_, err := tx.Exec(ctx, `
		INSERT INTO invoice_payments (company_id, invoice_id, n, split, amount, principal, late_fee, interest, discount,
		    paid_at, credit_at, actor, actor_id, method, over_paid)
		SELECT $1, u.id, u.n, u.split, u.amount::numeric, u.principal::numeric, u.fee::numeric, u.interest::numeric,
		    u.discount::numeric, u.paid_at, u.credit_at, $12, nullif($13::bigint, 0), 'ticket', u.over::numeric
		FROM unnest($2::bigint[], $3::int[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
		    $10::date[], $11::date[], $14::text[]) AS u(id, n, split, amount, principal, fee, interest, discount, paid_at, credit_at, over)`,
		withValues, companyID, ids, ns, splits, amounts, principals, fees, interests, discounts, paidAt, creditAt, kind, actor.ID,
		overs)
	return translate(err, "payments of invoices paid")
}

// keepReportedTransferStatus brings the auto_transfer_status of the
// settled invoices of a contract to what their payment makes it (waiting,
// transferred), as PostInvoicePayment does, each change with a history
// row of its own (the actor, origin payment). An invoice without a
// contract is never transferred by the run: its status stays null.
func keepReportedTransferStatus(ctx context.Context, tx pgx.Tx, companyID int64, actor Actor, settled []*payingInvoice) error {
	var ids []int64
	for _, pi := range settled {
		if pi.inv.ContractID != 0 {
			ids = append(ids, pi.inv.ID)
		}
	}
	_, err := writeAutoTransferStatus(ctx, tx, companyID, ids, actor, OriginPayment, false)
	return err
}

// writeReportedHistories writes a history row per settled invoice: the
// paid columns as the settlement sets them, the bank's words in the note.
func writeReportedHistories(ctx context.Context, tx pgx.Tx, companyID int64, actor Actor, settled []*payingInvoice) error {
	hist := make([]historyRow, len(settled))
	for i, pi := range settled {
		s := pi.booked
		if !pi.part.Settles() {
			changes := []FieldChange{{Field: "paid_amount", To: finance.Money(pi.paidAmount.Add(s.Total))}}
			if pi.status != "partially_paid" {
				changes = append([]FieldChange{{Field: "status", From: pi.status, To: "partially_paid"}}, changes...)
			}
			note := fmt.Sprintf("%s; part %d: %s (principal %s), %s of the total still open", pi.report.Note, pi.payments+1,
				pi.part.Amount.StringFixed(2), pi.part.Principal.StringFixed(2), pi.part.Rest.StringFixed(2))
			hist[i] = historyRow{invoiceID: pi.inv.ID, changes: changes, note: note}
			continue
		}
		changes := []FieldChange{
			{Field: "paid", From: false, To: true},
			{Field: "paid_at", To: pi.report.PaidAt.String()},
			{Field: "credit_at", To: pi.creditOrPaid().String()},
			{Field: "status", From: pi.status, To: "paid"},
			{Field: "paid_amount", To: finance.Money(pi.paidAmount.Add(s.Total))},
			{Field: "paid_late_fee", To: finance.Money(s.LateFee)},
			{Field: "paid_interest", To: finance.Money(s.Interest)},
			{Field: "paid_discount", To: finance.Money(s.Discount)},
		}
		hist[i] = historyRow{invoiceID: pi.inv.ID, changes: changes, note: pi.report.Note}
	}
	return writeHistories(ctx, tx, companyID, actor, OriginPayment, hist)
}

// creditOrPaid is the day the money is in the account: credit_at, else
// paid_at.
func (pi *payingInvoice) creditOrPaid() finance.Date {
	if !pi.creditDate.IsZero() {
		return pi.creditDate
	}
	return pi.report.PaidAt
}

func markReportedPaid(ctx context.Context, tx pgx.Tx, companyID int64, settled []*payingInvoice) error {
	n := len(settled)
	ids := make([]int64, n)
	paid, statuses := make([]bool, n), make([]string, n)
	paidAt, creditAt := make([]finance.Date, n), make([]finance.Date, n)
	totals, fees, interests, discounts := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	for i, pi := range settled {
		s := pi.booked
		ids[i], paidAt[i], creditAt[i] = pi.inv.ID, pi.report.PaidAt, pi.creditOrPaid()
		paid[i], statuses[i] = pi.part.Settles(), pi.reportedStatus()
		totals[i], fees[i], interests[i], discounts[i] = s.Total.String(), s.LateFee.String(), s.Interest.String(), s.Discount.String()
	}
	// a part adds to what the invoice's earlier parts paid; the part that
	// settles it marks it paid on its day
	_, err := tx.Exec(ctx, `
		UPDATE invoices i SET paid = u.paid, status = u.status,
		    paid_at = CASE WHEN u.paid THEN u.paid_at END, credit_at = CASE WHEN u.paid THEN u.credit_at END,
		    paid_amount = coalesce(i.paid_amount, 0) + u.total::numeric, paid_late_fee = coalesce(i.paid_late_fee, 0) + u.fee::numeric,
		    paid_interest = coalesce(i.paid_interest, 0) + u.interest::numeric,
		    paid_discount = coalesce(i.paid_discount, 0) + u.discount::numeric, updated_at = now()
		FROM unnest($2::bigint[], $3::date[], $4::date[], $5::text[], $6::text[], $7::text[], $8::text[], $9::bool[], $10::text[])
		  AS u(id, paid_at, credit_at, total, fee, interest, discount, paid, status)
		WHERE i.company_id = $1 AND i.id = any($2) AND i.id = u.id`, withValues, companyID, ids, paidAt, creditAt, totals, fees,
		interests, discounts, paid, statuses)
	return translate(err, "mark invoices paid")
}

func writeSettlementLines(ctx context.Context, tx pgx.Tx, companyID int64, settled []*payingInvoice) error {
	ids := make([]int64, len(settled))
	var invoices, items []int64
	var ns []int32
	var kinds, amounts, descs []string
	for i, pi := range settled {
		ids[i] = pi.inv.ID
		for _, l := range pi.posting.Lines {
			invoices, items, ns = append(invoices, pi.inv.ID), append(items, l.ItemID), append(ns, int32(pi.payments+1))
			kinds, amounts, descs = append(kinds, string(l.Kind)), append(amounts, l.Amount.String()), append(descs, l.Description)
		}
	}
	// settlement lines of no payment (none is standing): an earlier
	// part's stay
	if _, err := tx.Exec(ctx, `DELETE FROM invoice_items WHERE company_id = $1 AND id IN (
		    SELECT s.id FROM unnest($2::bigint[]) AS x(id)
		    CROSS JOIN LATERAL (SELECT id FROM invoice_items WHERE company_id = $1 AND invoice_id = x.id AND kind <> 'line'
		        AND payment_n IS NULL OFFSET 0) s)`,
		withValues, companyID, ids); err != nil {
		return translate(err, "settlement lines")
	}
	if len(invoices) == 0 {
		return nil
	}
	_, err := tx.Exec(ctx, `
		INSERT INTO invoice_items (company_id, invoice_id, kind, item_id, amount, description, payment_n)
		SELECT $1, u.invoice_id, u.kind, u.item_id, u.amount::numeric, u.description, u.n
		FROM unnest($2::bigint[], $3::text[], $4::bigint[], $5::text[], $6::text[], $7::int[])
		    AS u(invoice_id, kind, item_id, amount, description, n)`,
		companyID, invoices, kinds, items, amounts, descs, ns)
	return translate(err, "settlement lines")
}

// insertReportedEntries inserts the entries of every settled invoice in
// one COPY, each invoice's as insertEntries writes them: its split
// (invoice-<id>-payment-<n>), its columns, dated credit_at (paid_at
// without one), position by rank in its posting, in the order of the
// postings.
func insertReportedEntries(ctx context.Context, tx pgx.Tx, companyID int64, settled []*payingInvoice) error {
	var rows [][]any
	for _, pi := range settled {
		inv := &pi.inv
		split := "invoice-" + strconv.FormatInt(inv.ID, 10) + "-payment-" + strconv.Itoa(pi.payments+1)
		date := pi.creditOrPaid()
		for k, e := range pi.posting.Entries {
			var pct any
			if !e.Percentage.IsZero() {
				pct = numeric(e.Percentage)
			}
			rows = append(rows, []any{companyID, split, inv.ID, "invoice", string(finance.ModeInvoice), string(e.Type),
				inv.AccountID, nullID(e.BusinessID), nullID(e.PlanID), nullID(e.ItemID), nullID(e.PersonID),
				nullID(pi.buildingID), nullID(inv.ContractID), nullID(e.BrokerID), nullID(e.OwnerID), nullID(e.TenantID),
				string(e.Extract), date, int64(k + 1), numeric(e.Amount), pct, inv.Date, nullText(e.Description), true,
				inv.DueDate, inv.BillingMethod, nullID(e.GuaranteedTransferID)})
		}
	}
	if len(rows) == 0 {
		return nil
	}
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"transactions"}, entryCopyColumns, pgx.CopyFromRows(rows))
	return translate(err, "entries of invoices paid")
}

// entryCopyColumns are the columns insertReportedEntries writes, in the
// order of its rows.
var entryCopyColumns = []string{"company_id", "split", "invoice_id", "morph_key", "mode", "type", "account_id",
	"business_id", "plan_id", "item_id", "person_id", "building_id", "contract_id", "broker_id", "owner_id",
	"tenant_id", "extract", "date", "position", "amount", "percentage", "competence", "description", "paid",
	"due_date", "billing_method", "guaranteed_transfer_id"}
