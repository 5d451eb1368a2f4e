package api

import (
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// TestQueryFormsOfClients sends the query strings common HTTP clients build
// with their default settings from an array value: openapi-fetch and Python
// requests repeat the key (sort=-a&sort=b), axios adds brackets
// (sort[]=-a&sort[]=b, its brackets percent-encoded), and a client set to
// OpenAPI's explode: false (or a generator reading it) joins the values
// with commas (filter[categoryIn][]=1,2). Each strings below is what that
// client sends for the same list.
func TestQueryFormsOfClients(t *testing.T) {
	t.Parallel()
	e := setup(t, withTestResource())
	seed(t, e)
	cases := []struct {
		name, path string
		want       []int64
	}{
		{"sort: comma list", "/buildings/types?sort=-category_id,description", []int64{6, 5, 4, 3, 1, 2}},
		{"sort: repeated (openapi-fetch, requests)", "/buildings/types?sort=-category_id&sort=description", []int64{6, 5, 4, 3, 1, 2}},
		{"sort: brackets (axios)", "/buildings/types?sort%5B%5D=-category_id&sort%5B%5D=description", []int64{6, 5, 4, 3, 1, 2}},
		{"sort: brackets unencoded", "/buildings/types?sort[]=-category_id&sort[]=description", []int64{6, 5, 4, 3, 1, 2}},
		{"sort: repeats keep their order", "/buildings/types?sort=category_id&sort=-id", []int64{2, 1, 4, 3, 6, 5}},
		{"sort: repeats keep their order, reversed", "/buildings/types?sort=-id&sort=category_id", []int64{6, 5, 4, 3, 2, 1}},
		{"sort: a comma list and a repeat", "/buildings/types?sort=category_id,-description&sort=id", []int64{2, 1, 3, 4, 5, 6}},
		{"integers: repeated (openapi-fetch)", "/test/things?filter[categoryIn][]=1&filter[categoryIn][]=2", []int64{1, 2}},
		{"integers: repeated, encoded (requests, axios)", "/test/things?filter%5BcategoryIn%5D%5B%5D=1&filter%5BcategoryIn%5D%5B%5D=2", []int64{1, 2}},
		{"integers: comma list (explode false)", "/test/things?filter[categoryIn][]=1,2", []int64{1, 2}},
		{"integers: comma list, encoded", "/test/things?filter%5BcategoryIn%5D%5B%5D=1%2C2", []int64{1, 2}},
		{"integers: comma list, indexed", "/test/things?filter[categoryIn][0]=1,2", []int64{1, 2}},
		{"integers: comma list, single form", "/test/things?filter[categoryIn]=1,2", []int64{1, 2}},
		{"integers: comma list and repeat", "/test/things?filter[categoryIn][]=3&filter[categoryIn][]=2,1", []int64{1, 2}},
		{"dates: comma list", "/test/things?filter[dayIn][]=2024-01-10,2024-02-15", []int64{1, 2}},
		{"enum: comma list", "/test/things?filter[kindOfIn][]=rent,sale", []int64{1, 2}},
		{"text keeps its comma", "/test/things?filter[kindIn][]=rent,sale", nil},
		{"text: repeated", "/test/things?filter[kindIn][]=rent&filter[kindIn][]=sale", []int64{1, 2}},
		{"an equality repeated with its value", "/test/things?filter[kind]=rent&filter[kind]=rent", []int64{1}},
		{"patterns repeated combine with AND", "/test/things?filter[title]=%25a%25&filter[title]=%25ph%25", []int64{1}},
		{"other operators repeated combine with AND", "/test/things?filter[id|ne]=1&filter[id|ne]=3", []int64{2}},
		{"an equality beside another operator", "/test/things?filter[kind]=rent&filter[kind|ne]=sale", []int64{1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := e.get(t, c.path, http.StatusOK).ids(t)
			if !slices.Equal(got, c.want) {
				t.Errorf("ids %v, want %v", got, c.want)
			}
		})
	}
}

// TestQueryFormsOfClientsColumns sends fields and include[relation] as
// each client sends a list of columns, on a list and on one record.
func TestQueryFormsOfClientsColumns(t *testing.T) {
	t.Parallel()
	e := setup(t)
	seed(t, e)
	cases := []struct {
		name, path   string
		keys, nested []string
	}{
		{"fields: comma list", "/buildings/types/3?fields=id,description", []string{"description", "id"}, nil},
		{"fields: repeated (openapi-fetch, requests)", "/buildings/types/3?fields=id&fields=description", []string{"description", "id"}, nil},
		{"fields: brackets (axios)", "/buildings/types/3?fields%5B%5D=id&fields%5B%5D=description", []string{"description", "id"}, nil},
		{"fields: repeated, on a list", "/buildings/types?filter[id]=3&fields=id&fields=description", []string{"description", "id"}, nil},
		{"include: comma list", "/buildings/types/3?fields=id&include[category]=id,color", []string{"category", "id"}, []string{"color", "id"}},
		{"include: repeated (openapi-fetch, requests)", "/buildings/types/3?fields=id&include[category]=id&include[category]=color",
			[]string{"category", "id"}, []string{"color", "id"}},
		{"include: repeated, encoded (requests)", "/buildings/types/3?fields=id&include%5Bcategory%5D=id&include%5Bcategory%5D=color",
			[]string{"category", "id"}, []string{"color", "id"}},
		{"include: brackets (axios)", "/buildings/types/3?fields%5B%5D=id&include%5Bcategory%5D%5B%5D=id&include%5Bcategory%5D%5B%5D=color",
			[]string{"category", "id"}, []string{"color", "id"}},
		{"include: repeated, on a list", "/buildings/types?filter[id]=3&fields=id&include[category]=id&include[category]=color",
			[]string{"category", "id"}, []string{"color", "id"}},
		{"include: an empty repeat adds nothing", "/buildings/types/3?fields=id&include[category]=&include[category]=color&include[category]=id",
			[]string{"category", "id"}, []string{"color", "id"}},
		{"fields: an empty repeat adds nothing", "/buildings/types/3?fields=id&fields=&fields=description", []string{"description", "id"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.get(t, c.path, http.StatusOK)
			rec := map[string]any{}
			if strings.Contains(c.path, "/types?") {
				items := r.data(t)
				if len(items) != 1 {
					t.Fatalf("%d rows, want 1", len(items))
				}
				rec = items[0]
			} else {
				rec = r.record(t)
			}
			if got := slices.Sorted(maps.Keys(rec)); !slices.Equal(got, c.keys) {
				t.Errorf("keys %v, want %v", got, c.keys)
			}
			if c.nested == nil {
				return
			}
			cat, _ := rec["category"].(map[string]any)
			if got := slices.Sorted(maps.Keys(cat)); !slices.Equal(got, c.nested) || cat["color"] != "#222" {
				t.Errorf("category %v, want the columns %v of Comercial", cat, c.nested)
			}
		})
	}
}

// TestQueryFormsRefused: the values a list form brings are checked as
// those of the comma list, and the single-valued parameters still refuse a
// repeat.
func TestQueryFormsRefused(t *testing.T) {
	t.Parallel()
	e := setup(t, withTestResource())
	cases := []struct {
		name, path, field, message string
	}{
		{"an integer of a comma list", "/test/things?filter[categoryIn][]=1,x", "filter[categoryIn][]", "must be an integer"},
		{"an empty value of a comma list", "/test/things?filter[categoryIn][]=1,", "filter[categoryIn][]", "must be an integer"},
		{"an enum value of a comma list", "/test/things?filter[kindOfIn][]=rent,lease", "filter[kindOfIn][]", "must be one of: rent, sale"},
		{"a date of a comma list", "/test/things?filter[dayIn][]=2024-01-10,2024-13-01", "filter[dayIn][]", "must be a date YYYY-MM-DD (years 0001 to 9999)"},
		{"too many values in comma lists", "/test/things?filter[categoryIn][]=1" + strings.Repeat(",1", MaxInValues),
			"filter[categoryIn][]", "at most 1000 In-filter values in one request"},
		{"an unknown column of a repeated sort", "/test/things?sort=id&sort=-nope", "sort", `unknown column "nope"`},
		{"an unknown column of a bracket field", "/test/things?fields[]=id&fields[]=nope", "fields", `unknown column "nope"`},
		{"an unknown column of a repeated include", "/test/things?include[category]=id&include[category]=nope", "include[category]", `unknown column "nope"`},
		{"an equality repeated with another value, an In-filter declared", "/test/things?filter[kind]=rent&filter[kind]=sale", "filter[kind]",
			"is given more than once with different values; filters combine with AND, so no row could match; for any of several values use filter[kindIn][]"},
		{"an equality repeated with another value", "/test/things?filter[title]=alpha&filter[title]=beta", "filter[title]",
			"is given more than once with different values; filters combine with AND, so no row could match"},
		{"an integer equality repeated with another value", "/test/things?filter[id]=1&filter[id]=2", "filter[id]",
			"is given more than once with different values; filters combine with AND, so no row could match"},
		{"page twice", "/test/things?page=1&page=2", "page", "is given more than once"},
		{"perPage twice", "/test/things?perPage=5&perPage=5", "perPage", "is given more than once"},
		{"customFields twice", "/test/things?customFields=true&customFields=true", "customFields", "is given more than once"},
		{"page in brackets", "/test/things?page[]=1", "page[]", "unknown query parameter"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.get(t, c.path, http.StatusUnprocessableEntity)
			items, _ := r.body["errors"].([]any)
			if len(items) != 1 {
				t.Fatalf("errors %s, want one", r.raw)
			}
			p := items[0].(map[string]any)
			if p["field"] != c.field || p["message"] != c.message {
				t.Errorf("problem %v, want %s: %s", p, c.field, c.message)
			}
		})
	}
}
