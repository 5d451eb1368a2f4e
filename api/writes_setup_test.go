package api

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// The write side of the machinery, declared on test-only resources: an
// invoice-like parent with a child collection of lines, hooks around its
// writes and delete options.

// writeResources are the test-only resources of the write machinery.
func writeResources() []*storage.Resource {
	return []*storage.Resource{testCatalogResource(), testInvoiceLinesResource(), testInvoicesResource(),
		testOrderLinesResource(), testOrdersResource()}
}

// testOrdersResource has a child collection whose resource declares hooks
// of its own (test_order_lines).
func testOrdersResource() *storage.Resource {
	return &storage.Resource{
		Name: "test_orders", Table: "test_orders",
		Columns: []storage.Column{
			{Name: "id", Type: storage.Int, Filterable: true},
			{Name: "title", Type: storage.String, Filterable: true, Writable: true, Required: true},
		},
		Children: []storage.Child{{Name: "items", Resource: "test_order_lines", Key: "order_id"}},
	}
}

// testOrderLinesResource is a child resource with hooks: before each write
// of a line a log row records the operation, the line, its old and new
// note; a note "refuse" is refused, and so is the removal of a line noted
// "keep" (both 422 on note); after each write a log row records the line.
func testOrderLinesResource() *storage.Resource {
	return &storage.Resource{
		Name: "test_order_lines", Table: "test_order_lines",
		Columns: []storage.Column{
			{Name: "id", Type: storage.Int, Filterable: true},
			{Name: "order_id", Type: storage.Int, Filterable: true},
			{Name: "note", Type: storage.String, Filterable: true, Writable: true, Required: true},
		},
		Hooks: storage.Hooks{
			Before: []storage.Hook{logLine("before"), refuseLine},
			After:  []storage.Hook{logLine("after")},
		},
	}
}

// logLine writes what a line hook sees: "before update of line 7 under
// order 3: x -> y".
func logLine(when string) storage.Hook {
	return func(ctx context.Context, tx pgx.Tx, c *storage.Change) error {
		note := fmt.Sprintf("%s %s of line %d under order %d: %v -> %v", when, c.Op, c.ID, c.Scope.Parent, c.OldValue("note"), c.Value("note"))
		_, err := tx.Exec(ctx, `INSERT INTO test_order_log (company_id, note) VALUES ($1, $2)`, c.Scope.CompanyID, note)
		return err
	}
}

func refuseLine(_ context.Context, _ pgx.Tx, c *storage.Change) error {
	switch {
	case c.Op != storage.OpDelete && c.Value("note") == "refuse":
		return finance.InvalidInput([]finance.Problem{{Field: "note", Message: "is refused by the line hook"}})
	case c.Op == storage.OpDelete && c.OldValue("note") == "keep":
		return finance.InvalidInput([]finance.Problem{{Field: "note", Message: "a kept line is not removed"}})
	}
	return nil
}

// testCatalogResource is what an invoice line references (item_id).
func testCatalogResource() *storage.Resource {
	return &storage.Resource{
		Name: "test_catalog", Table: "test_catalog",
		Columns: []storage.Column{
			{Name: "id", Type: storage.Int, Filterable: true},
			{Name: "title", Type: storage.String, Filterable: true, Writable: true, Required: true},
		},
	}
}

// testInvoiceLinesResource is the child resource of test_invoices' items.
func testInvoiceLinesResource() *storage.Resource {
	return &storage.Resource{
		Name: "test_invoice_lines", Table: "test_invoice_lines",
		Columns: []storage.Column{
			{Name: "id", Type: storage.Int, Filterable: true},
			{Name: "invoice_id", Type: storage.Int, Filterable: true},
			{Name: "item_id", Type: storage.Int, Filterable: true, Writable: true, Required: true, References: "test_catalog"},
			{Name: "amount", Type: storage.Decimal, Filterable: true, Writable: true, Required: true, Precision: 14, Scale: 2},
			{Name: "description", Type: storage.String, Writable: true},
			{Name: "kind", Type: storage.String, Writable: true, Enum: []string{"rent", "fee"}},
		},
	}
}

// testInvoicesResource declares items, hooks and delete options:
//   - a paid invoice cannot be updated (409), nor deleted without
//     removeLiquidated=true (409);
//   - before an update or delete, a history row records the old title and
//     the delete options seen;
//   - after a create or update, a history row and a job are written, then
//     a title "refuse" is refused (422), rolling all of it back.
func testInvoicesResource() *storage.Resource {
	return &storage.Resource{
		Name: "test_invoices", Table: "test_invoices",
		Columns: []storage.Column{
			{Name: "id", Type: storage.Int, Filterable: true},
			{Name: "title", Type: storage.String, Filterable: true, Writable: true, Required: true},
			{Name: "paid", Type: storage.Bool, Filterable: true, Writable: true},
		},
		Relations: []storage.Relation{
			{Name: "items", Kind: storage.HasMany, Resource: "test_invoice_lines", Key: "invoice_id"},
		},
		Children:      []storage.Child{{Name: "items", Resource: "test_invoice_lines", Key: "invoice_id", Required: true}},
		DeleteOptions: []string{"removeLiquidated", "removeWithFiscalNote"},
		Hooks: storage.Hooks{
			Before: []storage.Hook{refusePaidInvoice, recordOldTitle},
			After:  []storage.Hook{recordWriteAndSubmitJob, refuseTitle},
		},
	}
}

func refusePaidInvoice(_ context.Context, _ pgx.Tx, c *storage.Change) error {
	if c.OldValue("paid") != true {
		return nil
	}
	switch {
	case c.Op == storage.OpUpdate:
		return finance.Errorf(finance.Conflict, "A paid invoice cannot be changed.")
	case c.Op == storage.OpDelete && !c.Options["removeLiquidated"]:
		return finance.Errorf(finance.Conflict, "A paid invoice is deleted only with removeLiquidated.")
	}
	return nil
}

func recordOldTitle(ctx context.Context, tx pgx.Tx, c *storage.Change) error {
	if c.Op == storage.OpCreate {
		return nil
	}
	note := fmt.Sprintf("before %s of %v", c.Op, c.OldValue("title"))
	if c.Op == storage.OpDelete {
		note += fmt.Sprintf(" removeLiquidated=%t removeWithFiscalNote=%t", c.Options["removeLiquidated"], c.Options["removeWithFiscalNote"])
	}
	_, err := tx.Exec(ctx, `INSERT INTO test_invoice_history (company_id, invoice_id, user_id, note) VALUES ($1, $2, $3, $4)`,
		c.Scope.CompanyID, c.ID, c.Scope.UserID, note)
	return err
}

func recordWriteAndSubmitJob(ctx context.Context, tx pgx.Tx, c *storage.Change) error {
	if c.Op == storage.OpDelete {
		return nil
	}
	items, _ := c.Record.Children("items")
	note := fmt.Sprintf("after %s: %v with %d items", c.Op, c.Value("title"), len(items))
	if _, err := tx.Exec(ctx, `INSERT INTO test_invoice_history (company_id, invoice_id, user_id, note) VALUES ($1, $2, $3, $4)`,
		c.Scope.CompanyID, c.ID, c.Scope.UserID, note); err != nil {
		return err
	}
	payload, _ := json.Marshal(map[string]int64{"invoice_id": c.ID})
	_, _, err := storage.SubmitJob(ctx, tx, c.Scope.CompanyID, storage.NewJob{
		Kind: "test:invoice", Queue: "default", Payload: payload, SubmittedBy: "test", UserID: c.Scope.UserID})
	return err
}

func refuseTitle(_ context.Context, _ pgx.Tx, c *storage.Change) error {
	if c.Value("title") == "refuse" {
		return finance.InvalidInput([]finance.Problem{{Field: "title", Message: "is refused by the test"}})
	}
	return nil
}

func createWriteTables(t testing.TB, pool *pgxpool.Pool) {
	t.Helper()
	_, err := pool.Exec(context.Background(), `
	CREATE TABLE test_catalog (
		company_id bigint NOT NULL REFERENCES companies (id),
		id bigint GENERATED BY DEFAULT AS IDENTITY,
		title text NOT NULL,
		created_at timestamptz NOT NULL DEFAULT now(),
		updated_at timestamptz NOT NULL DEFAULT now(),
		PRIMARY KEY (company_id, id));
	CREATE TABLE test_invoices (
		company_id bigint NOT NULL REFERENCES companies (id),
		id bigint GENERATED ALWAYS AS IDENTITY,
		title text NOT NULL,
		paid boolean NOT NULL DEFAULT false,
		created_at timestamptz NOT NULL DEFAULT now(),
		updated_at timestamptz NOT NULL DEFAULT now(),
		PRIMARY KEY (company_id, id));
	CREATE TABLE test_invoice_lines (
		company_id bigint NOT NULL REFERENCES companies (id),
		id bigint GENERATED ALWAYS AS IDENTITY,
		invoice_id bigint NOT NULL,
		item_id bigint NOT NULL,
		amount numeric(14,2) NOT NULL CHECK (amount >= 0),
		description text,
		kind text,
		created_at timestamptz NOT NULL DEFAULT now(),
		updated_at timestamptz NOT NULL DEFAULT now(),
		PRIMARY KEY (company_id, id),
		FOREIGN KEY (company_id, invoice_id) REFERENCES test_invoices (company_id, id),
		FOREIGN KEY (company_id, item_id) REFERENCES test_catalog (company_id, id));
	CREATE TABLE test_orders (
		company_id bigint NOT NULL REFERENCES companies (id),
		id bigint GENERATED ALWAYS AS IDENTITY,
		title text NOT NULL,
		created_at timestamptz NOT NULL DEFAULT now(),
		updated_at timestamptz NOT NULL DEFAULT now(),
		PRIMARY KEY (company_id, id));
	CREATE TABLE test_order_lines (
		company_id bigint NOT NULL REFERENCES companies (id),
		id bigint GENERATED ALWAYS AS IDENTITY,
		order_id bigint NOT NULL,
		note text NOT NULL,
		created_at timestamptz NOT NULL DEFAULT now(),
		updated_at timestamptz NOT NULL DEFAULT now(),
		PRIMARY KEY (company_id, id),
		FOREIGN KEY (company_id, order_id) REFERENCES test_orders (company_id, id));
	CREATE TABLE test_order_log (
		company_id bigint NOT NULL REFERENCES companies (id),
		id bigint GENERATED ALWAYS AS IDENTITY,
		note text NOT NULL,
		PRIMARY KEY (company_id, id));
	CREATE TABLE test_invoice_history (
		company_id bigint NOT NULL REFERENCES companies (id),
		id bigint GENERATED ALWAYS AS IDENTITY,
		invoice_id bigint NOT NULL,
		user_id bigint,
		note text NOT NULL,
		PRIMARY KEY (company_id, id));`)
	if err != nil {
		t.Fatal(err)
	}
}

// withWriteRoutes mounts the test-only resources of the write machinery.
func withWriteRoutes() envOption {
	return func(c *Config, s *Server) {
		withRoute("/test/invoices", "test_invoices")(c, s)
		withRoute("/test/orders", "test_orders")(c, s)
	}
}
