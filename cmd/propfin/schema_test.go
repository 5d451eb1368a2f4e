package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestSchemaBehindTheBinary starts an API, a worker and a scheduler on a
// database one migration behind the binary (its row in
// schema_migrations gone, as after a release phase that failed): the API
// serves but logs it and /readyz answers 503 naming the migration; the
// worker and the scheduler log it and wait; once the migration is
// recorded, /readyz answers 200 and both start, with no restart. On
// SIGTERM each process's last line says it stopped.
func TestSchemaBehindTheBinary(t *testing.T) {
	t.Parallel()
	f := newFaultEnv(t)
	ctx := context.Background()
	var version int
	var name string
	if err := f.pool.QueryRow(ctx, `DELETE FROM schema_migrations WHERE version = (SELECT max(version) FROM schema_migrations)
		RETURNING version, name`).Scan(&version, &name); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	api := f.startAPI(t, "api", addr)
	worker := startProc(t, "worker", f.env, "worker")
	scheduler := startProc(t, "scheduler", f.env, "scheduler")
	readyz := func() (int, string) {
		t.Helper()
		r, err := http.Get("http://" + addr + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		defer r.Body.Close()
		body, _ := io.ReadAll(r.Body)
		return r.StatusCode, string(body)
	}
	if status, body := readyz(); status != http.StatusServiceUnavailable || !strings.Contains(body, `"schema"`) || !strings.Contains(body, name) {
		t.Errorf("readyz one migration behind: %d %s", status, body)
	}
	for _, p := range []*proc{api, worker, scheduler} {
		eventually(t, 10*time.Second, p.name+" to say the schema is behind", func() error {
			if out := p.out.String(); !strings.Contains(out, "schema is behind this binary") || !strings.Contains(out, name) {
				return fmt.Errorf("it has not:\n%s", tail(out, 10))
			}
			return nil
		})
	}
	for _, p := range []*proc{worker, scheduler} {
		if out := p.out.String(); strings.Contains(out, p.name+" started") {
			t.Errorf("%s started on a schema behind it:\n%s", p.name, tail(out, 10))
		}
	}
	if _, err := f.pool.Exec(ctx, `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`, version, name); err != nil {
		t.Fatal(err)
	}
	if status, body := readyz(); status != http.StatusOK {
		t.Errorf("readyz once migrated: %d %s", status, body)
	}
	for _, p := range []*proc{worker, scheduler} {
		eventually(t, 2*schemaPoll, p.name+" to start once migrated", func() error {
			if out := p.out.String(); !strings.Contains(out, p.name+" started") {
				return fmt.Errorf("it has not:\n%s", tail(out, 10))
			}
			return nil
		})
	}
	for _, p := range []*proc{api, worker, scheduler} {
		p.stop(t, 40*time.Second)
		lines := strings.Split(strings.TrimSpace(p.out.String()), "\n")
		if last := lines[len(lines)-1]; !strings.Contains(last, "msg=stopped") {
			t.Errorf("%s's last line: %s", p.name, last)
		}
	}
}
