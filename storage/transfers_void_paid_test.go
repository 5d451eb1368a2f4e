package storage_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// A voided transfer the bank pays all the same (docs/ledger.md, "An undone
// payment whose transfer is unpaid"), on the worked example: paid
// 2,408.75 late, owners A (60%) 1,325.25 and B (40%) 883.50, the company
// paying its transfers by batch. Each transfer is sent in a payment batch
// and reverted there (its file written), the payment it paid out is
// undone (voiding it), and the bank's return pays it anyway.

// returnJobID is the job the fixture's payment returns act as.
const returnJobID = 7701

// voidPaidFixture is the example with the night's transfers sent in a
// payment batch and reverted: transfer and ref by owner.
type voidPaidFixture struct {
	*ledgerFixture
	inv       int64
	voided    map[int64]int64 // the night's transfers, by owner
	ref       map[int64]string
	batch     int64
	bankPaid  finance.Date
	listening bool
}

// newVoidPaidFixture runs the night, sends both transfers in one payment
// batch, reverts them, and undoes the payment (voiding both). With
// listening, an endpoint subscribed to transfer.paid and invoice.updated.
func newVoidPaidFixture(t *testing.T, listening bool) *voidPaidFixture {
	t.Helper()
	f := &voidPaidFixture{ledgerFixture: newLedgerFixture(t), voided: map[int64]int64{}, ref: map[int64]string{},
		listening: listening}
	f.byBatch(t)
	f.setContract(t, "transfer_mode = 'after_receive'")
	if listening {
		f.id(t, `INSERT INTO webhook_endpoints (company_id, url, events, secret)
			VALUES ($1, 'https://example.com/h', '{transfer.paid,invoice.updated}', 'whsec_x') RETURNING id`)
	}
	f.inv = f.paidInvoice(t)
	f.transfer(t, "2024-03-26", 1)
	f.batch = f.id(t, `INSERT INTO payment_batches (company_id, account_id, status) VALUES ($1, $2, 'closed') RETURNING id`, f.account)
	for _, owner := range []int64{f.owner60, f.owner40} {
		f.voided[owner] = f.id(t, `SELECT id FROM transactions WHERE company_id = $1 AND invoice_id = $2 AND mode = 'transfer'
			AND owner_id = $3`, f.inv, owner)
		f.ref[owner] = f.member(t, f.batch, f.voided[owner], "reverted")
	}
	if err := f.undo(t, f.inv); err != nil {
		t.Fatal(err)
	}
	f.bankPaid = f.today(t)
	return f
}

// member puts the entry in the batch as a payment in state, and answers
// its reference.
func (f *voidPaidFixture) member(t *testing.T, batch, entry int64, state string) string {
	t.Helper()
	ref := fmt.Sprintf("PAG-%d-1", entry)
	f.exec(t, `INSERT INTO payment_batch_transactions (company_id, batch_id, transaction_id, reference, method, amount, nominal,
		due_date, payee_name, payee_document, state)
		SELECT $1, $2, t.id, $3, 'transfer', t.amount, t.amount, t.due_date, 'Proprietário', '11144477735', $4
		FROM transactions t WHERE t.company_id = $1 AND t.id = $5`, batch, ref, state, entry)
	return ref
}

// bankPays reads a return that pays the owners' transfers in full on
// f.bankPaid, as the return job does (MatchPayments, then
// ApplyPaymentEvents), and answers what it wrote for the void ones.
func (f *voidPaidFixture) bankPays(t *testing.T, owners ...int64) []storage.PaidVoid {
	t.Helper()
	ctx := context.Background()
	var out []storage.PaidVoid
	err := inTx(t, f.pool, func(tx pgx.Tx) error {
		refs := make([]string, len(owners))
		for i, o := range owners {
			refs[i] = f.ref[o]
		}
		matches, err := storage.MatchPayments(ctx, tx, f.company, []int64{f.account}, refs)
		if err != nil {
			return err
		}
		var events []storage.PaymentEvent
		for _, ref := range refs {
			m := matches[ref]
			if m == nil || m.Void == 0 || m.Paid {
				return fmt.Errorf("payment %s as the return reads it: %+v", ref, m)
			}
			events = append(events, storage.PaymentEvent{Match: *m, Kind: storage.PaymentPaid, PaidAt: f.bankPaid, Paid: m.Amount})
		}
		out, err = storage.ApplyPaymentEvents(ctx, tx, f.company, storage.Actor{Kind: storage.ActorReturnFile, ID: returnJobID}, events)
		return err
	})
	if err != nil {
		t.Fatalf("the bank's return: %v", err)
	}
	return out
}

// reversals lists the reversals of the invoice's voids as "owner type mode
// paid date amount", checking each is written as a void's reversal: split
// and key after the void, the void's columns, paid out by no transfer.
func (f *voidPaidFixture) reversals(t *testing.T) []string {
	t.Helper()
	rows, err := f.pool.Query(context.Background(), `
		SELECT 'owner ' || r.owner_id, r.type, r.mode, r.paid, r.date::text, r.amount::text,
		       r.split = v.split || '-chargeback' AND r.transfer_key = v.transfer_key || '-paid' AND r.transfer_id IS NULL
		       AND r.amount = v.amount AND r.account_id = v.account_id AND r.extract = 'owner' AND r.invoice_id = v.invoice_id
		FROM transactions r
		JOIN transactions v ON v.company_id = r.company_id AND v.id = r.reverses_id
		JOIN transactions x ON x.company_id = v.company_id AND x.id = v.reverses_id AND x.mode = 'transfer'
		WHERE r.company_id = $1 AND r.invoice_id = $2 ORDER BY r.id`, f.company, f.inv)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	var holder, typ, mode, date, amount string
	var paid, ok bool
	_, err = pgx.ForEachRow(rows, []any{&holder, &typ, &mode, &paid, &date, &amount, &ok}, func() error {
		if !ok {
			t.Errorf("the reversal of %s's void is not written as one", f.names[holder])
		}
		out = append(out, fmt.Sprintf("%s %s %s %v %s %s", f.names[holder], typ, mode, paid, date, amount))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// alerts lists the company's void_transfer_paid alerts as "transfer open:
// message".
func (f *voidPaidFixture) alerts(t *testing.T) map[int64]string {
	t.Helper()
	all, err := storage.Alerts(context.Background(), f.pool, time.Now().Add(-time.Hour), 100)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int64]string{}
	for _, a := range all {
		if a.CompanyID != f.company || a.Kind != storage.AlertVoidTransferPaid {
			continue
		}
		if a.TransactionID == nil {
			t.Fatalf("alert %d names no transfer", a.ID)
		}
		out[*a.TransactionID] = fmt.Sprintf("open %v: %s", a.Open, a.Message)
	}
	return out
}

// TestBankPaysAVoidTransfer: owner A's transfer of 1,325.25, void, is paid
// by the bank all the same. The return marks it paid on the day the bank
// paid, reverses its void by a debit of 1,325.25 dated that day (unpaid
// like the void, on no statement, counted by the run), and owner A owes
// 1,325.25: in the ledger and on the statements; the invoice is a
// chargeback (history: the return's job, origin transfer_paid),
// transfer.paid is emitted, and an open alert says the owner owes it.
// Owner B's void transfer is left void. The run pays nothing; read again,
// the transfer is paid and void no more. Paid again, the new payment nets
// owner A's debt (A is paid nothing more, B 883.50), the invoice is
// transferred and the alert no longer holds.
func TestBankPaysAVoidTransfer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newVoidPaidFixture(t, true)
	transferEvents, _, _ := f.webhookCounts(t, f.pool, storage.EventTransferPaid)
	invoiceEvents, _, _ := f.webhookCounts(t, f.pool, storage.EventInvoiceUpdated)
	before := f.entryCount(t, f.inv)

	paid := f.bankPays(t, f.owner60)
	if len(paid) != 1 || paid[0].TransferID != f.voided[f.owner60] || !paid[0].Owes.Equal(decimal.RequireFromString("1325.25")) ||
		len(paid[0].Replaced) != 0 || len(paid[0].Batched) != 0 {
		t.Fatalf("what the return wrote: %+v", paid)
	}
	if after := f.entryCount(t, f.inv); after != before+1 {
		t.Errorf("%d entries after the return, were %d: want one more, the void's reversal", after, before)
	}
	checkStrings(t, "transfers", f.runTransfers(t, f.inv), []string{
		"owner60 1325.25 paid owner60-transfer-1 1", // void no more: its void is reversed
		"owner40 883.50 unpaid void owner40-transfer-1 1",
	})
	var date string
	if err := f.pool.QueryRow(ctx, `SELECT date::text FROM transactions WHERE company_id = $1 AND id = $2`, f.company,
		f.voided[f.owner60]).Scan(&date); err != nil || date != f.bankPaid.String() {
		t.Errorf("the transfer's date: %s (%v), want the day the bank paid, %s", date, err, f.bankPaid)
	}
	checkStrings(t, "the voids' reversals", f.reversals(t), []string{
		"owner60 debit chargeback false " + f.bankPaid.String() + " 1325.25",
	})
	checkMap(t, "owners", f.stated(t, f.inv), map[string]string{
		"owner60": "ledger -1325.25, stated -1325.25", "owner40": "ledger 0.00, stated 0.00"})
	checkStatements(t, f.statements(t), map[string]string{"owner60": "-1325.25", "owner40": "0.00", "business": "0.00",
		"payer": "0.00"})
	f.checkStatus(t, "the void transfer paid", f.inv, finance.AutoTransferChargeback)
	checkStrings(t, "status history", f.statusHistory(t, f.inv), []string{
		fmt.Sprintf("job %d transfer: waiting -> transferred", transferJobID),
		fmt.Sprintf("return_file %d transfer_paid: null -> chargeback", returnJobID)})
	if n, _, _ := f.webhookCounts(t, f.pool, storage.EventTransferPaid); n != transferEvents+1 {
		t.Errorf("%d transfer.paid events, were %d: want one more", n, transferEvents)
	}
	if n, _, _ := f.webhookCounts(t, f.pool, storage.EventInvoiceUpdated); n != invoiceEvents+1 {
		t.Errorf("%d invoice.updated events, were %d: want one more (the status)", n, invoiceEvents)
	}
	alerts := f.alerts(t)
	want := fmt.Sprintf("open true: The bank paid transfer %d (owner %d, 1325.25) on %s, though it was void: the payment of "+
		"invoice %d it paid out was undone after the transfer's payment in payment batch %d was reverted. The money left the account: "+
		"the transfer is paid, and entry %d reverses its void (entry %d). The owner owes 1325.25 on the invoice: the run nets "+
		"it against the invoice's next credits; recover it from the owner otherwise.", f.voided[f.owner60], f.owner60,
		f.bankPaid, f.inv, f.batch, paid[0].Reversal, paid[0].Void)
	if len(alerts) != 1 || alerts[f.voided[f.owner60]] != want {
		t.Errorf("alerts: %v\nwant %q", alerts, want)
	}
	if s := f.transfer(t, f.afterUndo(t), 1); s.Transfers != 0 || s.Statuses != 0 {
		t.Errorf("a run while owner60 owes: %+v", s)
	}
	err := inTx(t, f.pool, func(tx pgx.Tx) error {
		voids, err := storage.VoidsOf(ctx, tx, f.company, []int64{f.voided[f.owner60], f.voided[f.owner40]})
		if len(voids) != 1 || voids[f.voided[f.owner40]] == 0 {
			t.Errorf("voids once the bank paid owner60's: %v, want owner40's alone", voids)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}

	// paid again: owner60's debt nets against the new credits
	f.pay(t, f.inv, "2024-03-25", "2024-03-26")
	if s := f.transfer(t, f.afterUndo(t), 1); s.Transfers != 1 || s.Amount.String() != "883.50" {
		t.Errorf("the night after the new payment: %+v", s)
	}
	checkMap(t, "owners paid again", f.stated(t, f.inv), map[string]string{
		"owner60": "ledger 0.00, stated 0.00", "owner40": "ledger 0.00, stated 883.50"})
	f.checkStatus(t, "paid again", f.inv, finance.AutoTransferTransferred)
	if a := f.alerts(t)[f.voided[f.owner60]]; !strings.HasPrefix(a, "open false: ") {
		t.Errorf("the alert once the debt is netted: %s", a)
	}
}

// TestBankPaysAVoidTransferPaidOutAgain: the invoice paid again after the
// undo and paid out again by the night (new transfers of 1,325.25 and
// 883.50), owner A's new one paid. The bank then pays owner A's void
// transfer too: owner A was paid twice, and owes 1,325.25 (ledger and
// statements), the invoice is a chargeback though its payment is posted,
// the alert is open, and the run pays nothing more.
func TestBankPaysAVoidTransferPaidOutAgain(t *testing.T) {
	t.Parallel()
	f := newVoidPaidFixture(t, false)
	f.pay(t, f.inv, "2024-03-25", "2024-03-26")
	if s := f.transfer(t, f.afterUndo(t), 1); s.Transfers != 2 || s.Amount.String() != "2208.75" {
		t.Fatalf("the night after the new payment: %+v", s)
	}
	f.exec(t, `UPDATE transactions SET paid = true, date = $3 WHERE company_id = $1 AND invoice_id = $2 AND mode = 'transfer'
		AND owner_id = $4 AND transfer_key LIKE '%-transfer-2'`, f.inv, f.bankPaid.String(), f.owner60)
	checkMap(t, "owners before the return", f.stated(t, f.inv), map[string]string{
		"owner60": "ledger 0.00, stated 0.00", "owner40": "ledger 0.00, stated 883.50"})
	f.checkStatus(t, "before the return", f.inv, finance.AutoTransferTransferred)

	paid := f.bankPays(t, f.owner60)
	if len(paid) != 1 || !paid[0].Owes.Equal(decimal.RequireFromString("1325.25")) || len(paid[0].Replaced) != 0 {
		t.Fatalf("what the return wrote: %+v", paid)
	}
	checkStrings(t, "transfers", f.runTransfers(t, f.inv), []string{
		"owner60 1325.25 paid owner60-transfer-1 1",
		"owner40 883.50 unpaid void owner40-transfer-1 1",
		"owner60 1325.25 paid owner60-transfer-2 15",
		"owner40 883.50 unpaid owner40-transfer-2 15",
	})
	// owner60: 1,325.25 owed by the payment, 2,650.50 paid
	checkMap(t, "owners", f.stated(t, f.inv), map[string]string{
		"owner60": "ledger -1325.25, stated -1325.25", "owner40": "ledger 0.00, stated 883.50"})
	checkStrings(t, "owner60's entries not paid out", f.unpaidOut(t, f.inv), []string{"chargeback debit owner60 1325.25"})
	f.checkStatus(t, "paid twice", f.inv, finance.AutoTransferChargeback)
	if a := f.alerts(t)[f.voided[f.owner60]]; !strings.HasPrefix(a, "open true: ") ||
		!strings.HasSuffix(a, "The owner owes 1325.25 on the invoice: the run nets it against the invoice's next credits; "+
			"recover it from the owner otherwise.") {
		t.Errorf("the alert: %s", a)
	}
	if s := f.transfer(t, f.afterUndo(t), 1); s.Transfers != 0 || s.Statuses != 0 {
		t.Errorf("a run after the return: %+v", s)
	}
}

// TestBankPaysAVoidTransferDueAgain: the invoice paid again and paid out
// again by the night, the new transfers still unpaid, owner B's in a new
// payment batch. The bank pays both void transfers: owner A's new one, in
// no batch, is voided in its place (the bank paid what it would have), so
// owner A owes nothing and is paid nothing more; owner B's, in the batch,
// is left, and the alert says that paying it pays owner B again: the
// ledger, which counts a transfer once written, has owner B owing 883.50,
// and the invoice is a chargeback. The run pays nothing.
func TestBankPaysAVoidTransferDueAgain(t *testing.T) {
	t.Parallel()
	f := newVoidPaidFixture(t, false)
	f.pay(t, f.inv, "2024-03-25", "2024-03-26")
	if s := f.transfer(t, f.afterUndo(t), 1); s.Transfers != 2 {
		t.Fatalf("the night after the new payment: %+v", s)
	}
	second := map[int64]int64{}
	for _, owner := range []int64{f.owner60, f.owner40} {
		second[owner] = f.id(t, `SELECT id FROM transactions WHERE company_id = $1 AND invoice_id = $2 AND mode = 'transfer'
			AND owner_id = $3 AND transfer_key LIKE '%-transfer-2'`, f.inv, owner)
	}
	open := f.id(t, `INSERT INTO payment_batches (company_id, account_id) VALUES ($1, $2) RETURNING id`, f.account)
	f.member(t, open, second[f.owner40], "added")

	paid := f.bankPays(t, f.owner60, f.owner40)
	if len(paid) != 2 {
		t.Fatalf("what the return wrote: %+v", paid)
	}
	for _, p := range paid {
		switch p.OwnerID {
		case f.owner60:
			if len(p.Replaced) != 1 || p.Replaced[0].ID != second[f.owner60] || len(p.Batched) != 0 || !p.Owes.IsZero() {
				t.Errorf("owner60: %+v", p)
			}
		case f.owner40:
			if len(p.Replaced) != 0 || len(p.Batched) != 1 || p.Batched[0].ID != second[f.owner40] || p.Batched[0].BatchID != open ||
				!p.Owes.Equal(decimal.RequireFromString("883.50")) {
				t.Errorf("owner40: %+v", p)
			}
		}
	}
	checkStrings(t, "transfers", f.runTransfers(t, f.inv), []string{
		"owner60 1325.25 paid owner60-transfer-1 1",
		"owner40 883.50 paid owner40-transfer-1 1",
		"owner60 1325.25 unpaid void owner60-transfer-2 1", // voided in its place, its fifteen entries released
		"owner40 883.50 unpaid owner40-transfer-2 15",
	})
	// owner40's ledger counts its new transfer, due: paid, it pays 883.50 twice
	checkMap(t, "owners", f.stated(t, f.inv), map[string]string{
		"owner60": "ledger 0.00, stated 0.00", "owner40": "ledger -883.50, stated 0.00"})
	f.checkStatus(t, "after the return", f.inv, finance.AutoTransferChargeback)
	alerts := f.alerts(t)
	if a := alerts[f.voided[f.owner60]]; !strings.HasPrefix(a, "open false: ") || !strings.HasSuffix(a, fmt.Sprintf(
		"Transfer %d (1325.25), due to the owner for the invoice, is voided in its place. The owner owes nothing on the invoice.",
		second[f.owner60])) {
		t.Errorf("owner60's alert: %s", a)
	}
	if a := alerts[f.voided[f.owner40]]; !strings.HasPrefix(a, "open true: ") || !strings.Contains(a, fmt.Sprintf(
		"Transfer %d (883.50), due to the owner for the invoice, is in payment batch %d: paid, it pays the owner again.",
		second[f.owner40], open)) {
		t.Errorf("owner40's alert: %s", a)
	}
	if s := f.transfer(t, f.afterUndo(t), 1); s.Transfers != 0 || s.Statuses != 0 {
		t.Errorf("a run after the return: %+v", s)
	}
}

// entriesBy lists the ids of the invoice's entries filter[name]=value
// keeps (a special filter, or the column status), with each one's status,
// as "id status".
func (f *voidPaidFixture) entriesBy(t *testing.T, name string, value any) []string {
	t.Helper()
	store := storage.NewStore(f.pool, storage.DefaultRegistry())
	res := store.Registry().MustResource(storage.Transactions)
	q := storage.ListQuery{Fields: []string{"id", "status"}, Page: 1, PerPage: 100, Sort: []storage.SortKey{{Column: "id"}},
		Filters: []storage.Filter{{Column: "invoice_id", Op: storage.Equal, Values: []any{f.inv}}}}
	if sf, ok := res.Filter(name); ok {
		q.Special = []storage.SpecialCondition{{Filter: sf, Values: []any{value}}}
	} else {
		q.Filters = append(q.Filters, storage.Filter{Column: name, Op: storage.Equal, Values: []any{value}})
	}
	page, err := store.List(context.Background(), res, storage.Company(f.company), q)
	if err != nil {
		t.Fatalf("%s=%v: %v", name, value, err)
	}
	var out []string
	for _, r := range page.Records {
		id, _ := r.ID()
		status, _ := r.Value("status")
		out = append(out, fmt.Sprintf("%d %v", id, status))
	}
	return out
}

// TestVoidEntriesAreNotDue: owner A's transfer paid by the bank, owner B's
// still void, and a tariff of 8.50 on the invoice due 2024-03-10, unpaid.
// The other entries of the invoice that are not paid (owner B's transfer
// and its void, owner A's void and its reversal) are void: none is due
// (filter[unpaid], filter[overdue], filter[status]=unpaid list the tariff
// alone, filter[early] nothing), filter[status]=void lists those four,
// and everything else (the payment, its reversals, owner A's transfer) is
// paid; each entry's status says the same as the filter that lists it.
func TestVoidEntriesAreNotDue(t *testing.T) {
	t.Parallel()
	f := newVoidPaidFixture(t, false)
	paid := f.bankPays(t, f.owner60)
	void := []string{
		fmt.Sprintf("%d void", f.voided[f.owner40]), // the transfer, void
		fmt.Sprintf("%d void", paid[0].Void),        // owner A's void, reversed
		fmt.Sprintf("%d void", f.id(t, `SELECT id FROM transactions WHERE company_id = $1 AND reverses_id = $2`, f.voided[f.owner40])),
		fmt.Sprintf("%d void", paid[0].Reversal),
	}
	slices.Sort(void)
	tariff := []string{fmt.Sprintf("%d unpaid", f.id(t, `INSERT INTO transactions (company_id, invoice_id, type, mode, extract,
		business_id, date, due_date, amount, description) VALUES ($1, $2, 'debit', 'transaction', 'business', $3, '2024-03-01',
		'2024-03-10', 8.50, 'Tarifa') RETURNING id`, f.inv, f.business))}
	for _, c := range []struct {
		filter string
		value  any
		want   []string
	}{
		{"unpaid", true, tariff},
		{"overdue", true, tariff},
		{"early", true, nil},
		{"status", "unpaid", tariff},
		{"status", "void", void},
	} {
		got := f.entriesBy(t, c.filter, c.value)
		slices.Sort(got)
		checkStrings(t, fmt.Sprintf("%s=%v", c.filter, c.value), got, c.want)
	}
	paidOnes := f.entriesBy(t, "status", "paid")
	if n := f.entryCount(t, f.inv); len(paidOnes)+len(void)+len(tariff) != n {
		t.Errorf("%d paid and %d void of %d entries: %q", len(paidOnes), len(void), n, paidOnes)
	}
	for _, e := range paidOnes {
		if !strings.HasSuffix(e, " paid") {
			t.Errorf("status=paid lists %s", e)
		}
	}
	if !slices.Contains(paidOnes, fmt.Sprintf("%d paid", f.voided[f.owner60])) {
		t.Errorf("owner A's transfer, paid by the bank, is not paid: %q", paidOnes)
	}
}
