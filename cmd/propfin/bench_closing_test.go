package main

import (
	"context"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/propfin/propfin/storage/benchdata"
	"github.com/propfin/propfin/storage/storagetest"
)

// TestBenchClosing runs `propfin bench -closing` small (200 contracts, 40
// owners, the year 2025, two rounds) against the test database, with
// Redis in process: it must write the closing data set, then print every
// measure for each business and for the company, the DIMOB written by
// its job with nothing blocking, and leave no run or job of its own
// behind. Again with -reuse, on the same data set; a -year other than
// the data set's is refused, and -closing on a data set written without
// it too.
func TestBenchClosing(t *testing.T) {
	pool := storagetest.NewDB(t)
	t.Setenv("DATABASE_URL", storagetest.URL(t))
	t.Setenv("REDIS_URL", "")
	ctx := context.Background()
	out := runBenchCommand(t, 0, "-closing", "-year", "2025", "-contracts", "200", "-owners", "40", "-rounds", "2")
	t.Log(out)
	for _, want := range []string{"the closing of 2025 of Bench Horizonte Imóveis: 2 businesses, 2 rounds",
		"round 2 of 2 done", "the company (its 2 businesses, summed round by round)"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	for _, m := range closingMeasures {
		if n := strings.Count(out, "  "+m.name+" "); n != 3 {
			t.Errorf("%q: %d rows, want one per business and the company's:\n%s", m.name, n, out)
		}
		if n := strings.Count(out, "  "+m.name+": "); n != 2 {
			t.Errorf("%q: found %d times, want once per business:\n%s", m.name, n, out)
		}
	}
	if n := strings.Count(out, "no blocking problem"); n != 2 {
		t.Errorf("%d previews without blocking problems, want 2:\n%s", n, out)
	}
	if n := strings.Count(out, "DIMOB-"); n != 2 {
		t.Errorf("%d files named, want 2:\n%s", n, out)
	}
	var runs, jobs int
	if err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM dimob_runs), (SELECT count(*) FROM jobs WHERE kind = 'dimob:file')`).
		Scan(&runs, &jobs); err != nil || runs != 0 || jobs != 0 {
		t.Errorf("left behind: %d runs, %d jobs (%v)", runs, jobs, err)
	}

	out = runBenchCommand(t, 0, "-closing", "-reuse", "-rounds", "1")
	if !strings.Contains(out, "the closing of 2025 of Bench Horizonte Imóveis: 2 businesses, 1 rounds") {
		t.Errorf("with -reuse:\n%s", out)
	}
	if out := runBenchCommand(t, 1, "-closing", "-reuse", "-year", "2024"); !strings.Contains(out, "closing of 2025") {
		t.Errorf("-year 2024 on the data set of 2025: %s", out)
	}

	t.Run("on the load's data set", func(t *testing.T) {
		load := storagetest.NewDB(t)
		t.Setenv("DATABASE_URL", storagetest.URL(t))
		if _, err := benchdata.Generate(ctx, load, benchdata.Options{Contracts: 20, Months: 1}); err != nil {
			t.Fatal(err)
		}
		if out := runBenchCommand(t, 1, "-closing", "-reuse"); !strings.Contains(out, "without -closing") {
			t.Errorf("-closing on the load's data set: %s", out)
		}
	})
}

// TestBenchClosingFlags: with -closing, what belongs to the load, months
// other than the year's 12, a year not ended and rounds out of range are
// refused, each by its flag; the year's 12 months are taken.
func TestBenchClosingFlags(t *testing.T) {
	t.Parallel()
	last := strconv.Itoa(time.Now().Year() - 1)
	for _, c := range []struct {
		args []string
		want string // "" for none
	}{
		{[]string{"-closing"}, ""},
		{[]string{"-closing", "-year", last, "-months", "12", "-owners", "10", "-rounds", "3"}, ""},
		{[]string{"-closing", "-months", "3"}, "-months"},
		{[]string{"-closing", "-clients", "2"}, "-clients"},
		{[]string{"-closing", "-url", "http://localhost:1"}, "-url"},
		{[]string{"-closing", "-year", strconv.Itoa(time.Now().Year())}, "-year"},
		{[]string{"-closing", "-year", "1999"}, "-year"},
		{[]string{"-closing", "-rounds", "0"}, "-rounds"},
		{[]string{"-months", "3"}, ""},
	} {
		f, err := parseBenchFlags(c.args, io.Discard)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%v: %v", c.args, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%v: %v, want a problem with %s", c.args, err, c.want)
		case c.want == "" && f.closing && f.months != 12:
			t.Errorf("%v: %d months with -closing", c.args, f.months)
		}
	}
}
