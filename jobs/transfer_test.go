package jobs

import (
	"bytes"
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/storage"
)

// paidContractInvoice gives company a contract transferring on receipt,
// of a building owned 60/40, and its invoice of rent 2,000.00 less an
// administration fee of 200.00, paid and credited on 2024-03-26.
func paidContractInvoice(t *testing.T, pool *pgxpool.Pool, company int64) {
	t.Helper()
	ctx := context.Background()
	id := func(sql string, args ...any) int64 {
		t.Helper()
		var v int64
		if err := pool.QueryRow(ctx, sql, append([]any{company}, args...)...).Scan(&v); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return v
	}
	person := `INSERT INTO persons (company_id, name) VALUES ($1, $2) RETURNING id`
	business := id(`INSERT INTO businesses (company_id, name) VALUES ($1, 'Horizonte') RETURNING id`)
	account := id(`INSERT INTO accounts (company_id, business_id) VALUES ($1, $2) RETURNING id`, business)
	tenant, a, b := id(person, "Ana"), id(person, "Bruno"), id(person, "Carla")
	building := id(`INSERT INTO buildings (company_id, title) VALUES ($1, 'Apto 101') RETURNING id`)
	owner := `INSERT INTO building_owners (company_id, building_id, person_id, percentage) VALUES ($1, $2, $3, $4) RETURNING id`
	id(owner, building, a, "60")
	id(owner, building, b, "40")
	contract := id(`INSERT INTO contracts (company_id, type, building_id, tenant_id, transfer_mode)
		VALUES ($1, 'rent', $2, $3, 'after_receive') RETURNING id`, building, tenant)
	item := `INSERT INTO transaction_items (company_id, description, debit, credit) VALUES ($1, $2, $3, $4) RETURNING id`
	rent, admin := id(item, "Aluguel", "customer", "owner"), id(item, "Taxa de administração", "owner", "business")
	inv := id(`INSERT INTO invoices (company_id, type, payer_id, contract_id, business_id, account_id, billing_method,
		    status, paid, paid_at, credit_at, description, total, date, due_date)
		VALUES ($1, 'contract', $2, $3, $4, $5, 'pix', 'paid', true, '2024-03-26', '2024-03-26', 'Aluguel', 2000.00, '2024-03-01', '2024-03-10')
		RETURNING id`, tenant, contract, business, account)
	id(`INSERT INTO invoice_items (company_id, invoice_id, item_id, amount) VALUES ($1, $2, $3, 2000.00), ($1, $2, $4, 200.00)
		RETURNING 0`, inv, rent, admin)
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error { return storage.PostInvoicePayment(ctx, tx, company, inv) })
	if err != nil {
		t.Fatal(err)
	}
}

// TestTransferJob: contracts:transfer pays the owners through the worker,
// reports what it did, and a later run writes nothing; company B's
// invoice is left alone.
func TestTransferJob(t *testing.T) {
	t.Parallel()
	p := startPlatform(t, nil)
	paidContractInvoice(t, p.pool, p.companyA)
	paidContractInvoice(t, p.pool, p.companyB)

	job := p.wait(t, p.submit(t, KindContractsTransfer, DatePayload{Date: "2024-03-26"}).ID, "succeeded", "failed")
	res := decodeResult[TransferResult](t, job)
	if job.State != "succeeded" || res.Transfers != 2 || res.Amount.String() != "1800.00" || res.Invoices != 1 || res.Statuses != 1 {
		t.Fatalf("job %s (%s): %+v", job.State, job.Error, res)
	}
	// the amounts are money: numbers with two decimal places, as stored
	if !bytes.Contains(job.Result, []byte(`"guaranteed":0.00,`)) || !bytes.Contains(job.Result, []byte(`"amount":1800.00,`)) {
		t.Errorf("result %s: want the amounts as numbers with two decimal places", job.Result)
	}
	// the invoice's auto_transfer_status, with a history row of the job
	var status string
	var actor int64
	err := p.pool.QueryRow(context.Background(), `SELECT i.auto_transfer_status, h.actor_id FROM invoices i
		JOIN invoice_history h ON h.company_id = i.company_id AND h.invoice_id = i.id AND h.origin = 'transfer'
		WHERE i.company_id = $1`, p.companyA).Scan(&status, &actor)
	if err != nil || status != "transferred" || actor != job.ID {
		t.Errorf("status %q, history of job %d (%v); want transferred, job %d", status, actor, err, job.ID)
	}
	if job.Progress.Done != 1 || job.Progress.Total != 1 {
		t.Errorf("progress %+v", job.Progress)
	}
	again := p.wait(t, p.submit(t, KindContractsTransfer, DatePayload{Date: "2024-03-27"}).ID, "succeeded", "failed")
	if res := decodeResult[TransferResult](t, again); res.Transfers != 0 || res.Invoices != 0 {
		t.Errorf("a later run: %+v", res)
	}
	var a, b int
	err = p.pool.QueryRow(context.Background(), `SELECT count(*) FILTER (WHERE company_id = $1), count(*) FILTER (WHERE company_id = $2)
		FROM transactions WHERE mode = 'transfer'`, p.companyA, p.companyB).Scan(&a, &b)
	if err != nil || a != 2 || b != 0 {
		t.Errorf("transfers: A %d, B %d (%v); want 2 and 0", a, b, err)
	}
}
