package finance

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

// The ids of the ledger examples (docs/ledger.md).
const (
	payer       = 10
	business    = 20
	owner60     = 31
	owner40     = 32
	rentItem    = 1
	condoItem   = 2
	adminItem   = 3
	feeItem     = 4
	discItem    = 5
	brokerItem  = 6
	brokerID    = 40
	rentDebitPl = 101
	rentCredPl  = 102
)

func ledgerItems() []TransactionItem {
	return []TransactionItem{
		{ID: rentItem, Description: "Aluguel", Debit: PartyCustomer, Credit: PartyOwner, Type: TxItemRent, Active: true,
			DebitPlanID: rentDebitPl, CreditPlanID: rentCredPl},
		{ID: condoItem, Description: "Condomínio", Debit: PartyCustomer, Credit: PartyOwner, Type: TxItemDefault, Active: true},
		{ID: adminItem, Description: "Taxa de administração", Debit: PartyOwner, Credit: PartyBusiness, Type: TxItemDefault, Active: true},
		{ID: feeItem, Description: "Multa e juros", Debit: PartyCustomer, Credit: PartyOwner, Type: TxItemFee, Active: true},
		{ID: discItem, Description: "Desconto", Debit: PartyOwner, Credit: PartyCustomer, Type: TxItemDiscount, Active: true},
		{ID: brokerItem, Description: "Comissão", Debit: PartyBusiness, Credit: PartyBroker, Type: TxItemCommission, Active: true},
	}
}

// ledgerInvoice is the worked example: rent 2,000.00 and condominium
// 350.00 charged to the tenant and credited to the owners, a 10%
// administration fee of 200.00 from the owners to the business; due
// 2024-03-10, late fee 2% and interest 1% a month on the total, 5%
// punctuality discount on the rent when paid 5 days early.
func ledgerInvoice() Invoice {
	return Invoice{
		ID: 7, Type: InvoiceContract, PayerID: payer, BusinessID: business, Total: dec("2350.00"),
		Date: MustDate("2024-03-01"), DueDate: MustDate("2024-03-10"), TicketDiscountAction: DiscountByOwner,
		Items: []InvoiceItem{
			{ItemID: rentItem, Amount: dec("2000.00")},
			{ItemID: condoItem, Amount: dec("350.00")},
			{ItemID: adminItem, Amount: dec("200.00")},
		},
		LateFee: LateFee{TicketLateFee: true, TicketLateFeePercentage: dec("2"), TicketLateFeeInterest: dec("1"),
			TicketDiscount: true, TicketDiscountMode: DiscountPercentage, TicketDiscountPercentage: dec("5"), TicketDiscountDays: 5},
	}
}

func ledgerInput(t *testing.T, inv Invoice, paidAt string) PostingInput {
	t.Helper()
	s, err := Settle(inv, MustDate(paidAt))
	if err != nil {
		t.Fatal(err)
	}
	items := ledgerItems()
	return PostingInput{
		Invoice: inv, Items: items, Settlement: s, FeeItem: &items[3], DiscountItem: &items[4],
		Parties: Parties{PayerID: payer, BusinessID: business,
			Owners: []Share{{PersonID: owner60, Percentage: dec("60")}, {PersonID: owner40, Percentage: dec("40")}}},
	}
}

// resettle computes the settlement again after an edit of the invoice.
func resettle(t *testing.T, in *PostingInput, paidAt string) {
	t.Helper()
	s, err := Settle(in.Invoice, MustDate(paidAt))
	if err != nil {
		t.Fatal(err)
	}
	in.Settlement = s
}

// entryLine writes an entry as "type extract id amount kind item".
func entryLine(e Entry) string {
	return fmt.Sprintf("%s %s %d %s %s %d", e.Type, e.Extract, e.Holder().ID, e.Amount.StringFixed(2), e.Kind, e.ItemID)
}

func balanceLines(entries []Entry) map[string]string {
	out := map[string]string{}
	for h, b := range Balances(entries) {
		out[h.String()] = b.StringFixed(2)
	}
	return out
}

func TestPostPaymentExamples(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		paidAt   string
		edit     func(*PostingInput)
		bank     func(*Settlement) // the bank's settlement, after the rules'
		lines    []string          // settlement lines: kind item amount
		descs    []string          // their descriptions, when given
		entries  []string
		balances map[string]string
	}{
		{name: "L1 paid 15 days late: 2% fee and 1% a month on the total", paidAt: "2024-03-25",
			lines: []string{"late_fee 4 47.00", "interest 4 11.75"},
			entries: []string{
				"debit customer 10 2000.00 line 1", "credit owner 31 1200.00 line 1", "credit owner 32 800.00 line 1",
				"debit customer 10 350.00 line 2", "credit owner 31 210.00 line 2", "credit owner 32 140.00 line 2",
				"debit owner 31 120.00 line 3", "debit owner 32 80.00 line 3", "credit business 20 200.00 line 3",
				"debit customer 10 47.00 late_fee 4", "credit owner 31 28.20 late_fee 4", "credit owner 32 18.80 late_fee 4",
				"debit customer 10 11.75 interest 4", "credit owner 31 7.05 interest 4", "credit owner 32 4.70 interest 4",
			},
			balances: map[string]string{"customer 10": "-2408.75", "owner 31": "1325.25", "owner 32": "883.50", "business 20": "200.00"}},
		{name: "L2 paid on the due date: the lines only", paidAt: "2024-03-10",
			edit: func(in *PostingInput) { in.FeeItem, in.DiscountItem = nil, nil },
			entries: []string{
				"debit customer 10 2000.00 line 1", "credit owner 31 1200.00 line 1", "credit owner 32 800.00 line 1",
				"debit customer 10 350.00 line 2", "credit owner 31 210.00 line 2", "credit owner 32 140.00 line 2",
				"debit owner 31 120.00 line 3", "debit owner 32 80.00 line 3", "credit business 20 200.00 line 3",
			},
			balances: map[string]string{"customer 10": "-2350.00", "owner 31": "1290.00", "owner 32": "860.00", "business 20": "200.00"}},
		{name: "L3 paid 7 days early, discount on the rent borne by the owners", paidAt: "2024-03-03",
			edit:     func(in *PostingInput) { in.Invoice.TicketLateFeeItemID = rentItem },
			lines:    []string{"discount 5 100.00"},
			balances: map[string]string{"customer 10": "-2250.00", "owner 31": "1230.00", "owner 32": "820.00", "business 20": "200.00"}},
		{name: "L3' the business bears the discount", paidAt: "2024-03-03",
			edit: func(in *PostingInput) {
				in.Invoice.TicketLateFeeItemID, in.Invoice.TicketDiscountAction = rentItem, DiscountByBusiness
			},
			lines:    []string{"discount 5 100.00"},
			balances: map[string]string{"customer 10": "-2250.00", "owner 31": "1290.00", "owner 32": "860.00", "business 20": "100.00"}},
		{name: "L4 a line to one owner, a broker's commission, a rebate", paidAt: "2024-03-10",
			edit: func(in *PostingInput) {
				in.Invoice.Items = append(in.Invoice.Items,
					InvoiceItem{ItemID: condoItem, Amount: dec("-50.00"), OwnerID: owner40, Description: "Abatimento"},
					InvoiceItem{ItemID: brokerItem, Amount: dec("30.00"), BrokerID: brokerID})
				in.Invoice.Total = dec("2300.00")
			},
			balances: map[string]string{"customer 10": "-2300.00", "owner 31": "1290.00", "owner 32": "810.00",
				"business 20": "170.00", "broker 40": "30.00"}},
		{name: "L5 the bank's abatement, no ticket_discount_action: borne by the business", paidAt: "2024-03-10",
			edit: func(in *PostingInput) { in.Invoice.TicketDiscountAction = "" },
			bank: func(s *Settlement) {
				s.Discount, s.Abatement, s.Total = dec("100.00"), dec("100.00"), dec("2250.00")
			},
			lines: []string{"discount 5 100.00"}, descs: []string{"Abatimento concedido no banco"},
			entries: []string{
				"debit customer 10 2000.00 line 1", "credit owner 31 1200.00 line 1", "credit owner 32 800.00 line 1",
				"debit customer 10 350.00 line 2", "credit owner 31 210.00 line 2", "credit owner 32 140.00 line 2",
				"debit owner 31 120.00 line 3", "debit owner 32 80.00 line 3", "credit business 20 200.00 line 3",
				"debit business 20 100.00 discount 5", "credit customer 10 100.00 discount 5",
			},
			balances: map[string]string{"customer 10": "-2250.00", "owner 31": "1290.00", "owner 32": "860.00", "business 20": "100.00"}},
		{name: "L6 the punctuality discount borne by the owners beside the bank's abatement", paidAt: "2024-03-03",
			edit: func(in *PostingInput) { in.Invoice.TicketLateFeeItemID = rentItem },
			bank: func(s *Settlement) {
				s.Discount, s.Abatement, s.Total = dec("150.00"), dec("50.00"), dec("2200.00")
			},
			lines: []string{"discount 5 100.00", "discount 5 50.00"},
			descs: []string{"Desconto de pontualidade", "Abatimento concedido no banco"},
			balances: map[string]string{"customer 10": "-2200.00", "owner 31": "1230.00", "owner 32": "820.00",
				"business 20": "150.00"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := ledgerInput(t, ledgerInvoice(), tt.paidAt)
			if tt.edit != nil {
				tt.edit(&in)
				resettle(t, &in, tt.paidAt)
			}
			if tt.bank != nil {
				tt.bank(&in.Settlement)
			}
			p, err := PostPayment(in)
			if err != nil {
				t.Fatal(err)
			}
			var lines, descs []string
			for _, l := range p.Lines {
				lines = append(lines, fmt.Sprintf("%s %d %s", l.Kind, l.ItemID, l.Amount.StringFixed(2)))
				descs = append(descs, l.Description)
			}
			if !slices.Equal(lines, tt.lines) {
				t.Errorf("settlement lines %q, want %q", lines, tt.lines)
			}
			if tt.descs != nil && !slices.Equal(descs, tt.descs) {
				t.Errorf("descriptions %q, want %q", descs, tt.descs)
			}
			if tt.entries != nil {
				var got []string
				for _, e := range p.Entries {
					got = append(got, entryLine(e))
				}
				if !slices.Equal(got, tt.entries) {
					t.Errorf("entries:\n%q\nwant\n%q", got, tt.entries)
				}
			}
			if got := balanceLines(p.Entries); fmt.Sprint(got) != fmt.Sprint(tt.balances) {
				t.Errorf("balances %v, want %v", got, tt.balances)
			}
			if d, c := Totals(p.Entries); !d.Equal(c) {
				t.Errorf("debits %s, credits %s", d, c)
			}
		})
	}
}

func TestPostPaymentEntryFields(t *testing.T) {
	t.Parallel()
	p, err := PostPayment(ledgerInput(t, ledgerInvoice(), "2024-03-25"))
	if err != nil {
		t.Fatal(err)
	}
	rent, owner := p.Entries[0], p.Entries[1]
	want := Entry{Mode: ModeInvoice, Kind: LineLine, Type: Debit, Extract: PartyCustomer, Amount: dec("2000.00"),
		ItemID: rentItem, PlanID: rentDebitPl, PersonID: payer, TenantID: payer, BusinessID: business, Description: "Aluguel"}
	if fmt.Sprint(rent) != fmt.Sprint(want) {
		t.Errorf("customer entry %+v, want %+v", rent, want)
	}
	if owner.PlanID != rentCredPl || owner.OwnerID != owner60 || owner.PersonID != owner60 || !owner.Percentage.Equal(dec("60")) {
		t.Errorf("owner entry %+v", owner)
	}
	if d := p.Lines[1].Description; d != "Juros de mora (15 dias)" {
		t.Errorf("interest line %q", d)
	}
}

func TestPostPaymentProblems(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		paidAt string
		edit   func(*PostingInput)
		fields []string
	}{
		{"late without a fee item", "2024-03-25", func(in *PostingInput) { in.FeeItem = nil }, []string{"paid"}},
		{"early without a discount item", "2024-03-03", func(in *PostingInput) { in.DiscountItem = nil }, []string{"paid"}},
		{"discount without an action", "2024-03-03", func(in *PostingInput) { in.Invoice.TicketDiscountAction = "" },
			[]string{"ticket_discount_action"}},

		{"unknown item, settlement line given", "2024-03-10", func(in *PostingInput) {
			in.Invoice.Items[1].ItemID = 99
			in.Invoice.Items[2].Kind = LineLateFee
		}, []string{"items[1].item_id", "items[2].kind"}},
		{"item without a credit party", "2024-03-10", func(in *PostingInput) { in.Items[2].Credit = "" }, []string{"items[2].item_id"}},
		{"broker line without a broker", "2024-03-10", func(in *PostingInput) {
			in.Invoice.Items = append(in.Invoice.Items, InvoiceItem{ItemID: brokerItem, Amount: dec("1")})
		}, []string{"items[3].broker_id"}},
		{"owner lines and no owners", "2024-03-10", func(in *PostingInput) { in.Parties.Owners = nil },
			[]string{"items[0].owner_id", "items[1].owner_id", "items[2].owner_id"}},
		{"total other than the customer's lines", "2024-03-10", func(in *PostingInput) { in.Invoice.Total = dec("2550.00") },
			[]string{"total"}},
		{"fractions of a cent", "2024-03-10", func(in *PostingInput) {
			in.Invoice.Items[1].Amount, in.Invoice.Total = dec("350.005"), dec("2350.005")
		}, []string{"items[1].amount"}},
		{"bad shares, no parties", "2024-03-10", func(in *PostingInput) {
			in.Parties = Parties{Owners: []Share{{PersonID: 1, Percentage: dec("50")}, {PersonID: 2}}}
		}, []string{"payer_id", "business_id", "owners"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := ledgerInput(t, ledgerInvoice(), tt.paidAt)
			tt.edit(&in)
			resettle(t, &in, tt.paidAt)
			_, err := PostPayment(in)
			var ps Problems
			if !errors.As(err, &ps) {
				t.Fatalf("error %v, want Problems", err)
			}
			var fields []string
			for _, p := range ps {
				fields = append(fields, p.Field)
			}
			if !slices.Equal(fields, tt.fields) {
				t.Errorf("fields %q, want %q (%v)", fields, tt.fields, err)
			}
		})
	}
}

// TestPostPaymentAbatementProblems: the bank's abatement needs the
// company's discount item, and never ticket_discount_action (the
// punctuality discount's party); the problem says which amount is whose.
func TestPostPaymentAbatementProblems(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                string
		discount, abatement string
		noItem, noAction    bool
		want                string
	}{
		{"abatement alone, no action", "100.00", "100.00", false, true, ""},
		{"abatement, no discount item", "100.00", "100.00", true, false,
			"paid: the bank reports an abatement of 100.00, but the company has no active transaction item of type discount to book it"},
		{"both, no discount item", "150.00", "50.00", true, false,
			"paid: a discount of 100.00 and the bank's abatement of 50.00 apply, but the company has no active transaction item of type discount to book it"},
		{"both, no action", "150.00", "50.00", false, true,
			"ticket_discount_action: must be owner or business to book a discount of 100.00; got \"\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := ledgerInput(t, ledgerInvoice(), "2024-03-10")
			if tt.noItem {
				in.DiscountItem = nil
			}
			if tt.noAction {
				in.Invoice.TicketDiscountAction = ""
			}
			in.Settlement.Discount, in.Settlement.Abatement = dec(tt.discount), dec(tt.abatement)
			in.Settlement.Total = in.Settlement.Total.Sub(in.Settlement.Discount)
			_, err := PostPayment(in)
			got := ""
			var ps Problems
			if errors.As(err, &ps) {
				for _, p := range ps {
					got = p.Field + ": " + p.Message
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("problem %q, want %q", got, tt.want)
			}
		})
	}
}

// TestOwnerSideGap: a side booked to owner goes to the line's owner, else
// to the building's owners; without either the line can never be posted,
// and its problem names what is missing and both ways to fix it, without
// a building when there is none. PostPayment says the same.
func TestOwnerSideGap(t *testing.T) {
	t.Parallel()
	owned := Parties{BuildingID: 7, Owners: []Share{{PersonID: 30, Percentage: dec("100")}}}
	rent := TransactionItem{ID: 5, Debit: PartyCustomer, Credit: PartyOwner}
	fee := TransactionItem{ID: 6, Debit: PartyOwner, Credit: PartyBusiness}
	service := TransactionItem{ID: 8, Debit: PartyCustomer, Credit: PartyBusiness}
	tests := []struct {
		name    string
		item    TransactionItem
		ownerID int64
		parties Parties
		gap     OwnerGap
		words   []string // in the problem; none: no problem
		not     string   // never in the problem
	}{
		{"the building's owners", rent, 0, owned, NoOwnerGap, nil, ""},
		{"the line's owner, no building", rent, 30, Parties{}, NoOwnerGap, nil, ""},
		{"the line's owner, a building without owners", fee, 30, Parties{BuildingID: 7}, NoOwnerGap, nil, ""},
		{"no building", rent, 0, Parties{}, GapNoBuilding,
			[]string{"transaction item 5", "has no building", "set the line's owner_id", "the invoice's building_id"}, "building 0"},
		{"a building without owners", fee, 0, Parties{BuildingID: 7}, GapNoBuildingOwners,
			[]string{"transaction item 6", "building 7 has no owners", "set the line's owner_id", "/buildings/7/owners"}, "has no building"},
		{"no owner side", service, 0, Parties{}, GapNoBuilding, nil, ""},
	}
	for _, tt := range tests {
		if gap := OwnerSideGap(tt.ownerID, tt.parties); gap != tt.gap {
			t.Errorf("%s: gap %q, want %q", tt.name, gap, tt.gap)
		}
		msg := LineOwnerProblem(tt.item, tt.ownerID, tt.parties)
		if (msg == "") != (tt.words == nil) || (tt.not != "" && strings.Contains(msg, tt.not)) {
			t.Errorf("%s: problem %q", tt.name, msg)
		}
		for _, w := range tt.words {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: problem %q lacks %q", tt.name, msg, w)
			}
		}
		if tt.words == nil {
			continue
		}
		// the payment of such a line is refused with the same words
		inv := Invoice{Type: InvoiceSingle, Total: Charged(dec("100"), tt.item),
			Items: []InvoiceItem{{Kind: LineLine, ItemID: tt.item.ID, Amount: dec("100"), OwnerID: tt.ownerID}}}
		parties := tt.parties
		parties.PayerID, parties.BusinessID = 1, 2
		_, err := PostPayment(PostingInput{Invoice: inv, Items: []TransactionItem{tt.item}, Parties: parties})
		var ps Problems
		if !errors.As(err, &ps) || len(ps) != 1 || ps[0].Field != "items[0].owner_id" || ps[0].Message != msg {
			t.Errorf("%s: PostPayment %v, want items[0].owner_id: %s", tt.name, err, msg)
		}
	}
}

func TestSplitByShares(t *testing.T) {
	t.Parallel()
	s := func(id int64, pct string) Share { return Share{PersonID: id, Percentage: dec(pct)} }
	tests := []struct {
		amount string
		owners []Share
		want   []string
	}{
		{"2000.00", []Share{s(31, "60"), s(32, "40")}, []string{"1200.00", "800.00"}},
		// 60.006 and 40.004 round down; the cent left goes to the 60%
		{"100.01", []Share{s(32, "40"), s(31, "60")}, []string{"40.00", "60.01"}},
		// a tie: the lowest person id takes the cent
		{"0.01", []Share{s(7, "50"), s(3, "50")}, []string{"0.00", "0.01"}},
		{"100.00", []Share{s(9, "0"), s(8, "0"), s(7, "0")}, []string{"33.33", "33.33", "33.34"}},
		// shares need not add up to 100: 50 and 25 are two thirds and one
		{"10.00", []Share{s(1, "50"), s(2, "25")}, []string{"6.67", "3.33"}},
		{"-10.01", []Share{s(1, "50"), s(2, "50")}, []string{"-5.01", "-5.00"}},
		{"0.05", []Share{s(1, "33.33"), s(2, "33.33"), s(3, "33.34")}, []string{"0.01", "0.01", "0.03"}},
	}
	for _, tt := range tests {
		parts, err := SplitByShares(dec(tt.amount), tt.owners)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range parts {
			got = append(got, p.StringFixed(2))
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s among %v: %q, want %q", tt.amount, tt.owners, got, tt.want)
		}
	}
}

func TestReverse(t *testing.T) {
	t.Parallel()
	p, err := PostPayment(ledgerInput(t, ledgerInvoice(), "2024-03-25"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range p.Entries {
		p.Entries[i].ID = int64(100 + i)
	}
	r := Reverse(p.Entries)
	for i, e := range r {
		o := p.Entries[i]
		if e.ReversesID != o.ID || e.ID != 0 || e.Mode != ModeChargeback || e.Type == o.Type ||
			!e.Amount.Equal(o.Amount) || e.Holder() != o.Holder() || e.ItemID != o.ItemID || e.PlanID != o.PlanID {
			t.Errorf("reversal %+v of %+v", e, o)
		}
	}
	for h, b := range Balances(append(slices.Clone(p.Entries), r...)) {
		if !b.IsZero() {
			t.Errorf("%s nets %s after the reversal", h, b)
		}
	}
}

// randomPosting draws a catalogue, owners, an invoice and a payment date
// covering the rule's cases, from a seeded source.
func randomPosting(r *rand.Rand) PostingInput {
	parties := []Party{PartyBusiness, PartyOwner, PartyCustomer, PartyBroker}
	items := make([]TransactionItem, 6)
	for i := range items {
		d, c := parties[r.IntN(4)], parties[r.IntN(4)]
		items[i] = TransactionItem{ID: int64(i + 1), Debit: d, Credit: c, Active: true, DebitPlanID: int64(r.IntN(3))}
	}
	items[0].Debit, items[0].Credit = PartyCustomer, PartyOwner
	fee := TransactionItem{ID: 50, Type: TxItemFee, Debit: PartyCustomer, Credit: parties[r.IntN(2)]}
	disc := TransactionItem{ID: 51, Type: TxItemDiscount}
	var owners []Share
	equal := r.IntN(4) == 0
	for i := range 1 + r.IntN(4) {
		sh := Share{PersonID: int64(100 + r.IntN(5)*10 + i)}
		if !equal {
			sh.Percentage = decimal.New(int64(1+r.IntN(10000)), -2)
		}
		owners = append(owners, sh)
	}
	inv := Invoice{Type: []InvoiceType{InvoiceSingle, InvoiceContract}[r.IntN(2)],
		DueDate: MustDate("2024-01-01").AddDays(r.IntN(700)), TicketDiscountAction: []DiscountAction{DiscountByOwner, DiscountByBusiness}[r.IntN(2)],
		LateFee: LateFee{TicketLateFee: r.IntN(3) > 0, TicketLateFeePercentage: decimal.New(int64(r.IntN(1000)), -2),
			TicketLateFeeInterest: decimal.New(int64(r.IntN(500)), -2), TicketDiscount: r.IntN(2) == 0,
			TicketDiscountMode: DiscountPercentage, TicketDiscountPercentage: decimal.New(int64(r.IntN(2000)), -2),
			TicketDiscountDays: r.IntN(10)}}
	for range 1 + r.IntN(6) {
		it := items[r.IntN(len(items))]
		l := InvoiceItem{ItemID: it.ID, Amount: decimal.New(int64(r.IntN(1_000_000)-100_000), -2), BrokerID: 900}
		if r.IntN(4) == 0 {
			l.OwnerID = 800
		}
		if it.Debit == PartyCustomer {
			inv.Total = inv.Total.Add(l.Amount)
		}
		if it.Credit == PartyCustomer {
			inv.Total = inv.Total.Sub(l.Amount)
		}
		inv.Items = append(inv.Items, l)
	}
	if inv.Total.IsNegative() { // an invoice never charges less than nothing
		inv.Items = append(inv.Items, InvoiceItem{ItemID: items[0].ID, Amount: inv.Total.Neg()})
		inv.Total = decimal.Zero
	}
	s, err := Settle(inv, inv.DueDate.AddDays(r.IntN(120)-60))
	if err != nil {
		panic(err)
	}
	return PostingInput{Invoice: inv, Items: items, Settlement: s, FeeItem: &fee, DiscountItem: &disc,
		Parties: Parties{PayerID: 1, BusinessID: 2, Owners: owners}}
}

// TestPostPaymentProperties: for any invoice the entries balance, every
// amount is positive, the customer is charged the settlement's total, the
// owners' parts of each line add up to it, and a reversal (and the
// reversal of that) nets every party to zero.
func TestPostPaymentProperties(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 3000 {
		in := randomPosting(r)
		p, err := PostPayment(in)
		if err != nil {
			t.Fatalf("case %d: %v\n%+v", n, err, in)
		}
		if d, c := Totals(p.Entries); !d.Equal(c) {
			t.Fatalf("case %d: debits %s, credits %s", n, d, c)
		}
		for _, e := range p.Entries {
			if !e.Amount.IsPositive() || !e.Amount.Equal(RoundCents(e.Amount)) {
				t.Fatalf("case %d: entry amount %s", n, e.Amount)
			}
		}
		customer := Balances(p.Entries)[Holder{PartyCustomer, 1}]
		if !customer.Neg().Equal(in.Settlement.Total) {
			t.Fatalf("case %d: customer nets %s, settlement total %s", n, customer, in.Settlement.Total)
		}
		checkSplits(t, n, in.Parties.Owners)
		ids := slices.Clone(p.Entries)
		for i := range ids {
			ids[i].ID = int64(i + 1)
		}
		rev := Reverse(ids)
		for i := range rev {
			rev[i].ID = int64(len(ids) + i + 1)
		}
		for _, set := range [][]Entry{append(slices.Clone(ids), rev...), append(slices.Clone(rev), Reverse(rev)...)} {
			for h, b := range Balances(set) {
				if !b.IsZero() {
					t.Fatalf("case %d: %s nets %s", n, h, b)
				}
			}
		}
	}
}

// checkSplits: parts add up to the amount, and only the largest share
// gets more than its proportion rounded down.
func checkSplits(t *testing.T, n int, owners []Share) {
	t.Helper()
	for _, a := range []string{"0.01", "0.99", "1234.57", "999999999.99"} {
		parts, err := SplitByShares(dec(a), owners)
		if err != nil {
			t.Fatalf("case %d: %v", n, err)
		}
		sum := decimal.Zero
		for _, p := range parts {
			sum = sum.Add(p)
		}
		if !sum.Equal(dec(a)) {
			t.Fatalf("case %d: %s split among %v sums to %s", n, a, owners, sum)
		}
	}
}

// TestBankTariffEntries: a bank's tariff is one debit on the business's
// statement with the tariff item and its debit plan, described by the
// item (or "Tarifa bancária" when it has no description): in a payment's
// posting (BankTariff, mode invoice) or as an entry of its own (BankFee,
// mode transaction).
func TestBankTariffEntries(t *testing.T) {
	t.Parallel()
	item := TransactionItem{ID: 9, Description: "Tarifas Itaú", Debit: PartyBusiness, Type: TxItemTariff, DebitPlanID: 4, CreditPlanID: 5}
	bare := item
	bare.Description = ""
	for _, c := range []struct {
		name string
		got  Entry
		want Entry
	}{
		{"with a payment", BankTariff(item, 3, dec("2.10")), Entry{Mode: ModeInvoice, Type: Debit, Extract: PartyBusiness,
			Amount: dec("2.10"), ItemID: 9, PlanID: 4, BusinessID: 3, Description: "Tarifas Itaú"}},
		{"on its own", BankFee(item, 3, dec("12.00")), Entry{Mode: ModeTransaction, Type: Debit, Extract: PartyBusiness,
			Amount: dec("12.00"), ItemID: 9, PlanID: 4, BusinessID: 3, Description: "Tarifas Itaú"}},
		{"an item without a description", BankFee(bare, 3, dec("1.00")), Entry{Mode: ModeTransaction, Type: Debit,
			Extract: PartyBusiness, Amount: dec("1.00"), ItemID: 9, PlanID: 4, BusinessID: 3, Description: "Tarifa bancária"}},
	} {
		if c.got.Mode != c.want.Mode || c.got.Type != c.want.Type || c.got.Extract != c.want.Extract ||
			!c.got.Amount.Equal(c.want.Amount) || c.got.ItemID != c.want.ItemID || c.got.PlanID != c.want.PlanID ||
			c.got.BusinessID != c.want.BusinessID || c.got.Description != c.want.Description {
			t.Errorf("%s: %+v, want %+v", c.name, c.got, c.want)
		}
	}
}
