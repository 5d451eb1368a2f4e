package finance

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

func TestTransferScheduleDueOn(t *testing.T) {
	t.Parallel()
	cases := []struct {
		mode     TransferMode
		days     int
		credited string
		want     string // "" never
	}{
		{TransferAfterReceive, 0, "2024-03-26", "2024-03-26"},
		{TransferAfterReceive, 5, "2024-03-26", "2024-03-31"},
		{TransferAfterReceive, 10, "2024-12-28", "2025-01-07"},
		{TransferFixedDay, 10, "2024-03-26", "2024-04-10"},
		{TransferFixedDay, 10, "2024-03-10", "2024-03-10"},
		{TransferFixedDay, 10, "2024-03-09", "2024-03-10"},
		{TransferFixedDay, 31, "2024-04-02", "2024-04-30"}, // clamped to the month's end
		{TransferFixedDay, 30, "2024-01-31", "2024-02-29"},
		{TransferFixedDay, 13, "2024-03-26", "2024-04-13"}, // a Saturday, kept
		{TransferFixedDayOrNext, 13, "2024-03-26", "2024-04-15"},
		{TransferFixedDayOrNext, 14, "2024-03-26", "2024-04-15"}, // a Sunday
		{TransferFixedDayOrNext, 10, "2024-03-26", "2024-04-10"}, // a Wednesday
		{TransferFixedDayOrNext, 31, "2024-08-26", "2024-09-02"}, // Saturday 2024-08-31
		{TransferManually, 5, "2024-03-26", ""},
		{"", 5, "2024-03-26", ""},
		{TransferFixedDay, 0, "2024-03-26", ""},
		{TransferFixedDayOrNext, 32, "2024-03-26", ""},
		{TransferAfterReceive, -1, "2024-03-26", ""},
	}
	for _, c := range cases {
		got, ok := TransferSchedule{Mode: c.mode, AfterDays: c.days}.DueOn(MustDate(c.credited))
		if (c.want == "") == ok || (ok && got.String() != c.want) {
			t.Errorf("%s %d from %s: got %s %v, want %q", c.mode, c.days, c.credited, got, ok, c.want)
		}
	}
}

func TestGuarantyCovers(t *testing.T) {
	t.Parallel()
	start := MustDate("2024-01-31")
	cases := []struct {
		g    Guaranty
		due  string
		want bool
	}{
		{Guaranty{}, "2024-02-10", false},
		{Guaranty{Active: true}, "2030-02-10", true},
		{Guaranty{Active: true, Start: start, Months: 1}, "2024-02-28", true},
		{Guaranty{Active: true, Start: start, Months: 1}, "2024-02-29", false}, // start + 1 month is 2024-02-29
		{Guaranty{Active: true, Months: 1}, "2030-02-10", true},                // no start: no limit
	}
	for _, c := range cases {
		if got := c.g.Covers(MustDate(c.due)); got != c.want {
			t.Errorf("%+v covers %s: %v, want %v", c.g, c.due, got, c.want)
		}
	}
	if got := (Guaranty{ReleaseAfter: 5}).ReleaseOn(MustDate("2024-03-10")); got.String() != "2024-03-15" {
		t.Errorf("release: %s", got)
	}
}

// TestGuaranteedSharesExample: docs/ledger.md's invoice at face value,
// owners 60/40: the rent and condominium less the administration fee.
func TestGuaranteedSharesExample(t *testing.T) {
	t.Parallel()
	in := exampleInput(t)
	in.Settlement = Settlement{LateFee: decimal.RequireFromString("47.00")} // ignored: face value
	shares, err := GuaranteedShares(in)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"1 1290.00 60", "2 860.00 40"}
	if len(shares) != len(want) {
		t.Fatalf("got %v", shares)
	}
	for i, s := range shares {
		if got := s.String(); got != want[i] {
			t.Errorf("share %d: %s, want %s", i, got, want[i])
		}
	}
	entries := GuaranteeEntries(shares, 9, "Repasse garantido")
	checkBalancedEntries(t, entries)
	settle := SettleGuarantees([]Guarantee{{ID: 77, OwnerID: 1, Amount: shares[0].Amount}}, 9)
	checkBalancedEntries(t, settle)
	if b := Balances(append(entries[:2:2], settle...)); !b[Holder{PartyOwner, 1}].IsZero() || !b[Holder{PartyBusiness, 9}].IsZero() {
		t.Errorf("a guarantee and its settlement do not net to zero: %v", b)
	}
	if settle[0].GuaranteedTransferID != 77 || settle[0].Mode != ModeInvoice {
		t.Errorf("settlement: %+v", settle[0])
	}
}

func (o OwnerAmount) String() string {
	return decimal.NewFromInt(o.OwnerID).String() + " " + o.Amount.StringFixed(2) + " " + o.Percentage.String()
}

func checkBalancedEntries(t *testing.T, entries []Entry) {
	t.Helper()
	if d, c := Totals(entries); !d.Equal(c) {
		t.Errorf("debits %s, credits %s", d, c)
	}
}

// exampleInput is docs/ledger.md's invoice: rent 2,000.00 and condominium
// 350.00 to the owners (1: 60%, 2: 40%), administration fee 200.00 from
// them to the business 9.
func exampleInput(t *testing.T) PostingInput {
	t.Helper()
	d := decimal.RequireFromString
	return PostingInput{
		Invoice: Invoice{ID: 1, Type: InvoiceContract, Total: d("2350.00"), Items: []InvoiceItem{
			{ItemID: 1, Amount: d("2000.00")}, {ItemID: 2, Amount: d("350.00")}, {ItemID: 3, Amount: d("200.00")}}},
		Items: []TransactionItem{
			{ID: 1, Description: "Aluguel", Debit: PartyCustomer, Credit: PartyOwner},
			{ID: 2, Description: "Condomínio", Debit: PartyCustomer, Credit: PartyOwner},
			{ID: 3, Description: "Taxa de administração", Debit: PartyOwner, Credit: PartyBusiness},
		},
		Parties: Parties{PayerID: 5, BusinessID: 9, Owners: []Share{{PersonID: 1, Percentage: d("60")}, {PersonID: 2, Percentage: d("40")}}},
	}
}

func TestPayouts(t *testing.T) {
	t.Parallel()
	d := decimal.RequireFromString
	after2 := TransferSchedule{Mode: TransferAfterReceive, AfterDays: 2}
	after1 := TransferSchedule{Mode: TransferAfterReceive, AfterDays: 1}
	schedules := map[int64]TransferSchedule{10: after2, 20: {Mode: TransferManually}, 30: after1, 40: after1}
	pending := []PendingEntry{
		{ID: 1, InvoiceID: 10, OwnerID: 1, Type: Credit, Mode: ModeInvoice, Amount: d("1200.00"), Date: MustDate("2024-03-26")},
		{ID: 2, InvoiceID: 10, OwnerID: 1, Type: Debit, Mode: ModeInvoice, Amount: d("120.00"), Date: MustDate("2024-03-26")},
		{ID: 3, InvoiceID: 10, OwnerID: 2, Type: Credit, Mode: ModeInvoice, Amount: d("800.00"), Date: MustDate("2024-03-27")},
		{ID: 4, InvoiceID: 10, OwnerID: 2, Type: Debit, Mode: ModeChargeback, Amount: d("900.00"), Date: MustDate("2024-03-27")},
		{ID: 5, InvoiceID: 20, OwnerID: 1, Type: Credit, Mode: ModeInvoice, Amount: d("50.00"), Date: MustDate("2024-03-01")},
		{ID: 6, InvoiceID: 20, OwnerID: 1, Type: Credit, Mode: ModeGuaranteedRent, Amount: d("40.00"), Date: MustDate("2024-03-20")},
		// a part credited 2024-04-05: its fee is dated then too
		{ID: 7, InvoiceID: 30, OwnerID: 1, Type: Credit, Mode: ModeInvoice, Amount: d("442.61"), Date: MustDate("2024-03-26")},
		{ID: 8, InvoiceID: 30, OwnerID: 1, Type: Debit, Mode: ModeInvoice, Amount: d("44.26"), Date: MustDate("2024-03-26")},
		{ID: 9, InvoiceID: 30, OwnerID: 1, Type: Credit, Mode: ModeInvoice, Amount: d("557.39"), Date: MustDate("2024-04-05")},
		{ID: 10, InvoiceID: 30, OwnerID: 1, Type: Debit, Mode: ModeInvoice, Amount: d("55.74"), Date: MustDate("2024-04-05")},
		// invoice 40: a part undone on 2024-04-10 after its transfer (the
		// reversal of what was paid out), and one undone before it (an entry
		// and its reversal pending together)
		{ID: 11, InvoiceID: 40, OwnerID: 1, Type: Credit, Mode: ModeInvoice, Amount: d("100.00"), Date: MustDate("2024-03-20")},
		{ID: 12, InvoiceID: 40, OwnerID: 1, Type: Debit, Mode: ModeChargeback, Amount: d("60.00"), Date: MustDate("2024-04-10"),
			ReversesID: 99, ReversesPaidOut: true},
		{ID: 13, InvoiceID: 40, OwnerID: 1, Type: Credit, Mode: ModeChargeback, Amount: d("6.00"), Date: MustDate("2024-04-10"),
			ReversesID: 98, ReversesPaidOut: true},
		{ID: 14, InvoiceID: 40, OwnerID: 1, Type: Credit, Mode: ModeInvoice, Amount: d("30.00"), Date: MustDate("2024-03-21")},
		{ID: 15, InvoiceID: 40, OwnerID: 1, Type: Debit, Mode: ModeChargeback, Amount: d("30.00"), Date: MustDate("2024-04-10"),
			ReversesID: 14},
	}
	cases := []struct {
		on   string
		want []string
	}{
		{"2024-03-27", []string{"20/1 40.00 due 2024-03-20 [6]", "30/1 398.35 due 2024-03-27 [7 8]",
			"40/1 46.00 due 2024-03-21 [11 12 13]"}},
		// owner 2's chargeback, dated the 27th, counts at once: 800.00 − 900.00, nothing to pay
		{"2024-03-28", []string{"10/1 1080.00 due 2024-03-28 [1 2]", "20/1 40.00 due 2024-03-20 [6]",
			"30/1 398.35 due 2024-03-27 [7 8]", "40/1 46.00 due 2024-03-21 [11 12 13]"}},
		{"2024-03-29", []string{"10/1 1080.00 due 2024-03-28 [1 2]", "20/1 40.00 due 2024-03-20 [6]",
			"30/1 398.35 due 2024-03-27 [7 8]", "40/1 46.00 due 2024-03-21 [11 12 13]"}},
		// the second part's fee, dated its credit day, waits with its
		// credits (due a day later): it is not taken from the first part's
		{"2024-04-05", []string{"10/1 1080.00 due 2024-03-28 [1 2]", "20/1 40.00 due 2024-03-20 [6]",
			"30/1 398.35 due 2024-03-27 [7 8]", "40/1 46.00 due 2024-03-21 [11 12 13]"}},
		// the second part's credit and fee together
		{"2024-04-06", []string{"10/1 1080.00 due 2024-03-28 [1 2]", "20/1 40.00 due 2024-03-20 [6]",
			"30/1 900.00 due 2024-04-06 [7 8 9 10]", "40/1 46.00 due 2024-03-21 [11 12 13]"}},
		// the undone part's entry 14 and its reversal 15 together, netting to zero
		{"2024-04-11", []string{"10/1 1080.00 due 2024-03-28 [1 2]", "20/1 40.00 due 2024-03-20 [6]",
			"30/1 900.00 due 2024-04-06 [7 8 9 10]", "40/1 46.00 due 2024-03-22 [11 12 13 14 15]"}},
	}
	for _, c := range cases {
		got := Payouts(pending, schedules, MustDate(c.on))
		var s []string
		for _, p := range got {
			s = append(s, p.String())
		}
		if len(s) != len(c.want) {
			t.Errorf("on %s: %q, want %q", c.on, s, c.want)
			continue
		}
		for i := range s {
			if s[i] != c.want[i] {
				t.Errorf("on %s: %q, want %q", c.on, s, c.want)
				break
			}
		}
	}
}

func (p Payout) String() string {
	ids := ""
	for i, id := range p.EntryIDs {
		if i > 0 {
			ids += " "
		}
		ids += decimal.NewFromInt(id).String()
	}
	return decimal.NewFromInt(p.InvoiceID).String() + "/" + decimal.NewFromInt(p.OwnerID).String() + " " +
		p.Amount.StringFixed(2) + " due " + p.DueOn.String() + " [" + ids + "]"
}

// TestAutoTransferStatus follows an invoice through the run, the payment
// and its undoing, with the facts each step leaves.
func TestAutoTransferStatus(t *testing.T) {
	t.Parallel()
	type facts = AutoTransferFacts
	cases := []struct {
		name  string
		facts facts
		want  AutoTransferStatus
	}{
		{"manual contract, paid and owed", facts{Posted: true, Owed: true}, AutoTransferNone},
		{"manual contract, transferred by a run before", facts{Posted: true, Transferred: true}, AutoTransferNone},
		{"not paid yet", facts{Automatic: true}, AutoTransferNone},
		{"paid, not due yet", facts{Automatic: true, Posted: true, Owed: true}, AutoTransferWaiting},
		{"paid, paid out", facts{Automatic: true, Posted: true, Transferred: true}, AutoTransferTransferred},
		{"paid, the owners' share nets to nothing", facts{Automatic: true, Posted: true}, AutoTransferNone},
		{"undone before the transfer", facts{Automatic: true}, AutoTransferNone},
		{"undone after the transfer", facts{Automatic: true, Transferred: true}, AutoTransferChargeback},
		{"paid again after that, netting the debt", facts{Automatic: true, Posted: true, Transferred: true}, AutoTransferTransferred},
		{"paid again for more", facts{Automatic: true, Posted: true, Transferred: true, Owed: true}, AutoTransferWaiting},
		{"guaranteed and paid out", facts{Automatic: true, Guaranteed: true, Transferred: true}, AutoTransferGuaranteed},
		{"guaranteed, then paid with a late fee", facts{Automatic: true, Guaranteed: true, Posted: true, Transferred: true, Owed: true}, AutoTransferWaiting},
		{"guaranteed, paid, the rest paid out", facts{Automatic: true, Guaranteed: true, Posted: true, Transferred: true}, AutoTransferTransferred},
		{"guaranteed, paid, then undone", facts{Automatic: true, Guaranteed: true, Transferred: true}, AutoTransferGuaranteed},
		{"undone, its void transfer paid by the bank all the same", facts{Automatic: true, Transferred: true, Overpaid: true}, AutoTransferChargeback},
		{"paid again and paid out again, then the void transfer paid by the bank", facts{Automatic: true, Posted: true, Transferred: true,
			Overpaid: true}, AutoTransferChargeback},
		{"overpaid, and another owner owed", facts{Automatic: true, Posted: true, Transferred: true, Owed: true, Overpaid: true},
			AutoTransferWaiting},
		{"overpaid, netted by a new payment", facts{Automatic: true, Posted: true, Transferred: true}, AutoTransferTransferred},
	}
	for _, c := range cases {
		if got := c.facts.Status(); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestUnguaranteedShares: what the open guarantees leave of each owner's
// share, owners covered in full left out.
func TestUnguaranteedShares(t *testing.T) {
	t.Parallel()
	d := decimal.RequireFromString
	shares := []OwnerAmount{{OwnerID: 1, Amount: d("810.00")}, {OwnerID: 2, Amount: d("540.00")}}
	for _, c := range []struct {
		name string
		open []Guarantee
		want string
	}{
		{"none open", nil, "1:810.00 2:540.00"},
		{"the rest's share open", []Guarantee{{ID: 7, OwnerID: 1, Amount: d("270.00")}, {ID: 8, OwnerID: 2, Amount: d("180.00")}},
			"1:540.00 2:360.00"},
		{"two guarantees of one owner", []Guarantee{{OwnerID: 1, Amount: d("270.00")}, {OwnerID: 1, Amount: d("500.00")}},
			"1:40.00 2:540.00"},
		{"covered in full or more", []Guarantee{{OwnerID: 1, Amount: d("810.00")}, {OwnerID: 2, Amount: d("600.00")}}, ""},
	} {
		var got []string
		for _, s := range UnguaranteedShares(shares, c.open) {
			got = append(got, fmt.Sprintf("%d:%s", s.OwnerID, s.Amount.StringFixed(2)))
		}
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("%s: %q, want %q", c.name, g, c.want)
		}
	}
	if shares[0].Amount.StringFixed(2) != "810.00" {
		t.Errorf("the shares were changed: %v", shares)
	}
}
