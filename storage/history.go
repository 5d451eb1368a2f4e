package storage

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Actor kinds of a history row: who or what made the change.
const (
	ActorUser       = "user"        // a request, by the API key's user
	ActorJob        = "job"         // a background job (ID: the job's id)
	ActorReturnFile = "return_file" // a bank return file (ID: its job's id)
	ActorSystem     = "system"      // anything else (a request without a user)
)

// Origins of a history row: the operation that made the change.
const (
	OriginCreate        = "create"
	OriginUpdate        = "update"
	OriginDelete        = "delete"
	OriginPayment       = "payment"
	OriginPaymentUndone = "payment_undone"
	OriginPixCode       = "pix_code"
)

// Actor is who or what changed a record: a Kind above, and the id of the
// user or job (0: none).
type Actor struct {
	Kind string
	ID   int64
}

// ActorOf is the actor of a storage call: the scope's user, or the system
// when no user acts.
func ActorOf(sc Scope) Actor {
	if sc.UserID != 0 {
		return Actor{Kind: ActorUser, ID: sc.UserID}
	}
	return Actor{Kind: ActorSystem}
}

// FieldChange is one changed field of a history row: From and To are the
// values as the API shows them (any value json.Marshal encodes; a
// json.RawMessage as it is), nil for null.
type FieldChange struct {
	Field string `json:"field"`
	From  any    `json:"from"`
	To    any    `json:"to"`
}

// WriteInvoiceHistory records a change of an invoice in tx, so that it is
// committed with the change or not at all: the actor, the origin (one of
// the Origin constants, or another operation's name) and the fields
// changed. The row is kept when the invoice is deleted.
func WriteInvoiceHistory(ctx context.Context, tx pgx.Tx, companyID, invoiceID int64, actor Actor, origin string, changes []FieldChange) error {
	if changes == nil {
		changes = []FieldChange{}
	}
	doc, err := json.Marshal(changes)
	if err != nil {
		return fmt.Errorf("encode history of invoice %d: %w", invoiceID, err)
	}
	var actorID *int64
	if actor.ID != 0 {
		actorID = &actor.ID
	}
	_, err = tx.Exec(ctx, `INSERT INTO invoice_history (company_id, invoice_id, actor, actor_id, origin, changes)
		VALUES ($1, $2, $3, $4, $5, $6::jsonb)`, companyID, invoiceID, actor.Kind, actorID, origin, string(doc))
	if err != nil {
		return fmt.Errorf("write history of invoice %d: %w", invoiceID, err)
	}
	return nil
}

// RecordChanges lists the visible columns whose values differ between two
// records of res (old nil: a create, every column set; new nil: a
// delete, every column cleared), leaving out id, the timestamps and the
// derived columns nothing stores (an _effective default follows the
// fields it is read from, which are listed). The values are as the API
// shows them.
func RecordChanges(res *Resource, old, new *Record) []FieldChange {
	var out []FieldChange
	for _, c := range res.Columns {
		derived := c.Expr != "" && !c.Stored
		if !c.Visible() || derived || c.Name == "id" || c.Name == "created_at" || c.Name == "updated_at" {
			continue
		}
		from, to := recordValue(old, c.Name), recordValue(new, c.Name)
		if SameValue(c.Type, from, to) || (old == nil && isEmptyValue(to)) || (new == nil && isEmptyValue(from)) {
			continue
		}
		out = append(out, FieldChange{Field: c.Name, From: rawValue(c.Type, from), To: rawValue(c.Type, to)})
	}
	return out
}

func recordValue(r *Record, column string) any {
	if r == nil {
		return nil
	}
	v, _ := r.Value(column)
	return v
}

// isEmptyValue: null, or what a column holds when nothing was said of it
// (false, an empty array), which a create or delete need not list.
func isEmptyValue(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case bool:
		return !x
	case []int64:
		return len(x) == 0
	case []any:
		return len(x) == 0
	}
	return false
}

func rawValue(t Type, v any) any {
	if v == nil {
		return nil
	}
	return json.RawMessage(JSONValue(t, v))
}

// historyRow is one invoice's history row of a set-based write.
type historyRow struct {
	invoiceID int64
	changes   []FieldChange
	note      string
}

// writeHistories writes the history rows of many invoices in one
// statement, with one actor and origin.
func writeHistories(ctx context.Context, tx pgx.Tx, companyID int64, actor Actor, origin string, rows []historyRow) error {
	if len(rows) == 0 {
		return nil
	}
	ids, docs, notes := make([]int64, len(rows)), make([]string, len(rows)), make([]string, len(rows))
	for i, r := range rows {
		changes := r.changes
		if changes == nil {
			changes = []FieldChange{}
		}
		doc, err := json.Marshal(changes)
		if err != nil {
			return fmt.Errorf("encode history of invoice %d: %w", r.invoiceID, err)
		}
		ids[i], docs[i], notes[i] = r.invoiceID, string(doc), r.note
	}
	_, err := tx.Exec(ctx, `INSERT INTO invoice_history (company_id, invoice_id, actor, actor_id, origin, changes, note)
		SELECT $1, u.id, $2, $3, $4, u.doc::jsonb, nullif(u.note, '')
		FROM unnest($5::bigint[], $6::text[], $7::text[]) WITH ORDINALITY AS u(id, doc, note, n) ORDER BY u.n`,
		companyID, actor.Kind, nullID(actor.ID), origin, ids, docs, notes)
	if err != nil {
		return translate(err, "invoice history")
	}
	return nil
}
