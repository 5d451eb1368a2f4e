package api

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

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
	} {
		f.Add(seed)
	}
	reg, store, companyID := fuzzStore(f)
	resources := []*storage.Resource{reg.MustResource("test_things"), reg.MustResource(storage.BuildingTypes)}
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
			page, err := store.List(context.Background(), res, companyID, q)
			if storage.ErrorCode(err) == storage.Invalid {
				continue // a limit only known once loaded (include size)
			}
			if err != nil {
				t.Fatalf("%q: accepted but failed in storage: %v", rawQuery, err)
			}
			if body := pageEnvelope(newPageLinks("/test", rawQuery), q, page); !json.Valid(body) {
				t.Fatalf("%q: envelope is not valid JSON: %s", rawQuery, body)
			}
		}
	})
}

// FuzzParseWrite: no body makes the body parser panic; what it refuses is a
// 422 with problems, and what it accepts is written without an internal
// error (a reference to a missing record is a 422 too).
func FuzzParseWrite(f *testing.F) {
	for _, seed := range []string{
		`{"title":"a"}`, `{"title":"a","day":"2024-02-29","amount":"10.50","active":true,"kind":"rent"}`,
		`{"title":null}`, `{"title":"a","amount":1e999}`, `{"title":"a","_c":{"x":[1,2]}}`, `{"title":"a\u0000"}`,
		`{"title":"a","category_id":99}`, `[]`, `{}`, `{"id":1}`, `{"title":"a","_":1}`, "{\"title\":\"\xff\"}",
	} {
		f.Add(seed)
	}
	reg, store, companyID := fuzzStore(f)
	res := reg.MustResource("test_things")
	f.Fuzz(func(t *testing.T, body string) {
		var obj map[string]json.RawMessage
		if json.Unmarshal([]byte(body), &obj) != nil || obj == nil {
			return // readObject refuses it before parseWrite
		}
		w, err := parseWrite(res, obj, true)
		if err != nil {
			if storage.ErrorCode(err) != storage.Invalid {
				t.Fatalf("%q: refusal is not a 422: %v", body, err)
			}
			return
		}
		if _, err := store.Create(context.Background(), res, companyID, w); err != nil && storage.ErrorCode(err) != storage.Invalid {
			t.Fatalf("%q: accepted but failed in storage: %v", body, err)
		}
	})
}

// fuzzStore gives a fuzz target a store over its own database, with the
// test resource declared and a company to act for.
func fuzzStore(f *testing.F) (*storage.Registry, *storage.Store, int64) {
	pool := storagetest.NewDB(f)
	createTestTable(f, pool)
	reg, err := storage.NewRegistry(append(storage.Resources(), testResource())...)
	if err != nil {
		f.Fatal(err)
	}
	companyID, _, err := storage.EnsureCompany(context.Background(), pool, "Fuzz")
	if err != nil {
		f.Fatal(err)
	}
	return reg, storage.NewStore(pool, reg), companyID
}
