package storage_test

import (
	"context"
	"slices"
	"testing"

	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// TestMigrationWritesStoredMoneyAsNumbers: migration 27 rewrites the
// amounts that job results and chunk outputs of earlier versions held as
// strings into numbers with two decimal places, as text, leaving every
// other byte (key order, messages quoting amounts, other kinds' results)
// as it was; a second run changes nothing.
func TestMigrationWritesStoredMoneyAsNumbers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	var company int64
	if err := pool.QueryRow(ctx, `INSERT INTO companies (name) VALUES ('Conceição') RETURNING id`).Scan(&company); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, kind, state, result, want string
		chunk, chunkWant                string // a chunk's output, "" for none
	}{
		{name: "a payment file of before two places", kind: "batch:file", state: "succeeded",
			result: `{"batch":"payment","batch_id":7,"file_id":12,"sequence":3,"name":"pagamento-237-9-000003.REM","bytes":3856,"titles":4,"total":"3860.5","warnings":[]}`,
			want:   `{"batch":"payment","batch_id":7,"file_id":12,"sequence":3,"name":"pagamento-237-9-000003.REM","bytes":3856,"titles":4,"total":3860.50,"warnings":[]}`},
		{name: "a collection file", kind: "batch:file", state: "succeeded",
			result: `{"batch":"ticket","titles":100,"total":"235000.00","warnings":[{"id":41,"field":"payer.name","message":"truncated"}],"details":{"drops":1}}`,
			want:   `{"batch":"ticket","titles":100,"total":235000.00,"warnings":[{"id":41,"field":"payer.name","message":"truncated"}],"details":{"drops":1}}`},
		{name: "a return file's report", kind: "batch:return", state: "succeeded",
			result: `{"batch":"ticket","file_id":9,"outcomes":{"settled":1,"rejected":1},"report":[` +
				`{"line":2,"code":"06","invoice_id":41,"outcome":"settled","message":"paid 1536.00, the bank wrote \"paid\":\"1.00\"","paid":"1536.00","expected":"1540.10","difference":"-4.10"},` +
				`{"line":4,"code":"03","outcome":"rejected","message":"03 Entrada Rejeitada"}]}`,
			want: `{"batch":"ticket","file_id":9,"outcomes":{"settled":1,"rejected":1},"report":[` +
				`{"line":2,"code":"06","invoice_id":41,"outcome":"settled","message":"paid 1536.00, the bank wrote \"paid\":\"1.00\"","paid":1536.00,"expected":1540.10,"difference":-4.10},` +
				`{"line":4,"code":"03","outcome":"rejected","message":"03 Entrada Rejeitada"}]}`},
		{name: "a transfer run", kind: "contracts:transfer", state: "succeeded",
			result: `{"date":"2024-03-31","invoices":1,"guarantees":0,"guaranteed":"0","transfers":2,"amount":"2208.75","skipped":[{"invoice_id":5,"problems":[{"field":"amount","message":"no owners"}]}],"statuses":1}`,
			want:   `{"date":"2024-03-31","invoices":1,"guarantees":0,"guaranteed":0.00,"transfers":2,"amount":2208.75,"skipped":[{"invoice_id":5,"problems":[{"field":"amount","message":"no owners"}]}],"statuses":1}`},
		{name: "a result of this version", kind: "batch:file", state: "succeeded",
			result: `{"titles":1,"total":1000.00,"warnings":[]}`, want: `{"titles":1,"total":1000.00,"warnings":[]}`},
		{name: "another kind", kind: "pix:validate", state: "succeeded",
			result: `{"total":"3","valid":3,"invalid":0,"problems":[]}`, want: `{"total":"3","valid":3,"invalid":0,"problems":[]}`},
		{name: "a return file half read", kind: "batch:return", state: "running",
			chunk:     `{"outcomes":{"settled":1},"lines":[{"line":2,"outcome":"settled","paid":"10.00","expected":"10.00","difference":"0.00"}]}`,
			chunkWant: `{"outcomes":{"settled":1},"lines":[{"line":2,"outcome":"settled","paid":10.00,"expected":10.00,"difference":0.00}]}`},
		{name: "a transfer run half done", kind: "contracts:transfer", state: "running",
			chunk:     `{"invoices":3,"guarantees":1,"guaranteed":"2150","transfers":0,"amount":"0","skipped":[],"statuses":0}`,
			chunkWant: `{"invoices":3,"guarantees":1,"guaranteed":2150.00,"transfers":0,"amount":0.00,"skipped":[],"statuses":0}`},
	}
	ids := make([]int64, len(cases))
	for i, c := range cases {
		var result *string
		if c.result != "" {
			result = &c.result
		}
		err := pool.QueryRow(ctx, `INSERT INTO jobs (company_id, kind, queue, state, submitted_by, result)
			VALUES ($1, $2, 'critical', $3, 'test', $4::json) RETURNING id`, company, c.kind, c.state, result).Scan(&ids[i])
		if err != nil {
			t.Fatal(err)
		}
		if c.chunk != "" {
			if _, err := pool.Exec(ctx, `INSERT INTO job_chunks (company_id, job_id, chunk, output) VALUES ($1, $2, 0, $3::json)`,
				company, ids[i], c.chunk); err != nil {
				t.Fatal(err)
			}
		}
	}
	migrations, err := storage.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(migrations, func(m storage.Migration) bool { return m.Version == 27 })
	if i < 0 {
		t.Fatal("no migration 27")
	}
	for run := 1; run <= 2; run++ {
		if _, err := pool.Exec(ctx, migrations[i].SQL); err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		for j, c := range cases {
			var result, output *string
			err := pool.QueryRow(ctx, `SELECT j.result::text, (SELECT output::text FROM job_chunks c
				WHERE c.company_id = j.company_id AND c.job_id = j.id) FROM jobs j WHERE company_id = $1 AND id = $2`,
				company, ids[j]).Scan(&result, &output)
			if err != nil {
				t.Fatal(err)
			}
			if got := deref(result); got != c.want {
				t.Errorf("run %d, %s: result\n%s\nwant\n%s", run, c.name, got, c.want)
			}
			if got := deref(output); got != c.chunkWant {
				t.Errorf("run %d, %s: chunk output\n%s\nwant\n%s", run, c.name, got, c.chunkWant)
			}
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
