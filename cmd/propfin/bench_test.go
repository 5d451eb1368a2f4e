package main

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/propfin/propfin/api/loadgen"
	"github.com/propfin/propfin/storage/storagetest"
)

// TestBenchEndToEnd runs `propfin bench` small (200 contracts, two months,
// two levels of a second and a half) against the test database and the
// tests' Redis: it must write the data set, then answer every route of
// the mix at every level with its success and nothing else (no 4xx, no
// 5xx); the writes and the jobs must reach the database. A second run on
// the same database is refused without -reuse, and runs with it (on Redis
// in process).
func TestBenchEndToEnd(t *testing.T) {
	pool := storagetest.NewDB(t)
	t.Setenv("DATABASE_URL", storagetest.URL(t))
	t.Setenv("REDIS_URL", storagetest.NewRedis(t).URL())
	ctx := context.Background()
	out := runBenchCommand(t, 0, "-contracts", "200", "-months", "2", "-clients", "2,4", "-duration", "1500ms", "-warmup", "0s")
	if !strings.Contains(out, "invoices ") || !strings.Contains(out, "transactions ") {
		t.Errorf("the data set is not described:\n%s", out)
	}
	levels := benchLevels(t, out)
	if len(levels) != 2 || levels[0].clients != 2 || levels[1].clients != 4 {
		t.Fatalf("levels %+v, want 2 and 4 clients:\n%s", levels, out)
	}
	for _, lv := range levels {
		for _, name := range append(routeNames(), "all") {
			row, ok := lv.rows[name]
			switch {
			case !ok:
				t.Errorf("%d clients: no row for %q:\n%s", lv.clients, name, out)
			case row.requests == 0 || row.errors4xx != 0 || row.errors5xx != 0:
				t.Errorf("%d clients, %s: %+v:\n%s", lv.clients, name, row, out)
			}
		}
	}
	for what, sql := range map[string]string{
		"invoices created":    `SELECT count(*) FROM invoices WHERE type = 'single'`,
		"invoices paid today": `SELECT count(*) FROM invoices WHERE paid AND paid_at = (now() AT TIME ZONE 'America/Sao_Paulo')::date`,
		"bills entered":       `SELECT count(*) FROM transactions WHERE mode = 'transaction' AND description = 'Manutenção predial'`,
		"jobs submitted":      `SELECT count(*) FROM jobs WHERE kind = 'jobs:prune'`,
	} {
		var n int
		if err := pool.QueryRow(ctx, sql).Scan(&n); err != nil || n == 0 {
			t.Errorf("%s: %d (%v)", what, n, err)
		}
	}

	if out := runBenchCommand(t, 1, "-contracts", "200", "-months", "2"); !strings.Contains(out, "-reuse") {
		t.Errorf("a second run without -reuse: %s", out)
	}
	t.Setenv("REDIS_URL", "")
	out = runBenchCommand(t, 0, "-reuse", "-clients", "2", "-duration", "1s", "-warmup", "200ms")
	if levels := benchLevels(t, out); len(levels) != 1 || levels[0].rows["all"].requests == 0 {
		t.Errorf("the run with -reuse:\n%s", out)
	}
}

// runBenchCommand runs propfin bench with args and wants exit code want;
// it returns what was written to stdout and stderr.
func runBenchCommand(t *testing.T, want int, args ...string) string {
	t.Helper()
	var out, errOut syncBuffer
	if code := run(context.Background(), append([]string{"bench"}, args...), nil, &out, &errOut); code != want {
		t.Fatalf("propfin bench %s: exit %d, want %d\n%s\n%s", strings.Join(args, " "), code, want, out.String(), errOut.String())
	}
	return out.String() + errOut.String()
}

func routeNames() []string { return loadgen.RouteNames() }

// benchRow is a row of a level's table.
type benchRow struct{ requests, errors4xx, errors5xx int }

type printedLevel struct {
	clients int
	rows    map[string]benchRow
}

// benchLevels reads the levels' tables back from the output.
func benchLevels(t *testing.T, out string) []printedLevel {
	t.Helper()
	var levels []printedLevel
	for _, line := range strings.Split(out, "\n") {
		if n, rest, ok := strings.Cut(line, " clients, measured "); ok && rest != "" {
			clients, err := strconv.Atoi(n)
			if err != nil {
				t.Fatalf("level line %q", line)
			}
			levels = append(levels, printedLevel{clients: clients, rows: map[string]benchRow{}})
			continue
		}
		if len(levels) == 0 {
			continue
		}
		for _, name := range append(routeNames(), "all") {
			rest, ok := strings.CutPrefix(line, name+" ")
			fields := strings.Fields(rest)
			if !ok || len(fields) < 6 {
				continue
			}
			n := func(s string) int {
				v, err := strconv.Atoi(s)
				if err != nil {
					t.Fatalf("%q in row %q", s, line)
				}
				return v
			}
			k := len(fields)
			levels[len(levels)-1].rows[name] = benchRow{requests: n(fields[k-6]), errors4xx: n(fields[k-2]), errors5xx: n(fields[k-1])}
		}
	}
	return levels
}
