package main

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

func TestAPIKeyCreateAgainstDatabaseURL(t *testing.T) {
	pool := storagetest.NewDB(t)
	t.Setenv("DATABASE_URL", storagetest.URL(t))
	var out strings.Builder
	if code := run(context.Background(), []string{"apikey", "create", "--company", "Imobiliária Sol"}, nil, &out, io.Discard); code != 0 {
		t.Fatalf("exit %d", code)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	key := lines[len(lines)-1]
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
