package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/jobs"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// batchFaultTitles is the size of the collection batch the batch fault
// tests send: tens of thousands of titles, seeded in seconds.
const batchFaultTitles = 20_000

// ticketFixture is a company billing by ticket to a Bradesco CNAB 400
// collection account (the values of cnab/testdata/237_400.json): its
// business with a CNPJ, a payer with a full address, a building with one
// owner and the rent item its invoices' lines use.
type ticketFixture struct {
	company, business, account, payer, building, rent int64
}

// newTicketFixture seeds company with what collection batches need.
func newTicketFixture(t *testing.T, f *faultEnv, company int64) *ticketFixture {
	t.Helper()
	x := &ticketFixture{company: company}
	id := func(sql string, args ...any) int64 {
		t.Helper()
		var v int64
		if err := f.pool.QueryRow(context.Background(), sql, append([]any{company}, args...)...).Scan(&v); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return v
	}
	x.business = id(`INSERT INTO businesses (company_id, name, tax_id) VALUES ($1, 'Imobiliária Conceição', '11222333000181') RETURNING id`)
	x.account = id(`INSERT INTO accounts (company_id, business_id, bank, layout, agency, agency_digit, account, account_digit,
		wallet, covenant) VALUES ($1, $2, '237', 'cnab400', '1234', '5', '0012345', '6', '09', '00000000000004567890') RETURNING id`, x.business)
	x.payer = id(`INSERT INTO persons (company_id, name, tax_id, street, number, district, city, state, zip_code)
		VALUES ($1, 'João da Silva', '12345678909', 'Rua das Acácias', '123', 'Centro', 'Porto Alegre', 'RS', '90000123') RETURNING id`)
	owner := id(`INSERT INTO persons (company_id, name) VALUES ($1, 'Olga Proprietária') RETURNING id`)
	x.building = id(`INSERT INTO buildings (company_id, title) VALUES ($1, 'Aurora') RETURNING id`)
	id(`INSERT INTO building_owners (company_id, building_id, person_id, percentage) VALUES ($1, $2, $3, 100) RETURNING id`, x.building, owner)
	x.rent = id(`INSERT INTO transaction_items (company_id, description, debit, credit, type)
		VALUES ($1, 'Aluguel', 'customer', 'owner', 'rent') RETURNING id`)
	return x
}

// invoices inserts n invoices billed by ticket to the account, due in ten
// days, each with one rent line (customer to owner) and its creation in
// its history, in one statement; it returns their ids in order.
func (x *ticketFixture) invoices(t *testing.T, f *faultEnv, n int) []int64 {
	t.Helper()
	rows, err := f.pool.Query(context.Background(), `
		WITH inv AS (INSERT INTO invoices (company_id, type, payer_id, building_id, business_id, account_id,
		                 billing_method, description, total, date, due_date)
		             SELECT $1, 'single', $2, $3, $4, $5, 'ticket', 'Aluguel ' || g, 1000 + g % 500, current_date, current_date + 10
		             FROM generate_series(1, $7::int) g ORDER BY g
		             RETURNING id, total),
		     lines AS (INSERT INTO invoice_items (company_id, invoice_id, item_id, amount) SELECT $1, inv.id, $6, inv.total FROM inv),
		     created AS (INSERT INTO invoice_history (company_id, invoice_id, actor, origin) SELECT $1, inv.id, 'system', 'create' FROM inv)
		SELECT id FROM inv ORDER BY id`, x.company, x.payer, x.building, x.business, x.account, x.rent, n)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil || len(ids) != n {
		t.Fatalf("%d invoices: %v", len(ids), err)
	}
	return ids
}

// batch opens a collection batch of the account and adds the invoices,
// as addInvoices does (their nosso números, slips and histories).
func (x *ticketFixture) batch(t *testing.T, f *faultEnv, ids []int64) int64 {
	t.Helper()
	ctx := context.Background()
	var batch int64
	if err := f.pool.QueryRow(ctx, `INSERT INTO ticket_batches (company_id, account_id, description) VALUES ($1, $2, 'Aluguéis')
		RETURNING id`, x.company, x.account).Scan(&batch); err != nil {
		t.Fatal(err)
	}
	ans, err := jobs.ChangeBatchMembers(ctx, f.pool, jobs.TicketBatchKind, storage.Company(x.company), batch, storage.OpAdd, ids)
	if err != nil || len(ans.Done) != len(ids) {
		t.Fatalf("add %d invoices to batch %d: %v, %d added, refused %v", len(ids), batch, err, len(ans.Done),
			ans.Refused[:min(3, len(ans.Refused))])
	}
	return batch
}

// accountCounters reads the account's next file number (NSA) and next
// nosso número.
func (x *ticketFixture) accountCounters(t *testing.T, f *faultEnv) (nextFile, nextNosso int64) {
	t.Helper()
	if err := f.pool.QueryRow(context.Background(), `SELECT next_file_sequence, next_nosso_numero FROM accounts
		WHERE company_id = $1 AND id = $2`, x.company, x.account).Scan(&nextFile, &nextNosso); err != nil {
		t.Fatal(err)
	}
	return nextFile, nextNosso
}

// tableLock holds a lock on a table of the test's database from a
// connection of its own, until released.
type tableLock struct {
	conn *pgx.Conn
	tx   pgx.Tx
}

// lockTable takes table in mode (LOCK TABLE ... IN mode MODE).
func lockTable(t *testing.T, table, mode string) *tableLock {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, storagetest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	tx, err := conn.Begin(ctx)
	if err == nil {
		_, err = tx.Exec(ctx, "LOCK TABLE "+pgx.Identifier{table}.Sanitize()+" IN "+mode+" MODE")
	}
	if err != nil {
		t.Fatal(err)
	}
	return &tableLock{conn: conn, tx: tx}
}

func (l *tableLock) release(t *testing.T) {
	t.Helper()
	if err := l.tx.Rollback(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// waitLockWaiter waits until a session of the test's database waits for a
// lock on table, and returns its process id.
func waitLockWaiter(t *testing.T, f *faultEnv, table string) int {
	t.Helper()
	var pid int
	eventually(t, 60*time.Second, "a session waiting for "+table, func() error {
		err := f.pool.QueryRow(context.Background(), `SELECT l.pid FROM pg_locks l
			WHERE l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
			AND l.relation = $1::text::regclass AND NOT l.granted LIMIT 1`, table).Scan(&pid)
		return err
	})
	return pid
}

// waitSessionGone waits until the database session pid has ended.
func waitSessionGone(t *testing.T, f *faultEnv, pid int) {
	t.Helper()
	eventually(t, 30*time.Second, fmt.Sprintf("session %d to end", pid), func() error {
		var n int
		err := f.pool.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity WHERE pid = $1`, pid).Scan(&n)
		if err == nil && n > 0 {
			err = fmt.Errorf("session %d still there", pid)
		}
		return err
	})
}

// remittance is a Bradesco CNAB 400 remittance as read back by the
// positions of the bank's layout: its NSA (header 111-117) and each
// title (detail records) by invoice (Nº Controle do Participante, 38-62).
type remittance struct {
	sequence int64
	titles   map[int64]remTitle
}

// remTitle is a title of a remittance: its nosso número with its digit
// (71-81, 82) and its amount in cents (127-139).
type remTitle struct {
	nosso  string
	amount int64
}

// readRemittance reads a remittance; a title whose invoice is there twice,
// or a record out of the layout, fails the test.
func readRemittance(t *testing.T, file []byte) remittance {
	t.Helper()
	recs := strings.Split(strings.TrimSuffix(string(file), "\r\n"), "\r\n")
	if len(recs) < 2 || !strings.HasPrefix(recs[0], "01REMESSA") || !strings.HasPrefix(recs[len(recs)-1], "9") {
		t.Fatalf("not a CNAB 400 remittance: %d records, starting %.20q", len(recs), file)
	}
	r := remittance{titles: map[int64]remTitle{}}
	var err error
	if r.sequence, err = strconv.ParseInt(recs[0][110:117], 10, 64); err != nil {
		t.Fatalf("NSA %q: %v", recs[0][110:117], err)
	}
	for i, d := range recs[1 : len(recs)-1] {
		if len(d) != 400 || d[0] != '1' {
			t.Fatalf("record %d is not a title: %.40q", i+2, d)
		}
		invoice, err1 := strconv.ParseInt(strings.TrimSpace(d[37:62]), 10, 64)
		amount, err2 := strconv.ParseInt(d[126:139], 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("record %d: control %q, amount %q", i+2, d[37:62], d[126:139])
		}
		if _, twice := r.titles[invoice]; twice {
			t.Fatalf("invoice %d has two titles in the file", invoice)
		}
		r.titles[invoice] = remTitle{nosso: d[70:81] + "-" + d[81:82], amount: amount}
	}
	return r
}

// batchMembers reads the titles of a batch as added: by invoice, its
// nosso número with its digit and its amount in cents.
func batchMembers(t *testing.T, f *faultEnv, company, batch int64) map[int64]remTitle {
	t.Helper()
	r := rows(t, f, `SELECT invoice_id, nosso_numero || '-' || nosso_numero_digit, (amount * 100)::bigint
		FROM ticket_batch_invoices WHERE company_id = $1 AND batch_id = $2`, company, batch)
	out := map[int64]remTitle{}
	for r.Next() {
		var id int64
		var m remTitle
		if err := r.Scan(&id, &m.nosso, &m.amount); err != nil {
			t.Fatal(err)
		}
		out[id] = m
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// checkSlipsOnce: every invoice of the batch has one title (one member
// row), a nosso número of its own taken once from the account's counter
// (the batch's numbers are consecutive and the counter is past them), its
// slip written, and one history row of the batch: the add. The file job
// writes none of these.
func checkSlipsOnce(t *testing.T, f *faultEnv, x *ticketFixture, batch int64, invoices []int64, nextNosso int64) {
	t.Helper()
	var members, numbers, slips, histories, minOur, maxOur int64
	err := f.pool.QueryRow(context.Background(), `SELECT count(*), count(DISTINCT m.nosso_numero), count(DISTINCT i.ticket_barcode),
			min(m.our_number), max(m.our_number),
			(SELECT count(*) FROM invoice_history h WHERE h.company_id = $1 AND h.invoice_id = any($3) AND h.origin = 'ticket_batch')
		FROM ticket_batch_invoices m JOIN invoices i ON i.company_id = m.company_id AND i.id = m.invoice_id
		WHERE m.company_id = $1 AND m.batch_id = $2 AND i.ticket_digitable IS NOT NULL`, x.company, batch, invoices).
		Scan(&members, &numbers, &slips, &minOur, &maxOur, &histories)
	n := int64(len(invoices))
	if err != nil || members != n || numbers != n || slips != n || histories != n || maxOur-minOur+1 != n || nextNosso != maxOur+1 {
		t.Errorf("%d invoices: %d titles with a slip, %d nosso números, %d barcodes, numbers %d to %d (the counter at %d), "+
			"%d batch history rows: %v", n, members, numbers, slips, minOur, maxOur, nextNosso, histories, err)
	}
}

// TestBatchFileKilledMidWrite kills a worker (kill -9) while it writes the
// remittance of a collection batch of 20,000 titles, inside the file's
// transaction, with the account's file number taken and the file written
// in memory (the test holds a lock that the file's insert waits for, and
// kills the worker there); clients download the file and read the job
// throughout through the real API. A new worker writes the file: one
// file, the number the killed run had taken (it was rolled back with it),
// every title once, as added; the next file of the account gets the next
// number; the download then serves the same bytes every time.
func TestBatchFileKilledMidWrite(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFaultEnv(t, "PROPFIN_WORKER_CONCURRENCY=2", fmt.Sprintf("PROPFIN_RATE_LIMIT=%d", faultLoadRateLimit))
	company := f.company(t, "Batch File Kill Test", jobs.DefaultTimeZone)
	x := newTicketFixture(t, f, company)
	seeded := time.Now()
	invoices := x.invoices(t, f, batchFaultTitles)
	batch := x.batch(t, f, invoices)
	fileBefore, nosso := x.accountCounters(t, f)
	t.Logf("%d invoices seeded and added to batch %d in %s", len(invoices), batch, time.Since(seeded).Round(time.Millisecond))

	addr := freeAddr(t)
	f.startAPI(t, "api", addr)
	clients := newFaultClients(t, f, addr, company)
	download := faultRequest{op: opFile, method: http.MethodGet, path: fmt.Sprintf("/financial/ticketBatch/%d/downloadBatchFile", batch)}
	clients.setPhase("submitted")
	status, raw := clients.send(download)
	jobID := dataID(raw)
	if status != http.StatusAccepted || jobID == 0 {
		t.Fatalf("first download: %d %.300s", status, raw)
	}
	job := f.job(t, company, jobID)
	hold := lockTable(t, "batch_files", "SHARE") // the file's INSERT waits for it
	watch := clients.watchJob(jobID)
	clients.runReads(2, "worker 1", download, faultRequest{op: opRead, method: http.MethodGet, path: "/jobs/" + strconv.FormatInt(jobID, 10)})
	first := startProc(t, "worker 1", f.env, "worker")
	waiter := waitLockWaiter(t, f, "batch_files")
	// a run's start is written with its first chunk, or on its own once it
	// has run for 100 ms (docs/jobs.md): wait for it to be readable
	atKill := f.job(t, company, jobID)
	for deadline := time.Now().Add(2 * time.Second); atKill.State == storage.JobPending && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
		atKill = f.job(t, company, jobID)
	}
	clients.setPhase("killed")
	first.kill()
	killed := time.Now()
	hold.release(t)
	waitSessionGone(t, f, waiter) // its transaction rolled back
	if atKill.State != storage.JobRunning || atKill.Attempts != 1 {
		t.Fatalf("at the kill the job is %s, attempt %d", atKill.State, atKill.Attempts)
	}
	var files int
	var open bool
	if err := f.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM batch_files WHERE company_id = $1),
			(SELECT status = 'open' AND file_id IS NULL FROM ticket_batches WHERE company_id = $1 AND id = $2)`,
		company, batch).Scan(&files, &open); err != nil || files != 0 || !open {
		t.Fatalf("after the kill: %d files stored, batch open %v (%v); want nothing of the killed run", files, open, err)
	}
	if next, _ := x.accountCounters(t, f); next != fileBefore {
		t.Fatalf("after the kill the account's next file number is %d, want %d (the killed run's given back)", next, fileBefore)
	}

	startProc(t, "worker 2", f.env, "worker")
	done := f.waitFinished(t, job, 4*time.Minute)
	finished := time.Now()
	clients.setPhase("written")
	time.Sleep(time.Second) // the clients see the file served
	clients.halt()
	clients.checkAnswers(t)
	for _, phase := range clients.phases {
		clients.only(t, phase, http.StatusOK) // 200 and 202
	}
	if n := clients.statuses("written", opFile)[http.StatusAccepted]; n != 0 {
		t.Errorf("%d downloads answered 202 after the file was written", n)
	}
	var res jobs.BatchFileResult
	if done.State != storage.JobSucceeded || done.Attempts != 2 || json.Unmarshal(done.Result, &res) != nil {
		t.Fatalf("job %s after %d attempts (%s): %s", done.State, done.Attempts, done.Error, done.Result)
	}
	if res.Titles != batchFaultTitles || res.Sequence != fileBefore {
		t.Errorf("result: %d titles, NSA %d; want %d titles, NSA %d", res.Titles, res.Sequence, batchFaultTitles, fileBefore)
	}
	var jobRows int
	if err := f.pool.QueryRow(ctx, `SELECT count(*) FROM jobs WHERE company_id = $1 AND kind = $2`,
		company, jobs.KindBatchFile).Scan(&jobRows); err != nil || jobRows != 1 {
		t.Fatalf("%d file jobs (%v), want 1", jobRows, err)
	}
	storedFile, err := storage.ReadBatchFile(ctx, f.pool, company, res.FileID, true)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := storedFile.Content()
	if err != nil {
		t.Fatalf("the stored file: %v", err)
	}

	// the file: every title of the batch once, as added, under the NSA taken
	file := readRemittance(t, stored)
	members := batchMembers(t, f, company, batch)
	if file.sequence != fileBefore || len(file.titles) != len(invoices) || len(members) != len(invoices) {
		t.Fatalf("file NSA %d with %d titles, %d members; want NSA %d, %d titles", file.sequence, len(file.titles), len(members),
			fileBefore, len(invoices))
	}
	for _, id := range invoices {
		if got, want := file.titles[id], members[id]; got != want || want.nosso == "" {
			t.Fatalf("invoice %d: the file has %+v, the batch %+v", id, got, want)
		}
	}
	_, nossoAfter := x.accountCounters(t, f)
	if nossoAfter != nosso {
		t.Errorf("the account's nosso número counter moved from %d to %d while the file was written", nosso, nossoAfter)
	}
	checkSlipsOnce(t, f, x, batch, invoices, nossoAfter)
	var a afterFault
	checkWholeInvoices(t, f, company, &a)

	// downloaded twice: the same bytes, those stored
	clients.setPhase("checks")
	for i := range 2 {
		status, body := clients.send(download)
		if status != http.StatusOK || !bytes.Equal(body, stored) {
			t.Errorf("download %d: %d, %d bytes (stored: %d)", i+1, status, len(body), len(stored))
		}
	}

	// the next file of the account: the next number, no gap, no reuse
	next := x.batch(t, f, x.invoices(t, f, 1))
	nextDownload := faultRequest{op: opFile, method: http.MethodGet, path: fmt.Sprintf("/financial/ticketBatch/%d/downloadBatchFile", next)}
	status, raw = clients.send(nextDownload)
	if status != http.StatusAccepted {
		t.Fatalf("next batch's first download: %d %.300s", status, raw)
	}
	f.waitFinished(t, f.job(t, company, dataID(raw)), time.Minute)
	status, body := clients.send(nextDownload)
	if status != http.StatusOK || readRemittance(t, body).sequence != fileBefore+1 {
		t.Errorf("next file: %d, NSA %d; want NSA %d", status, readRemittance(t, body).sequence, fileBefore+1)
	}
	if after, _ := x.accountCounters(t, f); after != fileBefore+2 {
		t.Errorf("the account's next file number is %d after two files, want %d", after, fileBefore+2)
	}
	t.Logf("killed in the file's transaction (job %s, attempt %d); written %.1fs after the kill, attempt %d: "+
		"%d titles, NSA %d, %d bytes", atKill.State, atKill.Attempts, finished.Sub(killed).Seconds(), done.Attempts,
		res.Titles, res.Sequence, len(stored))
	t.Logf("what the clients saw (status×count):\n%sthe job as a client polling it saw it, from the kill: %s",
		clients.report(), watch.since(killed))
}

// returnFaultTitles is the size of the return file the return fault test
// reads: five chunks of the job's two thousand lines.
const returnFaultTitles = 10_000

// bradescoReturnOf writes the Bradesco CNAB 400 return of a remittance:
// every title paid on paid, its amount exactly, credited on credit, at the
// positions of the bank's Arquivo-Retorno (occurrence 06, liquidação).
func bradescoReturnOf(remittance []byte, paid, credit time.Time) []byte {
	recs := strings.Split(strings.TrimSuffix(string(remittance), "\r\n"), "\r\n")
	var out bytes.Buffer
	n := 0
	write := func(fill func(line []byte)) {
		line := bytes.Repeat([]byte{' '}, 400)
		fill(line)
		n++
		copy(line[394:], fmt.Sprintf("%06d", n))
		out.Write(line)
		out.WriteString("\r\n")
	}
	write(func(l []byte) {
		copy(l, "02RETORNO01COBRANCA")
		copy(l[76:], "237BRADESCO")
		copy(l[94:], credit.Format("020106"))
	})
	for _, d := range recs[1 : len(recs)-1] {
		write(func(l []byte) {
			l[0] = '1'
			copy(l[37:], d[37:62])                            // the control: the invoice
			copy(l[70:], d[70:82])                            // nosso número and digit
			copy(l[107:], "906")                              // wallet 9, occurrence 06
			copy(l[110:], paid.Format("020106"))              // date of the occurrence
			copy(l[146:], d[120:126])                         // due date
			copy(l[152:], d[126:139])                         // the title's amount
			copy(l[175:], strings.Repeat("0", 13*9))          // tariffs, IOF, rebates, discounts
			copy(l[253:], d[126:139]+strings.Repeat("0", 26)) // paid, interest, other
			copy(l[295:], credit.Format("020106"))
		})
	}
	write(func(l []byte) { copy(l, "9201237") })
	return out.Bytes()
}

// TestBatchReturnKilledMidWay kills a worker (kill -9) in the middle of
// the return file of a collection batch of 10,000 titles, every one paid,
// while clients read the job through the API; a new worker finishes it.
// Every line is settled once: each invoice paid once, with one posting
// (two ledger entries, debits equal to credits) and one payment row in its
// history; the file uploaded again answers the same job and settles
// nothing more.
func TestBatchReturnKilledMidWay(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// five chunks of 2,000 lines, a second apart: the kill lands between them
	f := newFaultEnv(t, "PROPFIN_JOB_CHUNK_PAUSE=1s", "PROPFIN_WORKER_CONCURRENCY=2",
		fmt.Sprintf("PROPFIN_RATE_LIMIT=%d", faultLoadRateLimit))
	company := f.company(t, "Batch Return Kill Test", jobs.DefaultTimeZone)
	x := newTicketFixture(t, f, company)
	invoices := x.invoices(t, f, returnFaultTitles)
	batch := x.batch(t, f, invoices)

	addr := freeAddr(t)
	f.startAPI(t, "api", addr)
	clients := newFaultClients(t, f, addr, company)
	clients.setPhase("file")
	download := faultRequest{op: opFile, method: http.MethodGet, path: fmt.Sprintf("/financial/ticketBatch/%d/downloadBatchFile", batch)}
	status, raw := clients.send(download)
	if status != http.StatusAccepted {
		t.Fatalf("first download: %d %.300s", status, raw)
	}
	first := startProc(t, "worker 1", f.env, "worker")
	f.waitFinished(t, f.job(t, company, dataID(raw)), time.Minute)
	status, remittance := clients.send(download)
	if status != http.StatusOK {
		t.Fatalf("download: %d %.300s", status, remittance)
	}
	var today time.Time
	if err := f.pool.QueryRow(ctx, `SELECT (now() AT TIME ZONE time_zone)::date FROM companies WHERE id = $1`, company).Scan(&today); err != nil {
		t.Fatal(err)
	}
	upload := faultRequest{op: opReturn, method: http.MethodPost, path: fmt.Sprintf("/financial/ticketBatch/returnFile?account_id=%d", x.account),
		body: bradescoReturnOf(remittance, today.AddDate(0, 0, -1), today)}
	clients.setPhase("worker 1")
	status, raw = clients.send(upload)
	jobID := dataID(raw)
	if status != http.StatusAccepted || jobID == 0 {
		t.Fatalf("upload: %d %.300s", status, raw)
	}
	job := f.job(t, company, jobID)
	watch := clients.watchJob(jobID)
	clients.runReads(2, "worker 1", faultRequest{op: opRead, method: http.MethodGet, path: "/jobs/" + strconv.FormatInt(jobID, 10)},
		faultRequest{op: opList, method: http.MethodGet, path: "/invoices?perPage=50&sort=-id&filter[status]=paid&include[items]"})
	f.waitProgress(t, job, 4_000)
	clients.setPhase("killed")
	first.kill()
	killed := time.Now()
	atKill := f.job(t, company, jobID)
	if atKill.State != storage.JobRunning || atKill.Progress.Done >= returnFaultTitles {
		t.Fatalf("after kill -9 the job is %s at %+v; the kill came too late to test anything", atKill.State, atKill.Progress)
	}
	startProc(t, "worker 2", f.env, "worker")
	done := f.waitFinished(t, job, 4*time.Minute)
	finished := time.Now()
	clients.setPhase("settled")
	time.Sleep(500 * time.Millisecond)
	again, raw := clients.send(upload)
	clients.halt()
	clients.checkAnswers(t)
	for _, phase := range clients.phases {
		clients.only(t, phase, http.StatusOK)
	}
	if again != http.StatusAccepted || dataID(raw) != jobID {
		t.Errorf("the file uploaded again: %d, job %d; want 202 with job %d", again, dataID(raw), jobID)
	}
	var res jobs.BatchReturnResult
	if done.State != storage.JobSucceeded || done.Attempts != 2 || json.Unmarshal(done.Result, &res) != nil {
		t.Fatalf("job %s after %d attempts (%s)", done.State, done.Attempts, done.Error)
	}
	if res.Lines != returnFaultTitles || res.Outcomes["settled"] != returnFaultTitles || len(res.Outcomes) != 1 {
		t.Errorf("result: %d lines, outcomes %v; want every one of %d settled", res.Lines, res.Outcomes, returnFaultTitles)
	}
	var lines, distinct, settled, paid, returnJobs int
	err := f.pool.QueryRow(ctx, `SELECT count(*), count(DISTINCT line), count(*) FILTER (WHERE outcome = 'settled'),
			(SELECT count(*) FROM invoices WHERE company_id = $1 AND id = any($2) AND paid AND status = 'paid'),
			(SELECT count(*) FROM jobs WHERE company_id = $1 AND kind = $3)
		FROM batch_return_lines WHERE company_id = $1`, company, invoices, jobs.KindBatchReturn).
		Scan(&lines, &distinct, &settled, &paid, &returnJobs)
	if err != nil || lines != returnFaultTitles || distinct != lines || settled != lines || paid != returnFaultTitles || returnJobs != 1 {
		t.Errorf("%d return lines recorded (%d distinct, %d settled), %d invoices paid, %d return jobs: %v; want %d, each once, one job",
			lines, distinct, settled, paid, returnJobs, err, returnFaultTitles)
	}
	var a afterFault
	checkWholeInvoices(t, f, company, &a)
	checkLedger(t, f, company, told{}, &a)
	if a.entries != 2*returnFaultTitles {
		t.Errorf("%d ledger entries, want %d: one debit and one credit for each invoice's one line", a.entries, 2*returnFaultTitles)
	}
	t.Logf("killed at %d of %d lines; finished %.1fs after the kill with %d attempts: %v, %d ledger entries",
		atKill.Progress.Done, returnFaultTitles, finished.Sub(killed).Seconds(), done.Attempts, res.Outcomes, a.entries)
	t.Logf("what the clients saw (status×count):\n%sthe job as a client polling it saw it, from the kill: %s",
		clients.report(), watch.since(killed))
}
