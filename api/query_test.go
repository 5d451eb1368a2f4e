package api

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// seed writes the fixtures the query tests share: company A's categories
// 1-3 and types 1-6, things 1-3, and company B's category 4 and type 7.
func seed(t *testing.T, e *testEnv) {
	t.Helper()
	e.exec(t, `INSERT INTO building_categories (company_id, description, color) VALUES
		($1, 'Residencial', '#111'), ($1, 'Comercial', '#222'), ($1, 'Rural', ''), ($2, 'Other company', '#999')`, e.compA, e.compB)
	e.exec(t, `INSERT INTO building_types (company_id, description, category_id) VALUES
		($1, 'Apartamento', 1), ($1, 'Casa', 1), ($1, 'Sala comercial', 2), ($1, '', 2), ($1, NULL, 3), ($1, 'Loja_1', 3),
		($2, 'Other type', 4)`, e.compA, e.compB)
	e.exec(t, `INSERT INTO test_things (company_id, title, day, amount, active, kind, category_id) VALUES
		($1, 'alpha', '2024-01-10', 100.50, true, 'rent', 1),
		($1, 'beta', '2024-02-15', 2500.00, false, 'sale', 2),
		($1, 'gamma', '2024-03-20', NULL, NULL, NULL, NULL)`, e.compA)
}

func TestFilterOperators(t *testing.T) {
	t.Parallel()
	e := setup(t, withTestResource())
	seed(t, e)
	cases := []struct {
		query string
		want  []int64
	}{
		{"filter[id]=2", []int64{2}},
		{"filter[id|ne]=2", []int64{1, 3, 4, 5, 6}},
		{"filter[id|not_equal]=2", []int64{1, 3, 4, 5, 6}},
		{"filter[id|l]=3", []int64{1, 2}},
		{"filter[id|less]=3", []int64{1, 2}},
		{"filter[id|le]=3", []int64{1, 2, 3}},
		{"filter[id|less_or_equal]=3", []int64{1, 2, 3}},
		{"filter[id|g]=4", []int64{5, 6}},
		{"filter[id|greater]=4", []int64{5, 6}},
		{"filter[id|ge]=4", []int64{4, 5, 6}},
		{"filter[id|greater_or_equal]=4", []int64{4, 5, 6}},
		{"filter[id|b]=2|4", []int64{2, 3, 4}},
		{"filter[id|between]=2|4", []int64{2, 3, 4}},
		{"filter[id|nb]=2|4", []int64{1, 5, 6}},
		{"filter[id|not_between]=2|4", []int64{1, 5, 6}},
		{"filter[description|empty]", []int64{4, 5}},
		{"filter[description|empty]=1", []int64{4, 5}},
		{"filter[description|not_empty]", []int64{1, 2, 3, 6}},
		{"filter[description]=Casa", []int64{2}},
		{"filter[description]=casa", nil},
		{"filter[description|ne]=Casa", []int64{1, 3, 4, 5, 6}},
		{"filter[description]=%25casa%25", []int64{2}},
		{"filter[description]=%25COMERCIAL", []int64{3}},
		{"filter[description]=apart%25", []int64{1}},
		{"filter[description|ne]=%25a%25", []int64{4, 5}},
		{"filter[description]=%25_%25", []int64{6}},
		{"filter[category_id]=1", []int64{1, 2}},
		{"filter[category_id]=1&filter[id|g]=1", []int64{2}},
		{"filter[id|ge]=2&filter[id|le]=3", []int64{2, 3}},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			got := e.get(t, "/buildings/types?"+c.query, http.StatusOK).ids(t)
			if !slices.Equal(got, c.want) {
				t.Errorf("ids %v, want %v", got, c.want)
			}
		})
	}
}

func TestFilterTypes(t *testing.T) {
	t.Parallel()
	e := setup(t, withTestResource())
	seed(t, e)
	cases := []struct {
		query string
		want  []int64
	}{
		{"filter[day]=2024-02-15", []int64{2}},
		{"filter[day|b]=2024-01-01|2024-02-29", []int64{1, 2}},
		{"filter[day|g]=2024-02-15", []int64{3}},
		{"filter[day|nb]=2024-01-01|2024-02-29", []int64{3}},
		{"filter[amount]=100.5", []int64{1}},
		{"filter[amount|ge]=100.50", []int64{1, 2}},
		{"filter[amount|l]=1000", []int64{1}},
		{"filter[amount|empty]", []int64{3}},
		{"filter[active]=true", []int64{1}},
		{"filter[active]=0", []int64{2}},
		{"filter[active|ne]=true", []int64{2, 3}},
		{"filter[active|not_empty]", []int64{1, 2}},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			got := e.get(t, "/test/things?"+c.query, http.StatusOK).ids(t)
			if !slices.Equal(got, c.want) {
				t.Errorf("ids %v, want %v", got, c.want)
			}
		})
	}
	for _, bad := range []string{"filter[day]=2024-13-01", "filter[day|b]=2024-01-01|soon", "filter[amount]=1,50",
		"filter[active]=yes", "filter[amount|g]=1e9"} {
		t.Run(bad, func(t *testing.T) {
			r := e.get(t, "/test/things?"+bad, http.StatusUnprocessableEntity)
			if f := r.problemFields(t); len(f) != 1 || !strings.HasPrefix(bad, f[0]) {
				t.Errorf("problem fields %v", f)
			}
		})
	}
}

func TestInFilters(t *testing.T) {
	t.Parallel()
	e := setup(t, withTestResource())
	seed(t, e)
	cases := []struct {
		name, query string
		want        []int64
	}{
		{"repeated", "filter[kindIn][]=rent&filter[kindIn][]=sale", []int64{1, 2}},
		{"indexed", "filter[kindIn][0]=rent&filter[kindIn][1]=sale", []int64{1, 2}},
		{"indexed out of order", "filter[kindIn][1]=sale&filter[kindIn][0]=nothing", []int64{2}},
		{"single value", "filter[kindIn]=rent", []int64{1}},
		{"integers", "filter[categoryIn][]=2&filter[categoryIn][]=3", []int64{2}},
		{"with other filters", "filter[categoryIn][]=1&filter[categoryIn][]=2&filter[title]=beta", []int64{2}},
		{"not in keeps nulls", "filter[kindNotIn][]=rent", []int64{2, 3}},
		{"two in-filters", "filter[kindIn][]=rent&filter[kindIn][]=sale&filter[categoryIn][0]=1", []int64{1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := e.get(t, "/test/things?"+c.query, http.StatusOK).ids(t)
			if !slices.Equal(got, c.want) {
				t.Errorf("ids %v, want %v", got, c.want)
			}
		})
	}
	r := e.get(t, "/test/things?filter[categoryIn][]=x", http.StatusUnprocessableEntity)
	if f := r.problemFields(t); !slices.Equal(f, []string{"filter[categoryIn][]"}) {
		t.Errorf("problem fields %v", f)
	}
}

func TestSortAndFields(t *testing.T) {
	t.Parallel()
	e := setup(t, withTestResource())
	seed(t, e)
	got := e.get(t, "/buildings/types?sort=-category_id,description", http.StatusOK).ids(t)
	// category 3: NULL description sorts last ascending; then 2: '' before 'Sala'; then 1.
	if want := []int64{6, 5, 4, 3, 1, 2}; !slices.Equal(got, want) {
		t.Errorf("sort ids %v, want %v", got, want)
	}
	items := e.get(t, "/buildings/types?fields=id,description,id&filter[id]=1", http.StatusOK).data(t)
	if len(items) != 1 || len(items[0]) != 2 || items[0]["description"] != "Apartamento" {
		t.Errorf("fields=id,description gave %v", items)
	}
	rec := e.get(t, "/buildings/types/2?fields=description", http.StatusOK).record(t)
	if len(rec) != 1 || rec["description"] != "Casa" {
		t.Errorf("get with fields gave %v", rec)
	}
	thing := e.get(t, "/test/things/1", http.StatusOK).record(t)
	if thing["amount"].(fmt.Stringer).String() != "100.50" || thing["day"] != "2024-01-10" || thing["active"] != true {
		t.Errorf("typed columns read back as %v", thing)
	}
}

func TestIncludeRules(t *testing.T) {
	t.Parallel()
	e := setup(t)
	seed(t, e)
	e.exec(t, `INSERT INTO constructors (company_id, name, state_id) VALUES ($1, 'Construtora Sul', 43)`, e.compA)
	e.exec(t, `INSERT INTO buildings (company_id, reference, title, type_id, constructor_id) VALUES
		($1, 'AP01', 'Edifício Aurora', 1, 1), ($1, 'CA01', 'Casa do Lago', 2, NULL)`, e.compA)

	t.Run("rule 1: direct relation needs no key in fields", func(t *testing.T) {
		item := e.get(t, "/buildings/types?fields=id,description&include[category]=id,color&filter[id]=3", http.StatusOK).data(t)[0]
		if _, has := item["category_id"]; has {
			t.Errorf("category_id returned though not in fields: %v", item)
		}
		cat := item["category"].(map[string]any)
		if len(cat) != 2 || cat["color"] != "#222" {
			t.Errorf("category %v, want id and color of Comercial", cat)
		}
	})
	t.Run("rule 2: nested key listed in the parent include", func(t *testing.T) {
		item := e.get(t, "/buildings/types?filter[id]=1&include[buildings]=id,title,constructor_id&include[buildings.constructor]=id,name", http.StatusOK).data(t)[0]
		b := item["buildings"].([]any)[0].(map[string]any)
		c, ok := b["constructor"].(map[string]any)
		if !ok || c["name"] != "Construtora Sul" {
			t.Errorf("nested constructor %v", b)
		}
	})
	t.Run("rule 2: nested key missing, nested relation empty", func(t *testing.T) {
		item := e.get(t, "/buildings/types?filter[id]=1&include[buildings]=id,title&include[buildings.constructor]=id,name", http.StatusOK).data(t)[0]
		b := item["buildings"].([]any)[0].(map[string]any)
		if v, has := b["constructor"]; !has || v != nil {
			t.Errorf("constructor should be present and null, got %v", b)
		}
		cat := e.get(t, "/buildings/types?filter[id]=1&include[category]=description&include[category.types]=id", http.StatusOK).data(t)[0]["category"].(map[string]any)
		if types, ok := cat["types"].([]any); !ok || len(types) != 0 {
			t.Errorf("category.types should be [] without the category id, got %v", cat)
		}
	})
	t.Run("rule 3: nested alone returns every parent column", func(t *testing.T) {
		item := e.get(t, "/buildings/types?fields=id,category_id&filter[id]=1&include[category.types]=id", http.StatusOK).data(t)[0]
		cat := item["category"].(map[string]any)
		if cat["description"] != "Residencial" || cat["color"] != "#111" || num(t, cat["id"]) != 1 {
			t.Errorf("category should carry all its columns: %v", cat)
		}
		var ids []int64
		for _, ty := range cat["types"].([]any) {
			m := ty.(map[string]any)
			if len(m) != 1 {
				t.Errorf("nested types should carry only id: %v", m)
			}
			ids = append(ids, num(t, m["id"]))
		}
		if !slices.Equal(ids, []int64{1, 2}) {
			t.Errorf("category 1 types %v", ids)
		}
	})
	t.Run("rule 4: include without fields", func(t *testing.T) {
		item := e.get(t, "/buildings/constructors?include[state]=abbreviation&include[buildings]", http.StatusOK).data(t)[0]
		if item["name"] != "Construtora Sul" || item["state"].(map[string]any)["abbreviation"] != "RS" {
			t.Errorf("constructor with state: %v", item)
		}
		if bs := item["buildings"].([]any); len(bs) != 1 || bs[0].(map[string]any)["reference"] != "AP01" {
			t.Errorf("constructor buildings: %v", bs)
		}
	})
	t.Run("missing relations are null and []", func(t *testing.T) {
		item := e.get(t, "/buildings/types?filter[id]=4&include[buildings]&include[category]", http.StatusOK).data(t)[0]
		if bs, ok := item["buildings"].([]any); !ok || len(bs) != 0 {
			t.Errorf("type 4 buildings should be [], got %v", item["buildings"])
		}
		if item["category"] == nil {
			t.Errorf("type 4 has a category: %v", item)
		}
	})
	t.Run("get supports include", func(t *testing.T) {
		rec := e.get(t, "/buildings/categories/1?include[types]=description", http.StatusOK).record(t)
		if len(rec["types"].([]any)) != 2 {
			t.Errorf("category 1 types: %v", rec)
		}
	})
}

func TestCustomFields(t *testing.T) {
	t.Parallel()
	e := setup(t)
	created := e.do(t, http.MethodPost, "/buildings/categories", e.keyA, `{"description":"Luxo","color":"#000","_origin":"import","_score":7}`)
	if created.status != http.StatusCreated {
		t.Fatalf("create: %d %s", created.status, created.raw)
	}
	rec := created.record(t)
	if rec["_origin"] != "import" || num(t, rec["_score"]) != 7 {
		t.Errorf("write response should carry custom fields: %v", rec)
	}
	id := num(t, rec["id"])
	plain := e.get(t, fmt.Sprintf("/buildings/categories/%d", id), http.StatusOK).record(t)
	if _, has := plain["_origin"]; has {
		t.Errorf("custom fields returned without customFields=true: %v", plain)
	}
	listed := e.get(t, "/buildings/categories?customFields=true", http.StatusOK).data(t)[0]
	if listed["_origin"] != "import" {
		t.Errorf("list with customFields=true: %v", listed)
	}
	upd := e.do(t, http.MethodPut, fmt.Sprintf("/buildings/categories/%d", id), e.keyA, `{"_origin":null,"_floor":"3"}`)
	if upd.status != http.StatusOK {
		t.Fatalf("update: %d %s", upd.status, upd.raw)
	}
	got := e.get(t, fmt.Sprintf("/buildings/categories/%d?customFields=true", id), http.StatusOK).record(t)
	if _, has := got["_origin"]; has || got["_floor"] != "3" || num(t, got["_score"]) != 7 {
		t.Errorf("after update: %v", got)
	}
	bad := e.do(t, http.MethodPost, "/buildings/categories", e.keyA, `{"description":"x","color":"y","_bad-name":1}`)
	if bad.status != http.StatusUnprocessableEntity || !slices.Equal(bad.problemFields(t), []string{"_bad-name"}) {
		t.Errorf("bad custom field name: %d %s", bad.status, bad.raw)
	}
}

func TestPagination(t *testing.T) {
	t.Parallel()
	e := setup(t)
	e.exec(t, `INSERT INTO building_categories (company_id, description, color) VALUES ($1, 'C', '#1')`, e.compA)
	e.exec(t, `INSERT INTO building_types (company_id, description, category_id)
		SELECT $1, 'T' || g, 1 FROM generate_series(1, 25) g`, e.compA)
	base := "/buildings/types?sort=-id&fields=id&perPage=10"
	cases := []struct {
		page             int
		from, to         int64
		next, prev       any
		firstID, countID int64
	}{
		{1, 1, 10, "/buildings/types?sort=-id&fields=id&perPage=10&page=2", nil, 25, 10},
		{2, 11, 20, "/buildings/types?sort=-id&fields=id&perPage=10&page=3", "/buildings/types?sort=-id&fields=id&perPage=10&page=1", 15, 10},
		{3, 21, 25, nil, "/buildings/types?sort=-id&fields=id&perPage=10&page=2", 5, 5},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint("page ", c.page), func(t *testing.T) {
			r := e.get(t, fmt.Sprintf("%s&page=%d", base, c.page), http.StatusOK)
			b := r.body
			if num(t, b["current_page"]) != int64(c.page) || num(t, b["per_page"]) != 10 ||
				num(t, b["from"]) != c.from || num(t, b["to"]) != c.to {
				t.Errorf("envelope %s", r.raw)
			}
			if b["first_page_url"] != "/buildings/types?sort=-id&fields=id&perPage=10&page=1" || b["path"] != "/buildings/types" {
				t.Errorf("first_page_url/path: %v %v", b["first_page_url"], b["path"])
			}
			if b["next_page_url"] != c.next || b["prev_page_url"] != c.prev {
				t.Errorf("next %v prev %v, want %v %v", b["next_page_url"], b["prev_page_url"], c.next, c.prev)
			}
			if b["return"] != true || num(t, b["status"]) != 200 {
				t.Errorf("return/status: %s", r.raw)
			}
			ids := r.ids(t)
			if int64(len(ids)) != c.countID || ids[0] != c.firstID {
				t.Errorf("ids %v", ids)
			}
			if _, has := b["total"]; has {
				t.Error("total given without withTotal")
			}
		})
	}
	r := e.get(t, "/buildings/types?perPage=10&page=9&withTotal=true", http.StatusOK)
	if r.body["from"] != nil || r.body["to"] != nil || num(t, r.body["total"]) != 25 || num(t, r.body["last_page"]) != 3 {
		t.Errorf("empty page with totals: %s", r.raw)
	}
	if n := len(e.get(t, "/buildings/types", http.StatusOK).data(t)); n != DefaultPerPage {
		t.Errorf("default page size %d", n)
	}
	// the last pages within the offset cap are served
	e.get(t, "/buildings/types?page=10001", http.StatusOK)
	e.get(t, "/buildings/types?page=1001&perPage=100", http.StatusOK)
}

func TestQueryErrors(t *testing.T) {
	t.Parallel()
	e := setup(t)
	cases := []struct {
		query  string
		fields []string
	}{
		{"filter[id]=abc", []string{"filter[id]"}},
		{"filter[nope]=1", []string{"filter[nope]"}},
		{"filter[id|near]=1", []string{"filter[id|near]"}},
		{"filter[id|b]=1", []string{"filter[id|b]"}},
		{"filter[id][]=1", []string{"filter[id][]"}},
		{"filter[id=1", []string{"filter[id"}},
		{"sort=-nope", []string{"sort"}},
		{"fields=id,secret", []string{"fields"}},
		{"include[owner]", []string{"include[owner]"}},
		{"include[category.nope]", []string{"include[category.nope]"}},
		{"include[category]=id,nope", []string{"include[category]"}},
		{"include[category.types]&include[category]&include%5Bcategory.types%5D=nope", []string{"include[category.types]"}},
		{"page=-1", []string{"page"}},
		{"page=10002", []string{"page"}},
		{"perPage=100&page=1002", []string{"page"}},
		{"page=2147483647&perPage=100", []string{"page"}},
		{"page=0&perPage=1000", []string{"page", "perPage"}},
		{"perPage=x", []string{"perPage"}},
		{"customFields=maybe", []string{"customFields"}},
		{"per_page=5", []string{"per_page"}},
		{"filter[description]=%zz", []string{"query"}},
		{"filter[id]=x&sort=y&include[z]", []string{"filter[id]", "sort", "include[z]"}},
		// one error per distinct problem: a parameter repeated with the same
		// fault is named once, different faults each
		{"filter[nope]=1&filter[nope]=2", []string{"filter[nope]"}},
		{"filter[nope]=1&filter[nope]=1&filter[nope][]=3&filter[nope]=4", []string{"filter[nope]", "filter[nope][]"}},
		{"filter[nope]=1&filter[other]=2&filter[nope]=3", []string{"filter[nope]", "filter[other]"}},
		{"filter[id]=x&filter[id]=y", []string{"filter[id]"}},
		{"page=1&page=2&page=3", []string{"page"}},
		{"sort=nope,-nope", []string{"sort"}},
		{"sort=nope,other", []string{"sort", "sort"}},
		{"per_page=5&per_page=6", []string{"per_page"}},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			r := e.get(t, "/buildings/types?"+c.query, http.StatusUnprocessableEntity)
			if r.body["return"] != false || r.body["message"] != "The given data was invalid." {
				t.Errorf("envelope %s", r.raw)
			}
			if got := r.problemFields(t); !slices.Equal(got, c.fields) {
				t.Errorf("problem fields %v, want %v", got, c.fields)
			}
		})
	}
	// the routes that take no parameters, and the reports' own parsers
	for path, fields := range map[string][]string{
		"/financial/settings?x=1&x=2&y=3":                        {"x", "y"},
		"/deals/conversion/funnel?filter[nope]=1&filter[nope]=2": {"filter[nope]"},
	} {
		r := e.get(t, path, http.StatusUnprocessableEntity)
		if got := r.problemFields(t); !slices.Equal(got, fields) {
			t.Errorf("%s: problem fields %v, want %v", path, got, fields)
		}
	}
}

// TestSortDecimalNumerically sorts on a decimal column with and without
// the column in fields: both orders are numeric (10.50 before 100.00 when
// ascending), never the order of the decimal's text.
func TestSortDecimalNumerically(t *testing.T) {
	e := setup(t)
	for _, fixed := range []string{"100.00", "10.50", "9.00", "1000.00"} {
		e.create(t, "/financial/billings", map[string]any{"name": "B " + fixed, "ticket_discount_fixed": fixed})
	}
	for _, c := range []struct {
		query string
		want  []string
	}{
		{"sort=ticket_discount_fixed&fields=id,name,ticket_discount_fixed", []string{"B 9.00", "B 10.50", "B 100.00", "B 1000.00"}},
		{"sort=-ticket_discount_fixed&fields=id,name,ticket_discount_fixed", []string{"B 1000.00", "B 100.00", "B 10.50", "B 9.00"}},
		{"sort=-ticket_discount_fixed&fields=id,name", []string{"B 1000.00", "B 100.00", "B 10.50", "B 9.00"}},
	} {
		var got []string
		for _, rec := range e.get(t, "/financial/billings?"+c.query, http.StatusOK).data(t) {
			got = append(got, rec["name"].(string))
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.query, got, c.want)
		}
	}
}

// TestSortRefusesJSON: a column holding JSON cannot be sorted on (a 422
// naming sort); PostgreSQL has no order for json, so a job list sorted on
// its result was a 500.
func TestSortRefusesJSON(t *testing.T) {
	t.Parallel()
	e := setup(t)
	for _, path := range []string{"/jobs?sort=result,submitted_by", "/jobs?sort=-progress", "/jobs/1?sort=result"} {
		r := e.do(t, http.MethodGet, path, e.keyA, nil)
		if path == "/jobs/1?sort=result" { // a single record: the sort is refused before the lookup
			if r.status != http.StatusUnprocessableEntity {
				t.Errorf("GET %s: %d %s, want 422", path, r.status, r.raw)
			}
			continue
		}
		if r.status != http.StatusUnprocessableEntity || !slices.Equal(r.problemFields(t), []string{"sort"}) {
			t.Errorf("GET %s: %d %s, want a 422 naming sort", path, r.status, r.raw)
		}
	}
	e.get(t, "/jobs?sort=-submitted_by,state", http.StatusOK)
}

// TestUnknownOperatorListsTheOperators: the refusal of an operator that
// does not exist names every one that does, long and short, and the list
// holds each operator of the language once.
func TestUnknownOperatorListsTheOperators(t *testing.T) {
	t.Parallel()
	listed := map[string]bool{}
	for _, part := range strings.Split(operatorNames, ", ") {
		long, short, _ := strings.Cut(part, " (")
		for _, name := range []string{long, strings.TrimSuffix(short, ")")} {
			if name == "" {
				continue
			}
			if _, ok := operators[name]; !ok || listed[name] {
				t.Errorf("operatorNames lists %q: an operator %v, listed before %v", name, ok, listed[name])
			}
			listed[name] = true
		}
	}
	for name := range operators {
		if !listed[name] {
			t.Errorf("operator %q is not in operatorNames", name)
		}
	}
	e := setup(t)
	r := e.get(t, "/buildings/types?filter[id|gt]=1", http.StatusUnprocessableEntity)
	want := `unknown operator \"gt\": the operators are not_equal (ne), less (l)`
	if !strings.Contains(r.raw, want) {
		t.Errorf("answer %s, want it to hold %s", r.raw, want)
	}
}
