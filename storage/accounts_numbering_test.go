package storage_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// agreementSetup is a company with a business and the store, to write its
// accounts as the API does (the accounts' hooks run).
type agreementSetup struct {
	pool     *pgxpool.Pool
	store    *storage.Store
	accounts *storage.Resource
	company  int64
	business int64
}

func newAgreementSetup(t *testing.T) *agreementSetup {
	t.Helper()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	company, _, err := storage.EnsureCompany(ctx, pool, "Convênio")
	if err != nil {
		t.Fatal(err)
	}
	s := &agreementSetup{pool: pool, company: company}
	reg := storage.DefaultRegistry()
	s.store, s.accounts = storage.NewStore(pool, reg), reg.MustResource(storage.Accounts)
	if err := pool.QueryRow(ctx, `INSERT INTO businesses (company_id, name, tax_id) VALUES ($1, 'Imobiliária Conceição',
		'11222333000181') RETURNING id`, company).Scan(&s.business); err != nil {
		t.Fatal(err)
	}
	return s
}

// bradesco are the fields of a Bradesco account, in the layout given,
// with changes.
func (s *agreementSetup) bradesco(layout string, changes map[string]any) map[string]any {
	v := map[string]any{"business_id": s.business, "bank": "237", "layout": layout, "agency": "1234", "agency_digit": "5",
		"account": "0012345", "account_digit": "6", "wallet": "09", "covenant": "00000000000004567890"}
	for k, c := range changes {
		v[k] = c
	}
	return v
}

func (s *agreementSetup) create(t *testing.T, values map[string]any) int64 {
	t.Helper()
	rec, err := s.store.Create(context.Background(), s.accounts, storage.Company(s.company), storage.Write{Values: values})
	if err != nil {
		t.Fatalf("create %v: %v", values, err)
	}
	id, _ := rec.ID()
	return id
}

func (s *agreementSetup) update(t *testing.T, id int64, values map[string]any) {
	t.Helper()
	if _, err := s.store.Update(context.Background(), s.accounts, storage.Company(s.company), id, storage.Write{Values: values}); err != nil {
		t.Fatalf("update %d %v: %v", id, values, err)
	}
}

// take takes n numbers of the account in a transaction of its own.
func (s *agreementSetup) take(t *testing.T, account, n int64) int64 {
	t.Helper()
	var first int64
	err := pgx.BeginFunc(context.Background(), s.pool, func(tx pgx.Tx) error {
		var err error
		first, err = storage.TakeNossoNumeros(context.Background(), tx, s.company, account, n)
		return err
	})
	if err != nil {
		t.Fatalf("take %d of account %d: %v", n, account, err)
	}
	return first
}

func (s *agreementSetup) next(t *testing.T, account int64) int64 {
	t.Helper()
	var next int64
	if err := s.pool.QueryRow(context.Background(), `SELECT next_nosso_numero FROM accounts WHERE company_id = $1 AND id = $2`,
		s.company, account).Scan(&next); err != nil {
		t.Fatal(err)
	}
	return next
}

// TestAgreementSharesNossoNumero: the accounts of one agreement at a bank
// (bank, agency, account, wallet, covenant, station; leading zeros aside),
// one per layout, take their titles' numbers from one counter, and each
// shows its next; another wallet is another agreement, with its own.
func TestAgreementSharesNossoNumero(t *testing.T) {
	t.Parallel()
	s := newAgreementSetup(t)
	a := s.create(t, s.bradesco("cnab400", nil))
	b := s.create(t, s.bradesco("cnab240", map[string]any{"account": "12345", "wallet": "9"}))
	other := s.create(t, s.bradesco("cnab400", map[string]any{"wallet": "26"}))
	cases := []struct {
		account, n, want int64
	}{{a, 1, 1}, {b, 1, 2}, {a, 2, 3}, {other, 1, 1}, {b, 3, 5}}
	for _, c := range cases {
		if got := s.take(t, c.account, c.n); got != c.want {
			t.Errorf("take %d of account %d: first %d, want %d", c.n, c.account, got, c.want)
		}
	}
	for account, want := range map[int64]int64{a: 8, b: 8, other: 2} {
		if got := s.next(t, account); got != want {
			t.Errorf("account %d shows next %d, want %d", account, got, want)
		}
		if got, err := storage.PeekNossoNumero(context.Background(), s.pool, s.company, account); err != nil || got != want {
			t.Errorf("account %d peeks %d (%v), want %d", account, got, err, want)
		}
	}
	// a new account of the agreement shows its next number at once
	if c := s.create(t, s.bradesco("cnab400", map[string]any{"description": "third"})); s.next(t, c) != 8 {
		t.Errorf("a new account of the agreement shows %d, want 8", s.next(t, c))
	}
}

// TestAgreementNumbersConcurrently: batches of the accounts of one
// agreement numbering their titles at once never give a number twice.
func TestAgreementNumbersConcurrently(t *testing.T) {
	t.Parallel()
	s := newAgreementSetup(t)
	accounts := []int64{s.create(t, s.bradesco("cnab400", nil)), s.create(t, s.bradesco("cnab240", nil))}
	const takers, each, n = 8, 5, 3
	var mu sync.Mutex
	var firsts []int64
	var wg sync.WaitGroup
	for i := range takers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				first := s.take(t, accounts[i%2], n)
				mu.Lock()
				firsts = append(firsts, first)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	slices.Sort(firsts)
	for i, f := range firsts {
		if want := int64(1 + i*n); f != want {
			t.Fatalf("firsts %v: %d at %d, want %d (each number once)", firsts, f, i, want)
		}
	}
}

// TestAccountJoinsAgreement: an account updated into an agreement, having
// numbered titles of its own, raises the agreement's counter to its next
// number, so that no account of the agreement gives a number it gave;
// also when it was numbering titles while the update waited on it.
func TestAccountJoinsAgreement(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newAgreementSetup(t)
	a := s.create(t, s.bradesco("cnab400", nil))
	s.take(t, a, 4) // 1-4
	joining := s.create(t, s.bradesco("cnab240", map[string]any{"wallet": "26"}))
	s.take(t, joining, 99) // 1-99 of its own agreement
	s.update(t, joining, map[string]any{"wallet": "09"})
	if got := s.take(t, a, 1); got != 100 {
		t.Errorf("after an account with 99 titles joined: %d, want 100", got)
	}

	// a batch of the account numbering titles when the update comes
	late := s.create(t, s.bradesco("cnab240", map[string]any{"wallet": "26", "description": "late"}))
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // a no-op after Commit
	first, err := storage.TakeNossoNumeros(ctx, tx, s.company, late, 200)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := s.store.Update(ctx, s.accounts, storage.Company(s.company), late, storage.Write{Values: map[string]any{"wallet": "09"}})
		done <- err
	}()
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got, want := s.take(t, a, 1), first+200; got < want {
		t.Errorf("after an account that took up to %d joined: %d", want-1, got)
	}
}

// TestAgreementMigration: migration 0046 runs on accounts stored several
// to one agreement, each with its counter: they go on from the highest,
// each showing it, and take from one counter after.
func TestAgreementMigration(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newAgreementSetup(t)
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := s.pool.Exec(ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	exec(`DROP TABLE nosso_numero_counters`)
	exec(`ALTER TABLE accounts DROP COLUMN numbering`)
	var ids []int64
	for _, row := range []struct {
		layout, account string
		next            int
	}{{"cnab400", "0012345", 5}, {"cnab240", "12345", 9}, {"cnab400", "7777", 3}} {
		var id int64
		if err := s.pool.QueryRow(ctx, `INSERT INTO accounts (company_id, business_id, bank, layout, agency, agency_digit,
			account, account_digit, wallet, covenant, next_nosso_numero) VALUES ($1, $2, '237', $3, '1234', '5', $4, '6', '09',
			'4567890', $5) RETURNING id`, s.company, s.business, row.layout, row.account, row.next).Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	migrations, err := storage.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(migrations, func(m storage.Migration) bool { return m.Version == 46 })
	if i < 0 {
		t.Fatal("no migration 46")
	}
	exec(migrations[i].SQL)
	for id, want := range map[int64]int64{ids[0]: 9, ids[1]: 9, ids[2]: 3} {
		if got := s.next(t, id); got != want {
			t.Errorf("account %d shows %d after the migration, want %d", id, got, want)
		}
	}
	if got := []int64{s.take(t, ids[0], 1), s.take(t, ids[1], 1), s.take(t, ids[2], 1)}; !slices.Equal(got, []int64{9, 10, 3}) {
		t.Errorf("after the migration: %v, want [9 10 3]", got)
	}
	shared, err := storage.SharedAgreements(ctx, s.pool, s.company, "237")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, accs := range shared {
		var one []string
		for _, a := range accs {
			one = append(one, fmt.Sprint(a.ID))
		}
		got = append(got, strings.Join(one, ","))
	}
	if want := []string{fmt.Sprintf("%d,%d", ids[0], ids[1])}; !slices.Equal(got, want) {
		t.Errorf("shared agreements %v, want %v", got, want)
	}
}
