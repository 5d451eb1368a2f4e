package api

import (
	"context"
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
	} {
		f.Add(seed)
	}
	pool := storagetest.NewDB(f)
	createTestTable(f, pool)
	reg, err := storage.NewRegistry(append(storage.Resources(), testResource())...)
	if err != nil {
		f.Fatal(err)
	}
	store := storage.NewStore(pool, reg)
	companyID, _, err := storage.EnsureCompany(context.Background(), pool, "Fuzz")
	if err != nil {
		f.Fatal(err)
	}
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
			if _, err := store.List(context.Background(), res, companyID, q); err != nil {
				t.Fatalf("%q: accepted but failed in storage: %v", rawQuery, err)
			}
		}
	})
}
