package finance

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

// postedBases posts the worked example (docs/ledger.md) paid on paidAt,
// with extra entries appended, and numbers the entries 1, 2, ... as the
// ledger would: the bases of a first refund.
func postedBases(t *testing.T, paidAt string, extra ...Entry) []RefundBase {
	t.Helper()
	p, err := PostPayment(ledgerInput(t, ledgerInvoice(), paidAt))
	if err != nil {
		t.Fatal(err)
	}
	entries := append(p.Entries, extra...)
	base := make([]RefundBase, len(entries))
	for i, e := range entries {
		e.ID = int64(i + 1)
		base[i] = RefundBase{Entry: e, Refunded: decimal.Zero}
	}
	return base
}

// refundRow is an expected refund entry: the entry it refunds, its type
// and amount.
type refundRow struct {
	refunds int64
	typ     EntryType
	amount  string
}

func rowsOf(entries []RefundEntry) []refundRow {
	out := make([]refundRow, len(entries))
	for i, e := range entries {
		out[i] = refundRow{e.RefundsID, e.Type, e.Amount.StringFixed(2)}
	}
	return out
}

// TestRefundPaymentWorked: the worked example of docs/ledger.md
// ("Refunds"), paid late (2,408.75), refunded 1,000.00 and then the
// 1,408.75 left, entry by entry and party by party.
func TestRefundPaymentWorked(t *testing.T) {
	base := postedBases(t, "2024-03-25")
	if got := Refundable(base).StringFixed(2); got != "2408.75" {
		t.Fatalf("refundable %s, want 2408.75", got)
	}
	cases := []struct {
		name     string
		amount   string
		rows     []refundRow
		balances map[Holder]string
	}{
		{"partial: 1,000.00 of 2,408.75", "1000.00", []refundRow{
			{1, Credit, "830.32"}, {2, Debit, "498.20"}, {3, Debit, "332.12"}, // rent: 830.30 rounded down, + the 2 cents the payer lacked
			{4, Credit, "145.30"}, {5, Debit, "87.18"}, {6, Debit, "58.12"}, // condominium
			{7, Credit, "49.82"}, {8, Credit, "33.21"}, {9, Debit, "83.03"}, // administration fee, not charged to the payer
			{10, Credit, "19.51"}, {11, Debit, "11.71"}, {12, Debit, "7.80"}, // late fee
			{13, Credit, "4.87"}, {14, Debit, "2.93"}, {15, Debit, "1.94"}, // interest
		}, map[Holder]string{
			{PartyCustomer, payer}: "1000.00", {PartyOwner, owner60}: "-550.20", {PartyOwner, owner40}: "-366.77",
			{PartyBusiness, business}: "-83.03",
		}},
		{"whole, after the partial: the 1,408.75 left", "1408.75", []refundRow{
			{1, Credit, "1169.68"}, {2, Debit, "701.80"}, {3, Debit, "467.88"},
			{4, Credit, "204.70"}, {5, Debit, "122.82"}, {6, Debit, "81.88"},
			{7, Credit, "70.18"}, {8, Credit, "46.79"}, {9, Debit, "116.97"},
			{10, Credit, "27.49"}, {11, Debit, "16.49"}, {12, Debit, "11.00"},
			{13, Credit, "6.88"}, {14, Debit, "4.12"}, {15, Debit, "2.76"},
		}, map[Holder]string{
			{PartyCustomer, payer}: "1408.75", {PartyOwner, owner60}: "-775.05", {PartyOwner, owner40}: "-516.73",
			{PartyBusiness, business}: "-116.97",
		}},
	}
	for _, c := range cases {
		got, err := RefundPayment(base, dec(c.amount))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if g := rowsOf(got); fmt.Sprint(g) != fmt.Sprint(c.rows) {
			t.Errorf("%s: entries\n%v\nwant\n%v", c.name, g, c.rows)
		}
		checkRefund(t, c.name, got, c.amount)
		balances := Balances(plain(got))
		for h, want := range c.balances {
			if b := balances[h].StringFixed(2); b != want {
				t.Errorf("%s: %s's balance %s, want %s", c.name, h, b, want)
			}
		}
		refundInto(base, got)
	}
	for _, b := range base {
		if !b.Refunded.Equal(b.Entry.Amount) {
			t.Errorf("entry %d: %s refunded of %s", b.Entry.ID, b.Refunded, b.Entry.Amount)
		}
	}
	if _, err := RefundPayment(base, dec("0.01")); err == nil || !strings.Contains(err.Error(), "left to refund (0.00)") {
		t.Errorf("a refund of a refunded payment: %v", err)
	}
}

// TestRefundPaymentWhole: one refund of the whole payment gives back every
// entry's amount, the bank's tariff aside; a payment paid early refunds
// its discount, which credited the payer, with the rest.
func TestRefundPaymentWhole(t *testing.T) {
	tariff := BankTariff(TransactionItem{ID: 9, Description: "Tarifa"}, business, dec("2.10"))
	cases := []struct {
		name, paidAt, paid string
		base               []RefundBase
	}{
		{"late, with a bank tariff", "2024-03-25", "2408.75", postedBases(t, "2024-03-25", tariff)},
		{"early, with a discount", "2024-03-03", "2232.50", postedBases(t, "2024-03-03")},
	}
	for _, c := range cases {
		if got := Refundable(c.base).StringFixed(2); got != c.paid {
			t.Fatalf("%s: refundable %s, want %s", c.name, got, c.paid)
		}
		got, err := RefundPayment(c.base, dec(c.paid))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		checkRefund(t, c.name, got, c.paid)
		refunded := map[int64]decimal.Decimal{}
		for _, e := range got {
			refunded[e.RefundsID] = e.Amount
		}
		for _, b := range c.base {
			want := b.Entry.Amount
			if b.Entry.ItemID == 9 {
				want = decimal.Zero // the bank keeps its tariff
			}
			if !refunded[b.Entry.ID].Equal(want) {
				t.Errorf("%s: entry %d (%s) refunded %s, want %s", c.name, b.Entry.ID, b.Entry.Description, refunded[b.Entry.ID], want)
			}
		}
	}
}

// TestRefundPaymentProblems: what a refund refuses, naming amount.
func TestRefundPaymentProblems(t *testing.T) {
	base := postedBases(t, "2024-03-25")
	for _, c := range []struct{ amount, message string }{
		{"0", "more than zero"},
		{"-5", "more than zero"},
		{"10.001", "two decimal places"},
		{"2408.76", "more than the payment has left to refund (2408.75)"},
	} {
		_, err := RefundPayment(base, dec(c.amount))
		ps, ok := err.(Problems)
		if !ok || len(ps) != 1 || ps[0].Field != "amount" || !strings.Contains(ps[0].Message, c.message) {
			t.Errorf("%s: %v, want a problem on amount saying %q", c.amount, err, c.message)
		}
	}
	unbalanced := postedBases(t, "2024-03-25")
	unbalanced[1].Entry.Amount = dec("1199.99")
	if _, err := RefundPayment(unbalanced, dec("10")); err == nil || !strings.Contains(err.Error(), "debits") {
		t.Errorf("a line that does not balance: %v", err)
	}
}

// TestRefundPaymentRandom: random payments (lines, owners and their
// shares, late or early) refunded in random steps: every refund gives the
// payer back its amount exactly, balances line by line, takes from no
// entry more than is left of it, and the last one empties every entry.
func TestRefundPaymentRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 3))
	for n := range 300 {
		in := ledgerInput(t, ledgerInvoice(), "2024-03-25")
		in.Invoice.Items = nil
		total := decimal.Zero
		for range 1 + r.IntN(4) {
			amount := decimal.New(int64(1+r.IntN(300000)), -2)
			item := []int64{rentItem, condoItem, adminItem}[r.IntN(3)]
			in.Invoice.Items = append(in.Invoice.Items, InvoiceItem{ItemID: item, Amount: amount})
			if item != adminItem {
				total = total.Add(amount)
			}
		}
		if total.IsZero() {
			continue
		}
		in.Invoice.Total = total
		in.Parties.Owners = []Share{{PersonID: owner60, Percentage: decimal.NewFromInt(int64(1 + r.IntN(99)))},
			{PersonID: owner40, Percentage: decimal.NewFromInt(int64(1 + r.IntN(99)))}}
		s, err := Settle(in.Invoice, MustDate([]string{"2024-03-03", "2024-03-10", "2024-04-20"}[r.IntN(3)]))
		if err != nil {
			t.Fatal(err)
		}
		in.Settlement = s
		p, err := PostPayment(in)
		if err != nil {
			t.Fatalf("case %d: %v", n, err)
		}
		base := make([]RefundBase, len(p.Entries))
		for i, e := range p.Entries {
			e.ID = int64(i + 1)
			base[i] = RefundBase{Entry: e, Refunded: decimal.Zero}
		}
		for step := 0; Refundable(base).IsPositive(); step++ {
			left := toCents(Refundable(base)).IntPart()
			amount := decimal.New(1+r.Int64N(left), -2)
			if step == 3 {
				amount = Refundable(base)
			}
			got, err := RefundPayment(base, amount)
			if err != nil {
				t.Fatalf("case %d, step %d: %v", n, step, err)
			}
			checkRefund(t, fmt.Sprintf("case %d, step %d", n, step), got, amount.StringFixed(2))
			refundInto(base, got)
			for _, b := range base {
				if b.Refunded.GreaterThan(b.Entry.Amount) {
					t.Fatalf("case %d, step %d: entry %d refunded %s of %s", n, step, b.Entry.ID, b.Refunded, b.Entry.Amount)
				}
			}
		}
		for _, b := range base {
			if !b.Refunded.Equal(b.Entry.Amount) {
				t.Fatalf("case %d: entry %d refunded %s of %s at the end", n, b.Entry.ID, b.Refunded, b.Entry.Amount)
			}
		}
	}
}

// checkRefund holds a refund to its rule: balanced, the payer refunded
// amount, every entry a positive chargeback.
func checkRefund(t *testing.T, name string, got []RefundEntry, amount string) {
	t.Helper()
	debits, credits := Totals(plain(got))
	if !debits.Equal(credits) {
		t.Errorf("%s: debits %s, credits %s", name, debits, credits)
	}
	payer := decimal.Zero
	for _, e := range got {
		if e.Mode != ModeChargeback || !e.Amount.IsPositive() || e.RefundsID == 0 || e.ID != 0 {
			t.Errorf("%s: entry %+v", name, e)
		}
		if e.Extract == PartyCustomer {
			payer = payer.Add(e.Signed())
		}
	}
	if payer.StringFixed(2) != dec(amount).StringFixed(2) {
		t.Errorf("%s: the payer is refunded %s, want %s", name, payer, amount)
	}
}

// refundInto adds a refund's parts to what its bases had refunded.
func refundInto(base []RefundBase, refund []RefundEntry) {
	for _, e := range refund {
		for i := range base {
			if base[i].Entry.ID == e.RefundsID {
				base[i].Refunded = base[i].Refunded.Add(e.Amount)
			}
		}
	}
}

func plain(entries []RefundEntry) []Entry {
	out := make([]Entry, len(entries))
	for i, e := range entries {
		out[i] = e.Entry
	}
	return out
}

// TestWriteOffLoss: the loss of an invoice of 1,000.00 booked with an
// item crediting the payer, one crediting the owners (split 60/40), and
// one debiting the owner, refused.
func TestWriteOffLoss(t *testing.T) {
	inv := ledgerInvoice()
	inv.Total = dec("1000.00")
	parties := ledgerInput(t, ledgerInvoice(), "2024-03-03").Parties
	cases := []struct {
		name  string
		item  TransactionItem
		want  []string
		field string
	}{
		{"credit customer", TransactionItem{ID: 8, Description: "Perda", Debit: PartyBusiness, Credit: PartyCustomer},
			[]string{"debit business 20 1000.00", "credit customer 10 1000.00"}, ""},
		{"credit owner", TransactionItem{ID: 8, Description: "Cobertura", Debit: PartyBusiness, Credit: PartyOwner},
			[]string{"debit business 20 1000.00", "credit owner 31 600.00", "credit owner 32 400.00"}, ""},
		{"debit owner", TransactionItem{ID: 8, Debit: PartyOwner, Credit: PartyBusiness}, nil, "write_off_item_id"},
	}
	for _, c := range cases {
		got, err := WriteOffLoss(inv, c.item, parties)
		if c.field != "" {
			if ps, ok := err.(Problems); !ok || ps[0].Field != c.field {
				t.Errorf("%s: %v, want a problem on %s", c.name, err, c.field)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var rows []string
		for _, e := range got {
			if e.Mode != ModeChargeback || e.ItemID != 8 {
				t.Errorf("%s: %+v", c.name, e)
			}
			rows = append(rows, fmt.Sprintf("%s %s %d %s", e.Type, e.Extract, e.Holder().ID, e.Amount.StringFixed(2)))
		}
		if fmt.Sprint(rows) != fmt.Sprint(c.want) {
			t.Errorf("%s: %v, want %v", c.name, rows, c.want)
		}
	}
}
