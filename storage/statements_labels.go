package storage

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/finance/statement"
)

// What a statement line of an invoice's payment says of the invoice
// (docs/api.md, "/financial/ownerStatements"): after the entry's
// description, the invoice and the month it bills (its period's first
// day, else its due date), and the part when the payment was one of
// several that stood together: " — fatura 12, 03/2024" or " — fatura 12,
// 03/2024, parte 2". The entries the payment of an invoice posted (its
// lines, late fee and interest, the administration fee) are keyed
// invoice-{id}-payment-{n}, their reversals the same and -chargeback; a
// payment made again after the one before it was undone is the invoice's
// payment, not a part of it. A transfer's and a guarantee's entries say
// the invoice's description already and are left as they are. The labels
// are read for a close's invoices in one statement after its entries, so
// that the entries' statement, planned at every close, stays as cheap to
// plan as it was.

// paymentSplit is the key of a payment's entries, or of their reversals.
var paymentSplit = regexp.MustCompile(`^invoice-[0-9]+-payment-([0-9]+)(-chargeback)?$`)

// entryRef is an entry of a close: its owner's month, which of its lists
// (the month's entries or the late ones) and its place in it.
type entryRef struct {
	month *ownerMonth
	late  bool
	i     int
}

func (r entryRef) entry() *statement.Entry {
	if r.late {
		return &r.month.in.Late[r.i]
	}
	return &r.month.in.Entries[r.i]
}

// invoiceLabels gathers the entries of a close that name their invoice,
// and each one's part.
type invoiceLabels struct {
	refs     []entryRef
	parts    []int
	invoices []int64
}

// add takes the entry e (at ref) when the payment of its invoice posted it
// or it reverses one: a line of an invoice's payment (mode invoice), or a
// chargeback keyed as a payment's reversal.
func (l *invoiceLabels) add(ref entryRef, e statement.Entry, split string) {
	if e.InvoiceID == 0 {
		return
	}
	m := paymentSplit.FindStringSubmatch(split)
	switch {
	case e.Mode == finance.ModeInvoice:
	case e.Mode == finance.ModeChargeback && m != nil && m[2] != "":
	default:
		return
	}
	part := 0
	if m != nil {
		part, _ = strconv.Atoi(m[1])
	}
	l.refs, l.parts = append(l.refs, ref), append(l.parts, part)
	if !slices.Contains(l.invoices, e.InvoiceID) {
		l.invoices = append(l.invoices, e.InvoiceID)
	}
}

// invoiceLabelsSQL reads, for the invoices $2 of company $1, the number
// the lines name (id2, else the id), the month billed and the parts that
// stood beside another part at some moment (neither undone before the
// other was paid). The ids' unnest ends with a limit of their number, so
// the generic plan counts one invoice and is kept (as openingsSQL's).
const invoiceLabelsSQL = `
SELECT i.id, coalesce(nullif(i.id2, ''), i.id::text), to_char(coalesce(i.period_initial, i.due_date), 'MM/YYYY'),
       coalesce((SELECT array_agg(me.n) FROM invoice_payments me
                 WHERE me.company_id = i.company_id AND me.invoice_id = i.id AND EXISTS (
                     SELECT 1 FROM invoice_payments o
                     WHERE o.company_id = me.company_id AND o.invoice_id = me.invoice_id AND o.n <> me.n
                       AND (o.undone_at IS NULL OR o.undone_at > me.created_at)
                       AND (me.undone_at IS NULL OR me.undone_at > o.created_at))), '{}')
FROM (SELECT * FROM unnest($2::bigint[]) AS u (id) LIMIT cardinality($2::bigint[])) k
JOIN invoices i ON i.company_id = $1 AND i.id = k.id`

// write appends each gathered entry's label to its description.
func (l *invoiceLabels) write(ctx context.Context, tx pgx.Tx, companyID int64) error {
	if len(l.refs) == 0 {
		return nil
	}
	type label struct {
		text  string
		parts []int32
	}
	byInvoice := make(map[int64]label, len(l.invoices))
	rows, err := tx.Query(ctx, invoiceLabelsSQL, companyID, l.invoices)
	if err != nil {
		return translate(err, "owner statement invoices")
	}
	var id int64
	var number, month string
	var parts []int32
	_, err = pgx.ForEachRow(rows, []any{&id, &number, &month, &parts}, func() error {
		byInvoice[id] = label{text: fmt.Sprintf(" — fatura %s, %s", number, month), parts: slices.Clone(parts)}
		return nil
	})
	if err != nil {
		return translate(err, "owner statement invoices")
	}
	for k, ref := range l.refs {
		e := ref.entry()
		lb, ok := byInvoice[e.InvoiceID]
		if !ok {
			continue
		}
		e.Description += lb.text
		if n := l.parts[k]; n > 0 && slices.Contains(lb.parts, int32(n)) {
			e.Description += fmt.Sprintf(", parte %d", n)
		}
	}
	return nil
}
