package api

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// writesEnv is a test environment with the write machinery's resources
// and catalog items 1 and 2 for company A, 3 for company B.
func writesEnv(t *testing.T) *testEnv {
	t.Helper()
	e := setup(t, withWriteRoutes(), withMachineryRoutes())
	e.exec(t, `INSERT INTO test_catalog (company_id, id, title) VALUES ($1, 1, 'rent'), ($1, 2, 'fee'), ($2, 3, 'B rent')`, e.compA, e.compB)
	return e
}

// count runs a count query of company A's rows.
func (e *testEnv) count(t *testing.T, table string) int {
	t.Helper()
	var n int
	if err := e.pool.QueryRow(t.Context(), `SELECT count(*) FROM `+table+` WHERE company_id = $1`, e.compA).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// items returns the items of a write's record as (id, item_id, amount).
func items(t *testing.T, rec map[string]any) [][3]string {
	t.Helper()
	list, ok := rec["items"].([]any)
	if !ok {
		t.Fatalf("no items in %v", rec)
	}
	var out [][3]string
	for _, it := range list {
		m := it.(map[string]any)
		out = append(out, [3]string{fmt.Sprint(m["id"]), fmt.Sprint(m["item_id"]), fmt.Sprint(m["amount"])})
	}
	return out
}

func invoiceBody(title string, lines ...map[string]any) map[string]any {
	return map[string]any{"title": title, "items": lines}
}

func line(itemID int64, amount string) map[string]any {
	return map[string]any{"item_id": itemID, "amount": amount, "description": "line"}
}

// TestNestedCreateAndUpdate: the body's items are created with the
// invoice; an update adds, edits and deletes lines in one request; the
// response carries the lines, and so does include[items].
func TestNestedCreateAndUpdate(t *testing.T) {
	t.Parallel()
	e := writesEnv(t)
	r := e.do(t, http.MethodPost, "/test/invoices", e.keyA, invoiceBody("march", line(1, "100.50"), line(2, "10")))
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	rec := r.record(t)
	id := num(t, rec["id"])
	got := items(t, rec)
	if len(got) != 2 || got[0][1] != "1" || got[0][2] != "100.50" || got[1][2] != "10.00" {
		t.Fatalf("created items: %v", got)
	}
	first, second := got[0][0], got[1][0]

	path := fmt.Sprintf("/test/invoices/%d", id)
	r = e.do(t, http.MethodPut, path, e.keyA, map[string]any{"items": []any{
		map[string]any{"id": idOf(first), "amount": "99.99"},
		map[string]any{"id": idOf(second), "item_id": 2, "delete": true},
		line(2, "5.25"),
	}})
	if r.status != http.StatusOK {
		t.Fatalf("update: %d %s", r.status, r.raw)
	}
	got = items(t, r.record(t))
	if len(got) != 2 || got[0][0] != first || got[0][2] != "99.99" || got[1][1] != "2" || got[1][2] != "5.25" || got[1][0] == second {
		t.Fatalf("updated items: %v", got)
	}
	if r.record(t)["title"] != "march" {
		t.Errorf("title changed: %v", r.record(t)["title"])
	}
	inc := e.get(t, path+"?include[items]=id,amount", http.StatusOK).record(t)
	if list := inc["items"].([]any); len(list) != 2 {
		t.Errorf("include[items]: %v", inc["items"])
	}
	// an update without items leaves them alone and still returns them
	r = e.do(t, http.MethodPut, path, e.keyA, map[string]any{"title": "march 2"})
	if r.status != http.StatusOK || len(items(t, r.record(t))) != 2 {
		t.Errorf("update without items: %d %s", r.status, r.raw)
	}
	// history: create, then two updates (before and after each)
	if n := e.count(t, "test_invoice_history"); n != 5 {
		t.Errorf("history rows: %d, want 5", n)
	}
	if n := e.count(t, "jobs"); n != 3 {
		t.Errorf("jobs: %d, want 3", n)
	}
}

// idOf turns an id read back from a response into a body value.
func idOf(id string) any {
	var n int64
	fmt.Sscan(id, &n)
	return n
}

// TestBadChildRollsBack: a line of the wrong type, without a required
// field, with a value outside its enum, a reference of another company,
// or the id of another invoice's line: a 422 naming items.N.field, and
// nothing is stored.
func TestBadChildRollsBack(t *testing.T) {
	t.Parallel()
	e := writesEnv(t)
	r := e.do(t, http.MethodPost, "/test/invoices", e.keyA, invoiceBody("one", line(1, "1")))
	one := num(t, r.record(t)["id"])
	oneLine := items(t, r.record(t))[0][0]
	r = e.do(t, http.MethodPost, "/test/invoices", e.keyA, invoiceBody("two", line(1, "2")))
	twoLine := items(t, r.record(t))[0][0]
	r = e.do(t, http.MethodPost, "/test/invoices", e.keyB, invoiceBody("B", map[string]any{"item_id": 3, "amount": 3}))
	if r.status != http.StatusCreated {
		t.Fatalf("create for B: %d %s", r.status, r.raw)
	}
	bLine := items(t, r.record(t))[0][0]
	invoices, lines, history, jobs := e.count(t, "test_invoices"), e.count(t, "test_invoice_lines"), e.count(t, "test_invoice_history"), e.count(t, "jobs")

	onePath := fmt.Sprintf("/test/invoices/%d", one)
	cases := []struct {
		name, method, path string
		body               any
		fields             []string
	}{
		{"wrong type", http.MethodPost, "/test/invoices", invoiceBody("x", line(1, "1"), map[string]any{"item_id": "one", "amount": "1"}),
			[]string{"items.1.item_id"}},
		{"missing required", http.MethodPost, "/test/invoices", invoiceBody("x", line(1, "1"), line(2, "2"), map[string]any{"item_id": 1}),
			[]string{"items.2.amount"}},
		{"enum and unknown field", http.MethodPost, "/test/invoices", invoiceBody("x", map[string]any{"item_id": 1, "amount": 1, "kind": "gift", "color": "red"}),
			[]string{"items.0.color", "items.0.kind"}},
		{"too many places", http.MethodPost, "/test/invoices", invoiceBody("x", line(1, "1.001")), []string{"items.0.amount"}},
		{"parent key in a line", http.MethodPost, "/test/invoices", invoiceBody("x", map[string]any{"item_id": 1, "amount": 1, "invoice_id": one}),
			[]string{"items.0.invoice_id"}},
		{"id on create", http.MethodPost, "/test/invoices", invoiceBody("x", map[string]any{"id": 5, "item_id": 1, "amount": 1}), []string{"items.0.id"}},
		// refused by PostgreSQL (a CHECK): the write stops at that line
		{"refused by the schema", http.MethodPost, "/test/invoices", invoiceBody("x", line(1, "1"), line(1, "-1"), line(2, "1")),
			[]string{"items.1.amount"}},
		{"no items", http.MethodPost, "/test/invoices", map[string]any{"title": "x"}, []string{"items"}},
		{"empty items", http.MethodPost, "/test/invoices", invoiceBody("x"), []string{"items"}},
		{"items not an array", http.MethodPost, "/test/invoices", map[string]any{"title": "x", "items": "a"}, []string{"items"}},
		{"element not an object", http.MethodPost, "/test/invoices", map[string]any{"title": "x", "items": []any{1}}, []string{"items.0"}},
		{"reference of another company", http.MethodPost, "/test/invoices", invoiceBody("x", line(1, "1"), line(3, "1")), []string{"items.1.item_id"}},
		{"another invoice's line", http.MethodPut, onePath, map[string]any{"title": "changed", "items": []any{
			line(1, "7"), map[string]any{"id": idOf(twoLine), "amount": "9"}}}, []string{"items.1.id"}},
		{"another company's line", http.MethodPut, onePath, map[string]any{"items": []any{
			map[string]any{"id": idOf(bLine), "delete": true}}}, []string{"items.0.id"}},
		{"same line twice", http.MethodPut, onePath, map[string]any{"items": []any{
			map[string]any{"id": idOf(oneLine), "amount": "8"}, map[string]any{"id": idOf(oneLine), "delete": true}}}, []string{"items.1.id"}},
		{"delete without id", http.MethodPut, onePath, map[string]any{"items": []any{map[string]any{"delete": true}}}, []string{"items.0.id"}},
		{"edit of a good line, bad add", http.MethodPut, onePath, map[string]any{"items": []any{
			map[string]any{"id": idOf(oneLine), "amount": "8"}, map[string]any{"item_id": 99, "amount": 1}}}, []string{"items.1.item_id"}},
		{"edit with a null required", http.MethodPut, onePath, map[string]any{"items": []any{
			map[string]any{"id": idOf(oneLine), "amount": nil}}}, []string{"items.0.amount"}},
	}
	for _, c := range cases {
		r := e.do(t, c.method, c.path, e.keyA, c.body)
		if r.status != http.StatusUnprocessableEntity {
			t.Errorf("%s: %d %s", c.name, r.status, r.raw)
			continue
		}
		if got := r.problemFields(t); !slices.Equal(got, c.fields) {
			t.Errorf("%s: fields %v, want %v", c.name, got, c.fields)
		}
	}
	if n := e.count(t, "test_invoices"); n != invoices {
		t.Errorf("invoices: %d, want %d", n, invoices)
	}
	if n := e.count(t, "test_invoice_lines"); n != lines {
		t.Errorf("lines: %d, want %d", n, lines)
	}
	if n := e.count(t, "test_invoice_history"); n != history {
		t.Errorf("history rows: %d, want %d (the hooks' rows roll back with the write)", n, history)
	}
	if n := e.count(t, "jobs"); n != jobs {
		t.Errorf("jobs: %d, want %d", n, jobs)
	}
	rec := e.get(t, onePath+"?include[items]", http.StatusOK).record(t)
	if rec["title"] != "one" || len(rec["items"].([]any)) != 1 || fmt.Sprint(rec["items"].([]any)[0].(map[string]any)["amount"]) != "1.00" {
		t.Errorf("invoice one changed: %v", rec)
	}
}

// TestHooks: a hook sees the old row (a paid invoice cannot be updated:
// 409); a later hook's refusal rolls back the history row and the job
// earlier hooks wrote; delete options reach the hook; unknown options are
// refused.
func TestHooks(t *testing.T) {
	t.Parallel()
	e := writesEnv(t)
	r := e.do(t, http.MethodPost, "/test/invoices", e.keyA, invoiceBody("paid one", line(1, "1")))
	paid := num(t, r.record(t)["id"])
	e.exec(t, `UPDATE test_invoices SET paid = true WHERE id = $1`, paid)
	r = e.do(t, http.MethodPost, "/test/invoices", e.keyA, invoiceBody("open one", line(1, "1")))
	open := num(t, r.record(t)["id"])
	history, jobs := e.count(t, "test_invoice_history"), e.count(t, "jobs")
	if history != 2 || jobs != 2 {
		t.Fatalf("after two creates: %d history rows, %d jobs", history, jobs)
	}

	paidPath, openPath := fmt.Sprintf("/test/invoices/%d", paid), fmt.Sprintf("/test/invoices/%d", open)
	if r := e.do(t, http.MethodPut, paidPath, e.keyA, map[string]any{"title": "x"}); r.status != http.StatusConflict ||
		r.body["message"] != "A paid invoice cannot be changed." {
		t.Errorf("update of a paid invoice: %d %s", r.status, r.raw)
	}
	// the after-write hooks write history and a job, then the last refuses
	if r := e.do(t, http.MethodPut, openPath, e.keyA, map[string]any{"title": "refuse"}); r.status != http.StatusUnprocessableEntity ||
		!slices.Equal(r.problemFields(t), []string{"title"}) {
		t.Errorf("refused by a later hook: %d %s", r.status, r.raw)
	}
	if r := e.do(t, http.MethodPost, "/test/invoices", e.keyA, invoiceBody("refuse", line(1, "1"))); r.status != http.StatusUnprocessableEntity {
		t.Errorf("create refused by a later hook: %d %s", r.status, r.raw)
	}
	if h, j, n := e.count(t, "test_invoice_history"), e.count(t, "jobs"), e.count(t, "test_invoices"); h != history || j != jobs || n != 2 {
		t.Errorf("after refusals: %d history rows, %d jobs, %d invoices; want %d, %d, 2", h, j, n, history, jobs)
	}
	if got := e.get(t, openPath, http.StatusOK).record(t)["title"]; got != "open one" {
		t.Errorf("title after a refusal: %v", got)
	}

	// delete options
	refused := []struct {
		query  string
		status int
		field  string
	}{
		{"?force=true", http.StatusUnprocessableEntity, "force"},
		{"?removeLiquidated=maybe", http.StatusUnprocessableEntity, "removeLiquidated"},
		{"?removeLiquidated=true&removeLiquidated=true", http.StatusUnprocessableEntity, "removeLiquidated"},
		{"", http.StatusConflict, ""},
		{"?removeWithFiscalNote=1", http.StatusConflict, ""},
		{"?removeLiquidated=false", http.StatusConflict, ""},
	}
	for _, c := range refused {
		r := e.do(t, http.MethodDelete, paidPath+c.query, e.keyA, nil)
		if r.status != c.status {
			t.Errorf("DELETE %s: %d, want %d: %s", c.query, r.status, c.status, r.raw)
			continue
		}
		if c.field != "" && !slices.Equal(r.problemFields(t), []string{c.field}) {
			t.Errorf("DELETE %s: fields %v", c.query, r.problemFields(t))
		}
	}
	if r := e.do(t, http.MethodDelete, paidPath+"?removeLiquidated=true&removeWithFiscalNote=0&_=1", e.keyA, nil); r.status != http.StatusOK {
		t.Fatalf("delete with removeLiquidated: %d %s", r.status, r.raw)
	}
	var note string
	if err := e.pool.QueryRow(t.Context(), `SELECT note FROM test_invoice_history WHERE invoice_id = $1 ORDER BY id DESC LIMIT 1`, paid).Scan(&note); err != nil {
		t.Fatal(err)
	}
	if want := "before delete of paid one removeLiquidated=true removeWithFiscalNote=false"; note != want {
		t.Errorf("history of the delete: %q, want %q", note, want)
	}
	var lines int
	if err := e.pool.QueryRow(t.Context(), `SELECT count(*) FROM test_invoice_lines WHERE invoice_id = $1`, paid).Scan(&lines); err != nil || lines != 0 {
		t.Errorf("lines of the deleted invoice: %d %v", lines, err)
	}
	if r := e.do(t, http.MethodDelete, openPath, e.keyA, nil); r.status != http.StatusOK {
		t.Errorf("delete of an open invoice: %d %s", r.status, r.raw)
	}
	if r := e.do(t, http.MethodDelete, "/test/invoices/999999?removeLiquidated=true", e.keyB, nil); r.status != http.StatusNotFound {
		t.Errorf("delete of a missing invoice: %d %s", r.status, r.raw)
	}
	// a resource without delete options refuses any
	if r := e.do(t, http.MethodDelete, "/test/parents/1?removeLiquidated=true", e.keyA, nil); r.status != http.StatusUnprocessableEntity ||
		!slices.Equal(r.problemFields(t), []string{"removeLiquidated"}) {
		t.Errorf("delete option on a resource without any: %d %s", r.status, r.raw)
	}
}

// orderLog lists the notes the order lines' hooks wrote, in order.
func (e *testEnv) orderLog(t *testing.T) []string {
	t.Helper()
	rows, err := e.pool.Query(t.Context(), `SELECT note FROM test_order_log WHERE company_id = $1 ORDER BY id`, e.compA)
	if err != nil {
		t.Fatal(err)
	}
	notes, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return notes
}

// TestChildHooks: a child resource's own hooks run for each element of a
// nested write (the element's operation, its old row on edit and removal,
// the parent's id as the scope's parent) and for each child removed with
// its parent; a child hook's refusal of one element rolls the whole write
// back, named items.N.field.
func TestChildHooks(t *testing.T) {
	t.Parallel()
	e := writesEnv(t)
	lineIDs := func(r response) []int64 {
		t.Helper()
		var ids []int64
		for _, it := range r.record(t)["items"].([]any) {
			ids = append(ids, num(t, it.(map[string]any)["id"]))
		}
		return ids
	}
	r := e.do(t, http.MethodPost, "/test/orders", e.keyA, map[string]any{"title": "o", "items": []any{
		map[string]any{"note": "a"}, map[string]any{"note": "b"}}})
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	order, lines := num(t, r.record(t)["id"]), lineIDs(r)
	one := fmt.Sprintf("/test/orders/%d", order)
	r = e.do(t, http.MethodPut, one, e.keyA, map[string]any{"items": []any{
		map[string]any{"id": lines[0], "note": "a2"}, map[string]any{"id": lines[1], "delete": true}, map[string]any{"note": "keep"}}})
	if r.status != http.StatusOK {
		t.Fatalf("update: %d %s", r.status, r.raw)
	}
	kept := lineIDs(r)[1]
	want := []string{
		fmt.Sprintf("before create of line 0 under order %d: <nil> -> a", order),
		fmt.Sprintf("after create of line %d under order %d: <nil> -> a", lines[0], order),
		fmt.Sprintf("before create of line 0 under order %d: <nil> -> b", order),
		fmt.Sprintf("after create of line %d under order %d: <nil> -> b", lines[1], order),
		fmt.Sprintf("before update of line %d under order %d: a -> a2", lines[0], order),
		fmt.Sprintf("after update of line %d under order %d: a -> a2", lines[0], order),
		fmt.Sprintf("before delete of line %d under order %d: b -> b", lines[1], order),
		fmt.Sprintf("after delete of line %d under order %d: b -> b", lines[1], order),
		fmt.Sprintf("before create of line 0 under order %d: <nil> -> keep", order),
		fmt.Sprintf("after create of line %d under order %d: <nil> -> keep", kept, order),
	}
	if got := e.orderLog(t); !slices.Equal(got, want) {
		t.Errorf("hook log:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	logged, stored := len(want), e.count(t, "test_order_lines")
	refused := []struct {
		name, method, path string
		body               map[string]any
		field              string
	}{
		{"an add refused on create", http.MethodPost, "/test/orders", map[string]any{"title": "p", "items": []any{
			map[string]any{"note": "fine"}, map[string]any{"note": "refuse"}}}, "items.1.note"},
		{"an edit refused on update", http.MethodPut, one, map[string]any{"title": "renamed", "items": []any{
			map[string]any{"note": "fine"}, map[string]any{"id": lines[0], "note": "refuse"}}}, "items.1.note"},
		{"a removal refused on update", http.MethodPut, one, map[string]any{"title": "renamed", "items": []any{
			map[string]any{"id": kept, "delete": true}}}, "items.0.note"},
		{"a removal refused with the parent", http.MethodDelete, one, nil, "items.1.note"},
	}
	for _, c := range refused {
		r := e.do(t, c.method, c.path, e.keyA, c.body)
		if r.status != http.StatusUnprocessableEntity || !slices.Equal(r.problemFields(t), []string{c.field}) {
			t.Errorf("%s: %d %s, want 422 naming %s", c.name, r.status, r.raw, c.field)
		}
		if n, l, o := len(e.orderLog(t)), e.count(t, "test_order_lines"), e.count(t, "test_orders"); n != logged || l != stored || o != 1 {
			t.Errorf("%s: %d log rows, %d lines, %d orders; want %d, %d, 1 (all rolled back)", c.name, n, l, o, logged, stored)
		}
	}
	if title := e.get(t, one, http.StatusOK).record(t)["title"]; title != "o" {
		t.Errorf("title after the refusals: %v", title)
	}

	// the parent's delete runs the children's delete hooks once nothing refuses
	e.exec(t, `UPDATE test_order_lines SET note = 'done' WHERE id = $1`, kept)
	if r := e.do(t, http.MethodDelete, one, e.keyA, nil); r.status != http.StatusOK {
		t.Fatalf("delete: %d %s", r.status, r.raw)
	}
	got := e.orderLog(t)[logged:]
	want = []string{
		fmt.Sprintf("before delete of line %d under order %d: a2 -> a2", lines[0], order),
		fmt.Sprintf("before delete of line %d under order %d: done -> done", kept, order),
		fmt.Sprintf("after delete of line %d under order %d: a2 -> a2", lines[0], order),
		fmt.Sprintf("after delete of line %d under order %d: done -> done", kept, order),
	}
	if !slices.Equal(got, want) {
		t.Errorf("hook log of the delete:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
