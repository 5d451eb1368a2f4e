package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// FuzzParseList: no query string makes the parser panic; what it refuses
// is a coded Invalid error (a 422), and what it accepts runs on PostgreSQL
// without error (never a 500).
func FuzzParseList(f *testing.F) {
	for _, seed := range []string{
		"", "page=2&perPage=5", "sort=-description,id&fields=id,category_id",
		"filter[id|b]=1|5&filter[description]=%25a%25", "filter[description|empty]",
		"include[category]=id,color&include[category.types]=id", "include[buildings.constructor.state]=name",
		"filter[kindIn][]=a&filter[kindIn][3]=b", "filter[day|nb]=2024-01-01|2024-12-31",
		"filter[amount|ge]=10.5&customFields=true&withTotal=1", "filter[id]=%zz", "include[]=x",
		"filter[id|]=1", "filter[[id]]=1", "sort=,", "fields=", "filter[title|ne]=%25_%25",
		"filter[title]=%00", "filter[title|ne]=%8000000", "_=%FF&page=2", "_=\xff\"", "page=1&page=1",
		"include[category.types.category]=id", "filter[kindIn][]=%C3",
		"filter[day]=0000-01-01", "filter[day|b]=0001-01-01|9999-12-31", "page=2147483647&perPage=100",
		"filter[happened_at|b]=0001-01-01 00:00:00|9999-12-31T23:59:59Z", "filter[happened_at|ge]=2024-02-29T23:59:59%2B14:00",
		"filter[amount]=-99999999999999999999.9999999999", "filter[title|ne]=%25%5C%25", "filter[kindNotIn][]=%E2%82%AC",
		"filter[overdue]=true&filter[early]=0", "filter[dueDateMin]=2024-02-29&filter[dateMax]=9999-12-31",
		"filter[periodContains]=0001-01-01", "filter[paidStatus]=paid", "filter[ownerIn][]=1&filter[payerTaxIdIn][]=%00",
		"filter[planAllIn][]=9223372036854775807", "filter[tag][]=1&filter[tag][]=-2", "filter[tagIn][]=3",
		"filter[status]=overdue&sort=-status", "filter[item_default]=true", "filter[kind|ne]=single", "filter[tag|empty]",
	} {
		f.Add(seed)
	}
	reg, store, companyID := fuzzStore(f)
	fuzzLists(f, reg, store, companyID, "test_things", storage.BuildingTypes, "test_bills")
}

// FuzzInvoiceList is FuzzParseList on /invoices, over a seeded invoice
// with lines, a posted payment, files and a building with owners: every
// filter, include and sort of the resource the parser accepts runs on
// PostgreSQL without error.
func FuzzInvoiceList(f *testing.F) {
	for _, seed := range []string{
		"", "sort=-status,due_date&include[items]&include[itemsPayer]&include[itemsAll]&include[itemsAllGroupTransfer]",
		"include[autoTransactions]=id,amount&include[building]&include[billing]&include[payer]&include[account]",
		"include[contract]=reference&include[business]&include[lateFeeItem]&include[files]&include[tags]&include[messages]&include[owners.person]",
		"include[items.item]&include[items.owner]=name&include[autoTransactions.item]&include[owners]=percentage",
		"filter[ticketIdIn][]=K1&filter[idOldIn][]=42&filter[referenceId]=CT-1", "filter[idOldIn][]=-0&filter[idOldIn][]=9223372036854775807",
		"filter[emptyProtest]=true&filter[protestIdIn][]=P1", "filter[protestIdIn][]=%00", "filter[unpaid]=false&filter[overdue]=1&filter[early]=0",
		"filter[contractIn][]=1&filter[contractIdIn][]=1", "filter[buildingIn][]=1&filter[buildingId2In][]=AU-1",
		"filter[dateMin]=0001-01-01&filter[dateMax]=9999-12-31&filter[dueDateMin]=2024-02-29",
		"filter[businessIn][]=1&filter[accountIn][]=1&filter[payerIn][]=1&filter[ownerIn][]=1&filter[tenantIn][]=1",
		"filter[registered]=true&filter[registeredOrPix]=false&filter[billingMethodIn][]=ticket", "filter[tagIn][]=1&filter[tag][]=1",
		"filter[autoTransferStatus][]=waiting&filter[periodContains]=2024-03-15&filter[payerTaxIdIn][]=52998224725",
		"filter[status]=overdue&sort=status", "filter[status|ne]=paid", "filter[total|b]=0|99999999999.99", "filter[paid_amount|empty]",
		"filter[ticket_late_fee_percentage|ge]=0.33&filter[protest|not_empty]", "filter[pix_code]=%25", "filter[items]=1",
		"sort=-paid_amount,ticket_discount_days&fields=id,total,status", "filter[ticket_date|l]=2024-02-29 23:59:59",
	} {
		f.Add(seed)
	}
	reg, store, companyID := fuzzStore(f)
	seedFuzzLedger(f, store, companyID)
	fuzzLists(f, reg, store, companyID, storage.Invoices, storage.InvoiceHistory)
}

// FuzzTransactionList is FuzzParseList on /transactions and
// /financial/transactionItems, over seeded entries of every mode.
func FuzzTransactionList(f *testing.F) {
	for _, seed := range []string{
		"", "sort=-date,position&include[item]&include[commissionItem]&include[contract]&include[owner]&include[person]",
		"include[tenant]&include[building]&include[account]&include[plan]&include[invoice]=id2&include[files]&include[tags]",
		"include[transferredBy]&include[transferredItems]=id&include[invoice.items]", "include[transactions]&include[debitPlan]&include[creditPlan]",
		"filter[onlyVisible]=true&filter[transfer]=false&filter[brokerTransfer]=1&filter[autoTransfer]=0&filter[manualTransfer]=true",
		"filter[bill]=true&filter[billPayment]=true&filter[ownerPlan]=true&filter[brokerPlan]=false&filter[tenantPlan]=true",
		"filter[unpaid]=true&filter[paidOrGuaranteed]=false&filter[paidGuaranteedOrTransfer]=true&filter[isNotInvoice]=false&filter[onlyInvoice]=true",
		"filter[onlyAllowed]=true&filter[itemListOwnerReport]=true&filter[overdue]=true&filter[early]=false",
		"filter[forBusiness]=true&filter[forOwner]=false&filter[forBroker]=true&filter[forTenant]=false&filter[forPayer]=true",
		"filter[invoiceTypeIn]=true&filter[brokerCommission]=true&filter[guaranteedTransferIn][]=1&filter[haveTransfer][]=1",
		"filter[personIn][]=1&filter[tenantIn][]=1&filter[ownerIn][]=1&filter[brokerIn][]=1&filter[buildingIn][]=1&filter[accountIn][]=1",
		"filter[businessIn][]=1&filter[itemIn][]=1&filter[planIn][]=1&filter[contractIn][]=1&filter[invoiceIn][]=1&filter[businessAllowedIn][]=1",
		"filter[planAllIn][]=1&filter[contractIdIn][]=1&filter[contractActiveIn][]=active&filter[invoiceIdIn][]=42&filter[tagIn][]=1",
		"filter[billIdIn][]=1&filter[typeIn][]=credit&filter[typeInvoiceIn][]=credit&filter[modeIn][]=chargeback&filter[itemType][]=fee",
		"filter[contractTypeIn][]=rent&filter[billingMethodIn][]=pix&filter[extractIn][]=owner&filter[status]=paid",
		"filter[invoiceStatus]=overdue&filter[ticketRegister]=registered&filter[invoicePaidIn]=unpaid&filter[positionMin]=0&filter[positionMax]=2147483647",
		"filter[reverses_id|empty]&filter[split|ne]=invoice-%25&filter[amount|b]=-1|1000", "filter[percentage|ge]=33.3333",
		"filter[typeIn][]=%00&filter[invoiceIdIn][]=x", "filter[positionMin]=9223372036854775808", "filter[metadata]=1",
		"filter[involvedIn][]=owner&filter[debitIn][]=customer&filter[creditIn][]=business&filter[withReadjust]=true&filter[onlyRent]=false",
		"filter[purposeIn][]=rent&filter[generatesFiscalNote]=true&filter[onlySale]=true&sort=-type,description",
	} {
		f.Add(seed)
	}
	reg, store, companyID := fuzzStore(f)
	seedFuzzLedger(f, store, companyID)
	fuzzLists(f, reg, store, companyID, storage.Transactions, storage.TransactionItems)
}

// fuzzLists checks one fuzzed query string on every resource named: a
// refusal is a 422 with problems; what is accepted runs on PostgreSQL
// without error (an include past its size limit aside) and makes a valid
// envelope.
func fuzzLists(f *testing.F, reg *storage.Registry, store *storage.Store, companyID int64, names ...string) {
	resources := make([]*storage.Resource, len(names))
	for i, n := range names {
		resources[i] = reg.MustResource(n)
	}
	f.Fuzz(func(t *testing.T, rawQuery string) {
		for _, res := range resources {
			q, err := parseList(reg, res, rawQuery)
			if err != nil {
				var coded *finance.Error
				if !errors.As(err, &coded) || coded.Code != finance.Invalid || len(coded.Problems) == 0 {
					t.Fatalf("%s %q: refusal is not a 422 with problems: %v", res.Name, rawQuery, err)
				}
				continue
			}
			page, err := store.List(context.Background(), res, storage.Company(companyID), q)
			if err != nil && !storageRefusal(err, isIncludeLimit) {
				t.Fatalf("%s %q: accepted but failed in storage: %v %+v", res.Name, rawQuery, err, problemsOf(err))
			}
			if err != nil {
				continue
			}
			if body := pageEnvelope(newPageLinks("/test", rawQuery), q, page); !json.Valid(body) {
				t.Fatalf("%s %q: envelope is not valid JSON: %s", res.Name, rawQuery, body)
			}
		}
	})
}

// seedFuzzLedger gives the fuzzed lists rows to filter and include: a
// building owned by a person, a contract, items of every party, an
// invoice with lines, a file, a message, a history row, and entries of
// the modes a payment posts, a transfer and a reversal.
func seedFuzzLedger(f testing.TB, store *storage.Store, companyID int64) {
	ctx := context.Background()
	var id int64
	err := store.Pool().QueryRow(ctx, `
		WITH p AS (INSERT INTO persons (company_id, name, tax_id) VALUES ($1, 'Fuzz', '52998224725') RETURNING id),
		b AS (INSERT INTO businesses (company_id, name) VALUES ($1, 'Fuzz') RETURNING id),
		a AS (INSERT INTO accounts (company_id, business_id) SELECT $1, id FROM b RETURNING id),
		bl AS (INSERT INTO buildings (company_id, title, reference) VALUES ($1, 'Fuzz', 'AU-1') RETURNING id),
		o AS (INSERT INTO building_owners (company_id, building_id, person_id, percentage) SELECT $1, bl.id, p.id, 100 FROM bl, p),
		c AS (INSERT INTO contracts (company_id, id2, reference, type, building_id, tenant_id)
			SELECT $1, 1, 'CT-1', 'rent', bl.id, p.id FROM bl, p RETURNING id),
		it AS (INSERT INTO transaction_items (company_id, description, debit, credit, type, owner_report)
			VALUES ($1, 'Aluguel', 'customer', 'owner', 'rent', true) RETURNING id),
		tg AS (INSERT INTO tags (company_id, name) VALUES ($1, 'Fuzz') RETURNING id)
		INSERT INTO invoices (company_id, id2, type, payer_id, contract_id, building_id, business_id, account_id, billing_method,
			description, total, date, due_date, paid, paid_at, status, paid_amount, tag, protest, ticket_key, ticket_late_fee_item_id)
		SELECT $1, '42', 'contract', p.id, c.id, bl.id, b.id, a.id, 'ticket', 'Fuzz', 100, '2024-03-01', '2024-03-10', true,
			'2024-03-12', 'paid', 100, ARRAY[tg.id], '{"id":"P1"}', 'K1', it.id
		FROM p, c, bl, b, a, tg, it RETURNING id`, companyID).Scan(&id)
	if err != nil {
		f.Fatal(err)
	}
	for _, sql := range []string{
		`INSERT INTO invoice_items (company_id, invoice_id, kind, item_id, amount, owner_id)
			SELECT company_id, id, 'line', ticket_late_fee_item_id, 100, payer_id FROM invoices WHERE id = $1`,
		`INSERT INTO invoice_files (company_id, invoice_id, name, url) SELECT company_id, id, 'a', 'https://a' FROM invoices WHERE id = $1`,
		`INSERT INTO invoice_messages (company_id, invoice_id, channel, body) SELECT company_id, id, 'sms', 'a' FROM invoices WHERE id = $1`,
		`INSERT INTO invoice_history (company_id, invoice_id, actor, origin, changes) SELECT company_id, id, 'system', 'create', '[]' FROM invoices WHERE id = $1`,
		`INSERT INTO transactions (company_id, invoice_id, mode, type, extract, date, due_date, amount, item_id, person_id, owner_id,
			building_id, contract_id, business_id, account_id, tag, split, position, paid, percentage)
		SELECT i.company_id, i.id, m.mode, m.type, m.extract, '2024-03-12', i.due_date, 100, i.ticket_late_fee_item_id, i.payer_id,
			CASE m.extract WHEN 'owner' THEN i.payer_id END, i.building_id, i.contract_id, i.business_id, i.account_id, i.tag,
			'invoice-' || i.id || '-payment-1', m.position, true, 100
		FROM invoices i, (VALUES ('invoice', 'debit', 'customer', 1), ('invoice', 'credit', 'owner', 2),
			('transfer', 'transfer', 'owner', 3), ('transaction', 'debit', 'business', 4)) AS m(mode, type, extract, position)
		WHERE i.id = $1`,
		`INSERT INTO transactions (company_id, invoice_id, mode, type, extract, date, amount, item_id, person_id, business_id, reverses_id, transfer_id)
		SELECT company_id, invoice_id, 'chargeback', 'credit', extract, '2024-03-20', amount, item_id, person_id, business_id, id,
			(SELECT max(id) FROM transactions WHERE mode = 'transfer')
		FROM transactions WHERE invoice_id = $1 AND position = 1`,
		`INSERT INTO transaction_files (company_id, transaction_id, name, url) SELECT company_id, id, 'a', 'https://a' FROM transactions WHERE invoice_id = $1`,
	} {
		if _, err := store.Pool().Exec(ctx, sql, id); err != nil {
			f.Fatalf("seed %q: %v", sql, err)
		}
	}
}

// FuzzParseWrite: no body makes the body parser panic; what it refuses is a
// 422 with problems, and what it accepts is created, and written over a
// record, without any error but a reference to a missing record (a 422 that
// only storage can know): never a rejection by PostgreSQL.
func FuzzParseWrite(f *testing.F) {
	for _, seed := range []string{
		`{"title":"a"}`, `{"title":"a","day":"2024-02-29","amount":"10.50","active":true,"kind":"rent"}`,
		`{"title":null}`, `{"title":"a","amount":1e999}`, `{"title":"a","_c":{"x":[1,2]}}`, `{"title":"a\u0000"}`,
		`{"title":"a","category_id":99}`, `[]`, `{}`, `{"id":1}`, `{"title":"a","_":1}`, "{\"title\":\"\xff\"}",
		`{"title":"a","_c":"\ud800"}`, `{"title":"a","_c":{"k\udc00x":1}}`, `{"title":"\ud83d\ude00","_c":"\\u0000"}`,
		`{"title":"a","_c":1e131072}`, `{"title":"a","_c":-1E-16384}`, `{"title":"a","_c":[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]}`,
		`{"title":"a","day":"0000-01-01","amount":"-0.00"}`, `{"title":"a","day":"9999-12-31","amount":"999999999999.99"}`,
		`{"title":"a","happened_at":"2024-02-29T23:59:59+14:00"}`, `{"title":"a","happened_at":"0001-01-01 00:00:00"}`,
		`{"title":"a","_c":{"a":1,"a":2}}`, `{"title":"a","title":"b"}`,
		`{"title":"a","tag":[1,2],"protest":"{\"status\":1}","kind":"single"}`, `{"title":"a","kind":"x"}`,
		`{"title":"a","filter[note]":"n","config":"[1]","details":[3]}`, `{"title":"a","tag":[9223372036854775808]}`,
		`{"title":"a","protest":"\"\\u0000\""}`, `{"title":"a","secret":"s","tag":null}`,
	} {
		f.Add(seed)
	}
	reg, store, companyID := fuzzStore(f)
	res := reg.MustResource("test_things")
	ctx := context.Background()
	existing, err := store.Create(ctx, res, storage.Company(companyID), storage.Write{Values: map[string]any{"title": "fuzz"}})
	if err != nil {
		f.Fatal(err)
	}
	id, _ := existing.ID()
	bills := reg.MustResource("test_bills")
	bill, err := store.Create(ctx, bills, storage.Company(companyID), storage.Write{Values: map[string]any{"title": "fuzz"}})
	if err != nil {
		f.Fatal(err)
	}
	billID, _ := bill.ID()
	f.Fuzz(func(t *testing.T, body string) {
		obj, duplicates, err := decodeObject([]byte(body))
		if err != nil {
			if finance.ErrorCode(err) != finance.Invalid {
				t.Fatalf("%q: refusal is not a 422: %v", body, err)
			}
			return
		}
		for _, create := range []bool{true, false} {
			for _, target := range []*storage.Resource{res, bills} {
				w, err := parseWrite(nil, target, obj, create)
				err = withProblems(err, duplicates)
				if err != nil {
					if finance.ErrorCode(err) != finance.Invalid {
						t.Fatalf("%q: refusal is not a 422: %v", body, err)
					}
					continue
				}
				switch {
				case create:
					_, err = store.Create(ctx, target, storage.Company(companyID), w)
				case target == res:
					_, err = updateAlone(ctx, store, res, companyID, id, w)
				default:
					_, err = store.Update(ctx, bills, storage.Company(companyID), billID, w)
				}
				if err != nil && !storageRefusal(err, isMissingReference) {
					t.Fatalf("%q (%s, create %v): accepted but failed in storage: %v %+v", body, target.Name, create, err, problemsOf(err))
				}
			}
		}
	})
}

// updateAlone updates the record after emptying its custom fields, so that
// each input is judged on its own and not on what earlier ones merged in.
func updateAlone(ctx context.Context, store *storage.Store, res *storage.Resource, companyID, id int64, w storage.Write) (*storage.Record, error) {
	if _, err := store.Pool().Exec(ctx, "UPDATE test_things SET custom_fields = '{}' WHERE id = $1", id); err != nil {
		return nil, err
	}
	return store.Update(ctx, res, storage.Company(companyID), id, w)
}

func problemsOf(err error) []finance.Problem {
	var coded *finance.Error
	if errors.As(err, &coded) {
		return coded.Problems
	}
	return nil
}

// storageRefusal reports whether err is a 422 that storage alone can make
// of input the parser accepted, every problem of it passing excused: never
// one that carries a PostgreSQL error (the translation backstop for values
// the database cannot hold), which means the parser let a bad value through.
func storageRefusal(err error, excused func(finance.Problem) bool) bool {
	var pgErr *pgconn.PgError
	var coded *finance.Error
	if errors.As(err, &pgErr) || !errors.As(err, &coded) || coded.Code != finance.Invalid || len(coded.Problems) == 0 {
		return false
	}
	for _, p := range coded.Problems {
		if !excused(p) {
			return false
		}
	}
	return true
}

// isIncludeLimit: the include size is only known once relations are loaded.
func isIncludeLimit(p finance.Problem) bool {
	return strings.HasPrefix(p.Field, "include") && strings.Contains(p.Message, "would return more than")
}

// isMissingReference: whether a referenced record exists is only known to
// the database.
func isMissingReference(p finance.Problem) bool {
	return strings.HasPrefix(p.Message, "no ") && strings.Contains(p.Message, " with id ")
}

// fuzzStore gives a fuzz target a store over its own database, with the
// test resource declared and a company to act for.
func fuzzStore(f *testing.F) (*storage.Registry, *storage.Store, int64) {
	pool := storagetest.NewDB(f)
	createTestTable(f, pool)
	reg, err := storage.NewRegistry(append(storage.Resources(), testResources()...)...)
	if err != nil {
		f.Fatal(err)
	}
	companyID, _, err := storage.EnsureCompany(context.Background(), pool, "Fuzz")
	if err != nil {
		f.Fatal(err)
	}
	return reg, storage.NewStore(pool, reg), companyID
}

// FuzzCondominiumList is FuzzParseList on the resources of spec 000 built
// here (condominiums with their groups, purposes, units and related
// people, locations, users, user teams with members, user groups with
// their links), over seeded records of each: every filter, include and
// sort the parser accepts runs on PostgreSQL without error.
func FuzzCondominiumList(f *testing.F) {
	for _, seed := range []string{
		"", "include[buildings]&include[purposes]&include[groups]&include[units]&include[related]",
		"include[groups.purposes]=type,amount&include[groups.units]&include[related.person]=name&include[units.group]",
		"include[type]&include[constructor]&include[country]&include[state]&include[city.districts]&include[district]&include[tags]",
		"filter[tag][]=1&filter[responsible][]=1&filter[pickup][]=-1&filter[pickup|empty]", "filter[groups]=x&filter[details][]=1",
		"filter[mode]=release&filter[access]=all&filter[zip_code|b]=0|99999999&filter[built_year|ge]=2000",
		"filter[title]=%25Aurora%25&filter[slug|ne]=x&sort=-built_year,title", "filter[number]=9223372036854775808",
		"include[manager]&include[users.user]=name&include[business]&filter[manager_id]=1&filter[notes|empty]",
		"include[permissions]=permission&include[buildings.building]&include[persons.person]&filter[type]=normal",
		"include[teams.team]&include[groups.group]&include[managedTeams]&filter[email]=%25@%25",
		"filter[statusIn][]=sold&filter[groupIn][]=1&filter[userIn][]=1", "filter[type]=sale&filter[amount]=1",
		"include[condominium.groups.purposes]", "filter[status|empty]&fields=id,title,status",
	} {
		f.Add(seed)
	}
	reg, store, companyID := fuzzStore(f)
	seedFuzzCondominiums(f, store, companyID)
	fuzzLists(f, reg, store, companyID, storage.Condominiums, storage.CondominiumGroups, storage.CondominiumPurposes,
		storage.CondominiumUnits, storage.CondominiumRelated, storage.Cities, storage.Users, storage.Teams, storage.TeamUsers,
		storage.UserGroups, storage.UserGroupPermissions)
}

// seedFuzzCondominiums gives the fuzzed lists rows of every resource of
// spec 000 built here, and returns the condominium's building type.
func seedFuzzCondominiums(f *testing.F, store *storage.Store, companyID int64) int64 {
	ctx := context.Background()
	var typ int64
	err := store.Pool().QueryRow(ctx, `
		WITH c AS (INSERT INTO building_categories (company_id, description, color) VALUES ($1, 'R', '#fff') RETURNING id)
		INSERT INTO building_types (company_id, description, category_id) SELECT $1, 'Apto', id FROM c RETURNING id`, companyID).Scan(&typ)
	if err != nil {
		f.Fatal(err)
	}
	sc := storage.Company(companyID)
	condos := store.Registry().MustResource(storage.Condominiums)
	rec, err := store.Create(ctx, condos, sc, storage.Write{Values: map[string]any{
		"mode": "release", "status": "active", "type_id": typ, "title": "Aurora", "zip_code": int64(13025001),
		"groups": `[{"title":"2q","bedroom_min":"2","purposes":[{"type":"sale","amount":"1"}]}]`,
	}})
	if err != nil {
		f.Fatal(err)
	}
	id, _ := rec.ID()
	for _, sql := range []string{
		`INSERT INTO buildings (company_id, title, condominium_id) VALUES ($1, 'Apto', $2)`,
		`INSERT INTO condominium_units (company_id, condominium_id, group_id, number)
			SELECT $1, $2, id, '101' FROM condominium_groups WHERE condominium_id = $2`,
		`WITH p AS (INSERT INTO persons (company_id, name) VALUES ($1, 'P') RETURNING id)
			INSERT INTO condominium_related (company_id, condominium_id, person_id) SELECT $1, $2, id FROM p`,
		`WITH b AS (INSERT INTO businesses (company_id, name) VALUES ($1, 'B') RETURNING id),
			u AS (SELECT min(id) AS id FROM users WHERE company_id = $1),
			t AS (INSERT INTO teams (company_id, name, manager_id, business_id) SELECT $1, 'T', u.id, b.id FROM u, b RETURNING id)
			INSERT INTO team_users (company_id, team_id, user_id) SELECT $1, t.id, u.id FROM t, u WHERE $2 > 0`,
		`WITH g AS (INSERT INTO user_groups (company_id, name) VALUES ($1, 'G') RETURNING id)
			INSERT INTO user_group_permissions (company_id, group_id, permission) SELECT $1, id, 'all' FROM g WHERE $2 > 0`,
	} {
		if _, err := store.Pool().Exec(ctx, sql, companyID, id); err != nil {
			f.Fatalf("seed %q: %v", sql, err)
		}
	}
	return typ
}

// FuzzCondominiumWrite: no condominium, team or user group body makes the
// parser or the groups rule fail otherwise than with a 422; what they
// accept is created and written over a record without any error but the
// groups rule's 422, a reference to a missing record or a slug already
// taken: never a rejection by PostgreSQL.
func FuzzCondominiumWrite(f *testing.F) {
	reg, store, companyID := fuzzStore(f)
	typ := seedFuzzCondominiums(f, store, companyID)
	for _, seed := range []string{
		`{"title":"a"}`, `{"title":"a","groups":"[{\"title\":\"g\"}]"}`, `{"title":"a","groups":null}`,
		`{"title":"a","groups":"[{\"title\":\"g\",\"area_total_min\":\"1\",\"purposes\":[{\"type\":\"sale\",\"amount\":1e999}]}]"}`,
		`{"title":"a","groups":"[{\"title\":\"g\\u0000\"}]"}`, `{"title":"a","groups":"[{\"id\":1,\"title\":\"x\"}]"}`,
		`{"title":"a","groups":"[{\"title\":\"g\",\"bedroom\":-0.5e-3,\"purposes\":null}]"}`, `{"title":"a","groups":"[[],{}]"}`,
		`{"title":"a","groups":"[{\"title\":\"\\ud800\"}]"}`, `{"title":"a","groups":"[{\"title\":\"g\"}] [1]"}`,
		`{"title":"a","details":[1,2],"zip_code":99999999,"built_year":9999,"number":2147483647}`,
		`{"title":"a","tag":null,"responsible":[],"pickup":[1],"access":"all","mode":"condominium"}`,
		`{"title":"a","slug":"s","status":"","lock":"\u00e9","stage_id":-1,"id2":9223372036854775807}`,
		`{"name":"t","manager_id":1,"business_id":1,"notes":null}`, `{"name":"g","type":null,"notes":"n"}`,
		fmt.Sprintf(`{"mode":"release","status":"active","type_id":%d,"title":"a","groups":"[]"}`, typ),
	} {
		f.Add(seed)
	}
	ctx := context.Background()
	sc := storage.Company(companyID)
	targets := []struct {
		res  *storage.Resource
		id   int64
		fill map[string]any // what a create needs beside the body
	}{
		{res: reg.MustResource(storage.Condominiums), fill: map[string]any{"mode": "release", "status": "active", "type_id": typ}},
		{res: reg.MustResource(storage.Teams)},
		{res: reg.MustResource(storage.UserGroups)},
		{res: reg.MustResource(storage.Users)},
	}
	for i, tg := range targets {
		var id int64
		if err := store.Pool().QueryRow(ctx, "SELECT min(id) FROM "+tg.res.Table+" WHERE company_id = $1", companyID).Scan(&id); err != nil || id == 0 {
			f.Fatalf("no %s to update: %v", tg.res.Name, err)
		}
		targets[i].id = id
	}
	f.Fuzz(func(t *testing.T, body string) {
		obj, duplicates, err := decodeObject([]byte(body))
		if err != nil {
			if finance.ErrorCode(err) != finance.Invalid {
				t.Fatalf("%q: refusal is not a 422: %v", body, err)
			}
			return
		}
		for _, tg := range targets {
			for _, create := range []bool{true, false} {
				w, err := parseWrite(nil, tg.res, obj, create)
				if err = withProblems(err, duplicates); err != nil {
					if finance.ErrorCode(err) != finance.Invalid {
						t.Fatalf("%q: refusal is not a 422: %v", body, err)
					}
					continue
				}
				if create {
					for k, v := range tg.fill {
						if _, given := w.Values[k]; !given {
							w.Values[k] = v
						}
					}
					_, err = store.Create(ctx, tg.res, sc, w)
				} else {
					_, err = store.Update(ctx, tg.res, sc, tg.id, w)
				}
				if err != nil && !storageRefusal(err, groupsOrMissing) && !slugTaken(err) {
					t.Fatalf("%q (%s, create %v): accepted but failed in storage: %v %+v", body, tg.res.Name, create, err, problemsOf(err))
				}
			}
		}
	})
}

// groupsOrMissing: the groups text is read by the condominium's rule in
// storage (a 422 naming groups or a place inside them), and whether a
// referenced record exists only the database knows.
func groupsOrMissing(p finance.Problem) bool {
	return p.Field == "groups" || strings.HasPrefix(p.Field, "groups.") || isMissingReference(p)
}

// slugTaken: whether a slug is free is only known to the database.
func slugTaken(err error) bool {
	ps := problemsOf(err)
	return finance.ErrorCode(err) == finance.Conflict && len(ps) == 1 && ps[0].Field == "slug" && strings.Contains(ps[0].Message, "taken")
}

// FuzzEventList is FuzzParseList on /events, /calendars, /funnels and
// /deals, over seeded events of every recurrency (with guests, groups,
// reminders, a parent, an occurrence written apart, a file and a
// feedback) and a deal moved through a funnel: every filter (the
// recurrence ranges among them), include and sort the parser accepts runs
// on PostgreSQL without error.
func FuzzEventList(f *testing.F) {
	for _, seed := range []string{
		"", "sort=-initial_date,status&include[guests]&include[guestGroups]&include[tags]&include[creator]&include[calendar]",
		"include[person]&include[building]&include[deal]&include[parent]&include[childs]&include[arisingFrom]=id,title",
		"include[recurrences]&include[cancelled]&include[files]&include[lastFeedback]&include[contract]&include[childs.lastFeedback]",
		"filter[occurrenceBetween][]=0001-01-01&filter[occurrenceBetween][]=9999-12-31", "filter[yearBetween][]=2024-02-29&filter[yearBetween][]=2023-02-28",
		"filter[monthBetween][]=2024-02-29&filter[monthBetween][]=2024-02-29", "filter[weekBetween][]=2024-01-10&filter[weekBetween][]=2024-01-10",
		"filter[dayBetween][]=9999-12-31&filter[dayBetween][]=9999-12-31", "filter[scheduledBetween][]=2024-01-01&filter[scheduledBetween][]=2024-12-31",
		"filter[createdBetween][]=2024-01-01&filter[createdBetween][]=2030-01-01&filter[dateMinMax][]=0001-01-01&filter[dateMinMax][]=0001-01-01",
		"filter[accessible]=1&filter[descendant][]=1&filter[guestsIn][]=1&filter[responsibleIn][]=1&filter[userIn][]=1",
		"filter[responsibleGroupIn][]=1&filter[creatorIn][]=1&filter[calendarIn][]=1&filter[calendarOrInvitedIn][]=1",
		"filter[typeIn][]=visit&filter[statusIn][]=late&filter[statusNotIn][]=cancelled&filter[recurrencyIn][]=monthly",
		"filter[isLate]=true&filter[isNotRecurrence]=false&filter[isCancelled]=1&filter[notCancelled]=0&filter[active]=true",
		"filter[hasReminder]=true&filter[hasAnyReminder]=false&filter[nonRecurring]=true&filter[googleId]=%25",
		"filter[buildingIn][]=1&filter[dealIn][]=1&filter[personIn][]=1", "filter[reminder][]=START&filter[guest][]=1&filter[tag|empty]",
		"filter[status]=late&sort=status", "filter[time_zone]=America/Manaus&filter[initial_date|b]=0001-01-01|9999-12-31 23:59:59",
		"filter[title]=%25%00", "filter[reminder][]=%E2%82%AC", "filter[funnelIn][]=1&filter[stepIn][]=1&filter[teamIn][]=1&include[history]",
		"include[steps]&include[deals]&include[events]&filter[statusIn][]=won",
	} {
		f.Add(seed)
	}
	reg, store, companyID := fuzzStore(f)
	seedFuzzEvents(f, store, companyID)
	fuzzLists(f, reg, store, companyID, storage.Events, storage.Calendars, storage.Funnels, storage.Deals)
}

// seedFuzzEvents gives the fuzzed lists and writes a calendar, a user
// group, a funnel with a step, a deal moved into it, and events of every
// recurrency (one endless, one ending), one of them a child and one an
// occurrence written apart, with a file and a feedback.
func seedFuzzEvents(f *testing.F, store *storage.Store, companyID int64) {
	ctx := context.Background()
	for _, sql := range []string{
		`INSERT INTO calendars (company_id, name) VALUES ($1, 'Fuzz')`,
		`INSERT INTO user_groups (company_id, name) VALUES ($1, 'Fuzz')`,
		`INSERT INTO funnels (company_id, name) VALUES ($1, 'Fuzz')`,
		`INSERT INTO funnel_steps (company_id, funnel_id, name, position) SELECT $1, id, 'Fuzz', 1 FROM funnels WHERE company_id = $1`,
		`INSERT INTO deals (company_id, title, funnel_id, step_id, status) SELECT $1, 'Fuzz', funnel_id, id, 'won' FROM funnel_steps WHERE company_id = $1`,
		`INSERT INTO deal_step_history (company_id, deal_id, funnel_id, step_id) SELECT $1, id, funnel_id, step_id FROM deals WHERE company_id = $1`,
		`INSERT INTO events (company_id, title, calendar_id, type, status, guest, guest_group, guest_access, initial_date, final_date,
			recurrency, endless, reminder, private, created_by, deal_id)
		SELECT $1, r, c.id, 'meet', 'recurrent', ARRAY[u.id], ARRAY[g.id], 'full', '2024-01-31 12:00:00+00', '2024-12-31 12:00:00+00',
			r, r = 'yearly', ARRAY['START', '1_DAY'], r = 'daily', u.id, d.id
		FROM (VALUES ('daily'), ('weekly'), ('monthly'), ('yearly')) AS v(r),
			(SELECT min(id) AS id FROM calendars WHERE company_id = $1) c, (SELECT min(id) AS id FROM users WHERE company_id = $1) u,
			(SELECT min(id) AS id FROM user_groups WHERE company_id = $1) g, (SELECT min(id) AS id FROM deals WHERE company_id = $1) d`,
		`INSERT INTO events (company_id, title, calendar_id, type, status, guest_access, initial_date, father_id, recurrence_id)
		SELECT $1, 'child', calendar_id, 'task', s, 'view', '2024-02-29 12:00:00+00', id, CASE WHEN s = 'cancelled' THEN id END
		FROM events, (VALUES ('cancelled'), ('scheduled')) AS v(s) WHERE company_id = $1 AND recurrency = 'monthly'`,
		`INSERT INTO event_files (company_id, event_id, name, url) SELECT $1, min(id), 'a', 'https://a' FROM events WHERE company_id = $1`,
		`INSERT INTO event_feedbacks (company_id, event_id, feedback) SELECT $1, min(id), 'ok' FROM events WHERE company_id = $1`,
		`UPDATE events SET last_feedback_id = (SELECT max(id) FROM event_feedbacks WHERE company_id = $1) WHERE company_id = $1`,
	} {
		if _, err := store.Pool().Exec(ctx, sql, companyID); err != nil {
			f.Fatalf("seed %q: %v", sql, err)
		}
	}
}

// FuzzEventWrite is FuzzParseWrite on /events and /deals: what the body
// parser accepts (in the filter[...] form or plain) is created and
// written over a seeded record without any error but a reference to a
// missing record or a rule's 422: never a rejection by PostgreSQL.
func FuzzEventWrite(f *testing.F) {
	for _, seed := range []string{
		`{"filter[calendar_id]":1,"filter[title]":"a","filter[guest][]":[],"filter[guest_group][]":[],"filter[guest_access]":"view","filter[type]":"task","filter[status]":"scheduled","filter[initial_date]":"2024-03-01"}`,
		`{"calendar_id":1,"title":"a","guest":[1],"guest_group":[1],"guest_access":"full","type":"billing","status":"late","initial_date":"9999-12-31 23:59:59"}`,
		`{"filter[title]":"a","title":"b"}`, `{"filter[reminder][]":["START","1_MONTH"],"filter[recurrency]":"yearly","filter[endless]":true}`,
		`{"filter[reminder][]":["\u0000"]}`, `{"filter[reminder][]":[1]}`, `{"filter[reminder][]":null}`, `{"reminder":["3_DAY"]}`,
		`{"filter[initial_date]":"0001-01-01 00:00:00","filter[final_date]":"0001-01-01","filter[time_zone]":"Pacific/Midway"}`,
		`{"filter[time_zone]":null,"filter[father_id]":1,"filter[recurrence_id]":1,"filter[created_by]":1}`,
		`{"filter[guest][]":[9223372036854775807],"filter[tag][]":[-1]}`, `{"filter[last_feedback_id]":1}`, `{"_c":1}`,
		`{"title":"a","funnel_id":1,"step_id":1,"status":"won","team_id":1}`, `{"funnel_id":1,"step_id":99}`, `{"status":"closed"}`,
	} {
		f.Add(seed)
	}
	reg, store, companyID := fuzzStore(f)
	seedFuzzEvents(f, store, companyID)
	ctx := context.Background()
	sc := storage.Company(companyID)
	if err := store.Pool().QueryRow(ctx, `SELECT min(id) FROM users WHERE company_id = $1`, companyID).Scan(&sc.UserID); err != nil {
		f.Fatal(err)
	}
	targets := []struct {
		res *storage.Resource
		id  int64
	}{{res: reg.MustResource(storage.Events)}, {res: reg.MustResource(storage.Deals)}}
	for i, table := range []string{"events", "deals"} {
		if err := store.Pool().QueryRow(ctx, `SELECT min(id) FROM `+table+` WHERE company_id = $1`, companyID).Scan(&targets[i].id); err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, body string) {
		obj, duplicates, err := decodeObject([]byte(body))
		if err != nil {
			return
		}
		for _, create := range []bool{true, false} {
			for _, target := range targets {
				w, err := parseWrite(reg, target.res, obj, create)
				if err = withProblems(err, duplicates); err != nil {
					if finance.ErrorCode(err) != finance.Invalid {
						t.Fatalf("%q: refusal is not a 422: %v", body, err)
					}
					continue
				}
				if create {
					_, err = store.Create(ctx, target.res, sc, w)
				} else {
					_, err = store.Update(ctx, target.res, sc, target.id, w)
				}
				if err != nil && !storageRefusal(err, isRuleRefusal) {
					t.Fatalf("%q (%s, create %v): accepted but failed in storage: %v %+v", body, target.res.Name, create, err, problemsOf(err))
				}
			}
		}
	})
}

// isRuleRefusal: a missing reference, or a rule only storage can check
// (an event's period against its stored dates, an event as its own parent,
// a deal's step of another funnel).
func isRuleRefusal(p finance.Problem) bool {
	return isMissingReference(p) || strings.Contains(p.Message, "cannot be before") ||
		strings.Contains(p.Message, "cannot be the record itself") || strings.Contains(p.Message, "is not a step of funnel")
}

// FuzzDealReports: no query string makes the reports' parser panic; what
// it refuses is a 422 with problems, and what it accepts runs both
// reports on PostgreSQL without error.
func FuzzDealReports(f *testing.F) {
	for _, seed := range []string{
		"", "filter[funnel_id]=1&limit=1000", "filter[period][]=0001-01-01&filter[period][]=9999-12-31", "filter[userIn][0]=1&filter[teamIn][]=-1",
		"filter[period][]=2024-02-30", "limit=0", "filter[funnel_id]=9223372036854775807", "filter[x]=1", "_=1&filter[userIn]=1",
		"filter[period][]=%00", "limit=1&limit=1",
	} {
		f.Add(seed)
	}
	_, store, companyID := fuzzStore(f)
	seedFuzzEvents(f, store, companyID)
	f.Fuzz(func(t *testing.T, rawQuery string) {
		q, err := parseConversion(rawQuery, true)
		if err != nil {
			var coded *finance.Error
			if !errors.As(err, &coded) || coded.Code != finance.Invalid || len(coded.Problems) == 0 {
				t.Fatalf("%q: refusal is not a 422 with problems: %v", rawQuery, err)
			}
			return
		}
		if _, err := store.FunnelReport(context.Background(), companyID, q); err != nil {
			t.Fatalf("%q: funnel report: %v", rawQuery, err)
		}
		if _, err := store.StepDealsReport(context.Background(), companyID, q); err != nil {
			t.Fatalf("%q: step-deals report: %v", rawQuery, err)
		}
	})
}
