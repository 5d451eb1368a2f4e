package storage

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance"
)

// The payment batches (/financial/paymentBatch, docs/api.md "Payment
// batches"): their kind and resources, and their rows: the payable ledger
// entries a batch may take, their payments as the bank gets them (fixed
// when added) and their removal and reversal. What a bank's payment return
// file changes on them is in batches_payment_returns.go, the banks an
// account may be at in batches_payment_rules.go. How a payment is made
// (package cnab/pagamento) is decided by the batch's kind in package jobs;
// every statement here is set-based and scoped to the company.

// PaymentBatch is the payment batch (/financial/paymentBatch). Its files
// are numbered by the account's own counter of payment remittances.
var PaymentBatch = &BatchType{Name: "payment", Resource: PaymentBatches, Table: "payment_batches",
	Members: "transactions", MemberResource: Transactions, MemberFilter: "paymentBatchIn",
	SequenceColumn: "next_payment_file_sequence", FilePrefix: "pagamento",
	MemberTable: "payment_batch_transactions", MemberColumn: "transaction_id", Label: "payment batch", Noun: "transaction",
	// what is paid, to whom, how, from which account, and whether it is
	// paid at all
	Frozen: []string{"amount", "interest", "discount", "person_id", "billing_method", "ticket_barcode",
		"account_id", "type", "mode", "paid", "due_date", "date"},
	AccountProblems: paymentAccountProblems,
	Remitter:        "payer",
	lockMembers:     lockPaymentMembers,
	takeOut:         takeOutPayments,
}

// Resource names of the payment batches.
const (
	PaymentBatches           = "payment_batches"
	PaymentBatchTransactions = "payment_batch_transactions"
)

// paymentStates are the states of a payment in its batch, as read.
var paymentStates = []string{"added", "sent", "reverted", "paid", "failed", "cancelled"}

// paymentStateExpr reads a payment's state: one stored added is sent once
// its batch's file is written (the batch closed), which writes no payment
// row.
const paymentStateExpr = `CASE WHEN "state" = 'added' AND EXISTS (SELECT 1 FROM payment_batches b ` +
	`WHERE b.company_id = "payment_batch_transactions"."company_id" AND b.id = "payment_batch_transactions"."batch_id" ` +
	`AND b.status = 'closed') THEN 'sent' ELSE "state" END`

// paymentMethods are the ways a payment is made.
var paymentMethods = []string{MethodTransfer, MethodPIXAccount, MethodPIXKey, MethodBoleto}

func paymentBatchesResource() *Resource { return batchResource(PaymentBatch, PaymentBatchTransactions) }

// paymentBatchTransactionsResource is the read side of a payment batch's
// members (include[items] of a batch): each ledger entry with its payment
// as the bank has it, its state in the batch and what the bank's return
// files said of it.
func paymentBatchTransactionsResource() *Resource {
	money := func(name string) Column {
		return Column{Name: name, Type: Decimal, Precision: 14, Scale: 2, Filterable: true}
	}
	text := func(name string) Column { return Column{Name: name, Type: String, Filterable: true} }
	return &Resource{
		Name: PaymentBatchTransactions, Table: "payment_batch_transactions", ReadOnly: true,
		Columns: columns([]Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "batch_id", Type: Int, Filterable: true},
			{Name: "transaction_id", Type: Int, Filterable: true},
			{Name: "state", Type: String, Filterable: true, Enum: paymentStates, Stored: true, Expr: paymentStateExpr},
			text("reference"),
			{Name: "method", Type: String, Filterable: true, Enum: paymentMethods},
			money("amount"), money("nominal"), money("discount"), money("surcharge"),
			{Name: "due_date", Type: Date, Filterable: true},
			text("payee_name"), text("payee_document"), text("bank"), text("ispb"), text("agency"), text("agency_digit"),
			text("account"), text("account_digit"), text("account_type"), text("pix_key"), text("pix_key_type"),
			text("barcode"), text("bank_number"),
			{Name: "paid_at", Type: Date, Filterable: true},
			money("paid_amount"),
			text("info"),
			{Name: "reverted_at", Type: DateTime, Filterable: true},
			// the batch whose file asked the bank to cancel the payment
			{Name: "cancel_batch_id", Type: Int, Filterable: true},
		}, timestampColumns()),
		Relations: []Relation{
			{Name: "transaction", Kind: BelongsTo, Resource: Transactions, Key: "transaction_id"},
			{Name: "batch", Kind: BelongsTo, Resource: PaymentBatches, Key: "batch_id"},
		},
	}
}

// The payment methods of a batch's member (payment_batch_transactions.method).
const (
	MethodTransfer   = "transfer"    // a credit to an account: same bank, or a TED
	MethodPIXAccount = "pix_account" // a PIX to account data
	MethodPIXKey     = "pix_key"     // a PIX to a key
	MethodBoleto     = "boleto"      // a boleto paid by its barcode
)

// IsPIX reports whether a payment method is a PIX.
func IsPIX(method string) bool { return method == MethodPIXAccount || method == MethodPIXKey }

// Payee is a person as a payment to them needs it: name and tax id, the
// bank account (with the institution's ISPB) and the PIX key.
type Payee struct {
	ID                                 int64 // 0: the entry names none
	Name, TaxID                        string
	Bank, ISPB, Agency, AgencyDigit    string
	Account, AccountDigit, AccountType string
	PIXKey                             string
}

// HasAccount reports whether the payee's bank account is known: bank,
// agency, account and its check digit.
func (p *Payee) HasAccount() bool {
	return p.Bank != "" && p.Agency != "" && p.Account != "" && p.AccountDigit != ""
}

// PaymentCandidate is a ledger entry asked to be added to a payment batch,
// as read (and locked) for the checks: found or not, its kind and state,
// what it costs (amount, interest, discount), when it falls due (its due
// date, else its date), the boleto it is paid with, its active membership
// (in a batch as added or sent) and how many payments it had, and its
// payee (the entry's person).
type PaymentCandidate struct {
	ID            int64
	Found         bool
	Type, Mode    string
	Paid          bool
	AccountID     int64 // 0: none
	ContractID    int64 // 0: none; a transfer's, whose billing_method it copied
	BillingMethod string
	Amount        decimal.Decimal
	Interest      decimal.Decimal
	Discount      decimal.Decimal
	Due           finance.Date
	Barcode       string
	Description   string
	// InBatch is the batch it is in as added or sent (0: none), with that
	// payment's reference, method and amount.
	InBatch               int64
	InReference, InMethod string
	InAmount              decimal.Decimal
	Attempts              int64 // payments of it so far, in any state
	// Void is the entry that reverses it, for a run's transfer voided
	// with the payment it paid out (0: none): it is never to be paid.
	Void  int64
	Payee Payee
}

// ReadPaymentCandidates reads the ledger entries of ids (of the company
// only) with their payees, and locks the entries (FOR NO KEY UPDATE, in
// id order) for the rest of tx, so that an edit or a payment by hand
// cannot slip between the checks and the add. The answer has one
// candidate per id, in the order of ids; an id of another company, or of
// none, is not Found.
func ReadPaymentCandidates(ctx context.Context, tx pgx.Tx, companyID int64, ids []int64) ([]PaymentCandidate, error) {
	rows, err := tx.Query(ctx, `
		SELECT t.id, t.type, t.mode, t.paid, coalesce(t.account_id, 0), coalesce(t.contract_id, 0),
		       coalesce(t.billing_method, ''), t.amount,
		       coalesce(t.interest, 0), coalesce(t.discount, 0), coalesce(t.due_date, t.date),
		       coalesce(t.ticket_barcode, ''), coalesce(t.description, ''),
		       coalesce(m.batch_id, 0), coalesce(m.reference, ''), coalesce(m.method, ''), coalesce(m.amount, 0),
		       (SELECT count(*) FROM payment_batch_transactions a WHERE a.company_id = t.company_id AND a.transaction_id = t.id),
		       coalesce(p.id, 0), coalesce(p.name, ''), coalesce(p.tax_id, ''), coalesce(p.bank, ''), coalesce(p.ispb, ''),
		       coalesce(p.agency, ''), coalesce(p.agency_digit, ''), coalesce(p.account, ''),
		       coalesce(p.account_digit, ''), coalesce(p.account_type, ''), coalesce(p.pix_key, '')
		FROM transactions t
		LEFT JOIN persons p ON p.company_id = t.company_id AND p.id = t.person_id
		LEFT JOIN payment_batch_transactions m ON m.company_id = t.company_id AND m.transaction_id = t.id
		     AND m.state = 'added'
		WHERE t.company_id = $1 AND t.id = any($2)
		ORDER BY t.id
		FOR NO KEY UPDATE OF t`, withValues, companyID, ids)
	if err != nil {
		return nil, translate(err, "entries for a payment batch")
	}
	defer rows.Close()
	found := make(map[int64]PaymentCandidate, len(ids))
	for rows.Next() {
		c := PaymentCandidate{Found: true}
		p := &c.Payee
		if err := rows.Scan(&c.ID, &c.Type, &c.Mode, &c.Paid, &c.AccountID, &c.ContractID, &c.BillingMethod, &c.Amount, &c.Interest,
			&c.Discount, &c.Due, &c.Barcode, &c.Description, &c.InBatch, &c.InReference, &c.InMethod, &c.InAmount,
			&c.Attempts, &p.ID, &p.Name, &p.TaxID, &p.Bank, &p.ISPB, &p.Agency, &p.AgencyDigit, &p.Account,
			&p.AccountDigit, &p.AccountType, &p.PIXKey); err != nil {
			return nil, translate(err, "entries for a payment batch")
		}
		found[c.ID] = c
	}
	if err := rows.Err(); err != nil {
		return nil, translate(err, "entries for a payment batch")
	}
	// read once the entries are locked: an undo that voided one meanwhile is seen
	voids, err := VoidsOf(ctx, tx, companyID, ids)
	if err != nil {
		return nil, err
	}
	out := make([]PaymentCandidate, len(ids))
	for i, id := range ids {
		c, ok := found[id]
		if !ok {
			c.ID = id
		}
		c.Void = voids[id]
		out[i] = c
	}
	return out, nil
}

// PaymentMethods counts the payments of a batch still in it (added) that
// are PIX and those that are not.
func PaymentMethods(ctx context.Context, q DBTX, b *Batch) (pix, other int64, err error) {
	err = q.QueryRow(ctx, `SELECT count(*) FILTER (WHERE method IN ('pix_account', 'pix_key')),
		count(*) FILTER (WHERE method NOT IN ('pix_account', 'pix_key'))
		FROM payment_batch_transactions WHERE company_id = $1 AND batch_id = $2 AND state = 'added'`,
		b.CompanyID, b.ID).Scan(&pix, &other)
	return pix, other, translate(err, fmt.Sprintf("methods of payment batch %d", b.ID))
}

// PaymentMember is a payable entry in a payment batch with its payment:
// the reference the bank returns, the method, the amount paid (nominal
// less discount plus surcharge), the day it falls due, and the payee's
// data the method uses.
type PaymentMember struct {
	TransactionID       int64
	Reference           string
	Method              string
	Amount              decimal.Decimal
	Nominal             decimal.Decimal
	Discount            decimal.Decimal
	Surcharge           decimal.Decimal
	Due                 finance.Date
	FileOrder           int16 // where it goes in the file (EachPaymentMember)
	PayeeName           string
	PayeeDocument       string
	Bank, ISPB          string
	Agency, AgencyDigit string
	Account             string
	AccountDigit        string
	AccountType         string
	PIXKey, PIXKeyType  string
	Barcode             string
}

// InsertPaymentMembers adds members to a locked open batch: their rows
// (an entry added to a batch meanwhile is left out and returned in lost)
// and the batch's count and total.
func InsertPaymentMembers(ctx context.Context, tx pgx.Tx, b *Batch, members []PaymentMember) (lost []int64, err error) {
	if len(members) == 0 {
		return nil, nil
	}
	n := len(members)
	ids := make([]int64, n)
	dues := make([]finance.Date, n)
	orders := make([]int16, n)
	text := make([][]string, 18)
	for i := range text {
		text[i] = make([]string, n)
	}
	for i, m := range members {
		ids[i], dues[i], orders[i] = m.TransactionID, m.Due, m.FileOrder
		for k, v := range []string{m.Reference, m.Method, m.Amount.String(), m.Nominal.String(), m.Discount.String(),
			m.Surcharge.String(), m.PayeeName, m.PayeeDocument, m.Bank, m.ISPB, m.Agency, m.AgencyDigit, m.Account,
			m.AccountDigit, m.AccountType, m.PIXKey, m.PIXKeyType, m.Barcode} {
			text[k][i] = v
		}
	}
	args := []any{withValues, b.CompanyID, b.ID, ids, dues, orders}
	for _, col := range text {
		args = append(args, col)
	}
	rows, err := tx.Query(ctx, `
		INSERT INTO payment_batch_transactions (company_id, batch_id, transaction_id, due_date, file_order,
		    reference, method, amount, nominal, discount, surcharge, payee_name, payee_document, bank, ispb, agency,
		    agency_digit, account, account_digit, account_type, pix_key, pix_key_type, barcode)
		SELECT $1, $2, u.tx, u.due, u.file_order, u.reference, u.method, u.amount::numeric, u.nominal::numeric,
		    u.discount::numeric, u.surcharge::numeric, u.name, u.document, nullif(u.bank, ''), nullif(u.ispb, ''),
		    nullif(u.agency, ''), nullif(u.agency_digit, ''), nullif(u.account, ''), nullif(u.account_digit, ''),
		    nullif(u.account_type, ''), nullif(u.pix_key, ''), nullif(u.pix_key_type, ''), nullif(u.barcode, '')
		FROM unnest($3::bigint[], $4::date[], $5::smallint[], $6::text[], $7::text[], $8::text[], $9::text[],
		            $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[],
		            $17::text[], $18::text[], $19::text[], $20::text[], $21::text[], $22::text[], $23::text[])
		  AS u(tx, due, file_order, reference, method, amount, nominal, discount, surcharge, name, document, bank, ispb,
		       agency, agency_digit, account, account_digit, account_type, pix_key, pix_key_type, barcode)
		ON CONFLICT DO NOTHING
		RETURNING transaction_id`, args...)
	if err != nil {
		return nil, translate(err, fmt.Sprintf("add to payment batch %d", b.ID))
	}
	added, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, translate(err, fmt.Sprintf("add to payment batch %d", b.ID))
	}
	inserted := make(map[int64]bool, len(added))
	for _, id := range added {
		inserted[id] = true
	}
	total := decimal.Zero
	for _, m := range members {
		if !inserted[m.TransactionID] {
			lost = append(lost, m.TransactionID)
			continue
		}
		total = total.Add(m.Amount)
	}
	return lost, CountMembers(ctx, tx, b, int64(len(added)), total)
}

// lockPaymentMembers reads the members of a batch among the entries ids
// (all of them when ids is nil), locking them, by entry.
func lockPaymentMembers(ctx context.Context, tx pgx.Tx, b *Batch, ids []int64) (map[int64]batchMember, error) {
	rows, err := tx.Query(ctx, `
		SELECT m.transaction_id, m.id, m.state, m.amount, coalesce(t.paid, false)
		FROM payment_batch_transactions m
		LEFT JOIN transactions t ON t.company_id = m.company_id AND t.id = m.transaction_id
		WHERE m.company_id = $1 AND m.batch_id = $2 AND m.transaction_id IS NOT NULL
		  AND ($3::bigint[] IS NULL OR m.transaction_id = any($3))
		ORDER BY m.id
		FOR NO KEY UPDATE OF m`, withValues, b.CompanyID, b.ID, ids)
	if err != nil {
		return nil, translate(err, fmt.Sprintf("members of payment batch %d", b.ID))
	}
	defer rows.Close()
	out := map[int64]batchMember{}
	for rows.Next() {
		var r batchMember
		if err := rows.Scan(&r.recordID, &r.rowID, &r.state, &r.amount, &r.paid); err != nil {
			return nil, translate(err, fmt.Sprintf("members of payment batch %d", b.ID))
		}
		out[r.recordID] = r
	}
	return out, translate(rows.Err(), fmt.Sprintf("members of payment batch %d", b.ID))
}

// takeOutPayments writes that entries leave a locked batch. Removed from
// an open batch, their rows go (an entry added again gets the same
// reference, which the bank never saw). Reverted in a batch whose file is
// written (its payments still added are sent), their payments become
// reverted: the bank still holds them until it cancels them (docs/api.md).
func takeOutPayments(ctx context.Context, tx pgx.Tx, b *Batch, op MemberOp, _ Actor, members []batchMember, _ string) error {
	rows := make([]int64, len(members))
	for i, m := range members {
		rows[i] = m.rowID
	}
	if op == OpRemove {
		_, err := tx.Exec(ctx, `DELETE FROM payment_batch_transactions WHERE company_id = $1 AND id = any($2)`, withValues,
			b.CompanyID, rows)
		return translate(err, fmt.Sprintf("remove from payment batch %d", b.ID))
	}
	_, err := tx.Exec(ctx, `UPDATE payment_batch_transactions SET state = 'reverted', reverted_at = now(),
		updated_at = now() WHERE company_id = $1 AND id = any($2)`, withValues, b.CompanyID, rows)
	return translate(err, fmt.Sprintf("revert in payment batch %d", b.ID))
}

// EachPaymentMember reads the payments of a batch's file, the members
// added and not sent yet, and hands each to fn; reading stops at fn's
// first error. They come in their file order, then by entry, read in the
// order of an index: nothing is sorted, one row is in memory at a time (fn
// may keep the payment's texts, not the payment). The row is read through
// rawRows, amounts in cents.
func EachPaymentMember(ctx context.Context, tx pgx.Tx, b *Batch, fn func(*PaymentMember) error) error {
	what := fmt.Sprintf("payments of payment batch %d", b.ID)
	var m PaymentMember
	return eachRawRow(ctx, tx, what, `
		SELECT transaction_id, reference, method, amount, nominal, discount, surcharge, due_date, file_order, payee_name, payee_document, coalesce(bank, ''), coalesce(ispb, ''), coalesce(agency, ''),
		       coalesce(agency_digit, ''), coalesce(account, ''), coalesce(account_digit, ''),
		       coalesce(account_type, ''), coalesce(pix_key, ''), coalesce(pix_key_type, ''), coalesce(barcode, '')
		FROM payment_batch_transactions
		WHERE company_id = $1 AND batch_id = $2 AND state = 'added'
		ORDER BY file_order, id`, []any{b.CompanyID, b.ID}, func(r *rawRows) error {
		m.TransactionID, m.Reference, m.Method = r.Int64(0), r.Text(1), r.Text(2)
		m.Amount, m.Nominal, m.Discount, m.Surcharge = cents(r.Cents(3)), cents(r.Cents(4)), cents(r.Cents(5)), cents(r.Cents(6))
		m.Due, m.FileOrder, m.PayeeName, m.PayeeDocument = r.Date(7), int16(r.Int64(8)), r.Text(9), r.Text(10)
		m.Bank, m.ISPB, m.Agency, m.AgencyDigit = r.Text(11), r.Text(12), r.Text(13), r.Text(14)
		m.Account, m.AccountDigit, m.AccountType = r.Text(15), r.Text(16), r.Text(17)
		m.PIXKey, m.PIXKeyType, m.Barcode = r.Text(18), r.Text(19), r.Text(20)
		if r.Err() != nil {
			return fmt.Errorf("%s: entry %d: %w", what, m.TransactionID, r.Err())
		}
		return fn(&m)
	})
}
