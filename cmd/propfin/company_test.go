package main

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// runOut runs the command and returns its exit code, stdout and stderr.
func runOut(args ...string) (int, string, string) {
	var out, errs strings.Builder
	code := run(context.Background(), args, nil, &out, &errs)
	return code, out.String(), errs.String()
}

// TestCompanyAndKeyCommands: an operator creates a company with its
// settings, lists and updates it, issues a key by the company's id, lists
// it without its secret and revokes it; a mistyped name is an error that
// names the company meant and creates nothing, a name but for case and
// accents finds the company (several are listed), and every write is in
// the audit log.
func TestCompanyAndKeyCommands(t *testing.T) {
	pool := storagetest.NewDB(t)
	t.Setenv("DATABASE_URL", storagetest.URL(t))
	ctx := context.Background()

	code, out, errs := runOut("company", "create", "--name", "Horizonte Imóveis", "--time-zone", "America/Manaus", "--lead-days", "20", "--reason", "new customer")
	if code != 0 || !strings.HasPrefix(out, "company 1 created") {
		t.Fatalf("company create: exit %d\n%s%s", code, out, errs)
	}
	if code, _, errs := runOut("company", "create", "--name", "X", "--time-zone", "Mars/Olympus", "--lead-days", "400", "--reason", "r"); code == 0 ||
		!strings.Contains(errs, "--time-zone must be a time zone") || !strings.Contains(errs, "--lead-days must be") {
		t.Errorf("bad settings: exit %d\n%s", code, errs)
	}
	if code, _, errs := runOut("company", "create", "--name", "X"); code == 0 || !strings.Contains(errs, "--reason is required") {
		t.Errorf("no reason: exit %d\n%s", code, errs)
	}

	code, _, errs = runOut("apikey", "create", "--company", "horizonte imovel", "--reason", "r")
	if code == 0 || !strings.Contains(errs, `Close names: "Horizonte Imóveis" (id 1)`) {
		t.Errorf("a mistyped name: exit %d\n%s", code, errs)
	}
	if n := count(t, pool, `SELECT count(*) FROM companies`); n != 1 {
		t.Errorf("%d companies after a mistyped name, want 1", n)
	}

	code, out, errs = runOut("apikey", "create", "--company-id", "1", "--name", "erp", "--reason", "ERP integration")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	key := lines[len(lines)-1]
	if code != 0 || !strings.HasPrefix(key, "pf_1_") {
		t.Fatalf("apikey create: exit %d\n%s%s", code, out, errs)
	}
	p, err := storage.LookupAPIKey(ctx, pool, key)
	if err != nil || p.CompanyID != 1 {
		t.Fatalf("the printed key: %+v %v", p, err)
	}

	code, out, _ = runOut("company", "list")
	if code != 0 || !strings.Contains(out, "Horizonte Imóveis") || !strings.Contains(out, "America/Manaus") {
		t.Errorf("company list: exit %d\n%s", code, out)
	}
	code, out, _ = runOut("company", "update", "--id", "1", "--time-zone", "America/Sao_Paulo", "--reason", "moved")
	if code != 0 || !strings.Contains(out, `time_zone="America/Manaus"->"America/Sao_Paulo"`) {
		t.Errorf("company update: exit %d\n%s", code, out)
	}

	code, out, _ = runOut("apikey", "list")
	if code != 0 || !strings.Contains(out, key[:len(key)-56]+"…") || strings.Contains(out, key[len(key)-56:]) {
		t.Errorf("apikey list: exit %d\n%s", code, out)
	}
	if code, out, errs := runOut("apikey", "revoke", "--id", "1", "--reason", "leaked"); code != 0 || !strings.Contains(out, "key 1 of company 1 revoked") {
		t.Fatalf("apikey revoke: exit %d\n%s%s", code, out, errs)
	}
	if _, err := storage.LookupAPIKey(ctx, pool, key); err == nil {
		t.Errorf("the revoked key still resolves")
	}
	if code, out, _ := runOut("apikey", "list"); code != 0 || strings.Contains(out, key[:len(key)-56]) {
		t.Errorf("apikey list shows a revoked key without --revoked:\n%s", out)
	}
	if code, out, _ := runOut("apikey", "list", "--revoked"); code != 0 || !strings.Contains(out, key[:len(key)-56]) {
		t.Errorf("apikey list --revoked:\n%s", out)
	}

	code, out, errs = runOut("apikey", "create", "--company", "Aurora Gestão", "--create-company", "--reason", "new customer")
	if code != 0 || !strings.HasPrefix(errs, "company 2 created") || !strings.HasPrefix(out, "pf_2_") {
		t.Errorf("--create-company: exit %d\n%s%s", code, out, errs)
	}
	want := "companies.create keys.create companies.update keys.revoke companies.create keys.create"
	var got string
	if err := pool.QueryRow(ctx, `SELECT string_agg(action, ' ' ORDER BY id) FROM operator_audit WHERE operator LIKE 'cli:%'`).Scan(&got); err != nil || got != want {
		t.Errorf("audit: %q (%v), want %q", got, err, want)
	}
	for _, args := range [][]string{{"company"}, {"company", "delete"}, {"apikey", "revoke", "--reason", "r"}, {"apikey", "create", "--company-id", "9", "--reason", "r"}} {
		if code, _, _ := runOut(args...); code == 0 {
			t.Errorf("%v succeeded", args)
		}
	}

	// a name but for case and accents is the company's, as creation tells
	// names apart; several named so are listed
	if code, out, errs := runOut("apikey", "create", "--company", "AURORA GESTAO", "--reason", "r"); code != 0 ||
		!strings.Contains(errs, "company 2, key id 3") || !regexp.MustCompile(`^pf_\S+\n$`).MatchString(out) {
		t.Errorf("a name but for case and accents: exit %d\n%s%s", code, out, errs)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO companies (name) VALUES ('aurora  gestão')`); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runOut("apikey", "create", "--company", "Aurora Gestao", "--reason", "r"); code == 0 ||
		!strings.Contains(errs, `2 companies are named "Aurora Gestao" but for case, accents and spaces: "Aurora Gestão" (id 2), "aurora  gestão" (id 3)`) {
		t.Errorf("two companies but for case and accents: exit %d\n%s", code, errs)
	}
	if code, out, errs := runOut("apikey", "create", "--company", "aurora  gestão", "--reason", "r"); code != 0 ||
		!strings.Contains(errs, "company 3, key id 4") || !regexp.MustCompile(`^pf_\S+\n$`).MatchString(out) {
		t.Errorf("the exact name among two: exit %d\n%s%s", code, out, errs)
	}
}

func count(t *testing.T, q storage.DBTX, sql string) int {
	t.Helper()
	var n int
	if err := q.QueryRow(context.Background(), sql).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestOperatorCommandsOnUnmigratedDatabase: a database without propfin's
// tables (here: a search path where they are not) says to migrate first.
func TestOperatorCommandsOnUnmigratedDatabase(t *testing.T) {
	storagetest.NewDB(t)
	url := storagetest.URL(t)
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	t.Setenv("DATABASE_URL", url+sep+"search_path=nothing_here")
	for _, args := range [][]string{{"company", "list"}, {"apikey", "create", "--company-id", "1", "--reason", "r"}} {
		if code, _, errs := runOut(args...); code == 0 || !strings.Contains(errs, "run `propfin migrate` first") {
			t.Errorf("%v: exit %d\n%s", args, code, errs)
		}
	}
}
