package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage/storagetest"
)

// TestConstraintViolations: a NOT NULL or CHECK of the schema that the
// declaration does not know of answers 422 naming the field (or "body" when
// no field can be derived), never 500, and never shows the constraint.
func TestConstraintViolations(t *testing.T) {
	t.Parallel()
	e := setup(t, withTestResource())
	e.exec(t, `INSERT INTO test_things (company_id, title, kind) VALUES ($1, 'alpha', 'rent')`, e.compA)
	e.exec(t, `ALTER TABLE test_things ALTER COLUMN kind SET NOT NULL,
		ADD CONSTRAINT test_things_day_check CHECK (day >= '2000-01-01'),
		ADD CONSTRAINT test_things_window CHECK (active OR amount IS NULL)`)
	cases := []struct {
		name, method, path, body, field string
	}{
		{"null in a NOT NULL column", http.MethodPost, "/test/things", `{"title":"a","kind":null}`, "kind"},
		{"NOT NULL column left out", http.MethodPost, "/test/things", `{"title":"a"}`, "kind"},
		{"null on update", http.MethodPut, "/test/things/1", `{"kind":null}`, "kind"},
		{"column CHECK", http.MethodPost, "/test/things", `{"title":"a","kind":"k","day":"1999-12-31"}`, "day"},
		{"table CHECK", http.MethodPost, "/test/things", `{"title":"a","kind":"k","active":false,"amount":"1.00"}`, "body"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.do(t, c.method, c.path, e.keyA, c.body)
			if r.status != http.StatusUnprocessableEntity || !slices.Equal(r.problemFields(t), []string{c.field}) {
				t.Fatalf("%d %s, want 422 naming %s", r.status, r.raw, c.field)
			}
			if strings.Contains(r.raw, "test_things_") || strings.Contains(r.raw, "check") {
				t.Errorf("the answer shows a constraint: %s", r.raw)
			}
		})
	}
}

// TestConflictsHideConstraints: a 409 names the field when the constraint
// maps to one, and never shows the constraint's name.
func TestConflictsHideConstraints(t *testing.T) {
	t.Parallel()
	e := setup(t, withTestResource())
	seed(t, e)
	e.exec(t, `CREATE UNIQUE INDEX test_things_title_key ON test_things (company_id, title)`)
	dup := e.do(t, http.MethodPost, "/test/things", e.keyA, `{"title":"alpha"}`)
	if dup.status != http.StatusConflict || !slices.Equal(dup.problemFields(t), []string{"title"}) {
		t.Errorf("duplicate title: %d %s", dup.status, dup.raw)
	}
	inUse := e.do(t, http.MethodDelete, "/buildings/categories/1", e.keyA, nil)
	if inUse.status != http.StatusConflict {
		t.Errorf("delete of a category in use: %d %s", inUse.status, inUse.raw)
	}
	for _, r := range []response{dup, inUse} {
		if strings.Contains(r.raw, "_key") || strings.Contains(r.raw, "_fk") {
			t.Errorf("the answer shows a constraint: %s", r.raw)
		}
	}
}

// TestDecimalPlaces: a decimal with more places than its column holds is
// refused, never rounded; so is one with more integer digits than it holds.
// Trailing zeros past the scale lose nothing and are accepted.
func TestDecimalPlaces(t *testing.T) {
	t.Parallel()
	e := setup(t, withTestResource())
	seed(t, e)
	cases := []struct {
		name, method, path, body string
		status                   int
		amount                   string // read back, when accepted
	}{
		{"three places as text", http.MethodPost, "/test/things", `{"title":"a","amount":"10.555"}`, 422, ""},
		{"three places as a number", http.MethodPost, "/test/things", `{"title":"a","amount":10.555}`, 422, ""},
		{"three places on update", http.MethodPut, "/test/things/1", `{"amount":"0.001"}`, 422, ""},
		{"too many integer digits", http.MethodPost, "/test/things", `{"title":"a","amount":"1234567890123"}`, 422, ""},
		{"trailing zeros", http.MethodPost, "/test/things", `{"title":"a","amount":"10.550"}`, 201, "10.55"},
		{"largest", http.MethodPost, "/test/things", `{"title":"a","amount":"-999999999999.99"}`, 201, "-999999999999.99"},
		{"leading zeros", http.MethodPost, "/test/things", `{"title":"a","amount":"000000000000001.5"}`, 201, "1.50"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.do(t, c.method, c.path, e.keyA, c.body)
			if r.status != c.status {
				t.Fatalf("%d %s, want %d", r.status, r.raw, c.status)
			}
			if c.status == 422 && !slices.Equal(r.problemFields(t), []string{"amount"}) {
				t.Errorf("problem fields %v, want [amount]", r.problemFields(t))
			}
			if c.amount != "" && fmt.Sprint(r.record(t)["amount"]) != c.amount {
				t.Errorf("amount %v, want %s", r.record(t)["amount"], c.amount)
			}
		})
	}
	if got := fmt.Sprint(e.get(t, "/test/things/1", http.StatusOK).record(t)["amount"]); got != "100.50" {
		t.Errorf("a refused update changed the amount to %s", got)
	}
}

// TestTestResourceMatchesSchema: the test-only resource is declared as its
// table is made, the scale of its decimal included.
func TestTestResourceMatchesSchema(t *testing.T) {
	t.Parallel()
	pool := storagetest.NewDB(t)
	createTestTable(t, pool)
	for _, res := range testResources() {
		mismatches, err := storagetest.SchemaMismatches(context.Background(), pool, res)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mismatches {
			t.Error(res.Name, m)
		}
	}
}

// TestUnpairedSurrogates: a UTF-16 surrogate escape without its pair is
// refused alike in a column and in a custom field (Go would store U+FFFD in
// the first, PostgreSQL refuses the second); pairs and escaped backslashes
// are text like any other.
func TestUnpairedSurrogates(t *testing.T) {
	t.Parallel()
	e := setup(t)
	refused := []struct{ name, body, field string }{
		{"in a column", `{"description":"a\ud800","color":"x"}`, "description"},
		{"low half alone in a column", `{"description":"\udc00b","color":"x"}`, "description"},
		{"high half then another high half", `{"description":"\ud800\ud800","color":"x"}`, "description"},
		{"in a custom field", `{"description":"a","color":"x","_c":"\ud800"}`, "_c"},
		{"in a custom field's key", `{"description":"a","color":"x","_c":{"k\udc00":1}}`, "_c"},
	}
	for _, c := range refused {
		t.Run(c.name, func(t *testing.T) {
			r := e.do(t, http.MethodPost, "/buildings/categories", e.keyA, c.body)
			if r.status != http.StatusUnprocessableEntity || !slices.Equal(r.problemFields(t), []string{c.field}) {
				t.Errorf("%d %s, want 422 naming %s", r.status, r.raw, c.field)
			}
		})
	}
	ok := e.do(t, http.MethodPost, "/buildings/categories", e.keyA, `{"description":"\ud83d\ude00 \\ud800","color":"x","_c":"\\u0000"}`)
	if ok.status != http.StatusCreated {
		t.Fatalf("a pair and escaped backslashes: %d %s", ok.status, ok.raw)
	}
	if rec := ok.record(t); rec["description"] != "😀 \\ud800" || rec["_c"] != `\u0000` {
		t.Errorf("stored as %v", rec)
	}
}

func TestEscapeProblem(t *testing.T) {
	t.Parallel()
	const nul, lone = "must not contain NUL characters", "must not contain a UTF-16 surrogate without its pair"
	cases := []struct{ raw, want string }{
		{`"plain"`, ""},
		{`"\ud83d\ude00"`, ""},
		{`"\uD83D\uDE00"`, ""},
		{`"\\ud800"`, ""},
		{`"\\\\u0000"`, ""},
		{`"\n\t\"\/"`, ""},
		{`"\u00e9"`, ""},
		{`"\u0000"`, nul},
		{`"\\\u0000"`, nul},
		{`"\ud800"`, lone},
		{`"\ud800\u0041"`, lone},
		{`"\ud800\\udc00"`, lone},
		{`"\udc00\ud800"`, lone},
		{`"x\ud83d"`, lone},
		{`{"\uDFFF":1}`, lone},
		{`[1,"\ud83d\ude00","\udbff"]`, lone},
	}
	for _, c := range cases {
		if got := escapeProblem([]byte(c.raw)); got != c.want {
			t.Errorf("%s: %q, want %q", c.raw, got, c.want)
		}
	}
}

// TestCustomFieldBounds: what one custom field may hold is bounded (the
// 50-byte body `"_a": 1e131071` once stored a 131 KB number), and so are
// the custom fields of a record, after an update's merge too.
func TestCustomFieldBounds(t *testing.T) {
	t.Parallel()
	e := setup(t)
	nested := func(depth int) string { return strings.Repeat("[", depth) + "1" + strings.Repeat("]", depth) }
	object := func(members int) string { // an open object of members distinct keys
		var b strings.Builder
		b.WriteString("{")
		for i := range members {
			fmt.Fprintf(&b, `"k%d":1,`, i)
		}
		return b.String()
	}
	cases := []struct {
		name, value string
		ok          bool
	}{
		{"the 1e131071 body", `1e131071`, false},
		{"tiny exponent", `1e-131071`, false},
		{"zero with a long scale", `0e-99`, false},
		{"1e15", `1e15`, false},
		{"16 decimal places", `0.0000000000000001`, false},
		{"16 decimal places, trailing zeros", `1.0000000000000000`, false},
		{"below 1e15", `-999999999999999.999999999999999`, true},
		{"exponent kept small", `1.5e3`, true},
		{"long text", `"` + strings.Repeat("é", 10_001) + `"`, false},
		{"text at the limit", `"` + strings.Repeat("é", 10_000) + `"`, true},
		{"long key", `{"` + strings.Repeat("k", 10_001) + `":1}`, false},
		{"too deep", nested(11), false},
		{"deep", nested(10), true},
		{"too many values", "[" + strings.Repeat("1,", 1000) + "1]", false},
		{"many values", "[" + strings.Repeat("1,", 999) + "1]", true},
		{"many keys and values", object(499) + `"last":{}}`, true},
		{"too many keys and values", object(499) + `"last":[1]}`, false},
		{"number inside", `{"a":[1,{"b":1e16}]}`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.do(t, http.MethodPost, "/buildings/categories", e.keyA, `{"description":"x","color":"y","_a":`+c.value+`}`)
			if c.ok && r.status != http.StatusCreated {
				t.Errorf("%d %s, want 201", r.status, r.raw[:min(len(r.raw), 300)])
			}
			if !c.ok && (r.status != http.StatusUnprocessableEntity || !slices.Equal(r.problemFields(t), []string{"_a"})) {
				t.Errorf("%d %s, want 422 naming _a", r.status, r.raw[:min(len(r.raw), 300)])
			}
		})
	}

	fields := func(from, to int, value string) string {
		var b strings.Builder
		for i := from; i < to; i++ {
			fmt.Fprintf(&b, `,"_f%03d":%s`, i, value)
		}
		return b.String()
	}
	tooMany := e.do(t, http.MethodPost, "/buildings/categories", e.keyA, `{"description":"x","color":"y"`+fields(0, 101, "1")+`}`)
	if tooMany.status != http.StatusUnprocessableEntity || !slices.Equal(tooMany.problemFields(t), []string{"customFields"}) {
		t.Errorf("101 custom fields: %d %s", tooMany.status, tooMany.raw)
	}
	created := e.do(t, http.MethodPost, "/buildings/categories", e.keyA, `{"description":"x","color":"y"`+fields(0, 60, "1")+`}`)
	if created.status != http.StatusCreated {
		t.Fatalf("60 custom fields: %d %s", created.status, created.raw)
	}
	path := fmt.Sprintf("/buildings/categories/%d", num(t, created.record(t)["id"]))
	if r := e.do(t, http.MethodPut, path, e.keyA, `{"color":"z"`+fields(60, 101, "1")+`}`); r.status != http.StatusUnprocessableEntity ||
		!slices.Equal(r.problemFields(t), []string{"customFields"}) {
		t.Errorf("60 stored plus 41 new: %d %s", r.status, r.raw)
	}
	if r := e.do(t, http.MethodPut, path, e.keyA, `{"_f000":null`+fields(60, 101, "1")+`}`); r.status != http.StatusOK {
		t.Errorf("60 stored, 1 removed, 41 new: %d %s", r.status, r.raw)
	}
	big := `"` + strings.Repeat("x", 9_000) + `"`
	if r := e.do(t, http.MethodPut, path, e.keyA, `{"_f001":null,"_f002":null,"_f003":null,"_f004":null,"_f005":null`+
		fields(200, 205, big)+`}`); r.status != http.StatusOK {
		t.Errorf("45 KB of custom fields: %d %s", r.status, r.raw[:min(len(r.raw), 300)])
	}
	if r := e.do(t, http.MethodPut, path, e.keyA, `{"_f006":null,"_f007":null,"_f008":null`+fields(205, 208, big)+`}`); r.status != http.StatusUnprocessableEntity ||
		!slices.Equal(r.problemFields(t), []string{"customFields"}) {
		t.Errorf("over 64 KiB once merged: %d %s", r.status, r.raw[:min(len(r.raw), 300)])
	}
	got := e.get(t, path+"?customFields=true", http.StatusOK).record(t)
	if got["color"] != "y" || got["_f006"] == nil || got["_f205"] != nil || got["_f100"] == nil {
		t.Errorf("a refused update changed the record: color %v, _f006 %v, _f205 %v", got["color"], got["_f006"], got["_f205"] != nil)
	}
}

// TestDateTimes: date-times are UTC in and out, written YYYY-MM-DD
// HH:MM:SS; RFC 3339 with an offset is converted to UTC; a date alone is
// midnight in the company's time zone (São Paulo here: 03:00 UTC);
// fractions of a second and years outside 1-9999 are refused.
func TestDateTimes(t *testing.T) {
	t.Parallel()
	e := setup(t, withTestResource())
	cases := []struct{ sent, stored string }{
		{"2024-03-01 12:00:00", "2024-03-01 12:00:00"},
		{"2024-03-01T09:00:00-03:00", "2024-03-01 12:00:00"},
		{"2024-03-01T12:00:00Z", "2024-03-01 12:00:00"},
		{"2024-03-01", "2024-03-01 03:00:00"},
		{"9999-12-31 23:59:59", "9999-12-31 23:59:59"},
		{"2024-03-01 12:00:00.5", ""},
		{"2024-03-01T12:00:00.250Z", ""},
		{"0000-12-31 23:00:00", ""},
		{"0001-01-01T00:30:00+01:00", ""},
		{"2024-03-01T12:00:00", ""},
		{"01/03/2024 12:00", ""},
	}
	for _, c := range cases {
		t.Run(c.sent, func(t *testing.T) {
			r := e.do(t, http.MethodPost, "/test/things", e.keyA, fmt.Sprintf(`{"title":"a","happened_at":%q}`, c.sent))
			if c.stored == "" {
				if r.status != http.StatusUnprocessableEntity || !slices.Equal(r.problemFields(t), []string{"happened_at"}) {
					t.Errorf("%d %s, want 422 naming happened_at", r.status, r.raw)
				}
				return
			}
			if r.status != http.StatusCreated || r.record(t)["happened_at"] != c.stored {
				t.Errorf("%d %s, want it stored as %s", r.status, r.raw, c.stored)
			}
		})
	}
	for _, filter := range []string{"2024-03-01 12:00:00", "2024-03-01T09:00:00-03:00", "2024-03-01T12:00:00Z"} {
		if n := len(e.get(t, "/test/things?filter[happened_at]="+url.QueryEscape(filter), http.StatusOK).data(t)); n != 3 {
			t.Errorf("filter[happened_at]=%s: %d records, want the 3 at noon UTC", filter, n)
		}
	}
}

// TestRequiredTextNotBlank: a required text field refuses "" and
// whitespace alone, on create and update; other text fields may be empty.
func TestRequiredTextNotBlank(t *testing.T) {
	t.Parallel()
	e := setup(t)
	seed(t, e)
	e.exec(t, `INSERT INTO constructors (company_id, name) VALUES ($1, 'Construtora Sul')`, e.compA)
	cases := []struct {
		name, method, path, body string
		problems                 []finance.Problem
	}{
		{"empty", http.MethodPost, "/buildings/categories", `{"description":"","color":"#fff"}`,
			[]finance.Problem{{Field: "description", Message: "is required"}}},
		{"blank", http.MethodPost, "/buildings/categories", "{\"description\":\" \\t\\n\u00a0\",\"color\":\"\u3000\"}",
			[]finance.Problem{{Field: "color", Message: "cannot be blank"}, {Field: "description", Message: "cannot be blank"}}},
		{"empty on update", http.MethodPut, "/buildings/categories/1", `{"color":""}`,
			[]finance.Problem{{Field: "color", Message: "is required"}}},
		{"blank on update", http.MethodPut, "/buildings/constructors/1", `{"name":"  "}`,
			[]finance.Problem{{Field: "name", Message: "cannot be blank"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.do(t, c.method, c.path, e.keyA, c.body)
			if r.status != http.StatusUnprocessableEntity {
				t.Fatalf("%d %s, want 422", r.status, r.raw)
			}
			var got []finance.Problem
			for _, it := range r.body["errors"].([]any) {
				m := it.(map[string]any)
				got = append(got, finance.Problem{Field: m["field"].(string), Message: m["message"].(string)})
			}
			if !slices.Equal(got, c.problems) {
				t.Errorf("problems %v, want %v", got, c.problems)
			}
		})
	}
	if r := e.do(t, http.MethodPut, "/buildings/types/1", e.keyA, `{"description":""}`); r.status != http.StatusOK {
		t.Errorf("a text that is not required may be empty: %d %s", r.status, r.raw)
	}
}

// TestDuplicateKeys: a key given twice in a body (or in an object inside a
// custom field) is a 422 naming the field, not last-wins; it is listed with
// the body's other problems.
func TestDuplicateKeys(t *testing.T) {
	t.Parallel()
	e := setup(t)
	cases := []struct {
		name, body string
		fields     []string
	}{
		{"a column twice", `{"description":"a","description":"b","color":"x"}`, []string{"description"}},
		{"spelled with an escape", `{"color":"x","descr\u0069ption":"a","description":"b"}`, []string{"description"}},
		{"a custom field twice", `{"description":"a","color":"x","_c":1,"_c":2}`, []string{"_c"}},
		{"inside a custom field", `{"description":"a","color":"x","_c":{"k":[{"x":1,"x":2}]}}`, []string{"_c"}},
		{"with other problems", `{"color":"x","color":"y","extra":1}`, []string{"color", "description", "extra"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.do(t, http.MethodPost, "/buildings/categories", e.keyA, c.body)
			got := r.problemFields(t)
			slices.Sort(got)
			if r.status != http.StatusUnprocessableEntity || !slices.Equal(got, c.fields) {
				t.Errorf("%d %s, want 422 naming %v", r.status, r.raw, c.fields)
			}
		})
	}
	ok := e.do(t, http.MethodPost, "/buildings/categories", e.keyA, `{"description":"a","color":"x","_c":[{"k":1},{"k":1}],"_d":{"k":{"k":1}}}`)
	if ok.status != http.StatusCreated {
		t.Errorf("the same key in different objects: %d %s", ok.status, ok.raw)
	}
}

func TestDuplicateKeysWalk(t *testing.T) {
	t.Parallel()
	cases := []struct {
		body   string
		fields []string
	}{
		{`{}`, nil},
		{`{"a":{},"b":[],"c":[{}],"d":""}`, nil},
		{`{"a":1,"b":{"a":1,"b":{"a":[1,{"a":1}]}}}`, nil},
		{`{"a":"k","k":1}`, nil},
		{`{"a":{"b":{},"b":[]}}`, []string{"a"}},
		{`{"a":[[{"x":1,"y":{},"x":[]}]],"a":2}`, []string{"a"}},
		{`{"b":1,"a":{"k":1,"k":1,"j":1,"j":1},"b":2}`, []string{"a", "b"}},
	}
	for _, c := range cases {
		var fields []string
		for _, p := range duplicateKeys([]byte(c.body)) {
			fields = append(fields, p.Field)
		}
		if !slices.Equal(fields, c.fields) {
			t.Errorf("%s: %v, want %v", c.body, fields, c.fields)
		}
	}
}

// TestContentType: a body declared as anything but JSON is a 415; JSON with
// parameters, +json types and a body without Content-Type are read.
func TestContentType(t *testing.T) {
	t.Parallel()
	e := setup(t)
	cases := []struct {
		contentType string
		status      int
	}{
		{"application/json", http.StatusCreated},
		{"Application/JSON; charset=UTF-8", http.StatusCreated},
		{"application/vnd.api+json", http.StatusCreated},
		{"", http.StatusCreated},
		{"text/plain", http.StatusUnsupportedMediaType},
		{"application/x-www-form-urlencoded", http.StatusUnsupportedMediaType},
		{"application/json; charset=iso-8859-1", http.StatusUnsupportedMediaType},
		{"application/jsonx", http.StatusUnsupportedMediaType},
		{"json", http.StatusUnsupportedMediaType},
	}
	for _, c := range cases {
		t.Run(c.contentType, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, e.url+"/buildings/categories", strings.NewReader(`{"description":"a","color":"b"}`))
			req.Header.Set("Authorization", "Bearer "+e.keyA)
			if c.contentType != "" {
				req.Header.Set("Content-Type", c.contentType)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			var body map[string]any
			if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
				t.Fatal(err)
			}
			if res.StatusCode != c.status || body["return"] != (c.status == http.StatusCreated) {
				t.Errorf("%d %v, want %d", res.StatusCode, body, c.status)
			}
		})
	}
	put := e.do(t, http.MethodPut, "/buildings/categories/1", e.keyA, `{"color":"c"}`)
	if put.status != http.StatusOK {
		t.Errorf("update with application/json: %d %s", put.status, put.raw)
	}
}

// TestBodySyntaxMessages: a body that is not one JSON object says what is
// wrong with it and where (bytes counted from 1), not only that it must be
// an object.
func TestBodySyntaxMessages(t *testing.T) {
	t.Parallel()
	e := setup(t)
	cases := []struct{ name, body, message string }{
		{"trailing data", `{"description":"a","color":"b"} x`, "holds more after the JSON object, from byte 33"},
		{"a second object", `{"description":"a"}{"color":"b"}`, "holds more after the JSON object, from byte 20"},
		{"truncated", `{"description":"a","col`, "ends at byte 23, before the JSON object is complete"},
		{"byte order mark", "\xef\xbb\xbf{\"description\":\"a\",\"color\":\"b\"}", "starts with a byte order mark (EF BB BF): send the JSON without it"},
		{"NaN", `{"description":"a","color":NaN}`, "is not valid JSON at byte 28: NaN is not a JSON number"},
		{"-Infinity", `{"description":"a","_n":-Infinity}`, "is not valid JSON at byte 26: Infinity is not a JSON number"},
		{"a trailing comma", `{"description":"a",}`, "is not valid JSON at byte 20: invalid character '}' looking for beginning of object key string"},
		{"single quotes", `{'description':'a'}`, "is not valid JSON at byte 2: invalid character '\\'' looking for beginning of object key string"},
		{"a byte outside ASCII", "{\"description\":\xe9}", "is not valid JSON at byte 16: unexpected byte 0xE9"},
		{"empty", ``, "is empty: it must be a JSON object"},
		{"blank", " \n", "is empty: it must be a JSON object"},
		{"an array", `[{"description":"a"}]`, "must be a JSON object, not an array"},
		{"a string", `"description"`, "must be a JSON object, not a string"},
		{"a number", `12`, "must be a JSON object, not a number"},
		{"a boolean", `true`, "must be a JSON object, not a boolean"},
		{"null", `null`, "must be a JSON object, not null"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.do(t, http.MethodPost, "/buildings/categories", e.keyA, c.body)
			want := []any{map[string]any{"field": "body", "message": c.message}}
			if r.status != http.StatusUnprocessableEntity || fmt.Sprint(r.body["errors"]) != fmt.Sprint(want) {
				t.Errorf("%d %s, want 422 with %q", r.status, r.raw, c.message)
			}
		})
	}
}

// TestCharsetMessage: a JSON body declared in another charset than UTF-8
// is a 415 that says so, naming the charset.
func TestCharsetMessage(t *testing.T) {
	t.Parallel()
	e := setup(t)
	req, _ := http.NewRequest(http.MethodPost, e.url+"/buildings/categories", strings.NewReader(`{"description":"a","color":"b"}`))
	req.Header.Set("Authorization", "Bearer "+e.keyA)
	req.Header.Set("Content-Type", "application/json; charset=ISO-8859-1")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var body errorBody
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	want := []finance.Problem{{Field: "Content-Type", Message: `charset "ISO-8859-1" is not read: JSON bodies are UTF-8 (charset=utf-8, or none)`}}
	if res.StatusCode != http.StatusUnsupportedMediaType || !slices.Equal(body.Errors, want) ||
		body.Message != "The body must be JSON in UTF-8." {
		t.Errorf("%d %+v, want 415 naming the charset", res.StatusCode, body)
	}
}

// TestReadAll: a body is read whole, whether its size is known or not;
// when it is, the buffer is grown once past the first MiB to that size
// (one byte more to see the end), not doubled as it fills.
func TestReadAll(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, 511, 512, firstBuffer, firstBuffer + 1, 5 << 20} {
		body := bytes.Repeat([]byte("x"), n)
		for _, size := range []int64{int64(n), -1} {
			got, err := readAll(iotest.HalfReader(bytes.NewReader(body)), size)
			if err != nil || !bytes.Equal(got, body) {
				t.Fatalf("%d bytes, size %d: %d bytes read, %v", n, size, len(got), err)
			}
			if size >= 0 && cap(got) > max(n, 511)+1 {
				t.Errorf("%d bytes of known size: a buffer of %d", n, cap(got))
			}
		}
	}
}
