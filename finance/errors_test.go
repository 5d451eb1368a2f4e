package finance

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestAsInvalid: a rule's Problems, bare or wrapped, become one invalid
// input with every problem, renamed when asked; any other error is not.
func TestAsInvalid(t *testing.T) {
	t.Parallel()
	rule := Problems{{Field: "items[0].amount", Message: "required"}, {Field: "due_day", Message: "too large"}}
	upper := strings.ToUpper
	cases := []struct {
		name   string
		err    error
		field  func(string) string
		ok     bool
		fields []string
	}{
		{"bare", rule, nil, true, []string{"items[0].amount", "due_day"}},
		{"wrapped", fmt.Errorf("settle: %w", rule), nil, true, []string{"items[0].amount", "due_day"}},
		{"renamed", rule, upper, true, []string{"ITEMS[0].AMOUNT", "DUE_DAY"}},
		{"another error", errors.New("disk full"), nil, false, nil},
		{"nil", nil, nil, false, nil},
	}
	for _, c := range cases {
		e, ok := AsInvalid(c.err, c.field)
		if ok != c.ok {
			t.Fatalf("%s: ok %v, want %v", c.name, ok, c.ok)
		}
		if !ok {
			continue
		}
		var fields []string
		for _, p := range e.Problems {
			fields = append(fields, p.Field)
		}
		if e.Code != Invalid || !slices.Equal(fields, c.fields) {
			t.Errorf("%s: %s %v, want invalid %v", c.name, e.Code, fields, c.fields)
		}
	}
	if rule[0].Field != "items[0].amount" {
		t.Errorf("renaming changed the rule's own problems: %v", rule)
	}
}

// TestErrorCode: the code of a coded error however wrapped, internal for
// any other.
func TestErrorCode(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		err  error
		want Code
	}{
		{Errorf(Conflict, "paid"), Conflict},
		{fmt.Errorf("write: %w", Errorf(NotFound, "gone")), NotFound},
		{errors.New("plain"), Internal},
	} {
		if got := ErrorCode(c.err); got != c.want {
			t.Errorf("ErrorCode(%v) = %s, want %s", c.err, got, c.want)
		}
	}
}

func TestCount(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{{0, "0 jobs"}, {1, "1 job"}, {2, "2 jobs"}} {
		if got := Count(c.n, "job", "jobs"); got != c.want {
			t.Errorf("Count(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}
