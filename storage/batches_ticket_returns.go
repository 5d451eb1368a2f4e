package storage

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// The reading of a bank's collection return file (docs/ledger.md): the
// titles its numbers name, and what it says of them (registered, rejected,
// written off), written set-based with a history row on each invoice.

// TicketMatch is a title a return file's number names: the member, its
// invoice and account, its state in its batch, whether the invoice is
// registered, and the batch whose file asked the bank to drop it (0:
// none).
type TicketMatch struct {
	MemberID   int64
	BatchID    int64
	InvoiceID  int64
	AccountID  int64
	State      string
	Digit      string
	Registered bool
	DropBatch  int64
}

// MatchTickets finds the titles of the company's accounts (among
// accounts) whose nosso número is one of numbers, leading zeros aside,
// in batches whose file is written (a title never sent has no return),
// with their state there (added reads sent). The answer maps each number
// as given to its titles: none, one, or several (on several accounts).
// Each number is looked up on its own through the nosso número index
// (the LATERAL subquery, kept apart by OFFSET 0): a plan made with
// statistics taken before a batch's members were added (1 row) hashed
// every member of the accounts and read each one's invoice, in every
// chunk of a return file: 0.09 s a chunk for 20,000 members, growing with
// the batch.
func MatchTickets(ctx context.Context, tx pgx.Tx, companyID int64, accounts []int64, numbers []string) (map[string][]TicketMatch, error) {
	rows, err := tx.Query(ctx, `
		SELECT n.number, t.id, t.batch_id, t.invoice_id, t.account_id,
		       CASE t.state WHEN 'added' THEN 'sent' ELSE t.state END, t.nosso_numero_digit, t.ticket_registered,
		       coalesce(t.drop_batch_id, 0)
		FROM unnest($3::text[]) AS n(number)
		CROSS JOIN LATERAL (
		    SELECT m.id, m.batch_id, m.invoice_id, m.account_id, m.state, m.nosso_numero_digit, i.ticket_registered, m.drop_batch_id
		    FROM ticket_batch_invoices m
		    JOIN ticket_batches b ON b.company_id = m.company_id AND b.id = m.batch_id AND b.status = 'closed'
		    JOIN invoices i ON i.company_id = m.company_id AND i.id = m.invoice_id
		    WHERE m.company_id = $1 AND m.account_id = any($2) AND ltrim(m.nosso_numero, '0') = ltrim(n.number, '0')
		    OFFSET 0) t
		ORDER BY t.id`, withValues, companyID, accounts, numbers)
	if err != nil {
		return nil, translate(err, "titles of a return file")
	}
	defer rows.Close()
	out := make(map[string][]TicketMatch, len(numbers))
	for rows.Next() {
		var number string
		var m TicketMatch
		if err := rows.Scan(&number, &m.MemberID, &m.BatchID, &m.InvoiceID, &m.AccountID, &m.State, &m.Digit, &m.Registered,
			&m.DropBatch); err != nil {
			return nil, translate(err, "titles of a return file")
		}
		out[number] = append(out[number], m)
	}
	return out, translate(rows.Err(), "titles of a return file")
}

// LockInvoices locks invoices of the company (FOR UPDATE, in id order)
// for the rest of tx: a part of a return file that changes several takes
// their locks at once, in the order every such part takes them, so that
// two parts in flight together never wait on each other in a cycle.
func LockInvoices(ctx context.Context, tx pgx.Tx, companyID int64, ids []int64) error {
	_, err := tx.Exec(ctx, `SELECT 1 FROM invoices WHERE company_id = $1 AND id = any($2) ORDER BY id FOR UPDATE`,
		withValues, companyID, ids)
	return translate(err, "lock invoices")
}

// TicketEvent is what a return file says of one title that changes it:
// registered (the bank confirmed the entry, on At), rejected (the bank
// refused the entry, for Reasons), or written off (the bank dropped it).
type TicketEvent struct {
	Match   TicketMatch
	Kind    string // TicketRegistered, TicketRejected, TicketWrittenOff
	At      time.Time
	Reasons string // the bank's code, description and reasons, for people
}

// The kinds of TicketEvent.
const (
	TicketRegistered = "registered"
	TicketRejected   = "rejected"
	TicketWrittenOff = "written_off"
)

// ApplyTicketEvents writes what a return file says of titles, set-based,
// with a history row on each invoice (actor: the return file's job) and
// an invoice.updated event on each invoice it changes (one the file finds
// as it says already, a file read twice, is neither written nor emitted):
//   - registered: ticket_registered and ticket_date on the invoice;
//   - rejected: the title leaves its batch (state rejected), the
//     invoice's slip is cleared and its ticket_info says why, so that it
//     may be added again;
//   - written off: the title leaves its batch (state written_off) and the
//     invoice's slip is cleared; an unpaid invoice may be added again.
func ApplyTicketEvents(ctx context.Context, tx pgx.Tx, companyID int64, actor Actor, events []TicketEvent) error {
	var reg, rej, off []TicketEvent
	for _, e := range events {
		switch e.Kind {
		case TicketRegistered:
			reg = append(reg, e)
		case TicketRejected:
			rej = append(rej, e)
		case TicketWrittenOff:
			off = append(off, e)
		}
	}
	if err := registerTickets(ctx, tx, companyID, actor, reg); err != nil {
		return err
	}
	if err := dropTickets(ctx, tx, companyID, actor, "rejected", rej); err != nil {
		return err
	}
	return dropTickets(ctx, tx, companyID, actor, "written_off", off)
}

func registerTickets(ctx context.Context, tx pgx.Tx, companyID int64, actor Actor, events []TicketEvent) error {
	if len(events) == 0 {
		return nil
	}
	ids, ats := make([]int64, len(events)), make([]time.Time, len(events))
	hist := make([]historyRow, len(events))
	for i, e := range events {
		ids[i], ats[i] = e.Match.InvoiceID, e.At
		hist[i] = historyRow{invoiceID: e.Match.InvoiceID, note: e.Reasons,
			changes: []FieldChange{{Field: "ticket_registered", From: false, To: true}}}
	}
	_, err := execEmitting(ctx, tx, companyID, EventInvoiceUpdated, Invoices, `UPDATE invoices i
		SET ticket_registered = true, ticket_date = u.at, updated_at = now()
		FROM unnest($2::bigint[], $3::timestamptz[]) AS u(id, at)
		WHERE i.company_id = $1 AND i.id = u.id
		  AND (NOT i.ticket_registered OR i.ticket_date IS DISTINCT FROM u.at)`, "i.id", companyID, ids, ats)
	if err != nil {
		return translate(err, "register titles")
	}
	return writeHistories(ctx, tx, companyID, actor, OriginReturnFile, hist)
}

// dropTickets moves titles out of their batches (state) and clears their
// invoices' slips, noting the bank's words in ticket_info.
func dropTickets(ctx context.Context, tx pgx.Tx, companyID int64, actor Actor, state string, events []TicketEvent) error {
	if len(events) == 0 {
		return nil
	}
	members, ids, infos := make([]int64, len(events)), make([]int64, len(events)), make([]string, len(events))
	hist := make([]historyRow, len(events))
	for i, e := range events {
		members[i], ids[i], infos[i] = e.Match.MemberID, e.Match.InvoiceID, e.Reasons
		hist[i] = historyRow{invoiceID: e.Match.InvoiceID, note: e.Reasons, changes: []FieldChange{
			{Field: "ticket_registered", From: e.Match.Registered, To: false},
			{Field: "ticket_info", To: e.Reasons}}}
	}
	_, err := tx.Exec(ctx, `UPDATE ticket_batch_invoices SET state = $3, updated_at = now()
		WHERE company_id = $1 AND id = any($2) AND state IN ('added', 'reverted')`, companyID, members, state)
	if err != nil {
		return translate(err, "titles "+state)
	}
	// an invoice added to another batch since keeps that batch's slip
	_, err = execEmitting(ctx, tx, companyID, EventInvoiceUpdated, Invoices, `UPDATE invoices i
		SET ticket_registered = false, ticket_info = u.info, ticket_barcode = NULL, ticket_digitable = NULL, updated_at = now()
		FROM unnest($2::bigint[], $3::text[]) AS u(id, info)
		WHERE i.company_id = $1 AND i.id = u.id
		  AND (i.ticket_registered OR i.ticket_info IS DISTINCT FROM u.info
		       OR i.ticket_barcode IS NOT NULL OR i.ticket_digitable IS NOT NULL)
		  AND NOT EXISTS (SELECT 1 FROM ticket_batch_invoices m WHERE m.company_id = i.company_id
		                  AND m.invoice_id = i.id AND m.state = 'added')`, "i.id", companyID, ids, infos)
	if err != nil {
		return translate(err, "titles "+state)
	}
	return writeHistories(ctx, tx, companyID, actor, OriginReturnFile, hist)
}
