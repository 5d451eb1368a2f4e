package storage

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/propfin/propfin/finance"
)

// TestTranslatePgErrors: each SQLSTATE a client can cause gets its code and
// a problem naming the field; constraint names stay out of the message.
func TestTranslatePgErrors(t *testing.T) {
	t.Parallel()
	res := &Resource{Name: "things", Table: "things", Columns: []Column{
		{Name: "id", Type: Int}, {Name: "title", Type: String}, {Name: "day", Type: Date}, {Name: "category_id", Type: Int},
	}}
	if _, err := NewRegistry(res); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		pg     pgconn.PgError
		code   finance.Code
		fields []string
	}{
		{"not null", pgconn.PgError{Code: "23502", TableName: "things", ColumnName: "title"}, finance.Invalid, []string{"title"}},
		{"not null without column", pgconn.PgError{Code: "23502"}, finance.Invalid, []string{"body"}},
		{"column check, default name", pgconn.PgError{Code: "23514", TableName: "things", ConstraintName: "things_day_check"}, finance.Invalid, []string{"day"}},
		{"table check", pgconn.PgError{Code: "23514", TableName: "things", ConstraintName: "things_window"}, finance.Invalid, []string{"body"}},
		{"check of another table", pgconn.PgError{Code: "23514", TableName: "others", ConstraintName: "others_day_check"}, finance.Invalid, []string{"body"}},
		{"unique, default name", pgconn.PgError{Code: "23505", TableName: "things", ConstraintName: "things_title_key"}, finance.Conflict, []string{"title"}},
		{"unique, unknown index", pgconn.PgError{Code: "23505", TableName: "things", ConstraintName: "things_by_anything"}, finance.Conflict, nil},
		{"foreign key, our name", pgconn.PgError{Code: "23503", TableName: "things", ConstraintName: "things_category_fk"}, finance.Conflict, []string{"category_id"}},
		{"foreign key, default name", pgconn.PgError{Code: "23503", TableName: "things", ConstraintName: "things_company_id_category_id_fkey"}, finance.Conflict, []string{"category_id"}},
		{"foreign key of another table", pgconn.PgError{Code: "23503", TableName: "others", ConstraintName: "others_thing_fk"}, finance.Conflict, nil},
		{"value too long", pgconn.PgError{Code: "22001", ColumnName: "title"}, finance.Invalid, []string{"title"}},
		{"serialization failure", pgconn.PgError{Code: "40001"}, finance.Retryable, nil},
		{"syntax error", pgconn.PgError{Code: "42601"}, finance.Internal, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pg := c.pg
			pg.Message = "raw driver text"
			err := translateFor(&pg, res, "create things")
			var coded *finance.Error
			if !errors.As(err, &coded) || coded.Code != c.code {
				t.Fatalf("%v, want code %s", err, c.code)
			}
			var fields []string
			for _, p := range coded.Problems {
				fields = append(fields, p.Field)
			}
			if !slices.Equal(fields, c.fields) {
				t.Errorf("problem fields %v, want %v", fields, c.fields)
			}
			shown := coded.Message
			for _, p := range coded.Problems {
				shown += " " + p.Message
			}
			if pg.ConstraintName != "" && strings.Contains(shown, pg.ConstraintName) {
				t.Errorf("the message shows the constraint: %q", shown)
			}
			if !errors.Is(err, &pg) && !errors.As(err, new(*pgconn.PgError)) {
				t.Errorf("the cause is lost: %v", err)
			}
		})
	}
}

// TestDottedField: a finance problem's field is named as the API names a
// child's fields.
func TestDottedField(t *testing.T) {
	for in, want := range map[string]string{
		"items[0].owner_id": "items.0.owner_id",
		"items[12].amount":  "items.12.amount",
		"items[3]":          "items.3",
		"paid":              "paid",
		"owners":            "owners",
		"items[":            "items[",
	} {
		if got := dottedField(in); got != want {
			t.Errorf("dottedField(%q) = %q, want %q", in, got, want)
		}
	}
}
