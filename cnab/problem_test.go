package cnab

import (
	"errors"
	"slices"
	"testing"
)

func TestProblemLog(t *testing.T) {
	t.Parallel()
	l := ProblemLog{Index: 3}
	if l.Failed() || l.Take(nil) != nil {
		t.Fatal("a new log has problems")
	}
	l.Warn("payer.name", "truncated")
	if l.Failed() {
		t.Error("a warning counts as an error")
	}
	l.Fail("amount", "too large")
	l.Warn("payer.city", "replaced")
	if !l.Failed() {
		t.Error("an error is not counted")
	}
	var warned []string
	err := l.Take(func(p Problem) { warned = append(warned, p.Field) })
	if want := []string{"payer.name", "payer.city"}; !slices.Equal(warned, want) {
		t.Errorf("warnings %v, want %v", warned, want)
	}
	var ps Problems
	if !errors.As(err, &ps) || len(ps) != 1 || ps[0] != (Problem{Title: 3, Field: "amount", Message: "too large"}) {
		t.Errorf("Take = %v, want the one error of title 3", err)
	}
	if !errors.Is(err, ErrInvalid) {
		t.Error("the errors do not match ErrInvalid")
	}
	if l.Failed() || l.Take(nil) != nil {
		t.Error("Take did not empty the log")
	}
	l.Warn("payer.name", "truncated")
	if err := l.Take(nil); err != nil {
		t.Errorf("warnings only with a nil callback: %v", err)
	}
}
