package storage

import (
	"context"
	"crypto/rand"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance"
)

// The rules around the ledger's writes (docs/api.md, `/transactions`), run
// as hooks in the write's transaction: an item in use is not deleted, an
// entry an invoice payment posted is changed only by undoing the payment,
// a recurring entry writes its installments.

// refuseUsedItem refuses to delete a transaction item that invoice lines,
// ledger entries or invoices (as their late-fee item) still use, saying
// which: the foreign keys would refuse it anyway, with a message naming
// nothing. The item's row is locked by then, so no new use can slip in.
func refuseUsedItem(ctx context.Context, tx pgx.Tx, c *Change) error {
	if c.Op != OpDelete {
		return nil
	}
	var lines, entries, invoices int64
	err := tx.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM invoice_items WHERE company_id = $1 AND item_id = $2),
		(SELECT count(*) FROM transactions WHERE company_id = $1 AND (item_id = $2 OR commission_item_id = $2)),
		(SELECT count(*) FROM invoices WHERE company_id = $1 AND ticket_late_fee_item_id = $2)`,
		c.Scope.CompanyID, c.ID).Scan(&lines, &entries, &invoices)
	if err != nil {
		return fmt.Errorf("count uses of item %d: %w", c.ID, err)
	}
	var uses []string
	for _, u := range []struct {
		n           int64
		one, plural string
	}{
		{lines, "invoice line", "invoice lines"},
		{entries, "ledger entry", "ledger entries"},
		{invoices, "invoice as its late-fee item", "invoices as their late-fee item"},
	} {
		switch {
		case u.n == 1:
			uses = append(uses, "1 "+u.one)
		case u.n > 1:
			uses = append(uses, fmt.Sprintf("%d %s", u.n, u.plural))
		}
	}
	if len(uses) == 0 {
		return nil
	}
	return finance.Errorf(finance.Conflict, "The transaction item is used by %s and was not deleted; set active to false to stop using it.",
		strings.Join(uses, " and "))
}

// positiveAmount refuses (422 on amount) an entry of zero or less: an
// entry's amount is always positive, its type (debit, credit) gives the
// direction (docs/ledger.md).
func positiveAmount(_ context.Context, _ pgx.Tx, c *Change) error {
	v, given := c.New.Values["amount"]
	if c.Op == OpDelete || !given || v == nil {
		return nil
	}
	d, err := decimal.NewFromString(fmt.Sprint(v))
	if err != nil {
		return fmt.Errorf("amount %v: %w", v, err)
	}
	if !d.IsPositive() {
		return problem("amount", "must be more than zero: the type (debit or credit) gives the direction")
	}
	return nil
}

// refusePostedEntry refuses to change or delete an entry an invoice
// payment posted, or its reversal (modes invoice and chargeback, written by
// the posting alone): the book is changed by undoing the payment, which
// writes reversing entries. They stay protected once their invoice is
// deleted (invoice_id null).
func refusePostedEntry(_ context.Context, _ pgx.Tx, c *Change) error {
	if c.Op == OpCreate {
		return nil
	}
	mode, _ := c.OldValue("mode").(string)
	if slices.Contains(postedModes, mode) {
		return finance.Errorf(finance.Conflict, "This entry was posted from an invoice payment and cannot be %s; undo the invoice payment instead.",
			map[Op]string{OpUpdate: "changed", OpDelete: "deleted"}[c.Op])
	}
	return nil
}

// refuseTransferRunEntry refuses to change or delete an entry the
// owners' transfer run wrote (a transfer or a guaranteed transfer, keyed
// by transfer_key): the entries it paid out point at it, and the payment
// of a guaranteed invoice settles it (docs/ledger.md). A transfer the run
// wrote unpaid takes the changes of changeUnpaidTransfer: how and from
// which account it is paid, and its mark of paid by hand, unless it was
// voided with the payment it paid out (refuseVoidTransfer). A transfer or a
// guaranteed_rent entry made through the API stays editable.
func refuseTransferRunEntry(ctx context.Context, tx pgx.Tx, c *Change) error {
	if c.Op == OpCreate {
		return nil
	}
	mode, _ := c.OldValue("mode").(string)
	if mode != "transfer" && mode != "guaranteed_rent" {
		return nil
	}
	var byRun bool
	err := tx.QueryRow(ctx, `SELECT transfer_key IS NOT NULL FROM transactions WHERE company_id = $1 AND id = $2`,
		c.Scope.CompanyID, c.ID).Scan(&byRun)
	if err != nil {
		return fmt.Errorf("read entry %d: %w", c.ID, err)
	}
	if !byRun {
		return nil
	}
	unpaid := mode == "transfer" && c.OldValue("paid") == false
	if unpaid {
		if err := refuseVoidTransfer(ctx, tx, c); err != nil {
			return err
		}
	}
	if unpaid && c.Op == OpUpdate {
		return changeUnpaidTransfer(c)
	}
	what := map[Op]string{OpUpdate: "changed", OpDelete: "deleted"}[c.Op]
	switch {
	case unpaid:
		return finance.Errorf(finance.Conflict, "This transfer was written by the owners' transfer run and cannot be deleted. "+
			"It is unpaid: mark it paid with paid true and the day it was paid in date.")
	case mode == "transfer":
		return finance.Errorf(finance.Conflict, "This transfer was written by the owners' transfer run and is paid: it cannot be %s.", what)
	}
	return finance.Errorf(finance.Conflict, "This entry was written by the owners' transfer run and cannot be %s.", what)
}

// refuseVoidTransfer refuses (409) to change, mark paid or delete a run's
// unpaid transfer voided with the payment it paid out (docs/ledger.md,
// "An undone payment whose transfer is unpaid"): it is never to be paid.
// The row is locked by then, and the void read in a statement of its own,
// so that an undo committed meanwhile is seen.
func refuseVoidTransfer(ctx context.Context, tx pgx.Tx, c *Change) error {
	voids, err := VoidsOf(ctx, tx, c.Scope.CompanyID, []int64{c.ID})
	if err != nil {
		return err
	}
	void, ok := voids[c.ID]
	if !ok {
		return nil
	}
	return finance.Errorf(finance.Conflict, "This transfer is void: the payment it paid out was undone before it was paid, "+
		"and entry %d reverses it. It is not to be paid; the run pays the owner out again once the invoice is paid again.", void)
}

// Memos of an update of a run's unpaid transfer (changeUnpaidTransfer),
// for the later hooks: it was taken (the entry is on no owner statement),
// and it marks the transfer paid by hand.
const (
	unpaidTransferChanged = "unpaid_transfer_changed"
	transferPaidByHand    = "transfer_paid_by_hand"
)

// unpaidTransferColumns are the columns an update of a run's unpaid
// transfer may change: how and from which account it is paid
// (billing_method, account_id; not while it is in a payment batch:
// FrozenInBatch), its mark of paid by hand (paid true, with the day the
// money left in date) and its notes.
var unpaidTransferColumns = []string{"billing_method", "account_id", "paid", "date", "notes"}

// changeUnpaidTransfer takes an update of a run's unpaid transfer that
// changes only unpaidTransferColumns (409 otherwise: its amount is what it
// paid out, its owner the run's), with date only beside paid true, which
// requires it (it is the run's day until the transfer is paid).
func changeUnpaidTransfer(c *Change) error {
	var others []string
	for col := range c.New.Values {
		if !slices.Contains(unpaidTransferColumns, col) && c.Changed(col) {
			others = append(others, col)
		}
	}
	slices.Sort(others)
	switch {
	case len(others) > 0:
		return finance.Errorf(finance.Conflict, "This transfer was written by the owners' transfer run: only its "+
			"billing_method and account_id (how, and from which account, it is paid), its notes, and paid true with the "+
			"day it was paid in date can be given; %s cannot change.", strings.Join(others, ", "))
	case c.Value("paid") == true && !c.Given("date"):
		return problem("date", "is required to mark a transfer paid: the day the money left the account")
	case c.Value("paid") == true:
		c.Remember(transferPaidByHand, true)
	case c.Changed("date"):
		return finance.Errorf(finance.Conflict, "This transfer was written by the owners' transfer run and is unpaid: "+
			"its date is the run's day until it is paid; give paid true with the day it was paid in date.")
	}
	c.Remember(unpaidTransferChanged, true)
	return nil
}

// recordTransferPaid, after a run's transfer was marked paid by hand,
// records when (paid_recorded_at: the transfer comes onto its owner's
// statement then, docs/ledger.md) and emits transfer.paid.
func recordTransferPaid(ctx context.Context, tx pgx.Tx, c *Change) error {
	if c.Op != OpUpdate || c.Memo[transferPaidByHand] != true {
		return nil
	}
	if _, err := tx.Exec(ctx, `UPDATE transactions SET paid_recorded_at = now() WHERE company_id = $1 AND id = $2`,
		c.Scope.CompanyID, c.ID); err != nil {
		return translate(err, fmt.Sprintf("transfer %d paid", c.ID))
	}
	_, err := EmitRecordEvents(ctx, tx, c.Scope.CompanyID, EventTransferPaid, Transactions, []int64{c.ID}, "")
	return err
}

// refusePostingMode refuses (422 on mode) a create, or an update, that
// gives an entry the mode of a payment's posting (invoice, chargeback):
// those entries are written by PostInvoicePayment and
// UndoInvoicePayment only. An update sending the entry's current mode
// changes nothing and passes.
func refusePostingMode(_ context.Context, _ pgx.Tx, c *Change) error {
	if c.Op == OpDelete {
		return nil
	}
	mode, _ := c.New.Values["mode"].(string)
	if !slices.Contains(postedModes, mode) || (c.Op == OpUpdate && !c.Changed("mode")) {
		return nil
	}
	return finance.InvalidInput([]finance.Problem{{Field: "mode", Message: fmt.Sprintf(
		"%s entries are written by the payment posting of an invoice only (pay the invoice, or undo its payment); use another mode", mode)}})
}

// prepareEntry fills in, on create, what the body does not give: the
// acting user, the statement the entry sits on, and the numbering of a
// recurrence.
func prepareEntry(_ context.Context, _ pgx.Tx, c *Change) error {
	if c.Op != OpCreate {
		return nil
	}
	if c.Scope.UserID != 0 {
		c.Set("user_id", c.Scope.UserID)
	}
	if c.Value("extract") == nil {
		c.Set("extract", deriveExtract(c))
	}
	return prepareRecurrence(c)
}

// deriveExtract is the statement of an entry created without one: the
// owner's when it names an owner, else the broker's, else the customer's
// when it names a tenant, else the business's.
func deriveExtract(c *Change) string {
	switch {
	case c.Value("owner_id") != nil:
		return "owner"
	case c.Value("broker_id") != nil:
		return "broker"
	case c.Value("tenant_id") != nil:
		return "customer"
	}
	return "business"
}

// prepareRecurrence checks a recurring create (recurrency_total above 1)
// and numbers its first installment: a periodicity is required, the
// installment number is the recurrence's to give, and every installment
// shares one new split.
func prepareRecurrence(c *Change) error {
	total, _ := asInt64(c.Value("recurrency_total"))
	if total <= 1 {
		return nil
	}
	var problems []finance.Problem
	if p, _ := c.Value("recurrency_periodicity").(string); p == "" {
		problems = append(problems, finance.Problem{Field: "recurrency_periodicity",
			Message: "is required when recurrency_total is more than 1 (one of: " + strings.Join(periodicityNames, ", ") + ")"})
	}
	if _, given := c.New.Values["recurrency_installment"]; given {
		problems = append(problems, finance.Problem{Field: "recurrency_installment",
			Message: "is numbered by the recurrence: leave it out when recurrency_total is more than 1"})
	}
	if len(problems) > 0 {
		return finance.InvalidInput(problems)
	}
	split, err := newSplit()
	if err != nil {
		return err
	}
	c.Set("split", split)
	c.Set("recurrency_installment", int64(1))
	return nil
}

// newSplit is a new grouping id: a random UUID (version 4) as text.
func newSplit() (string, error) {
	var u [16]byte
	if _, err := rand.Read(u[:]); err != nil {
		return "", fmt.Errorf("new split: %w", err)
	}
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:]), nil
}

// checkLastInstallment refuses a recurrence whose last installment would
// have a date past 9999-12-31, which the API could not write back.
func checkLastInstallment(ctx context.Context, tx pgx.Tx, c *Change, step Periodicity, total int64) error {
	var past bool
	err := tx.QueryRow(ctx, `SELECT greatest(date, due_date, competence)
		+ make_interval(months => ($3::int - 1) * $4::int, days => ($3::int - 1) * $5::int) > '9999-12-31'
		FROM `+ident(c.Resource.Table)+` WHERE company_id = $1 AND id = $2`,
		c.Scope.CompanyID, c.ID, total, step.Months, step.Days).Scan(&past)
	if err != nil {
		return fmt.Errorf("check the last installment of %d: %w", c.ID, err)
	}
	if past {
		return finance.InvalidInput([]finance.Problem{{Field: "recurrency_total", Message: "the last installment would fall after 9999-12-31"}})
	}
	return nil
}

// installmentFixed are the columns an installment does not copy from the
// first one: its identity and timestamps, what the recurrence advances or
// numbers, and the boleto it is paid with (one installment's).
var installmentFixed = []string{"id", "company_id", "created_at", "updated_at", "date", "due_date", "competence", "recurrency_installment",
	"ticket_barcode"}

// createInstallments writes installments 2..N of a recurring create, in
// its transaction: copies of the first, with date, due date and
// competence advanced by the period times the installment's rank from the
// first's (so month ends clamp without drifting: Jan 31, Feb 28, Mar 31)
// and numbered 2..N.
func createInstallments(ctx context.Context, tx pgx.Tx, c *Change) error {
	if c.Op != OpCreate {
		return nil
	}
	total, _ := asInt64(c.Value("recurrency_total"))
	if total <= 1 {
		return nil
	}
	p, _ := c.Value("recurrency_periodicity").(string)
	step := Periodicities[p]
	if err := checkLastInstallment(ctx, tx, c, step, total); err != nil {
		return err
	}
	var copied []string
	for _, col := range c.Resource.Columns {
		if col.Expr == "" && !slices.Contains(installmentFixed, col.Name) {
			copied = append(copied, ident(col.Name))
		}
	}
	if c.Resource.CustomFields {
		copied = append(copied, "custom_fields")
	}
	advanced := func(col string) string {
		return "(t." + col + " + make_interval(months => s.k * $3::int, days => s.k * $4::int))::date"
	}
	sql := "INSERT INTO " + ident(c.Resource.Table) + " (company_id, date, due_date, competence, recurrency_installment, " +
		strings.Join(copied, ", ") + ") SELECT t.company_id, " + advanced("date") + ", " + advanced("due_date") + ", " +
		advanced("competence") + ", s.k + 1, t." + strings.Join(copied, ", t.") +
		" FROM " + ident(c.Resource.Table) + " t CROSS JOIN generate_series(1, $5::int - 1) AS s(k)" +
		" WHERE t.company_id = $1 AND t.id = $2 ORDER BY s.k"
	if _, err := tx.Exec(ctx, sql, c.Scope.CompanyID, c.ID, step.Months, step.Days, total); err != nil {
		return fmt.Errorf("create installments of %d: %w", c.ID, err)
	}
	return nil
}
