package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

func TestAPIKeyCreateAgainstDatabaseURL(t *testing.T) {
	pool := storagetest.NewDB(t)
	t.Setenv("DATABASE_URL", storagetest.URL(t))
	var out strings.Builder
	if code := run(context.Background(), []string{"apikey", "create", "--company", "Imobiliária Sol", "--create-company", "--reason", "test"}, nil, &out, io.Discard); code != 0 {
		t.Fatalf("exit %d", code)
	}
	// standard output is the key alone: KEY=$(propfin apikey create …) holds it
	key, rest, _ := strings.Cut(out.String(), "\n")
	if rest != "" || !strings.HasPrefix(key, "pf_") {
		t.Fatalf("standard output %q, want the key alone on one line", out.String())
	}
	p, err := storage.LookupAPIKey(context.Background(), pool, key)
	if err != nil {
		t.Fatalf("the printed key %q does not resolve: %v", key, err)
	}
	var name string
	if err := pool.QueryRow(context.Background(), "SELECT name FROM companies WHERE id = $1", p.CompanyID).Scan(&name); err != nil || name != "Imobiliária Sol" {
		t.Errorf("company %q (%v)", name, err)
	}
	for _, args := range [][]string{{"apikey"}, {"apikey", "create"}, {"apikey", "delete", "--company", "x"}} {
		if code := run(context.Background(), args, nil, io.Discard, io.Discard); code == 0 {
			t.Errorf("%v succeeded", args)
		}
	}
}

// TestAPIKeyCreateEndsWithTheKey: with the local cluster started and
// stopped for the command, its log (on stderr) comes before the key, so
// that the key is the last line whether the two streams are read apart or
// together (a terminal, 2>&1).
func TestAPIKeyCreateEndsWithTheKey(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	tmp := t.TempDir()
	// the cluster may run as another user (postgres, when tests run as root)
	for _, dir := range []string{filepath.Dir(tmp), tmp} {
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var both syncBuffer // stdout and stderr as a terminal shows them
	if code := run(context.Background(), []string{"apikey", "create", "--company", "Imobiliária Sol", "--create-company", "--reason", "test", "--data-dir", filepath.Join(tmp, "data")},
		nil, &both, &both); code != 0 {
		t.Fatalf("exit %d:\n%s", code, both.String())
	}
	lines := strings.Split(strings.TrimSpace(both.String()), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "pf_") || strings.Contains(last, " ") {
		t.Errorf("the last line is %q, want the key alone:\n%s", last, both.String())
	}
	if !strings.Contains(both.String(), "PostgreSQL stopped") {
		t.Errorf("the local cluster was not started and stopped by the command:\n%s", both.String())
	}
}
