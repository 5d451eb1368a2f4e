package storage

import (
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance"
)

// The collection batches (/financial/ticketBatch, docs/api.md "Batches"):
// their kind and resources, and their rows: the invoices a batch may take,
// their titles (nosso número from the account's counter, the barcode and
// digitable line, the amounts and terms the bank gets) and their removal
// and reversal. What a bank's return file changes on them is in
// batches_ticket_returns.go, the layouts an account may have in
// batches_ticket_rules.go. The bank's rules (package cnab) are applied by
// the batch's kind in package jobs; every statement here is set-based and
// scoped to the company.

// Origins of the invoice history rows a collection batch writes.
const (
	OriginTicketBatch = "ticket_batch" // added to, removed from, reverted in a batch
	OriginReturnFile  = "return_file"  // registered, rejected or written off by the bank
)

// TicketBatch is the collection batch (/financial/ticketBatch).
var TicketBatch = &BatchType{Name: "ticket", Resource: TicketBatches, Table: "ticket_batches",
	Members: "invoices", MemberResource: Invoices, MemberFilter: "ticketBatchIn",
	SequenceColumn: "next_file_sequence", FilePrefix: "cobranca",
	MemberTable: "ticket_batch_invoices", MemberColumn: "invoice_id", Label: "collection batch", Noun: "invoice",
	// the amount and due date its slip carries, the account and billing
	// method that made it a slip of that batch
	Frozen:          []string{"total", "due_date", "account_id", "billing_method"},
	AccountProblems: remittanceAccountProblems,
	Remitter:        "beneficiary",
	lockMembers:     lockTicketMembers,
	takeOut:         takeOutTickets,
}

// Resource names of the batches.
const (
	TicketBatches       = "ticket_batches"
	TicketBatchInvoices = "ticket_batch_invoices"
)

func ticketBatchesResource() *Resource { return batchResource(TicketBatch, TicketBatchInvoices) }

// ticketBatchInvoicesResource is the read side of a collection batch's
// members (include[items] of a batch): each invoice with its title as the
// bank has it and its state in the batch.
func ticketBatchInvoicesResource() *Resource {
	return &Resource{
		Name: TicketBatchInvoices, Table: "ticket_batch_invoices", ReadOnly: true,
		Columns: columns([]Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "batch_id", Type: Int, Filterable: true},
			{Name: "invoice_id", Type: Int, Filterable: true},
			{Name: "account_id", Type: Int, Filterable: true},
			// added reads sent once the batch's file is written
			{Name: "state", Type: String, Filterable: true, Enum: []string{"added", "sent", "reverted", "rejected", "written_off"},
				Expr: `CASE WHEN "state" = 'added' AND EXISTS (SELECT 1 FROM ticket_batches tb
					WHERE tb.company_id = "ticket_batch_invoices"."company_id" AND tb.id = "ticket_batch_invoices"."batch_id"
					AND tb.status = 'closed') THEN 'sent' ELSE "state" END`},
			{Name: "our_number", Type: Int, Filterable: true},
			{Name: "nosso_numero", Type: String, Filterable: true},
			{Name: "nosso_numero_digit", Type: String, Filterable: true},
			{Name: "document_number", Type: String, Filterable: true},
			{Name: "amount", Type: Decimal, Precision: 14, Scale: 2, Filterable: true},
			{Name: "due_date", Type: Date, Filterable: true},
			{Name: "fine_percent", Type: Decimal, Precision: 5, Scale: 2, Filterable: true},
			{Name: "interest_per_day", Type: Decimal, Precision: 14, Scale: 2, Filterable: true},
			{Name: "interest_monthly_percent", Type: Decimal, Precision: 5, Scale: 2, Filterable: true},
			{Name: "discount", Type: Decimal, Precision: 14, Scale: 2, Filterable: true},
			{Name: "discount_until", Type: Date, Filterable: true},
			{Name: "reverted_at", Type: DateTime, Filterable: true},
			// the batch whose file asked the bank to drop the title
			{Name: "drop_batch_id", Type: Int, Filterable: true},
		}, timestampColumns()),
		Relations: []Relation{
			{Name: "invoice", Kind: BelongsTo, Resource: Invoices, Key: "invoice_id"},
			{Name: "batch", Kind: BelongsTo, Resource: TicketBatches, Key: "batch_id"},
		},
	}
}

// TitlePayer is a title's payer as the remittance carries it: the
// address in one line.
type TitlePayer struct {
	Name, Document, Address, District, City, State, ZIP string
}

// TicketPayer is an invoice's payer as the persons table has it.
type TicketPayer struct {
	Name, TaxID                                            string
	Street, Number, Complement, District, City, State, ZIP string
}

// TicketCandidate is an invoice asked to be added to a collection batch,
// as read (and locked) for the checks: found or not, its state, the
// batch it is in (0: none), its terms and its payer.
type TicketCandidate struct {
	Invoice   finance.Invoice // with its lines when its late fee has an item base
	Found     bool
	Status    string
	InBatch   int64
	ID2       string
	Payer     TicketPayer
	Barcode   string // the invoice's ticket_barcode and ticket_digitable before
	Digitable string
	// Ownerless is why a line of the invoice could never be posted for
	// want of an owner (finance.LineOwnerProblem, named as the invoice's
	// writes name it); "" when none.
	Ownerless string
}

// ReadTicketCandidates reads the invoices of ids (of the company only) and
// locks them (FOR NO KEY UPDATE, in id order) for the rest of tx, so that
// a payment or an edit cannot slip between the checks and the add. The
// answer has one candidate per id, in the order of ids; an id of another
// company, or of none, is not Found.
func ReadTicketCandidates(ctx context.Context, tx pgx.Tx, companyID int64, ids []int64) ([]TicketCandidate, error) {
	rows, err := tx.Query(ctx, `
		SELECT i.id, i.paid, i.status, i.billing_method, i.account_id, i.total, i.date, i.due_date, coalesce(i.id2, ''),
		       i.ticket_late_fee, coalesce(i.ticket_late_fee_item_id, 0), coalesce(i.ticket_late_fee_percentage, 0),
		       coalesce(i.ticket_late_fee_interest, 0), i.ticket_discount, coalesce(i.ticket_discount_mode, ''),
		       coalesce(i.ticket_discount_fixed, 0), coalesce(i.ticket_discount_percentage, 0),
		       coalesce(i.ticket_discount_days, 0), coalesce(i.ticket_barcode, ''), coalesce(i.ticket_digitable, ''),
		       p.name, coalesce(p.tax_id, ''), coalesce(p.street, ''), coalesce(p.number, ''), coalesce(p.complement, ''),
		       coalesce(p.district, ''), coalesce(p.city, ''), coalesce(p.state, ''), coalesce(p.zip_code, ''),
		       coalesce((SELECT m.batch_id FROM ticket_batch_invoices m WHERE m.company_id = i.company_id
		                 AND m.invoice_id = i.id AND m.state = 'added'), 0)
		FROM invoices i JOIN persons p ON p.company_id = i.company_id AND p.id = i.payer_id
		WHERE i.company_id = $1 AND i.id = any($2)
		ORDER BY i.id
		FOR NO KEY UPDATE OF i`, companyID, ids)
	if err != nil {
		return nil, translate(err, "invoices for a batch")
	}
	found := make(map[int64]TicketCandidate, len(ids))
	var withBase []int64
	for rows.Next() {
		c := TicketCandidate{Found: true}
		inv := &c.Invoice
		var mode string
		if err := rows.Scan(&inv.ID, &inv.Paid, &c.Status, &inv.BillingMethod, &inv.AccountID, &inv.Total, &inv.Date,
			&inv.DueDate, &c.ID2, &inv.TicketLateFee, &inv.TicketLateFeeItemID, &inv.TicketLateFeePercentage,
			&inv.TicketLateFeeInterest, &inv.TicketDiscount, &mode, &inv.TicketDiscountFixed,
			&inv.TicketDiscountPercentage, &inv.TicketDiscountDays, &c.Barcode, &c.Digitable,
			&c.Payer.Name, &c.Payer.TaxID, &c.Payer.Street, &c.Payer.Number, &c.Payer.Complement,
			&c.Payer.District, &c.Payer.City, &c.Payer.State, &c.Payer.ZIP, &c.InBatch); err != nil {
			rows.Close()
			return nil, translate(err, "invoices for a batch")
		}
		inv.TicketDiscountMode = finance.DiscountMode(mode)
		if inv.TicketLateFeeItemID != 0 {
			withBase = append(withBase, inv.ID)
		}
		found[inv.ID] = c
	}
	if err := rows.Err(); err != nil {
		return nil, translate(err, "invoices for a batch")
	}
	if err := readBaseLines(ctx, tx, companyID, withBase, found); err != nil {
		return nil, err
	}
	if err := readOwnerless(ctx, tx, companyID, ids, found); err != nil {
		return nil, err
	}
	out := make([]TicketCandidate, len(ids))
	for i, id := range ids {
		c, ok := found[id]
		if !ok {
			c.Invoice.ID = id
		}
		out[i] = c
	}
	return out, nil
}

// readBaseLines reads the client lines of the invoices whose late fee is
// computed on an item's lines, into their candidates.
func readBaseLines(ctx context.Context, tx pgx.Tx, companyID int64, ids []int64, into map[int64]TicketCandidate) error {
	if len(ids) == 0 {
		return nil
	}
	rows, err := tx.Query(ctx, `SELECT invoice_id, item_id, amount FROM invoice_items
		WHERE company_id = $1 AND invoice_id = any($2) AND kind = 'line' ORDER BY invoice_id, id`, companyID, ids)
	if err != nil {
		return translate(err, "lines of invoices for a batch")
	}
	defer rows.Close()
	for rows.Next() {
		var invoiceID int64
		l := finance.InvoiceItem{Kind: finance.LineLine}
		if err := rows.Scan(&invoiceID, &l.ItemID, &l.Amount); err != nil {
			return translate(err, "lines of invoices for a batch")
		}
		c := into[invoiceID]
		c.Invoice.Items = append(c.Invoice.Items, l)
		into[invoiceID] = c
	}
	return translate(rows.Err(), "lines of invoices for a batch")
}

// readOwnerless notes, on the candidates, the first line of each whose
// owner side could never be booked (finance.LineOwnerProblem, the rule of
// the invoice's writes and of its payment): lines booked to `owner` that
// name no owner, read with their place among the invoice's lines and the
// invoice's building (its own, else its contract's), whose owners are then
// read for all of them at once.
func readOwnerless(ctx context.Context, tx pgx.Tx, companyID int64, ids []int64, into map[int64]TicketCandidate) error {
	rows, err := tx.Query(ctx, `
		SELECT l.invoice_id, l.n, ti.id, coalesce(ti.debit, ''), coalesce(ti.credit, ''),
		       coalesce(i.building_id, c.building_id, 0)
		FROM (SELECT invoice_id, item_id, owner_id, row_number() OVER (PARTITION BY invoice_id ORDER BY id) - 1 AS n
		      FROM invoice_items WHERE company_id = $1 AND invoice_id = any($2) AND kind = 'line') l
		JOIN invoices i ON i.company_id = $1 AND i.id = l.invoice_id
		LEFT JOIN contracts c ON c.company_id = i.company_id AND c.id = i.contract_id
		JOIN transaction_items ti ON ti.company_id = $1 AND ti.id = l.item_id
		WHERE l.owner_id IS NULL AND 'owner' IN (ti.debit, ti.credit)
		ORDER BY l.invoice_id, l.n`, companyID, ids)
	if err != nil {
		return translate(err, "owner lines of invoices for a batch")
	}
	type line struct {
		invoiceID, n, buildingID int64
		item                     finance.TransactionItem
	}
	lines, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (line, error) {
		var l line
		var debit, credit string
		err := row.Scan(&l.invoiceID, &l.n, &l.item.ID, &debit, &credit, &l.buildingID)
		l.item.Debit, l.item.Credit = finance.Party(debit), finance.Party(credit)
		return l, err
	})
	if err != nil || len(lines) == 0 {
		return translate(err, "owner lines of invoices for a batch")
	}
	buildings := make([]int64, 0, len(lines))
	for _, l := range lines {
		buildings = append(buildings, l.buildingID)
	}
	owners, err := buildingsOwners(ctx, tx, companyID, buildings)
	if err != nil {
		return translate(err, "owners of invoices for a batch")
	}
	for _, l := range lines {
		c := into[l.invoiceID]
		msg := finance.LineOwnerProblem(l.item, 0, finance.Parties{BuildingID: l.buildingID, Owners: owners[l.buildingID]})
		if c.Ownerless == "" && msg != "" {
			c.Ownerless = fmt.Sprintf("items.%d.owner_id: %s", l.n, msg)
			into[l.invoiceID] = c
		}
	}
	return nil
}

// PeekNossoNumero reads the next sequence of the account's nosso número
// counter, without taking it: for checks only. An account of an agreement
// (accounts.numbering) reads its agreement's counter.
func PeekNossoNumero(ctx context.Context, q DBTX, companyID, accountID int64) (int64, error) {
	var next int64
	err := q.QueryRow(ctx, `SELECT greatest(a.next_nosso_numero, coalesce(c.next_nosso_numero, 0)) FROM accounts a
		LEFT JOIN nosso_numero_counters c ON c.company_id = a.company_id AND c.numbering = a.numbering
		WHERE a.company_id = $1 AND a.id = $2`, companyID, accountID).Scan(&next)
	return next, translate(err, fmt.Sprintf("nosso número of account %d", accountID))
}

// TakeNossoNumeros allocates n consecutive sequences of the account's
// nosso número counter and returns the first. The counter is its
// agreement's (accounts.numbering: the accounts of one bank, agency,
// account, wallet, covenant and station share it, as the bank knows a title by its
// number alone), taken in one upsert of the agreement's row, whose lock
// is held until tx ends: two batches of its accounts adding at once never
// get the same number, and a number once taken is never given again (the
// counter only grows). Every account of the agreement then shows the
// next number; when the account left the agreement meanwhile (an update
// of its agency, wallet ...), nothing is taken: a Conflict, to retry.
// An account without an agreement (no bank, or neither an account number
// nor a covenant) keeps its own counter.
func TakeNossoNumeros(ctx context.Context, tx pgx.Tx, companyID, accountID, n int64) (int64, error) {
	what := fmt.Sprintf("nosso número of account %d", accountID)
	var numbering *string
	if err := tx.QueryRow(ctx, `SELECT numbering FROM accounts WHERE company_id = $1 AND id = $2`,
		companyID, accountID).Scan(&numbering); err != nil {
		return 0, translate(err, what)
	}
	var first int64
	if numbering == nil {
		err := tx.QueryRow(ctx, `UPDATE accounts SET next_nosso_numero = next_nosso_numero + $3, updated_at = now()
			WHERE company_id = $1 AND id = $2 RETURNING next_nosso_numero - $3`, companyID, accountID, n).Scan(&first)
		return first, translate(err, what)
	}
	err := tx.QueryRow(ctx, `INSERT INTO nosso_numero_counters AS c (company_id, numbering, next_nosso_numero)
		SELECT $1, $2, coalesce(max(next_nosso_numero), 1) + $3 FROM accounts WHERE company_id = $1 AND numbering = $2
		ON CONFLICT (company_id, numbering) DO UPDATE
		SET next_nosso_numero = greatest(c.next_nosso_numero, excluded.next_nosso_numero - $3) + $3, updated_at = now()
		RETURNING next_nosso_numero - $3`, companyID, *numbering, n).Scan(&first)
	if err != nil {
		return 0, translate(err, what)
	}
	rows, err := tx.Query(ctx, `UPDATE accounts SET next_nosso_numero = $3, updated_at = now()
		WHERE company_id = $1 AND numbering = $2 RETURNING id`, companyID, *numbering, first+n)
	if err != nil {
		return 0, translate(err, what)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return 0, translate(err, what)
	}
	if !slices.Contains(ids, accountID) {
		return 0, finance.Errorf(finance.Conflict, "account %d changed its bank agreement while its titles were numbered: try again", accountID)
	}
	return first, nil
}

// TicketMember is an invoice to add to a batch with its title: the
// sequence given to the bank's rule, the nosso número as the slip prints
// it (number and check digit), the barcode and digitable line, and the
// amount, due date, terms, document number and payer the bank gets.
type TicketMember struct {
	InvoiceID              int64
	Document               string
	Payer                  TitlePayer
	OurNumber              int64
	NossoNumero, Digit     string
	Barcode, Digitable     string
	Amount                 decimal.Decimal
	Due                    finance.Date
	FinePercent            decimal.Decimal
	InterestPerDay         decimal.Decimal
	InterestMonthlyPercent decimal.Decimal
	Discount               decimal.Decimal
	DiscountUntil          finance.Date // zero: no discount
	// PreviousBarcode and PreviousDigitable are the invoice's before, for
	// its history.
	PreviousBarcode, PreviousDigitable string
}

// InsertTicketMembers adds members to a locked open batch: their rows (an
// invoice already in a batch, added there meanwhile, is left out and
// returned in lost), the slips on the invoices with a history row each,
// and the batch's count and total.
func InsertTicketMembers(ctx context.Context, tx pgx.Tx, b *Batch, actor Actor, members []TicketMember) (lost []int64, err error) {
	if len(members) == 0 {
		return nil, nil
	}
	n := len(members)
	invoices, ours := make([]int64, n), make([]int64, n)
	numbers, digits, amounts, fines, perDay, monthly, discounts := make([]string, n), make([]string, n),
		make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	dues, until := make([]finance.Date, n), make([]*finance.Date, n)
	docs, names, payerDocs, addresses, districts, cities, states, zips := make([]string, n), make([]string, n),
		make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	for i, m := range members {
		invoices[i], ours[i], numbers[i], digits[i] = m.InvoiceID, m.OurNumber, m.NossoNumero, m.Digit
		amounts[i], fines[i], perDay[i], monthly[i], discounts[i] = m.Amount.String(), m.FinePercent.String(),
			m.InterestPerDay.String(), m.InterestMonthlyPercent.String(), m.Discount.String()
		dues[i] = m.Due
		if !m.DiscountUntil.IsZero() {
			d := m.DiscountUntil
			until[i] = &d
		}
		p := &m.Payer
		docs[i], names[i], payerDocs[i], addresses[i] = m.Document, p.Name, p.Document, p.Address
		districts[i], cities[i], states[i], zips[i] = p.District, p.City, p.State, p.ZIP
	}
	rows, err := tx.Query(ctx, `
		INSERT INTO ticket_batch_invoices (company_id, batch_id, invoice_id, account_id, our_number, nosso_numero,
		    nosso_numero_digit, amount, due_date, fine_percent, interest_per_day, interest_monthly_percent,
		    discount, discount_until, document_number, payer_name, payer_document, payer_address, payer_district,
		    payer_city, payer_state, payer_zip)
		SELECT $1, $2, u.invoice_id, $3, u.our_number, u.nosso_numero, u.digit, u.amount::numeric, u.due_date,
		    u.fine::numeric, u.per_day::numeric, u.monthly::numeric, u.discount::numeric, u.until,
		    u.doc, u.name, u.payer_doc, u.address, u.district, u.city, u.state, u.zip
		FROM unnest($4::bigint[], $5::bigint[], $6::text[], $7::text[], $8::text[], $9::date[], $10::text[],
		            $11::text[], $12::text[], $13::text[], $14::date[], $15::text[], $16::text[], $17::text[],
		            $18::text[], $19::text[], $20::text[], $21::text[], $22::text[])
		  AS u(invoice_id, our_number, nosso_numero, digit, amount, due_date, fine, per_day, monthly, discount, until,
		       doc, name, payer_doc, address, district, city, state, zip)
		ON CONFLICT (company_id, invoice_id) WHERE state = 'added' DO NOTHING
		RETURNING invoice_id`,
		b.CompanyID, b.ID, b.AccountID, invoices, ours, numbers, digits, amounts, dues, fines, perDay, monthly, discounts, until,
		docs, names, payerDocs, addresses, districts, cities, states, zips)
	if err != nil {
		return nil, translate(err, fmt.Sprintf("add to ticket batch %d", b.ID))
	}
	added, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, translate(err, fmt.Sprintf("add to ticket batch %d", b.ID))
	}
	inserted := make(map[int64]bool, len(added))
	for _, id := range added {
		inserted[id] = true
	}
	var kept []TicketMember
	total := decimal.Zero
	for _, m := range members {
		if !inserted[m.InvoiceID] {
			lost = append(lost, m.InvoiceID)
			continue
		}
		kept = append(kept, m)
		total = total.Add(m.Amount)
	}
	if err := setTicketSlips(ctx, tx, b, actor, kept); err != nil {
		return nil, err
	}
	return lost, CountMembers(ctx, tx, b, int64(len(kept)), total)
}

// setTicketSlips writes the members' slips on their invoices (the slip is
// not registered yet) with a history row and an invoice.updated event
// each.
func setTicketSlips(ctx context.Context, tx pgx.Tx, b *Batch, actor Actor, members []TicketMember) error {
	n := len(members)
	if n == 0 {
		return nil
	}
	ids, barcodes, lines := make([]int64, n), make([]string, n), make([]string, n)
	hist := make([]historyRow, n)
	for i, m := range members {
		ids[i], barcodes[i], lines[i] = m.InvoiceID, m.Barcode, m.Digitable
		hist[i] = historyRow{invoiceID: m.InvoiceID, changes: slipChanges(m.PreviousBarcode, m.Barcode, m.PreviousDigitable, m.Digitable),
			note: fmt.Sprintf("added to collection batch %d, nosso número %s", b.ID, printedNumber(m.NossoNumero, m.Digit))}
	}
	_, err := execEmitting(ctx, tx, b.CompanyID, EventInvoiceUpdated, Invoices, `UPDATE invoices i
		SET ticket_barcode = u.barcode, ticket_digitable = u.line, ticket_registered = false, updated_at = now()
		FROM unnest($2::bigint[], $3::text[], $4::text[]) AS u(id, barcode, line)
		WHERE i.company_id = $1 AND i.id = u.id`, "i.id", b.CompanyID, ids, barcodes, lines)
	if err != nil {
		return translate(err, fmt.Sprintf("slips of ticket batch %d", b.ID))
	}
	return writeHistories(ctx, tx, b.CompanyID, actor, OriginTicketBatch, hist)
}

// printedNumber is a nosso número with its check digit after a hyphen.
func printedNumber(number, digit string) string {
	if digit == "" {
		return number
	}
	return number + "-" + digit
}

// slipChanges are the history changes of an invoice's slip.
func slipChanges(fromBarcode, toBarcode, fromLine, toLine string) []FieldChange {
	var out []FieldChange
	if fromBarcode != toBarcode {
		out = append(out, FieldChange{Field: "ticket_barcode", From: orNil(fromBarcode), To: orNil(toBarcode)})
	}
	if fromLine != toLine {
		out = append(out, FieldChange{Field: "ticket_digitable", From: orNil(fromLine), To: orNil(toLine)})
	}
	return out
}

// orNil is s, or nil (JSON null) when empty.
func orNil(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// lockTicketMembers reads the members of a batch among ids (all of them
// when ids is nil) with their invoices, locking both.
func lockTicketMembers(ctx context.Context, tx pgx.Tx, b *Batch, ids []int64) (map[int64]batchMember, error) {
	rows, err := tx.Query(ctx, `
		SELECT m.invoice_id, m.state, m.amount, coalesce(i.ticket_barcode, ''), coalesce(i.ticket_digitable, ''), i.paid
		FROM ticket_batch_invoices m JOIN invoices i ON i.company_id = m.company_id AND i.id = m.invoice_id
		WHERE m.company_id = $1 AND m.batch_id = $2 AND ($3::bigint[] IS NULL OR m.invoice_id = any($3))
		ORDER BY m.invoice_id
		FOR NO KEY UPDATE`, b.CompanyID, b.ID, ids)
	if err != nil {
		return nil, translate(err, fmt.Sprintf("members of ticket batch %d", b.ID))
	}
	out := map[int64]batchMember{}
	for rows.Next() {
		var r batchMember
		if err := rows.Scan(&r.recordID, &r.state, &r.amount, &r.barcode, &r.digitable, &r.paid); err != nil {
			rows.Close()
			return nil, translate(err, fmt.Sprintf("members of ticket batch %d", b.ID))
		}
		out[r.recordID] = r
	}
	return out, translate(rows.Err(), fmt.Sprintf("members of ticket batch %d", b.ID))
}

// takeOutTickets writes that invoices leave a locked batch. Removed from
// an open batch, their rows go (their nosso números are not given again).
// Reverted in a batch whose file is written, they go back to unsent
// (state reverted, their slips no longer registered; they may be added to
// another batch, with a new nosso número), and the bank still holds the
// titles until it drops them (docs/api.md: the request to drop them).
// Either way their slips are cleared, with a history row each (its note
// ending with because, in parentheses, when given) and, on the batch's own
// request (because empty), an invoice.updated event each; taken out by
// another write (an agreement's end), the invoice's event is that write's.
func takeOutTickets(ctx context.Context, tx pgx.Tx, b *Batch, op MemberOp, actor Actor, members []batchMember, because string) error {
	ids := make([]int64, len(members))
	hist := make([]historyRow, len(members))
	for i, m := range members {
		ids[i] = m.recordID
		hist[i] = ticketLeaving(b, op, m)
		if because != "" {
			hist[i].note += " (" + because + ")"
		}
	}
	if err := leaveTicketRows(ctx, tx, b, op, ids); err != nil {
		return err
	}
	event := EventInvoiceUpdated
	if because != "" {
		event = "" // the write that takes them out emits their event
	}
	if err := clearSlips(ctx, tx, b.CompanyID, event, ids); err != nil {
		return err
	}
	return writeHistories(ctx, tx, b.CompanyID, actor, OriginTicketBatch, hist)
}

// leaveTicketRows deletes the member rows of the invoices ids (removed) or
// marks them reverted.
func leaveTicketRows(ctx context.Context, tx pgx.Tx, b *Batch, op MemberOp, ids []int64) error {
	if op == OpRemove {
		_, err := tx.Exec(ctx, `DELETE FROM ticket_batch_invoices WHERE company_id = $1 AND batch_id = $2 AND invoice_id = any($3)`,
			b.CompanyID, b.ID, ids)
		return translate(err, fmt.Sprintf("remove from ticket batch %d", b.ID))
	}
	_, err := tx.Exec(ctx, `UPDATE ticket_batch_invoices SET state = 'reverted', reverted_at = now(), updated_at = now()
		WHERE company_id = $1 AND batch_id = $2 AND invoice_id = any($3)`, b.CompanyID, b.ID, ids)
	return translate(err, fmt.Sprintf("revert in ticket batch %d", b.ID))
}

// ticketLeaving is the history row of an invoice leaving a batch: its slip
// cleared, and once reverted no longer registered.
func ticketLeaving(b *Batch, op MemberOp, m batchMember) historyRow {
	changes := slipChanges(m.barcode, "", m.digitable, "")
	if op == OpRemove {
		return historyRow{invoiceID: m.recordID, changes: changes, note: fmt.Sprintf("removed from collection batch %d", b.ID)}
	}
	changes = append(changes, FieldChange{Field: "ticket_registered", To: false})
	return historyRow{invoiceID: m.recordID, changes: changes,
		note: fmt.Sprintf("reverted in collection batch %d: the bank is to drop the title", b.ID)}
}

// clearSlips clears the slips of invoices: no barcode, no digitable line,
// not registered; an invoice without a slip is left as it is. Each one
// cleared emits event, when not "".
func clearSlips(ctx context.Context, tx pgx.Tx, companyID int64, event string, ids []int64) error {
	const clear = `UPDATE invoices SET ticket_barcode = NULL, ticket_digitable = NULL, ticket_registered = false,
		updated_at = now() WHERE company_id = $1 AND id = any($2)
		AND (ticket_barcode IS NOT NULL OR ticket_digitable IS NOT NULL OR ticket_registered)`
	var err error
	if event == "" {
		_, err = tx.Exec(ctx, clear, companyID, ids)
	} else {
		_, err = execEmitting(ctx, tx, companyID, event, Invoices, clear, "id", companyID, ids)
	}
	return translate(err, "clear slips")
}

// TicketTitle is a member of a batch as its remittance carries it.
type TicketTitle struct {
	InvoiceID              int64
	DocumentNumber         string // the invoice's id2, or its id
	OurNumber              int64
	Amount                 decimal.Decimal
	Due                    finance.Date
	FinePercent            decimal.Decimal
	InterestPerDay         decimal.Decimal
	InterestMonthlyPercent decimal.Decimal
	Discount               decimal.Decimal
	DiscountUntil          finance.Date
	Payer                  TitlePayer
}

// EachTicketTitle reads the titles of a batch's file, its members added,
// in nosso número order, and hands each to fn; reading stops at fn's first
// error. One row is in memory at a time (fn may keep the title's texts,
// not the title). A title is read from its member row alone, as it was
// fixed when added, through rawRows (amounts as numeric sends them, read
// in cents): Scan's cost was a fifth of reading 100,000 titles.
func EachTicketTitle(ctx context.Context, tx pgx.Tx, b *Batch, fn func(*TicketTitle) error) error {
	what := fmt.Sprintf("titles of ticket batch %d", b.ID)
	var t TicketTitle
	return eachRawRow(ctx, tx, what, `
		SELECT invoice_id, document_number, our_number, amount, due_date, fine_percent, interest_per_day,
		       interest_monthly_percent, discount, discount_until, payer_name, payer_document, payer_address,
		       payer_district, payer_city, payer_state, payer_zip
		FROM ticket_batch_invoices
		WHERE company_id = $1 AND batch_id = $2 AND state = 'added'
		ORDER BY our_number`, []any{b.CompanyID, b.ID}, func(r *rawRows) error {
		t.InvoiceID, t.DocumentNumber, t.OurNumber = r.Int64(0), r.Text(1), r.Int64(2)
		t.Amount, t.Due, t.FinePercent = cents(r.Cents(3)), r.Date(4), cents(r.Cents(5))
		t.InterestPerDay, t.InterestMonthlyPercent, t.Discount = cents(r.Cents(6)), cents(r.Cents(7)), cents(r.Cents(8))
		t.DiscountUntil = r.Date(9)
		t.Payer = TitlePayer{Name: r.Text(10), Document: r.Text(11), Address: r.Text(12), District: r.Text(13),
			City: r.Text(14), State: r.Text(15), ZIP: r.Text(16)}
		if r.Err() != nil {
			return fmt.Errorf("%s: invoice %d: %w", what, t.InvoiceID, r.Err())
		}
		return fn(&t)
	})
}
