package jobs

import (
	"strings"
	"testing"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// TestDimobYearProblems: a DIMOB declares a closed calendar year, on the
// company's today: the year still running is refused for a file, to its
// last day, and previewed; from the next January 1st it is filed; a year
// to come is refused either way.
func TestDimobYearProblems(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		year           int
		today          string
		preview        bool
		want, wantOpen string // "" none
	}{
		{2025, "2025-12-31", false, "2025 is not over (today is 2025-12-31 in the company's time zone): a DIMOB declares a " +
			"closed calendar year, filed from 2026-01-01 to the last business day of February 2026; ask with preview: true " +
			"to check the year so far", "2025 is not over"},
		{2025, "2025-12-31", true, "", "2025 is not over"},
		{2025, "2025-01-01", false, "2025 is not over", "2025 is not over"},
		{2025, "2026-01-01", false, "", ""},
		{2024, "2026-12-04", false, "", ""},
		{2027, "2026-12-04", false, "must be a calendar year from 2000 to 2026: 2027 is to come (today is 2026-12-04", "2027 is not over"},
		{2027, "2026-12-04", true, "must be a calendar year from 2000 to 2026", "2027 is not over"},
		{1999, "2026-12-04", false, "", ""}, // Problems names it
	} {
		today := finance.MustDate(c.today)
		ps := DimobPayload{BusinessID: 1, Year: c.year}.YearProblems("payload.", today, c.preview)
		switch {
		case c.want == "" && len(ps) != 0:
			t.Errorf("%d on %s (preview %v): %v, want none", c.year, c.today, c.preview, ps)
		case c.want != "" && (len(ps) != 1 || ps[0].Field != "payload.year" || !strings.HasPrefix(ps[0].Message, c.want)):
			t.Errorf("%d on %s (preview %v): %v, want payload.year: %q", c.year, c.today, c.preview, ps, c.want)
		}
		if got := DimobYearOpen(c.year, today); (c.wantOpen == "") != (got == "") || !strings.HasPrefix(got, c.wantOpen) {
			t.Errorf("DimobYearOpen(%d, %s) = %q, want %q", c.year, c.today, got, c.wantOpen)
		}
	}
	if ps := (DimobPayload{BusinessID: 1, Year: 1999}).Problems("payload."); len(ps) != 1 || ps[0].Field != "payload.year" {
		t.Errorf("1999: %v", ps)
	}
}

// TestDimobOpenYearInTheCheck: the year read on a day it is not over is a
// warning of the preview, on the declaration's year, and a blocking
// problem of the file; read the next year, neither.
func TestDimobOpenYearInTheCheck(t *testing.T) {
	t.Parallel()
	find := func(ps []DimobProblem) *DimobProblem {
		for i, p := range ps {
			if p.Record == "declaration" && p.DeclarationField == "year" {
				return &ps[i]
			}
		}
		return nil
	}
	y := &storage.DimobYear{Year: 2025, Today: finance.MustDate("2025-12-31")}
	preview := buildDimob(y, false, "", false).check()
	if p := find(preview.Warnings); p == nil || p.Field != "year" || p.Resource != "" ||
		p.Message != "2025 is not over (today is 2025-12-31 in the company's time zone): a DIMOB declares a closed calendar "+
			"year, filed from 2026-01-01 to the last business day of February 2026: the check reads the year so far" {
		t.Errorf("the preview's warnings: %+v", preview.Warnings)
	}
	if find(preview.Problems) != nil {
		t.Errorf("the preview's blocking problems: %+v", preview.Problems)
	}
	file := buildDimob(y, false, "", true).check()
	if p := find(file.Problems); p == nil || !file.Blocks || !strings.HasPrefix(p.Message, "2025 is not over") {
		t.Errorf("the file's blocking problems: %+v", file.Problems)
	}
	y.Today = finance.MustDate("2026-01-01")
	for _, c := range []DimobCheck{buildDimob(y, false, "", false).check(), buildDimob(y, false, "", true).check()} {
		if find(c.Problems) != nil || find(c.Warnings) != nil {
			t.Errorf("read on 2026-01-01: %+v", c)
		}
	}
}
