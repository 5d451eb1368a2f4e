package storage_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// batchKindFixture makes the records and member rows of one kind of batch
// in SQL, and reads back what the removal and reversal left.
type batchKindFixture struct {
	bt     *storage.BatchType
	record func(t *testing.T) int64 // a record that may be a member
	member func(t *testing.T, batch, record int64, state string)
	paid   func(t *testing.T, record int64)
}

func batchKindFixtures(f *overdueFixture) []batchKindFixture {
	return []batchKindFixture{
		{bt: storage.TicketBatch,
			record: func(t *testing.T) int64 {
				return f.id(t, `INSERT INTO invoices (company_id, type, payer_id, business_id, account_id, billing_method,
					description, total, date, due_date, ticket_barcode, ticket_digitable, ticket_registered)
					VALUES ($1, 'single', $2, $3, $4, 'ticket', 'Aluguel', 100, current_date, current_date,
					'23793381286000000000000000000000000000000000', '23790000000000000000000000000000000000000000000', true)
					RETURNING id`, f.payer, f.business, f.account)
			},
			member: func(t *testing.T, batch, record int64, state string) {
				f.id(t, `INSERT INTO ticket_batch_invoices (company_id, batch_id, invoice_id, account_id, state, our_number,
					nosso_numero, amount, due_date, document_number, payer_name, payer_document, payer_address,
					payer_district, payer_city, payer_state, payer_zip)
					VALUES ($1, $2, $3::bigint, $4, $5, $3::bigint, $3::bigint::text, 100, current_date, $3::bigint::text, 'Ana', '12345678909', 'Rua A',
					'Centro', 'São Paulo', 'SP', '01001000') RETURNING id`, batch, record, f.account, state)
			},
			paid: func(t *testing.T, record int64) {
				f.exec(t, `UPDATE invoices SET paid = true, paid_at = current_date, status = 'paid'
					WHERE company_id = $1 AND id = $2`, record)
			}},
		{bt: storage.PaymentBatch,
			record: func(t *testing.T) int64 {
				return f.id(t, `INSERT INTO transactions (company_id, type, date, amount, billing_method)
					VALUES ($1, 'debit', current_date, 100, 'ted') RETURNING id`)
			},
			member: func(t *testing.T, batch, record int64, state string) {
				f.id(t, `INSERT INTO payment_batch_transactions (company_id, batch_id, transaction_id, state, reference,
					method, amount, nominal, due_date, payee_name, payee_document)
					VALUES ($1, $2, $3::bigint, $4, 'PAG-' || $3::bigint, 'transfer', 100, 100, current_date, 'Ana', '12345678909')
					RETURNING id`, batch, record, state)
			},
			paid: func(t *testing.T, record int64) {
				f.exec(t, `UPDATE transactions SET paid = true WHERE company_id = $1 AND id = $2`, record)
			}},
	}
}

// batchOf makes a batch of the kind with status, holding a member (added)
// of each record, its count and total theirs.
func (k batchKindFixture) batchOf(t *testing.T, f *overdueFixture, status string, records ...int64) *storage.Batch {
	t.Helper()
	id := f.id(t, `INSERT INTO `+k.bt.Table+` (company_id, account_id, status, titles, total)
		VALUES ($1, $2, $3, $4, $4 * 100) RETURNING id`, f.account, status, len(records))
	for _, r := range records {
		k.member(t, id, r, "added")
	}
	b, err := storage.GetBatch(context.Background(), f.pool, k.bt, f.company, id)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// states reads the states of a batch's member rows, by record ("" for
// none), as "record:state" in the order of records.
func (k batchKindFixture) states(t *testing.T, f *overdueFixture, b *storage.Batch, records ...int64) []string {
	t.Helper()
	out := make([]string, len(records))
	for i, r := range records {
		var state string
		err := f.pool.QueryRow(context.Background(), `SELECT coalesce((SELECT state FROM `+k.bt.MemberTable+`
			WHERE company_id = $1 AND batch_id = $2 AND `+k.bt.MemberColumn+` = $3), '')`, f.company, b.ID, r).Scan(&state)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = fmt.Sprintf("%d:%s", r, state)
	}
	return out
}

// counted reads a batch's count and total.
func counted(t *testing.T, f *overdueFixture, b *storage.Batch) string {
	t.Helper()
	var s string
	err := f.pool.QueryRow(context.Background(), `SELECT titles || ' ' || total FROM `+b.Type.Table+`
		WHERE company_id = $1 AND id = $2`, f.company, b.ID).Scan(&s)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// answered is a member answer as "done [ids] refused [id: reason ...]".
func answered(ans storage.MemberAnswer) string {
	done := make([]any, len(ans.Done))
	for i, d := range ans.Done {
		done[i] = d["id"]
	}
	refused := make([]string, len(ans.Refused))
	for i, r := range ans.Refused {
		refused[i] = fmt.Sprintf("%d: %s", r.ID, r.Reason)
	}
	return fmt.Sprintf("done %v refused %q", done, refused)
}

// TestMembersLeaveTheirBatch: for every kind of batch, a removal from an
// open batch deletes the member rows of the ids in it and refuses the
// others, and with no ids removes every member; a reversal in a closed
// batch marks the members sent reverted and refuses a paid record, one
// not sent (reverted before) and one not in the batch. The answer keeps
// the order of the ids, and the batch's count and total go down by what
// left. A collection invoice's slip is cleared, with its history row.
func TestMembersLeaveTheirBatch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	f := newOverdueFixture(t, pool, "Saídas")
	actor := storage.Actor{Kind: storage.ActorJob, ID: 7}
	in := func(fn func(tx pgx.Tx) (storage.MemberAnswer, error)) storage.MemberAnswer {
		t.Helper()
		var ans storage.MemberAnswer
		err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			var err error
			ans, err = fn(tx)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return ans
	}
	for _, k := range batchKindFixtures(f) {
		t.Run(k.bt.Name, func(t *testing.T) {
			a, b, c, outside := k.record(t), k.record(t), k.record(t), k.record(t)

			open := k.batchOf(t, f, "open", a, b, c)
			ans := in(func(tx pgx.Tx) (storage.MemberAnswer, error) {
				return storage.RemoveMembers(ctx, tx, open, actor, []int64{outside, b})
			})
			if got, want := answered(ans), fmt.Sprintf(`done [%d] refused ["%d: is not in this batch"]`, b, outside); got != want {
				t.Errorf("remove: %s, want %s", got, want)
			}
			if got, want := k.states(t, f, open, a, b, c), []string{fmt.Sprint(a, ":added"), fmt.Sprint(b, ":"), fmt.Sprint(c, ":added")}; !slices.Equal(got, want) {
				t.Errorf("after the removal: %v, want %v", got, want)
			}
			if got := counted(t, f, open); got != "2 200.00" {
				t.Errorf("count after the removal: %s, want 2 200.00", got)
			}
			ans = in(func(tx pgx.Tx) (storage.MemberAnswer, error) {
				return storage.RemoveMembers(ctx, tx, open, actor, nil)
			})
			if got, want := answered(ans), fmt.Sprintf(`done [%d %d] refused []`, a, c); got != want {
				t.Errorf("remove all: %s, want %s", got, want)
			}
			if got := counted(t, f, open); got != "0 0.00" {
				t.Errorf("count after removing all: %s, want 0 0.00", got)
			}

			closed := k.batchOf(t, f, "closed", a, b)
			k.member(t, closed.ID, c, "reverted")
			k.paid(t, b)
			ans = in(func(tx pgx.Tx) (storage.MemberAnswer, error) {
				return storage.RevertMembers(ctx, tx, closed, actor, []int64{b, a, c, outside})
			})
			want := fmt.Sprintf(`done [%d] refused ["%d: is paid" "%d: is reverted in this batch, not sent" "%d: is not in this batch"]`,
				a, b, c, outside)
			if got := answered(ans); got != want {
				t.Errorf("revert: %s, want %s", got, want)
			}
			if got, want := k.states(t, f, closed, a, b, c), []string{fmt.Sprint(a, ":reverted"), fmt.Sprint(b, ":added"), fmt.Sprint(c, ":reverted")}; !slices.Equal(got, want) {
				t.Errorf("after the reversal: %v, want %v", got, want)
			}
			if got := counted(t, f, closed); got != "1 100.00" {
				t.Errorf("count after the reversal: %s, want 1 100.00", got)
			}
			if k.bt == storage.TicketBatch {
				checkSlipsCleared(t, f, a, open.ID, closed.ID)
			}
		})
	}
}

// checkSlipsCleared: the invoice removed from batch open, then reverted
// in batch closed, has no slip, and a history row of each.
func checkSlipsCleared(t *testing.T, f *overdueFixture, invoice, open, closed int64) {
	t.Helper()
	var slip string
	err := f.pool.QueryRow(context.Background(), `SELECT concat_ws(' ', coalesce(ticket_barcode, '-'),
		coalesce(ticket_digitable, '-'), ticket_registered) FROM invoices WHERE company_id = $1 AND id = $2`,
		f.company, invoice).Scan(&slip)
	if err != nil {
		t.Fatal(err)
	}
	if slip != "- - f" {
		t.Errorf("slip of invoice %d: %s, want none and not registered", invoice, slip)
	}
	rows, err := f.pool.Query(context.Background(), `SELECT actor || ' ' || actor_id || ' ' || origin || ': ' || note || ' [' ||
		(SELECT string_agg(c->>'field' || ' ' || coalesce(c->>'from', 'null') || ' -> ' || coalesce(c->>'to', 'null'), ', ')
		 FROM jsonb_array_elements(changes) c) || ']'
		FROM invoice_history WHERE company_id = $1 AND invoice_id = $2 ORDER BY id`, f.company, invoice)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	slipGone := "ticket_barcode 23793381286000000000000000000000000000000000 -> null, " +
		"ticket_digitable 23790000000000000000000000000000000000000000000 -> null"
	want := []string{
		fmt.Sprintf("job 7 ticket_batch: removed from collection batch %d [%s]", open, slipGone),
		fmt.Sprintf("job 7 ticket_batch: reverted in collection batch %d: the bank is to drop the title [ticket_registered null -> false]", closed),
	}
	if !slices.Equal(got, want) {
		t.Errorf("history of invoice %d:\n got %q\nwant %q", invoice, got, want)
	}
}
