package storage_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// TestPaymentBatchAccounts: a payment batch is created from an account at
// a bank payment remittances are written for, with what its payment
// header carries (agency, account, account_digit, and payment_covenant
// but at Itaú), whatever its layout: the layout is the collection's, and a
// CNAB 400 collection account pays by CNAB 240 files at the same bank. An
// account missing any of them is refused when the batch is created, 422
// on account_id naming the account and every column to fill, not later
// when entries are added. The accounts are stored in SQL, as data written
// before the accounts' own rule would be.
func TestPaymentBatchAccounts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	company, _, err := storage.EnsureCompany(ctx, pool, "Imobiliária Pagadora")
	if err != nil {
		t.Fatal(err)
	}
	var business int64
	if err := pool.QueryRow(ctx, `INSERT INTO businesses (company_id, name, tax_id) VALUES ($1, 'Pagadora', '11222333000181')
		RETURNING id`, company).Scan(&business); err != nil {
		t.Fatal(err)
	}
	store := storage.NewStore(pool, storage.DefaultRegistry())
	batches := store.Registry().MustResource(storage.PaymentBatches)
	full := map[string]any{"agency": "1234", "agency_digit": "5", "account": "12345", "account_digit": "6",
		"wallet": "09", "covenant": "4567890", "payment_covenant": "123456"}
	account := func(t *testing.T, set map[string]any) int64 {
		t.Helper()
		cols, args := []string{"company_id", "business_id"}, []any{company, business}
		for _, k := range slices.Sorted(maps.Keys(set)) {
			if set[k] != nil {
				cols, args = append(cols, k), append(args, set[k])
			}
		}
		marks := make([]string, len(args))
		for i := range marks {
			marks[i] = fmt.Sprintf("$%d", i+1)
		}
		var id int64
		if err := pool.QueryRow(ctx, `INSERT INTO accounts (`+strings.Join(cols, ", ")+`) VALUES (`+strings.Join(marks, ", ")+
			`) RETURNING id`, args...).Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	with := func(changes map[string]any) map[string]any {
		out := maps.Clone(full)
		maps.Copy(out, changes)
		return out
	}
	for _, c := range []struct {
		name    string
		account map[string]any
		missing []string // nil: the batch is created
	}{
		{"Bradesco, collection in CNAB 400", with(map[string]any{"bank": "237", "layout": "cnab400"}), nil},
		{"Itaú, collection in CNAB 400, no payment agreement", with(map[string]any{"bank": "341", "layout": "cnab400",
			"payment_covenant": nil}), nil},
		{"Banco do Brasil, collection in CNAB 240", with(map[string]any{"bank": "001", "layout": "cnab240"}), nil},
		{"Sicoob, no layout", with(map[string]any{"bank": "756", "wallet": nil, "covenant": nil}), nil},
		{"Bradesco in CNAB 400 without its payment agreement", with(map[string]any{"bank": "237", "layout": "cnab400",
			"payment_covenant": nil}), []string{"payment_covenant"}},
		{"Banco do Brasil with its collection covenant only", with(map[string]any{"bank": "001", "layout": "cnab240",
			"payment_covenant": nil}), []string{"payment_covenant"}},
		{"a bank alone", map[string]any{"bank": "237", "layout": "cnab240"}, []string{"agency", "account", "account_digit",
			"payment_covenant"}},
		{"Itaú without agency and account", with(map[string]any{"bank": "341", "agency": nil, "account": nil}),
			[]string{"agency", "account"}},
		{"no bank", with(nil), []string{"bank"}},
		{"a bank without payment remittances", with(map[string]any{"bank": "104", "layout": "cnab240"}), []string{"bank"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			id := account(t, c.account)
			rec, err := store.Create(ctx, batches, storage.Company(company), storage.Write{Values: map[string]any{"account_id": id}})
			if c.missing == nil {
				if err != nil {
					t.Fatalf("the batch of account %v: %v", c.account, err)
				}
				return
			}
			var e *finance.Error
			if rec != nil || !errors.As(err, &e) || e.Code != finance.Invalid || len(e.Problems) != 1 || e.Problems[0].Field != "account_id" {
				t.Fatalf("the batch of account %v: %v, want a 422 on account_id", c.account, err)
			}
			msg := e.Problems[0].Message
			if !strings.Contains(msg, fmt.Sprintf("account %d cannot send", id)) {
				t.Errorf("the problem does not name account %d: %s", id, msg)
			}
			for _, col := range []string{"bank", "agency", "account", "account_digit", "payment_covenant", "layout", "wallet"} {
				if named := strings.Contains(msg, " "+col+": ") || strings.Contains(msg, ": "+col+": "); named != slices.Contains(c.missing, col) {
					t.Errorf("%s named %t: %s", col, named, msg)
				}
			}
		})
	}
}

// TestPaymentOnlyAccounts: an account's own rule (its writes) reads its
// layout as the collection layout: an account in cnab400 must be able to
// collect (its wallet, ...), what it can pay notwithstanding; one in
// cnab240 that pays only (no wallet) is taken when it can pay, and one
// without a layout is not checked.
func TestPaymentOnlyAccounts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	company, _, err := storage.EnsureCompany(ctx, pool, "Imobiliária Contas")
	if err != nil {
		t.Fatal(err)
	}
	var business int64
	if err := pool.QueryRow(ctx, `INSERT INTO businesses (company_id, name) VALUES ($1, 'Contas') RETURNING id`,
		company).Scan(&business); err != nil {
		t.Fatal(err)
	}
	store := storage.NewStore(pool, storage.DefaultRegistry())
	accounts := store.Registry().MustResource(storage.Accounts)
	pays := map[string]any{"business_id": business, "bank": "237", "agency": "1234", "account": "12345",
		"account_digit": "6", "payment_covenant": "123456"}
	for _, c := range []struct {
		name    string
		changes map[string]any
		refused []string
	}{
		{"paying, in cnab240", map[string]any{"layout": "cnab240"}, nil},
		{"paying, without a layout", nil, nil},
		{"paying, in cnab400 without a wallet", map[string]any{"layout": "cnab400"}, []string{"wallet", "covenant"}},
		{"in cnab240 without a wallet nor a payment agreement", map[string]any{"layout": "cnab240", "payment_covenant": nil},
			[]string{"agency_digit", "wallet", "covenant"}},
	} {
		values := maps.Clone(pays)
		for k, v := range c.changes {
			if v == nil {
				delete(values, k)
			} else {
				values[k] = v
			}
		}
		_, err := store.Create(ctx, accounts, storage.Company(company), storage.Write{Values: values})
		var e *finance.Error
		switch {
		case c.refused == nil && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.refused == nil:
		case !errors.As(err, &e) || e.Code != finance.Invalid:
			t.Errorf("%s: %v, want a 422", c.name, err)
		default:
			var fields []string
			for _, p := range e.Problems {
				fields = append(fields, p.Field)
			}
			if !slices.Equal(fields, c.refused) {
				t.Errorf("%s: problems %v, want %v", c.name, e.Problems, c.refused)
			}
		}
	}
}

// TestBatchBusinesses: a batch is created only from an account whose
// business its remittances can name: a name and a valid CNPJ, as their
// file writers require (the payer of a payment batch's, the
// beneficiary of a collection batch's). A business without one, or with
// one whose check digits are wrong (stored before the businesses' own
// rule), is refused when the batch is created, 422 on account_id naming
// the business and what it lacks, not later when entries are added.
func TestBatchBusinesses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	company, _, err := storage.EnsureCompany(ctx, pool, "Imobiliária Sem CNPJ")
	if err != nil {
		t.Fatal(err)
	}
	store := storage.NewStore(pool, storage.DefaultRegistry())
	for _, c := range []struct {
		taxID any    // nil: none
		want  string // "": the batches are created
	}{
		{"11222333000181", ""},
		{"12ABC34501DE35", ""}, // an alphanumeric CNPJ
		{nil, "tax_id: not set"},
		{"11222333000182", `tax_id: "11222333000182" is not a valid CNPJ`},
	} {
		var business, account int64
		if err := pool.QueryRow(ctx, `INSERT INTO businesses (company_id, name, tax_id) VALUES ($1, 'Horizonte Imóveis', $2)
			RETURNING id`, company, c.taxID).Scan(&business); err != nil {
			t.Fatal(err)
		}
		// an account that can send both kinds of remittance (Bradesco, CNAB 240)
		if err := pool.QueryRow(ctx, `INSERT INTO accounts (company_id, business_id, bank, layout, agency, agency_digit,
				account, account_digit, wallet, covenant, payment_covenant)
			VALUES ($1, $2, '237', 'cnab240', '1234', '5', '12345', '6', '09', '4567890', '123456') RETURNING id`,
			company, business).Scan(&account); err != nil {
			t.Fatal(err)
		}
		for _, kind := range []struct{ resource, label, role string }{
			{storage.PaymentBatches, "payment batch", "payer"},
			{storage.TicketBatches, "collection batch", "beneficiary"},
		} {
			rec, err := store.Create(ctx, store.Registry().MustResource(kind.resource), storage.Company(company),
				storage.Write{Values: map[string]any{"account_id": account}})
			if c.want == "" {
				if err != nil {
					t.Errorf("a %s of a business of tax_id %v: %v", kind.label, c.taxID, err)
				}
				continue
			}
			want := fmt.Sprintf("account %d is of business %d (Horizonte Imóveis), whose name and CNPJ the remittances of a %s "+
				"carry as their %s's: %s; set it (PUT /financial/businesses/%d)", account, business, kind.label, kind.role, c.want, business)
			var e *finance.Error
			if rec != nil || !errors.As(err, &e) || e.Code != finance.Invalid || len(e.Problems) != 1 ||
				e.Problems[0] != (finance.Problem{Field: "account_id", Message: want}) {
				t.Errorf("a %s of a business of tax_id %v: %v, want a 422 on account_id: %s", kind.label, c.taxID, err, want)
			}
		}
	}
}
