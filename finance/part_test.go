package finance

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

// partInvoice is the worked example of docs/ledger.md, "Part payments":
// rent 1,500.00 (customer → owners 60/40) and the administration fee of
// 10 %, 150.00 (owners → business); due 2024-03-10, 2 % late fee and 1 % a
// month of interest on the total, 5 % discount when paid 5 days early.
func partInvoice() Invoice {
	return Invoice{
		ID: 8, Type: InvoiceContract, PayerID: payer, BusinessID: business, Total: dec("1500.00"),
		Date: MustDate("2024-03-01"), DueDate: MustDate("2024-03-10"), TicketDiscountAction: DiscountByOwner,
		Items: []InvoiceItem{{ItemID: rentItem, Amount: dec("1500.00")}, {ItemID: adminItem, Amount: dec("150.00")}},
		LateFee: LateFee{TicketLateFee: true, TicketLateFeePercentage: dec("2"), TicketLateFeeInterest: dec("1"),
			TicketDiscount: true, TicketDiscountMode: DiscountPercentage, TicketDiscountPercentage: dec("5"), TicketDiscountDays: 5},
	}
}

func TestSettlePart(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		paidAt    string
		paid      PaidSoFar
		amount    string
		due       string // what was due that day
		principal string
		fee, int  string
		discount  string
		rest      string
		over      string // what the payer paid beyond what is due, booked nowhere ("" for none)
		problem   string // a problem on amount, when refused
	}{
		{name: "a part on time pays principal only", paidAt: "2024-03-10", amount: "1000.00",
			due: "1500.00", principal: "1000.00", fee: "0.00", int: "0.00", discount: "0.00", rest: "500.00"},
		{name: "the rest 12 days late: late fee and interest on the rest", paidAt: "2024-03-22",
			paid: PaidSoFar{Principal: dec("1000.00"), Parts: 1}, amount: "512.00",
			due: "512.00", principal: "500.00", fee: "10.00", int: "2.00", discount: "0.00", rest: "0.00"},
		{name: "a late part pays charges pro rata", paidAt: "2024-03-22", amount: "1000.00",
			// due 1500 + 30.00 + 6.00 = 1536.00; fee 30 × 1000/1536 = 19.53, interest 3.90625 → 3.91
			due: "1536.00", principal: "976.56", fee: "19.53", int: "3.91", discount: "0.00", rest: "523.44"},
		{name: "the whole early: the discount", paidAt: "2024-03-05", amount: "1425.00",
			due: "1425.00", principal: "1500.00", fee: "0.00", int: "0.00", discount: "75.00", rest: "0.00"},
		{name: "more than the discounted amount early: the discount, the excess over paid", paidAt: "2024-03-05",
			amount: "1430.00", due: "1425.00", principal: "1500.00", fee: "0.00", int: "0.00", discount: "75.00", rest: "0.00",
			over: "5.00"},
		{name: "the face value early: the discount, the discount over paid", paidAt: "2024-03-05",
			amount: "1500.00", due: "1425.00", principal: "1500.00", fee: "0.00", int: "0.00", discount: "75.00", rest: "0.00",
			over: "75.00"},
		{name: "more than the face value early", paidAt: "2024-03-05", amount: "1500.01",
			problem: "1500.01 is more than the 1425.00 due on 2024-03-05 (the rest 1500.00, late fee 0.00, interest 0.00, " +
				"discount 75.00) and more than the 1500.00 the invoice charges without its discount: up to that, a payment " +
				"by the discount date settles it, the excess reported"},
		{name: "more than the rest early after a part: no discount to cover it", paidAt: "2024-03-05",
			paid: PaidSoFar{Principal: dec("1000.00"), Parts: 1}, amount: "500.01",
			problem: "500.01 is more than the 500.00 due on 2024-03-05 (the rest 500.00, late fee 0.00, interest 0.00, discount 0.00)"},
		{name: "a part early: no discount", paidAt: "2024-03-05", amount: "1000.00",
			due: "1425.00", principal: "1000.00", fee: "0.00", int: "0.00", discount: "0.00", rest: "500.00"},
		{name: "the rest early after a part: no discount", paidAt: "2024-03-05",
			paid: PaidSoFar{Principal: dec("1000.00"), Parts: 1}, amount: "500.00",
			due: "500.00", principal: "500.00", fee: "0.00", int: "0.00", discount: "0.00", rest: "0.00"},
		{name: "a cent short of what is due leaves a cent open", paidAt: "2024-03-22",
			paid: PaidSoFar{Principal: dec("1000.00"), Parts: 1}, amount: "511.99",
			due: "512.00", principal: "499.99", fee: "10.00", int: "2.00", discount: "0.00", rest: "0.01"},
		{name: "more than is due", paidAt: "2024-03-22", paid: PaidSoFar{Principal: dec("1000.00"), Parts: 1},
			amount: "512.01", problem: "512.01 is more than the 512.00 due on 2024-03-22 (the rest 500.00, late fee 10.00, interest 2.00, discount 0.00)"},
		{name: "zero", paidAt: "2024-03-10", amount: "0", problem: "must be more than zero"},
		{name: "negative", paidAt: "2024-03-10", amount: "-1.00", problem: "must be more than zero"},
		{name: "a fraction of a cent", paidAt: "2024-03-10", amount: "10.001", problem: "10.001 has more than two decimal places"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := SettlePart(partInvoice(), MustDate(tt.paidAt), tt.paid, dec(tt.amount))
			if tt.problem != "" {
				var ps Problems
				if !errors.As(err, &ps) || len(ps) != 1 || ps[0].Field != "amount" || ps[0].Message != tt.problem {
					t.Fatalf("got %v, want amount: %s", err, tt.problem)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := []string{p.Due.Total.StringFixed(2), p.Principal.StringFixed(2), p.LateFee.StringFixed(2),
				p.Interest.StringFixed(2), p.Discount.StringFixed(2), p.Rest.StringFixed(2)}
			want := []string{tt.due, tt.principal, tt.fee, tt.int, tt.discount, tt.rest}
			if !slices.Equal(got, want) {
				t.Fatalf("due, principal, fee, interest, discount, rest = %v, want %v", got, want)
			}
			if sum := p.Principal.Add(p.LateFee).Add(p.Interest).Sub(p.Discount); !sum.Equal(p.Amount) {
				t.Fatalf("the part's pieces add up to %s, not %s", sum, p.Amount)
			}
			over := tt.over
			if over == "" {
				over = "0.00"
			}
			if got := p.OverPaid.StringFixed(2); got != over || !p.Amount.Add(p.OverPaid).Equal(dec(tt.amount)) {
				t.Fatalf("booked %s and over paid %s of %s, want %s over paid", p.Amount, got, tt.amount, over)
			}
			if p.Settles() != (tt.rest == "0.00") {
				t.Fatalf("Settles() = %v with rest %s", p.Settles(), tt.rest)
			}
		})
	}
}

// TestSettlePartWholeIsSettle: a payment of everything due is Settle's
// settlement, whatever the day.
func TestSettlePartWholeIsSettle(t *testing.T) {
	t.Parallel()
	inv := partInvoice()
	for d := -10; d <= 40; d++ {
		paidAt := inv.DueDate.AddDays(d)
		s, err := Settle(inv, paidAt)
		if err != nil {
			t.Fatal(err)
		}
		p, err := SettlePart(inv, paidAt, PaidSoFar{}, s.Total)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Settlement(); !got.Total.Equal(s.Total) || !got.LateFee.Equal(s.LateFee) ||
			!got.Interest.Equal(s.Interest) || !got.Discount.Equal(s.Discount) || !got.Invoice.Equal(s.Invoice) || !p.Settles() {
			t.Fatalf("day %d: part %+v, Settle %+v", d, got, s)
		}
	}
}

// postPart posts a part of inv paid on paidAt, the standing parts having
// paid paid.
func postPart(t *testing.T, inv Invoice, paidAt string, paid PaidSoFar, amount string) (Part, Posting) {
	t.Helper()
	part, err := SettlePart(inv, MustDate(paidAt), paid, dec(amount))
	if err != nil {
		t.Fatal(err)
	}
	in := ledgerInput(t, inv, paidAt)
	in.Settlement, in.Part = part.Settlement(), &PartShare{Before: paid.Principal}
	p, err := PostPayment(in)
	if err != nil {
		t.Fatal(err)
	}
	return part, p
}

// TestPartPaymentsWorked is docs/ledger.md's worked example: 1,000.00 on
// the due date, the rest 12 days late.
func TestPartPaymentsWorked(t *testing.T) {
	t.Parallel()
	inv := partInvoice()
	p1, first := postPart(t, inv, "2024-03-10", PaidSoFar{}, "1000.00")
	wantFirst := []string{
		"debit customer 10 1000.00 line 1", "credit owner 31 600.00 line 1", "credit owner 32 400.00 line 1",
		"debit owner 31 60.00 line 3", "debit owner 32 40.00 line 3", "credit business 20 100.00 line 3",
	}
	if got := entryLines(first.Entries); !slices.Equal(got, wantFirst) {
		t.Fatalf("first part:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantFirst, "\n"))
	}
	p2, second := postPart(t, inv, "2024-03-22", PaidSoFar{Principal: p1.Principal, Parts: 1}, "512.00")
	wantSecond := []string{
		"debit customer 10 500.00 line 1", "credit owner 31 300.00 line 1", "credit owner 32 200.00 line 1",
		"debit owner 31 30.00 line 3", "debit owner 32 20.00 line 3", "credit business 20 50.00 line 3",
		"debit customer 10 10.00 late_fee 4", "credit owner 31 6.00 late_fee 4", "credit owner 32 4.00 late_fee 4",
		"debit customer 10 2.00 interest 4", "credit owner 31 1.20 interest 4", "credit owner 32 0.80 interest 4",
	}
	if got := entryLines(second.Entries); !slices.Equal(got, wantSecond) {
		t.Fatalf("second part:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantSecond, "\n"))
	}
	if !p2.Settles() {
		t.Fatal("the second part does not settle the invoice")
	}
	all := append(slices.Clone(first.Entries), second.Entries...)
	want := map[string]string{"customer 10": "-1512.00", "owner 31": "817.20", "owner 32": "544.80", "business 20": "150.00"}
	if got := balanceLines(all); !mapsEqual(got, want) {
		t.Fatalf("balances %v, want %v", got, want)
	}
}

func entryLines(entries []Entry) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = entryLine(e)
	}
	return out
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestPartsAddUpToTheWhole: an invoice paid in any number of parts books,
// line by line and party by party, exactly what its whole payment books
// (on the due date, so that no charge differs), every part charging the
// payer its principal and balancing.
func TestPartsAddUpToTheWhole(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(12, 34))
	for n := 0; n < 500; n++ {
		in := randomPosting(r)
		in.Settlement = Settlement{Invoice: in.Invoice.Total, Total: in.Invoice.Total}
		whole, err := PostPayment(in)
		if err != nil || !in.Invoice.Total.IsPositive() {
			continue
		}
		cents := in.Invoice.Total.Shift(2).IntPart()
		cuts := []int64{0, cents}
		for range r.IntN(5) {
			cuts = append(cuts, 1+r.Int64N(cents))
		}
		slices.Sort(cuts)
		cuts = slices.Compact(cuts)
		var parts []Entry
		for k := 1; k < len(cuts); k++ {
			p := in
			p.Part = &PartShare{Before: decimal.New(cuts[k-1], -2)}
			principal := decimal.New(cuts[k]-cuts[k-1], -2)
			p.Settlement = Settlement{Invoice: principal, Total: principal}
			posting, err := PostPayment(p)
			if err != nil {
				t.Fatalf("case %d part %d: %v", n, k, err)
			}
			if d, c := Totals(posting.Entries); !d.Equal(c) {
				t.Fatalf("case %d part %d: debits %s, credits %s", n, k, d, c)
			}
			if got := Balances(posting.Entries)[Holder{PartyCustomer, 1}]; !got.Equal(principal.Neg()) &&
				!(got.IsZero() && principal.IsZero()) {
				t.Fatalf("case %d part %d: the payer is charged %s, not %s", n, k, got.Neg(), principal)
			}
			for _, e := range posting.Entries {
				if !e.Amount.IsPositive() {
					t.Fatalf("case %d part %d: entry of %s", n, k, e.Amount)
				}
			}
			parts = append(parts, posting.Entries...)
		}
		if got, want := byHolderItem(parts), byHolderItem(whole.Entries); !mapsEqual(got, want) {
			t.Fatalf("case %d (%d parts): parts book %v, the whole %v", n, len(cuts)-1, got, want)
		}
	}
}

// byHolderItem sums entries by statement and item.
func byHolderItem(entries []Entry) map[string]string {
	sums := map[string]decimal.Decimal{}
	for _, e := range entries {
		k := e.Holder().String() + " item " + decimal.NewFromInt(e.ItemID).String()
		sums[k] = sums[k].Add(e.Signed())
	}
	out := map[string]string{}
	for k, v := range sums {
		if !v.IsZero() {
			out[k] = v.StringFixed(2)
		}
	}
	return out
}

// TestPartChargesWithinACentAPart: what docs/ledger.md guarantees of the
// charges of parts (it does not guarantee they add up to the whole's):
// parts paid on the same late day, over random totals, days and cuts,
// pay principal adding up to the total exactly, and late fees (and
// interest) adding up to the whole payment's of that day within one cent
// for each part after the first, since each part's charges are rounded
// to the cent on their own.
func TestPartChargesWithinACentAPart(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(56, 78))
	for n := 0; n < 5000; n++ {
		inv := partInvoice()
		inv.Total = decimal.New(10000+r.Int64N(500000), -2)
		inv.Items = []InvoiceItem{{ItemID: rentItem, Amount: inv.Total}}
		paidAt := inv.DueDate.AddDays(1 + r.IntN(90))
		whole, err := Settle(inv, paidAt)
		if err != nil {
			t.Fatal(err)
		}
		var paid PaidSoFar
		fee, interest := decimal.Zero, decimal.Zero
		for want := 2 + r.IntN(4); ; {
			due, err := DueOn(inv, paidAt, paid)
			if err != nil {
				t.Fatal(err)
			}
			amount := due.Total
			if paid.Parts < want-1 {
				amount = decimal.Max(decimal.New(1, -2), RoundCents(due.Total.Mul(decimal.New(10+r.Int64N(80), -2))))
			}
			p, err := SettlePart(inv, paidAt, paid, amount)
			if err != nil {
				t.Fatal(err)
			}
			fee, interest = fee.Add(p.LateFee), interest.Add(p.Interest)
			paid = PaidSoFar{Principal: paid.Principal.Add(p.Principal), Parts: paid.Parts + 1}
			if p.Settles() {
				break
			}
		}
		bound := decimal.New(int64(paid.Parts-1), -2)
		if !paid.Principal.Equal(inv.Total) || fee.Sub(whole.LateFee).Abs().GreaterThan(bound) ||
			interest.Sub(whole.Interest).Abs().GreaterThan(bound) {
			t.Fatalf("case %d, %s paid in %d parts on %s: principal %s, late fee %s (whole %s), interest %s (whole %s)", n,
				inv.Total, paid.Parts, paidAt, paid.Principal, fee, whole.LateFee, interest, whole.Interest)
		}
	}
}
