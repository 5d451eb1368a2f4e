package finance

import "testing"

// settleInvoice is the invoice of the settlement examples: rent 1,500.00
// (item 1) and condominium 150.00 (item 2), due 2024-03-05, 10% late fee
// and 1% a month interest on the rent, 5% discount on the rent when paid
// 5 days early.
func settleInvoice() Invoice {
	return Invoice{
		Type: InvoiceContract, Total: dec("1650.00"), DueDate: MustDate("2024-03-05"),
		Items: []InvoiceItem{{ItemID: 1, Amount: dec("1500.00")}, {ItemID: 2, Amount: dec("150.00")}},
		LateFee: LateFee{
			TicketLateFee: true, TicketLateFeeItemID: 1, TicketLateFeePercentage: dec("10"), TicketLateFeeInterest: dec("1"),
			TicketDiscount: true, TicketDiscountMode: DiscountPercentage, TicketDiscountPercentage: dec("5"), TicketDiscountDays: 5,
		},
	}
}

func TestSettleExamples(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                                 string
		edit                                 func(*Invoice)
		paidAt                               string
		base, fee, interest, discount, total string
		daysLate                             int
	}{
		{name: "P1 on the due date", paidAt: "2024-03-05",
			base: "1500.00", fee: "0.00", interest: "0.00", discount: "0.00", total: "1650.00"},
		{name: "P2 one day late", paidAt: "2024-03-06", daysLate: 1,
			base: "1500.00", fee: "150.00", interest: "0.50", discount: "0.00", total: "1800.50"},
		{name: "P3 45 days late", paidAt: "2024-04-19", daysLate: 45,
			base: "1500.00", fee: "150.00", interest: "22.50", discount: "0.00", total: "1822.50"},
		{name: "P3 45 days late on the whole invoice", paidAt: "2024-04-19", daysLate: 45,
			edit: func(i *Invoice) { i.TicketLateFeeItemID = 0; i.TicketLateFeePercentage = dec("2") },
			base: "1650.00", fee: "33.00", interest: "24.75", discount: "0.00", total: "1707.75"},
		{name: "P4 five days early: discount", paidAt: "2024-02-29",
			base: "1500.00", fee: "0.00", interest: "0.00", discount: "75.00", total: "1575.00"},
		{name: "P4 four days early: no discount", paidAt: "2024-03-01",
			base: "1500.00", fee: "0.00", interest: "0.00", discount: "0.00", total: "1650.00"},
		{name: "P4 fixed discount, zero days: on the due date", paidAt: "2024-03-05",
			edit: func(i *Invoice) {
				i.TicketDiscountMode, i.TicketDiscountFixed, i.TicketDiscountDays = DiscountFixed, dec("100"), 0
			},
			base: "1500.00", fee: "0.00", interest: "0.00", discount: "100.00", total: "1550.00"},
		{name: "late fee off: late costs nothing more", paidAt: "2024-04-19", daysLate: 45,
			edit: func(i *Invoice) { i.TicketLateFee = false },
			base: "1500.00", fee: "0.00", interest: "0.00", discount: "0.00", total: "1650.00"},
		{name: "interest rounds half up once: 1,234.56 at 1% for 7 days", paidAt: "2024-03-12", daysLate: 7,
			edit: func(i *Invoice) {
				i.Items[0].Amount, i.Total, i.TicketLateFeePercentage = dec("1234.56"), dec("1384.56"), dec("2")
			},
			// 1234.56 × 1% × 7/30 = 2.880640 → 2.88; 2% = 24.6912 → 24.69
			base: "1234.56", fee: "24.69", interest: "2.88", discount: "0.00", total: "1412.13"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			inv := settleInvoice()
			if tt.edit != nil {
				tt.edit(&inv)
			}
			s, err := Settle(inv, MustDate(tt.paidAt))
			if err != nil {
				t.Fatal(err)
			}
			got := []string{s.Base.StringFixed(2), s.LateFee.StringFixed(2), s.Interest.StringFixed(2), s.Discount.StringFixed(2), s.Total.StringFixed(2)}
			want := []string{tt.base, tt.fee, tt.interest, tt.discount, tt.total}
			for i := range got {
				if got[i] != want[i] {
					t.Errorf("base/fee/interest/discount/total = %v, want %v", got, want)
					break
				}
			}
			if s.DaysLate != tt.daysLate {
				t.Errorf("days late %d, want %d", s.DaysLate, tt.daysLate)
			}
		})
	}
}

func TestSettleProblems(t *testing.T) {
	t.Parallel()
	inv := settleInvoice()
	inv.DueDate, inv.TicketDiscountMode = Date{}, "half"
	_, err := Settle(inv, Date{})
	ps, ok := err.(Problems)
	if !ok || len(ps) != 3 {
		t.Fatalf("got %v, want three problems", err)
	}
}
