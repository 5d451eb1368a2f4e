package storage

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
)

// The ledger side of an invoice's payment (docs/ledger.md). Both functions
// run in the caller's transaction, the one that marks the invoice paid or
// unpaid, so that the invoice and its entries never disagree.

// PostInvoicePayment books the payment of an invoice already marked paid
// (paid, paid_at; credit_at when the bank gave it): the one part that pays
// everything due on paid_at (finance.DueOn: the whole invoice, or the rest
// of one partly paid), posted as every part is (postPart,
// invoice_payments.go): it locks the invoice, reckons the part
// (finance.SettlePart), writes its settlement lines (late_fee, interest,
// discount; non-zero only), its row and the paid_* amounts on the invoice,
// and inserts its ledger entries (finance.PostPayment), dated credit_at
// (the day the money is in the account; paid_at when credit_at is not
// set), in one statement, grouped by split `invoice-<id>-payment-<n>` (n
// counts the invoice's payments). When the owners' share of the invoice
// was advanced by a guaranteed transfer, the payment also settles what is
// open of it (finance.SettleGuarantees): the business is made whole, the
// owners are not paid twice. It brings the invoice's auto_transfer_status
// to what the payment makes it (waiting, transferred; docs/ledger.md), for
// the caller's history row to list.
//
// Errors: NotFound for an invoice of another company or none; Conflict
// when the payment is already posted and not undone (its parts settle its
// total); Invalid (Problems) when the invoice is not paid, paid before its
// latest part, or cannot be booked (no active fee item for a late payment,
// a line's item without parties, owners missing, ...).
func PostInvoicePayment(ctx context.Context, tx pgx.Tx, companyID, invoiceID int64) error {
	return postWholePayment(ctx, tx, companyID, invoiceID, Actor{})
}

// postWholePayment is PostInvoicePayment by actor: the one part that pays
// all that is due on paid_at (the whole invoice, or the rest of one
// partly paid: finance.DueOn), recorded as the invoice's payment row.
func postWholePayment(ctx context.Context, tx pgx.Tx, companyID, invoiceID int64, actor Actor) error {
	pi, err := lockPartInvoice(ctx, tx, companyID, invoiceID)
	if err != nil {
		return err
	}
	if err := checkPostable(pi.postingInvoice); err != nil {
		return err
	}
	// settled by its parts, or posted without a row (written by a tool
	// that bypasses the posting): posted either way
	if (pi.paid.Parts > 0 && pi.paid.Principal.GreaterThanOrEqual(pi.inv.Total)) || (pi.paid.Parts == 0 && pi.posted) {
		return finance.Errorf(finance.Conflict, "The payment of invoice %d is already posted; undo it before posting it again.", invoiceID)
	}
	paidAt := pi.inv.PaidAt
	if !pi.lastPaid.IsZero() && paidAt.Before(pi.lastPaid) {
		return problem("paid_at", fmt.Sprintf("is before %s, the day of the invoice's latest part: the rest is paid after it", pi.lastPaid))
	}
	due, err := finance.DueOn(pi.inv, paidAt, pi.paid)
	if err != nil {
		return problemsError(err, fmt.Sprintf("invoice %d: settle", invoiceID))
	}
	part, err := finance.SettlePart(pi.inv, paidAt, pi.paid, due.Total)
	if err != nil {
		return problemsError(err, fmt.Sprintf("invoice %d: settle", invoiceID))
	}
	_, err = postPart(ctx, tx, companyID, pi, part, paidAt, pi.creditAt, "", actor)
	return err
}

// UndoInvoicePayment undoes the posted payment of an invoice: for each of
// its payment entries not yet reversed it inserts the reversing entry
// (debit and credit swapped, mode chargeback, reverses_id, split
// `<split>-chargeback`), dated today in the company's time zone (the day
// the payment is undone: the books of the payment's day are left as they
// were); it deletes the settlement lines and clears the paid_* amounts.
// An owner's transfer the run wrote unpaid that paid out those entries is
// voided (transfers_void.go): its reversal is written too, and the
// entries it paid out are released for the run; a transfer already paid
// is left as it is (the owner owes what the reversals debit). No entry is
// ever deleted. It brings the invoice's auto_transfer_status to what the
// undoing makes it (null, chargeback, guaranteed again), for the caller's
// history row to list. Undoing an invoice with nothing left to reverse
// reverses nothing and is not an error. NotFound for an invoice of
// another company or none; Conflict while a transfer it would void is in
// a payment batch (added or sent).
func UndoInvoicePayment(ctx context.Context, tx pgx.Tx, companyID, invoiceID int64) error {
	what := fmt.Sprintf("invoice %d", invoiceID)
	var one int
	err := tx.QueryRow(ctx, `SELECT 1 FROM invoices WHERE company_id = $1 AND id = $2 FOR UPDATE`,
		companyID, invoiceID).Scan(&one)
	if err != nil {
		return translate(err, what)
	}
	voided, err := lockTransfersToVoid(ctx, tx, companyID, invoiceID, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := refuseBatchedTransfers(invoiceID, voided); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, reverseEntriesSQL, companyID, invoiceID); err != nil {
		return translate(err, what+": reverse entries")
	}
	if err := voidTransfers(ctx, tx, companyID, voided); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := clearSettlement(ctx, tx, companyID, invoiceID); err != nil {
		return translate(err, what+": clear settlement")
	}
	if _, err := tx.Exec(ctx, `UPDATE invoice_payments SET undone_at = now(), updated_at = now()
		WHERE company_id = $1 AND invoice_id = $2 AND undone_at IS NULL`, companyID, invoiceID); err != nil {
		return translate(err, what+": payments")
	}
	if _, err := writeAutoTransferStatus(ctx, tx, companyID, []int64{invoiceID}, Actor{}, "", false); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// reverseEntriesSQL inserts the reversal of every payment entry of an
// invoice not reversed yet, and of every refund of them (refunds_id): the
// payment did not happen, nor did its refunds. finance.Reverse in SQL, so
// that every column of the original (tags, notes, amounts) is carried over
// as it is; a reversal points at its entry by reverses_id only.
const reverseEntriesSQL = reverseSQL + `
WHERE t.company_id = $1 AND t.invoice_id = $2 AND (t.mode = 'invoice' OR t.refunds_id IS NOT NULL)
  AND NOT EXISTS (SELECT 1 FROM transactions r WHERE r.company_id = t.company_id AND r.reverses_id = t.id)
ORDER BY t.id`

// reversePartSQL inserts the reversal of every entry of the payment of
// split $3 (one part of the invoice's payments) not reversed yet.
const reversePartSQL = reverseSQL + `
WHERE t.company_id = $1 AND t.invoice_id = $2 AND t.mode = 'invoice' AND t.split = $3
  AND NOT EXISTS (SELECT 1 FROM transactions r WHERE r.company_id = t.company_id AND r.reverses_id = t.id)
ORDER BY t.id`

// reverseRefundsSQL inserts the reversal of every refund of the invoice's
// payments not reversed yet (undoing a part undoes the refunds, which took
// from every part).
const reverseRefundsSQL = reverseSQL + `
WHERE t.company_id = $1 AND t.invoice_id = $2 AND t.refunds_id IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM transactions r WHERE r.company_id = t.company_id AND r.reverses_id = t.id)
ORDER BY t.id`

// reverseSQL is the INSERT of the reversals of the entries t the
// statements above select.
const reverseSQL = `
INSERT INTO transactions (company_id, split, invoice_id, morph_key, mode, type, account_id, business_id,
    plan_id, user_id, item_id, person_id, building_id, contract_id, broker_id, owner_id, tenant_id, extract,
    date, position, amount, amount_primary, percentage, competence, description, paid, due_date,
    billing_method, tag, reverses_id)
SELECT t.company_id, t.split || '-chargeback', t.invoice_id, t.morph_key, 'chargeback',
    CASE t.type WHEN 'debit' THEN 'credit' WHEN 'credit' THEN 'debit' ELSE t.type END,
    t.account_id, t.business_id, t.plan_id, t.user_id, t.item_id, t.person_id, t.building_id, t.contract_id,
    t.broker_id, t.owner_id, t.tenant_id, t.extract,
    (SELECT (now() AT TIME ZONE coalesce(c.time_zone, 'America/Sao_Paulo'))::date FROM companies c WHERE c.id = t.company_id),
    t.position, t.amount, t.amount_primary, t.percentage, t.competence, t.description, t.paid, t.due_date,
    t.billing_method, t.tag, t.id
FROM transactions t`

// postingInvoice is an invoice as the posting reads it.
type postingInvoice struct {
	inv        finance.Invoice
	buildingID int64 // the invoice's, or its contract's
	creditAt   finance.Date
	posted     bool // paid_amount is set: a payment is posted
}

// lockPostingInvoice reads the invoice and locks it (FOR UPDATE) for the
// rest of the transaction.
func lockPostingInvoice(ctx context.Context, tx pgx.Tx, companyID, invoiceID int64) (*postingInvoice, error) {
	pi := &postingInvoice{inv: finance.Invoice{ID: invoiceID}}
	inv := &pi.inv
	var typ, mode, action string
	err := tx.QueryRow(ctx, `
		SELECT i.type, i.payer_id, coalesce(i.contract_id, 0), coalesce(i.building_id, c.building_id, 0),
		       i.business_id, i.account_id, i.billing_method, i.paid, i.paid_at, i.credit_at,
		       i.paid_amount IS NOT NULL, i.total::text, i.date, i.due_date,
		       i.ticket_late_fee, coalesce(i.ticket_late_fee_item_id, 0),
		       coalesce(i.ticket_late_fee_percentage, 0)::text, coalesce(i.ticket_late_fee_interest, 0)::text,
		       i.ticket_discount, coalesce(i.ticket_discount_mode, ''), coalesce(i.ticket_discount_fixed, 0)::text,
		       coalesce(i.ticket_discount_percentage, 0)::text, coalesce(i.ticket_discount_action, ''),
		       coalesce(i.ticket_discount_days, 0)
		FROM invoices i
		LEFT JOIN contracts c ON c.company_id = i.company_id AND c.id = i.contract_id
		WHERE i.company_id = $1 AND i.id = $2
		FOR UPDATE OF i`, companyID, invoiceID).Scan(
		&typ, &inv.PayerID, &inv.ContractID, &pi.buildingID,
		&inv.BusinessID, &inv.AccountID, &inv.BillingMethod, &inv.Paid, &inv.PaidAt, &pi.creditAt,
		&pi.posted, &inv.Total, &inv.Date, &inv.DueDate,
		&inv.TicketLateFee, &inv.TicketLateFeeItemID, &inv.TicketLateFeePercentage, &inv.TicketLateFeeInterest,
		&inv.TicketDiscount, &mode, &inv.TicketDiscountFixed,
		&inv.TicketDiscountPercentage, &action, &inv.TicketDiscountDays)
	if err != nil {
		return nil, translate(err, fmt.Sprintf("invoice %d", invoiceID))
	}
	inv.Type, inv.TicketDiscountMode, inv.TicketDiscountAction =
		finance.InvoiceType(typ), finance.DiscountMode(mode), finance.DiscountAction(action)
	return pi, nil
}

func checkPostable(pi *postingInvoice) error {
	if !pi.inv.Paid || pi.inv.PaidAt.IsZero() {
		return finance.InvalidInput([]finance.Problem{{Field: "paid", Message: "the invoice is not paid: mark it paid, with paid_at, before posting its payment"}})
	}
	return nil
}

// loadPostingInput reads the invoice's lines, their items, the company's
// fee and discount items and the building's owners, and settles the
// invoice on its payment date.
func loadPostingInput(ctx context.Context, tx pgx.Tx, companyID int64, pi *postingInvoice) (finance.PostingInput, error) {
	what := fmt.Sprintf("invoice %d", pi.inv.ID)
	in := finance.PostingInput{Parties: finance.Parties{PayerID: pi.inv.PayerID, BusinessID: pi.inv.BusinessID,
		BuildingID: pi.buildingID}}
	lines, err := invoiceLines(ctx, tx, companyID, pi.inv.ID)
	if err != nil {
		return in, translate(err, what+": lines")
	}
	pi.inv.Items = lines
	c, err := postingItems(ctx, tx, companyID, lines)
	if err != nil {
		return in, translate(err, what+": items")
	}
	in.Items, in.FeeItem, in.DiscountItem = c.items, c.fee, c.discount
	if in.Parties.Owners, err = buildingOwners(ctx, tx, companyID, pi.buildingID); err != nil {
		return in, translate(err, what+": owners")
	}
	if in.Settlement, err = finance.Settle(pi.inv, pi.inv.PaidAt); err != nil {
		return in, problemsError(err, what+": settle")
	}
	in.Invoice = pi.inv
	return in, nil
}

func invoiceLines(ctx context.Context, tx pgx.Tx, companyID, invoiceID int64) ([]finance.InvoiceItem, error) {
	rows, err := tx.Query(ctx, `
		SELECT id, item_id, amount::text, coalesce(description, ''), coalesce(owner_id, 0), coalesce(broker_id, 0)
		FROM invoice_items
		WHERE company_id = $1 AND invoice_id = $2 AND kind = 'line'
		ORDER BY id`, companyID, invoiceID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (finance.InvoiceItem, error) {
		l := finance.InvoiceItem{Kind: finance.LineLine}
		err := row.Scan(&l.ID, &l.ItemID, &l.Amount, &l.Description, &l.OwnerID, &l.BrokerID)
		return l, err
	})
}

// postingCatalogue is what a posting books with: the items of its lines,
// and the company's active items of type fee (the late fee and interest),
// discount and tariff (a bank's tariff on a settled title); of several
// active items of one type, the one of the lowest id books. A nil item:
// the company keeps none active.
type postingCatalogue struct {
	items                 []finance.TransactionItem
	fee, discount, tariff *finance.TransactionItem
}

// postingItems reads the catalogue of a posting: the items of the lines
// and the company's active fee, discount and tariff items.
func postingItems(ctx context.Context, tx pgx.Tx, companyID int64, lines []finance.InvoiceItem) (postingCatalogue, error) {
	ids := make([]int64, len(lines))
	for i, l := range lines {
		ids[i] = l.ItemID
	}
	return postingItemsOf(ctx, tx, companyID, ids)
}

// postingItemsOf reads the items ids and the company's active items of
// type fee, discount and tariff, as postingItems.
func postingItemsOf(ctx context.Context, tx pgx.Tx, companyID int64, ids []int64) (postingCatalogue, error) {
	var c postingCatalogue
	rows, err := tx.Query(ctx, `
		SELECT id, description, coalesce(debit, ''), coalesce(credit, ''), type, active,
		       coalesce(debit_plan_id, 0), coalesce(credit_plan_id, 0)
		FROM transaction_items
		WHERE company_id = $1 AND (id = any($2) OR (active AND type IN ('fee', 'discount', 'tariff')))
		ORDER BY id`, companyID, ids)
	if err != nil {
		return c, err
	}
	c.items, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (finance.TransactionItem, error) {
		var it finance.TransactionItem
		var debit, credit, typ string
		err := row.Scan(&it.ID, &it.Description, &debit, &credit, &typ, &it.Active, &it.DebitPlanID, &it.CreditPlanID)
		it.Debit, it.Credit, it.Type = finance.Party(debit), finance.Party(credit), finance.TransactionItemType(typ)
		return it, err
	})
	if err != nil {
		return c, err
	}
	for i := range c.items {
		switch it := &c.items[i]; {
		case !it.Active:
		case it.Type == finance.TxItemFee && c.fee == nil:
			c.fee = it
		case it.Type == finance.TxItemDiscount && c.discount == nil:
			c.discount = it
		case it.Type == finance.TxItemTariff && c.tariff == nil:
			c.tariff = it
		}
	}
	return c, nil
}

// buildingOwners reads a building's owners by person id; none without a
// building. A share not set reads as zero (finance.SplitByShares: equal
// parts when no owner has one).
func buildingOwners(ctx context.Context, tx pgx.Tx, companyID, buildingID int64) ([]finance.Share, error) {
	if buildingID == 0 {
		return nil, nil
	}
	rows, err := tx.Query(ctx, `
		SELECT person_id, coalesce(percentage, 0)::text
		FROM building_owners
		WHERE company_id = $1 AND building_id = $2
		ORDER BY person_id`, companyID, buildingID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (finance.Share, error) {
		var s finance.Share
		err := row.Scan(&s.PersonID, &s.Percentage)
		return s, err
	})
}

// clearSettlement deletes the settlement lines and the paid_* amounts,
// and the refunds' sum (reversed with the payment).
func clearSettlement(ctx context.Context, tx pgx.Tx, companyID, invoiceID int64) error {
	if _, err := tx.Exec(ctx, `DELETE FROM invoice_items WHERE company_id = $1 AND invoice_id = $2 AND kind <> 'line'`,
		companyID, invoiceID); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, `
		UPDATE invoices
		SET paid_amount = NULL, paid_late_fee = NULL, paid_interest = NULL, paid_discount = NULL, refunded_amount = NULL,
		    updated_at = now()
		WHERE company_id = $1 AND id = $2`, companyID, invoiceID)
	return err
}

// openGuarantees reads the guaranteed transfers of an invoice (the
// credits the transfer run wrote on the owners' statements) that the
// payments posted and not undone have not settled whole, each with what
// is left of it.
func openGuarantees(ctx context.Context, tx pgx.Tx, companyID, invoiceID int64) ([]finance.Guarantee, error) {
	rows, err := tx.Query(ctx, `
		SELECT g.id, g.owner_id, (g.amount - `+guaranteeSettledSQL+`)::text
		FROM transactions g
		WHERE g.company_id = $1 AND g.invoice_id = $2 AND g.mode = 'guaranteed_rent' AND g.extract = 'owner'
		  AND g.type = 'credit' AND g.transfer_key IS NOT NULL
		  AND g.amount > `+guaranteeSettledSQL+`
		ORDER BY g.id`, companyID, invoiceID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (finance.Guarantee, error) {
		var g finance.Guarantee
		err := row.Scan(&g.ID, &g.OwnerID, &g.Amount)
		return g, err
	})
}

// guaranteeSettledSQL is what the standing payments (their parts) have
// settled of the guarantee g: the owner's debits pointing at it, not
// reversed.
const guaranteeSettledSQL = `coalesce((SELECT sum(s.amount) FROM transactions s
    WHERE s.company_id = g.company_id AND s.guaranteed_transfer_id = g.id AND s.mode = 'invoice' AND s.extract = 'owner'
      AND NOT EXISTS (SELECT 1 FROM transactions r WHERE r.company_id = s.company_id AND r.reverses_id = s.id)), 0)`

// entryColumns are the entries of a posting, column by column, for one
// INSERT over unnest.
type entryColumns struct {
	types, extracts, amounts, percentages, descriptions                     []string
	plans, items, persons, owners, tenants, brokers, businesses, guarantees []int64
}

func columnsOf(entries []finance.Entry) entryColumns {
	var c entryColumns
	for _, e := range entries {
		pct := ""
		if !e.Percentage.IsZero() {
			pct = e.Percentage.String()
		}
		c.types = append(c.types, string(e.Type))
		c.extracts = append(c.extracts, string(e.Extract))
		c.amounts = append(c.amounts, e.Amount.String())
		c.percentages = append(c.percentages, pct)
		c.descriptions = append(c.descriptions, e.Description)
		c.plans = append(c.plans, e.PlanID)
		c.items = append(c.items, e.ItemID)
		c.persons = append(c.persons, e.PersonID)
		c.owners = append(c.owners, e.OwnerID)
		c.tenants = append(c.tenants, e.TenantID)
		c.brokers = append(c.brokers, e.BrokerID)
		c.businesses = append(c.businesses, e.BusinessID)
		c.guarantees = append(c.guarantees, e.GuaranteedTransferID)
	}
	return c
}

// insertEntries inserts a payment's entries in one statement; position
// is the entry's rank in the posting.
func insertEntries(ctx context.Context, tx pgx.Tx, companyID int64, pi *postingInvoice, split string, entries []finance.Entry) error {
	date := pi.creditAt
	if date.IsZero() {
		date = pi.inv.PaidAt
	}
	return insertInvoiceEntries(ctx, tx, companyID, pi, split, finance.ModeInvoice, date, entries)
}

// insertInvoiceEntries inserts entries of an invoice in one statement, of
// mode and dated date, with the invoice's account, building, contract,
// competence, due date and billing method; position is the entry's rank.
func insertInvoiceEntries(ctx context.Context, tx pgx.Tx, companyID int64, pi *postingInvoice, split string,
	mode finance.EntryMode, date finance.Date, entries []finance.Entry) error {
	if len(entries) == 0 {
		return nil
	}
	c := columnsOf(entries)
	inv := &pi.inv
	_, err := tx.Exec(ctx, `
		INSERT INTO transactions (company_id, split, invoice_id, morph_key, mode, type, account_id, business_id,
		    plan_id, item_id, person_id, building_id, contract_id, broker_id, owner_id, tenant_id, extract,
		    date, position, amount, percentage, competence, description, paid, due_date, billing_method,
		    guaranteed_transfer_id)
		SELECT $1, $2, $3, 'invoice', $4, u.type, $5, nullif(u.business_id, 0),
		    nullif(u.plan_id, 0), nullif(u.item_id, 0), nullif(u.person_id, 0), nullif($6::bigint, 0), nullif($7::bigint, 0),
		    nullif(u.broker_id, 0), nullif(u.owner_id, 0), nullif(u.tenant_id, 0), u.extract,
		    $8, u.position, u.amount::numeric, nullif(u.percentage, '')::numeric, $9, nullif(u.description, ''),
		    true, $10, $11, nullif(u.guarantee_id, 0)
		FROM unnest($12::text[], $13::text[], $14::text[], $15::text[], $16::text[], $17::bigint[], $18::bigint[],
		    $19::bigint[], $20::bigint[], $21::bigint[], $22::bigint[], $23::bigint[], $24::bigint[]) WITH ORDINALITY
		    AS u(type, extract, amount, percentage, description, plan_id, item_id, person_id, owner_id, tenant_id,
		         broker_id, business_id, guarantee_id, position)`,
		companyID, split, inv.ID, string(mode), inv.AccountID, pi.buildingID, inv.ContractID,
		date, inv.Date, inv.DueDate, inv.BillingMethod,
		c.types, c.extracts, c.amounts, c.percentages, c.descriptions, c.plans, c.items,
		c.persons, c.owners, c.tenants, c.brokers, c.businesses, c.guarantees)
	return err
}

// problemsError turns the Problems of a finance rule into invalid input;
// any other error is internal.
func problemsError(err error, what string) error {
	e, ok := finance.AsInvalid(err, dottedField)
	if !ok {
		return &finance.Error{Code: finance.Internal, Message: "Internal error.", Err: fmt.Errorf("%s: %w", what, err)}
	}
	e.Err = fmt.Errorf("%s: %w", what, err)
	return e
}

// dottedField names a finance problem's field as the API names a child's
// fields: items[2].owner_id is items.2.owner_id (the invoice's lines by
// id, as include[items] lists them).
func dottedField(field string) string {
	name, rest, ok := strings.Cut(field, "[")
	if !ok {
		return field
	}
	index, rest, ok := strings.Cut(rest, "]")
	if !ok {
		return field
	}
	return name + "." + index + rest
}
