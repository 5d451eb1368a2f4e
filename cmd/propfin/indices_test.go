package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/propfin/propfin/storage/storagetest"
)

func TestIndicesImport(t *testing.T) {
	pool := storagetest.NewDB(t)
	t.Setenv("DATABASE_URL", storagetest.URL(t))
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	count := func() (n int) {
		pool.QueryRow(context.Background(), `SELECT count(*) FROM price_indices WHERE source = 'import'`).Scan(&n) //nolint:errcheck // compared
		return n
	}
	tests := []struct {
		name, file string
		code       int
		out, err   []string // substrings
		stored     int
	}{
		{name: "bad csv rows are named by line", file: write("bad.csv", "indicator,month,rate\nIVAR,2026-01,0.5\nIVAR,2026-13,0.5\nIGPX,2026-02,x\nIVAR,2026-01,0.6\n"),
			code: 1, err: []string{"line 3: month:", "line 4: indicator:", "line 4: rate:", "line 5: IVAR 2026-01 is given twice (line 2)", "nothing imported"}},
		{name: "bad json rows are named by line", file: write("bad.json", "[\n  {\"indicator\": \"IVAR\", \"month\": \"2026-01\", \"rate\": 0.5},\n  {\"indicator\": \"IVAR\",\n   \"month\": \"2026-1\", \"rate\": 0.5}\n]\n"),
			code: 1, err: []string{"line 3: month:", "nothing imported"}},
		{name: "a bad header", file: write("header.csv", "ind,month,rate\nIVAR,2026-01,0.5\n"), code: 1, err: []string{"line 1: the header"}},
		{name: "csv", file: write("good.csv", "indicator,month,rate\nIVAR,2026-01,0.5\nINCC-M,2026-01,-0.12\nIGP-M,2024-01,0.07\n"),
			out: []string{"imported 3 months: 2 inserted, 0 updated, 1 unchanged"}, stored: 2},
		{name: "json, a month corrected", file: write("good.json", `[{"indicator":"IVAR","month":"2026-01","rate":"0.55"},{"indicator":"IVAR","month":"2026-02","rate":0.4}]`),
			out: []string{"imported 2 months: 1 inserted, 1 updated, 0 unchanged"}, stored: 3},
	}
	for _, tt := range tests {
		var out, errOut strings.Builder
		code := run(context.Background(), []string{"indices", "import", tt.file}, nil, &out, &errOut)
		if code != tt.code {
			t.Errorf("%s: exit %d, want %d; %s%s", tt.name, code, tt.code, out.String(), errOut.String())
		}
		for _, s := range tt.out {
			if !strings.Contains(out.String(), s) {
				t.Errorf("%s: output %q lacks %q", tt.name, out.String(), s)
			}
		}
		for _, s := range tt.err {
			if !strings.Contains(errOut.String(), s) {
				t.Errorf("%s: errors %q lack %q", tt.name, errOut.String(), s)
			}
		}
		if n := count(); n != tt.stored {
			t.Errorf("%s: %d imported months stored, want %d", tt.name, n, tt.stored)
		}
	}
	if code := run(context.Background(), []string{"indices"}, nil, io.Discard, io.Discard); code == 0 {
		t.Error("indices without a subcommand succeeded")
	}
}
