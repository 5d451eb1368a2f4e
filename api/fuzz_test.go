package api

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

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
	resources := []*storage.Resource{reg.MustResource("test_things"), reg.MustResource(storage.BuildingTypes), reg.MustResource("test_bills")}
	f.Fuzz(func(t *testing.T, rawQuery string) {
		for _, res := range resources {
			q, err := parseList(reg, res, rawQuery)
			if err != nil {
				var coded *storage.Error
				if !errors.As(err, &coded) || coded.Code != storage.Invalid || len(coded.Problems) == 0 {
					t.Fatalf("%q: refusal is not a 422 with problems: %v", rawQuery, err)
				}
				continue
			}
			page, err := store.List(context.Background(), res, storage.Company(companyID), q)
			if err != nil && !storageRefusal(err, isIncludeLimit) {
				t.Fatalf("%q: accepted but failed in storage: %v %+v", rawQuery, err, problemsOf(err))
			}
			if err != nil {
				continue
			}
			if body := pageEnvelope(newPageLinks("/test", rawQuery), q, page); !json.Valid(body) {
				t.Fatalf("%q: envelope is not valid JSON: %s", rawQuery, body)
			}
		}
	})
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
			if storage.ErrorCode(err) != storage.Invalid {
				t.Fatalf("%q: refusal is not a 422: %v", body, err)
			}
			return
		}
		for _, create := range []bool{true, false} {
			for _, target := range []*storage.Resource{res, bills} {
				w, err := parseWrite(nil, target, obj, create)
				err = withProblems(err, duplicates)
				if err != nil {
					if storage.ErrorCode(err) != storage.Invalid {
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

func problemsOf(err error) []storage.Problem {
	var coded *storage.Error
	if errors.As(err, &coded) {
		return coded.Problems
	}
	return nil
}

// storageRefusal reports whether err is a 422 that storage alone can make
// of input the parser accepted, every problem of it passing excused: never
// one that carries a PostgreSQL error (the translation backstop for values
// the database cannot hold), which means the parser let a bad value through.
func storageRefusal(err error, excused func(storage.Problem) bool) bool {
	var pgErr *pgconn.PgError
	var coded *storage.Error
	if errors.As(err, &pgErr) || !errors.As(err, &coded) || coded.Code != storage.Invalid || len(coded.Problems) == 0 {
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
func isIncludeLimit(p storage.Problem) bool {
	return strings.HasPrefix(p.Field, "include") && strings.Contains(p.Message, "would return more than")
}

// isMissingReference: whether a referenced record exists is only known to
// the database.
func isMissingReference(p storage.Problem) bool {
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
