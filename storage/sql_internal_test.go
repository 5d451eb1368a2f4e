package storage

import (
	"strings"
	"testing"
	"time"
)

// TestListStatementForOneCompany: a list reads {today} once for the
// company it is scoped to (not once per row), and a boolean filter asked
// true writes its condition as declared, so that PostgreSQL can match it
// to an index (invoices_open_due_date for filter[overdue]=true).
func TestListStatementForOneCompany(t *testing.T) {
	t.Parallel()
	res := DefaultRegistry().MustResource(Invoices)
	overdue, ok := res.Filter("overdue")
	if !ok {
		t.Fatal("invoices have no overdue filter")
	}
	statement := func(v bool) string {
		q := ListQuery{Page: 1, PerPage: 50, Special: []SpecialCondition{{Filter: overdue, Values: []any{v}}}}
		b := listStatement(res, Company(7), q, mainShape(res, []string{"id", "status"}, false, nil))
		if len(b.args) != 1 || b.args[0] != int64(7) {
			t.Errorf("overdue=%v: arguments %v, want the company's id once", v, b.args)
		}
		return b.String()
	}
	sql := statement(true)
	if strings.Contains(sql, "tz.id = company_id") || !strings.Contains(sql, "tz.id = $1::bigint") {
		t.Errorf("status reads today per row: %s", sql)
	}
	if strings.Contains(sql, "IS TRUE") || !strings.Contains(sql, `AND (NOT "paid" AND`) {
		t.Errorf("overdue=true is not written as declared: %s", sql)
	}
	if sql := statement(false); !strings.Contains(sql, `AND ((NOT "paid" AND`) || !strings.Contains(sql, ") IS NOT TRUE)") {
		t.Errorf("overdue=false does not keep the rows where the condition does not hold: %s", sql)
	}
}

// TestAppendDateAndDateTime: the hand-written date and instant formats
// are time.DateOnly and time.DateTime.
func TestAppendDateAndDateTime(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"2026-11-24 06:53:09", "0001-01-01 00:00:00", "0999-12-31 23:59:59", "9999-12-31 23:59:59",
		"2024-02-29 12:05:07"} {
		v, err := time.Parse(time.DateTime, s)
		if err != nil {
			t.Fatal(err)
		}
		for _, tm := range []time.Time{v, v.AddDate(-2000, 0, 0), v.AddDate(9000, 0, 0), v.Add(999 * time.Millisecond)} {
			if got, want := string(appendDate(nil, tm)), tm.Format(time.DateOnly); got != want {
				t.Errorf("appendDate(%v) = %s, want %s", tm, got, want)
			}
			if got, want := string(appendDateTime(nil, tm)), tm.Format(time.DateTime); got != want {
				t.Errorf("appendDateTime(%v) = %s, want %s", tm, got, want)
			}
		}
	}
}
