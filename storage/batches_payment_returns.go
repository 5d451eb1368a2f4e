package storage

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance"
)

// The reading of a bank's payment return file (docs/ledger.md, "A payable
// paid from a bank return file"): the payments its references name, and
// what it says of them, written set-based.

// PaymentMatch is the payment a return file's reference names: the
// member, its batch, entry (0: the entry was deleted) and account, its
// state as the API reads it (sent: added to a batch whose file is
// written) and amount, whether the entry is paid, another batch the
// entry is in since (0: none), the batch whose file asked the bank to
// cancel it (0: none), and the entry that voids it (a run's transfer
// reverted in its batch, then voided with the payment it paid out; 0:
// none, or a void reversed since: the transfer is paid).
type PaymentMatch struct {
	MemberID      int64
	BatchID       int64
	TransactionID int64
	AccountID     int64
	State         string
	Method        string
	Amount        decimal.Decimal
	Paid          bool
	OtherBatch    int64
	CancelBatch   int64
	Void          int64
}

// MatchPayments finds the payments of the company's accounts (among
// accounts) whose reference is one of references, and locks them and
// their entries (FOR NO KEY UPDATE) for the rest of tx. The answer maps
// each reference to its payment; a reference of none is absent.
func MatchPayments(ctx context.Context, tx pgx.Tx, companyID int64, accounts []int64, references []string) (map[string]*PaymentMatch, error) {
	rows, err := tx.Query(ctx, `
		SELECT m.reference, m.id, m.batch_id, coalesce(m.transaction_id, 0), b.account_id,
		       CASE WHEN m.state = 'added' AND b.status = 'closed' THEN 'sent' ELSE m.state END, m.method, m.amount,
		       coalesce(m.cancel_batch_id, 0)
		FROM payment_batch_transactions m
		JOIN payment_batches b ON b.company_id = m.company_id AND b.id = m.batch_id
		WHERE m.company_id = $1 AND b.account_id = any($2) AND m.reference = any($3)
		ORDER BY m.id
		FOR NO KEY UPDATE OF m`, withValues, companyID, accounts, references)
	if err != nil {
		return nil, translate(err, "payments of a return file")
	}
	out := make(map[string]*PaymentMatch, len(references))
	byEntry := map[int64]*PaymentMatch{}
	var entries []int64
	for rows.Next() {
		var ref string
		m := &PaymentMatch{}
		if err := rows.Scan(&ref, &m.MemberID, &m.BatchID, &m.TransactionID, &m.AccountID, &m.State, &m.Method, &m.Amount,
			&m.CancelBatch); err != nil {
			rows.Close()
			return nil, translate(err, "payments of a return file")
		}
		out[ref] = m
		if m.TransactionID != 0 {
			byEntry[m.TransactionID] = m
			entries = append(entries, m.TransactionID)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, translate(err, "payments of a return file")
	}
	return out, lockMatchedEntries(ctx, tx, companyID, entries, byEntry)
}

// lockMatchedEntries locks the entries of matched payments (in id order)
// and reads whether each is paid, in another batch and void (once
// locked, in a statement of its own: an undo that voided one meanwhile is
// seen).
func lockMatchedEntries(ctx context.Context, tx pgx.Tx, companyID int64, entries []int64, byEntry map[int64]*PaymentMatch) error {
	if len(entries) == 0 {
		return nil
	}
	rows, err := tx.Query(ctx, `
		SELECT t.id, t.paid, coalesce((SELECT o.batch_id FROM payment_batch_transactions o WHERE o.company_id = t.company_id
		           AND o.transaction_id = t.id AND o.state = 'added'), 0)
		FROM transactions t WHERE t.company_id = $1 AND t.id = any($2)
		ORDER BY t.id
		FOR NO KEY UPDATE`, withValues, companyID, entries)
	if err != nil {
		return translate(err, "entries of a return file")
	}
	defer rows.Close()
	for rows.Next() {
		var id, other int64
		var paid bool
		if err := rows.Scan(&id, &paid, &other); err != nil {
			return translate(err, "entries of a return file")
		}
		m := byEntry[id]
		m.Paid = paid
		if other != m.BatchID {
			m.OtherBatch = other
		}
	}
	if err := rows.Err(); err != nil {
		return translate(err, "entries of a return file")
	}
	voids, err := VoidsOf(ctx, tx, companyID, entries)
	if err != nil {
		return err
	}
	for id, void := range voids {
		byEntry[id].Void = void
	}
	return nil
}

// PaymentEvent is what a return file says of one payment that changes it:
// paid (on PaidAt, Paid in all; a boleto's line gives the interest and
// discount in it, Parts), failed (the bank refused it), scheduled (the
// bank accepted it for its date), or cancelled (the bank confirmed the
// cancellation a file asked for). BankNumber is the bank's own number of
// the payment, Info its words.
type PaymentEvent struct {
	Match      PaymentMatch
	Kind       string // PaymentPaid, PaymentFailed, PaymentScheduled, PaymentCancelled
	PaidAt     finance.Date
	Paid       decimal.Decimal
	Parts      bool
	Interest   decimal.Decimal
	Discount   decimal.Decimal
	BankNumber string
	Info       string
}

// The kinds of PaymentEvent.
const (
	PaymentPaid      = "paid"
	PaymentFailed    = "failed"
	PaymentScheduled = "scheduled"
	PaymentCancelled = "cancelled"
)

// ApplyPaymentEvents writes what a return file says of payments,
// set-based (docs/ledger.md, "A payable paid from a bank return file"):
//   - paid: the payment is paid (paid_at, paid_amount) and so is its
//     entry: paid, dated the day the bank paid it, from the batch's account
//     when it named none, its amount what the bank paid (amount_primary
//     keeping the amount it had; a transfer to an owner keeps its amount,
//     what it paid out), for a boleto the interest and discount the bank
//     reports, and the moment it was marked paid (paid_recorded_at: a
//     transfer comes onto its owner's statement then); an owner's transfer
//     voided since (Match.Void) is recorded as the bank paid it
//     (settlePaidVoids: its void reversed, the owner owing it, an
//     operator alert), each change of its invoice's auto_transfer_status
//     with a history row of actor;
//   - failed: the payment failed, with the bank's words; the entry stays
//     unpaid and may join another batch;
//   - scheduled: the bank's number and words are kept;
//   - cancelled: the payment is cancelled, with the bank's words; the
//     entry, reverted before, stays as it is;
//
// and the batches' titles and total count what they pay out: a failed
// payment leaves them, a reverted or failed one the bank paid all the
// same comes back (paymentCountChange).
//
// It answers what it wrote for the void transfers the bank paid.
func ApplyPaymentEvents(ctx context.Context, tx pgx.Tx, companyID int64, actor Actor, events []PaymentEvent) ([]PaidVoid, error) {
	var paid, other []PaymentEvent
	for _, e := range events {
		if e.Kind == PaymentPaid {
			paid = append(paid, e)
		} else {
			other = append(other, e)
		}
	}
	voids, err := markPaymentsPaid(ctx, tx, companyID, actor, paid)
	if err != nil {
		return nil, err
	}
	if err := notePayments(ctx, tx, companyID, other); err != nil {
		return nil, err
	}
	return voids, countPaymentEvents(ctx, tx, companyID, events)
}

// paymentCounted says whether a payment in state counts in its batch's
// titles and total: added, sent or paid, the money the batch pays out;
// not reverted, failed or cancelled (removed ones have no row).
func paymentCounted(state string) bool {
	return state == "added" || state == "sent" || state == "paid"
}

// paymentCountChange is what an event does to its batch's titles and
// total: -1 and the amount for a counted payment that failed (the bank
// refused it: it never left the account), +1 and the amount for a
// payment not counted that the bank paid all the same (a reverted or
// failed one), none otherwise.
func paymentCountChange(e PaymentEvent) (n int64, amount decimal.Decimal) {
	after := e.Match.State
	switch e.Kind {
	case PaymentPaid:
		after = "paid"
	case PaymentFailed, PaymentCancelled:
		after = e.Kind
	}
	switch was, is := paymentCounted(e.Match.State), paymentCounted(after); {
	case was && !is:
		return -1, e.Match.Amount.Neg()
	case !was && is:
		return 1, e.Match.Amount
	}
	return 0, decimal.Zero
}

// countPaymentEvents moves the titles and total of the batches of events
// by what each event changes (paymentCountChange), in one statement. The
// payments were locked with their states when matched (MatchPayments),
// and a part of a return file changes a payment once.
func countPaymentEvents(ctx context.Context, tx pgx.Tx, companyID int64, events []PaymentEvent) error {
	byBatch := map[int64]int{}
	var batches, counts []int64
	var amounts []decimal.Decimal
	for _, e := range events {
		n, amount := paymentCountChange(e)
		if n == 0 {
			continue
		}
		i, ok := byBatch[e.Match.BatchID]
		if !ok {
			i = len(batches)
			byBatch[e.Match.BatchID] = i
			batches, counts, amounts = append(batches, e.Match.BatchID), append(counts, 0), append(amounts, decimal.Zero)
		}
		counts[i] += n
		amounts[i] = amounts[i].Add(amount)
	}
	if len(batches) == 0 {
		return nil
	}
	totals := make([]string, len(amounts))
	for i, a := range amounts {
		totals[i] = a.String()
	}
	_, err := tx.Exec(ctx, `UPDATE payment_batches b SET titles = b.titles + u.n, total = b.total + u.amount::numeric,
		updated_at = now()
		FROM unnest($2::bigint[], $3::bigint[], $4::text[]) AS u(id, n, amount)
		WHERE b.company_id = $1 AND b.id = any($2) AND b.id = u.id`, withValues, companyID, batches, counts, totals)
	return translate(err, "payment batches' counts")
}

func markPaymentsPaid(ctx context.Context, tx pgx.Tx, companyID int64, actor Actor, events []PaymentEvent) ([]PaidVoid, error) {
	if len(events) == 0 {
		return nil, nil
	}
	n := len(events)
	members, entries, accounts := make([]int64, n), make([]int64, n), make([]int64, n)
	days := make([]finance.Date, n)
	amounts, numbers, infos, interest, discount := make([]string, n), make([]string, n), make([]string, n),
		make([]*string, n), make([]*string, n)
	for i, e := range events {
		members[i], entries[i], accounts[i], days[i] = e.Match.MemberID, e.Match.TransactionID, e.Match.AccountID, e.PaidAt
		amounts[i], numbers[i], infos[i] = e.Paid.String(), e.BankNumber, e.Info
		if e.Parts {
			interest[i], discount[i] = decimalText(&e.Interest), decimalText(&e.Discount)
		}
	}
	_, err := tx.Exec(ctx, `UPDATE payment_batch_transactions m SET state = 'paid', paid_at = u.day,
		paid_amount = u.amount::numeric, bank_number = coalesce(nullif(u.number, ''), m.bank_number),
		info = nullif(u.info, ''), updated_at = now()
		FROM unnest($2::bigint[], $3::date[], $4::text[], $5::text[], $6::text[]) AS u(id, day, amount, number, info)
		WHERE m.company_id = $1 AND m.id = any($2) AND m.id = u.id`, withValues, companyID, members, days, amounts, numbers, infos)
	if err != nil {
		return nil, translate(err, "payments paid")
	}
	// a transfer keeps its amount: what it pays out is its paid-out
	// entries' sum (a difference the bank reports is in the line's report)
	_, err = tx.Exec(ctx, `UPDATE transactions t SET paid = true, date = u.day, account_id = coalesce(t.account_id, u.account),
		amount_primary = CASE WHEN t.mode = 'transfer' THEN t.amount_primary ELSE coalesce(t.amount_primary, t.amount) END,
		amount = CASE WHEN t.mode = 'transfer' THEN t.amount ELSE u.amount::numeric END,
		interest = coalesce(u.interest::numeric, t.interest), discount = coalesce(u.discount::numeric, t.discount),
		paid_recorded_at = now(), updated_at = now()
		FROM unnest($2::bigint[], $3::date[], $4::bigint[], $5::text[], $6::text[], $7::text[])
		  AS u(id, day, account, amount, interest, discount)
		WHERE t.company_id = $1 AND t.id = any($2) AND t.id = u.id`, withValues, companyID, entries, days, accounts, amounts, interest, discount)
	if err != nil {
		return nil, translate(err, "entries paid")
	}
	voids, err := settlePaidVoids(ctx, tx, companyID, actor, events)
	if err != nil {
		return nil, err
	}
	// a transfer to an owner paid by the bank
	_, err = EmitRecordEvents(ctx, tx, companyID, EventTransferPaid, Transactions, entries, `"mode" = 'transfer'`)
	return voids, err
}

// notePayments writes failures, schedulings and cancellations on the
// payments.
func notePayments(ctx context.Context, tx pgx.Tx, companyID int64, events []PaymentEvent) error {
	if len(events) == 0 {
		return nil
	}
	n := len(events)
	members := make([]int64, n)
	kinds, numbers, infos := make([]string, n), make([]string, n), make([]string, n)
	for i, e := range events {
		members[i], kinds[i], numbers[i], infos[i] = e.Match.MemberID, e.Kind, e.BankNumber, e.Info
	}
	_, err := tx.Exec(ctx, `UPDATE payment_batch_transactions m
		SET state = CASE WHEN u.kind IN ('failed', 'cancelled') THEN u.kind ELSE m.state END,
		    bank_number = coalesce(nullif(u.number, ''), m.bank_number), info = nullif(u.info, ''), updated_at = now()
		FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[]) AS u(id, kind, number, info)
		WHERE m.company_id = $1 AND m.id = any($2) AND m.id = u.id`, withValues, companyID, members, kinds, numbers, infos)
	return translate(err, "payments noted")
}
