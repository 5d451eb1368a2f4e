package finance

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// rentContract is the contract of the examples in docs/finance.md: a
// monthly rent of 1,500.00 starting 2024-01-15, due on the 5th.
func rentContract() Contract {
	return Contract{
		ID: 7, Type: ContractRent, Active: ActiveActive, Status: StatusProgress,
		TenantID: 40, BusinessID: 1, AccountID: 2, BillingMethod: "ticket",
		StartAt: MustDate("2024-01-15"), Recurrency: Monthly, Modality: ModalityMonthly,
		Amount: dec("1500.00"), DueDay: 5, DueDate: MustDate("2024-01-15"),
		BillingTiming: BillingPre, Proportional: true,
	}
}

// brief writes an invoice as "period_initial..period_final due D total T
// [item:amount ...]", the form the examples use.
func brief(inv Invoice) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s..%s due %s total %s [", inv.PeriodInitial, inv.PeriodFinal, inv.DueDate, inv.Total.StringFixed(2))
	for i, it := range inv.Items {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%d:%s", it.ItemID, it.Amount.StringFixed(2))
	}
	b.WriteByte(']')
	return b.String()
}

func briefs(invs []Invoice) []string {
	out := make([]string, len(invs))
	for i, inv := range invs {
		out[i] = brief(inv)
	}
	return out
}

func schedule(t *testing.T, c Contract, items []ContractItem, existing []Invoice, until string) []Invoice {
	t.Helper()
	s, err := ScheduleInvoices(ScheduleInput{Contract: c, Items: items, Invoices: existing, RentItemID: 1, Until: MustDate(until)})
	if err != nil {
		t.Fatalf("ScheduleInvoices: %v", err)
	}
	if s.Skip != "" {
		t.Fatalf("skipped: %s", s.Skip)
	}
	return s.Invoices
}

func TestScheduleExamples(t *testing.T) {
	t.Parallel()
	condo := ContractItem{ItemID: 2, Description: "Condomínio", CalculateMode: CalculateFixed, Amount: dec("350.00"),
		StartAt: MustDate("2024-02-01"), EndAt: MustDate("2024-03-01")}
	reserve := ContractItem{ItemID: 3, Description: "Fundo de reserva", CalculateMode: CalculatePercentage,
		Percentage: dec("5"), PercentageMode: PercentRentalValue}
	commission := ContractItem{ItemID: 9, Mode: ItemModeCommission, CalculateMode: CalculatePercentage, Percentage: dec("10")}
	tests := []struct {
		name   string
		edit   func(*Contract)
		items  []ContractItem
		until  string
		expect []string
	}{
		{
			name:  "S1 monthly modality, pre, proportional first month, leap February",
			until: "2024-04-30",
			expect: []string{
				"2024-01-15..2024-01-31 due 2024-01-15 total 822.58 [1:822.58]",
				"2024-02-01..2024-02-29 due 2024-02-05 total 1500.00 [1:1500.00]",
				"2024-03-01..2024-03-31 due 2024-03-05 total 1500.00 [1:1500.00]",
				"2024-04-01..2024-04-30 due 2024-04-05 total 1500.00 [1:1500.00]",
			},
		},
		{
			name:  "S1 without proportional bills the first month in full",
			edit:  func(c *Contract) { c.Proportional = false },
			until: "2024-02-05",
			expect: []string{
				"2024-01-15..2024-01-31 due 2024-01-15 total 1500.00 [1:1500.00]",
				"2024-02-01..2024-02-29 due 2024-02-05 total 1500.00 [1:1500.00]",
			},
		},
		{
			name:  "S2 unify_first_invoice folds the partial month into the first full one",
			edit:  func(c *Contract) { c.UnifyFirstInvoice = true },
			until: "2024-04-30",
			expect: []string{
				"2024-01-15..2024-02-29 due 2024-01-15 total 2322.58 [1:2322.58]",
				"2024-03-01..2024-03-31 due 2024-03-05 total 1500.00 [1:1500.00]",
				"2024-04-01..2024-04-30 due 2024-04-05 total 1500.00 [1:1500.00]",
			},
		},
		{
			name: "S3 start modality from the 31st, post, leap year",
			edit: func(c *Contract) {
				c.Modality, c.BillingTiming, c.StartAt, c.DueDay, c.DueDate = ModalityStart, BillingPost, MustDate("2024-01-31"), 31, MustDate("2024-02-29")
			},
			until: "2024-05-31",
			expect: []string{
				"2024-01-31..2024-02-28 due 2024-02-29 total 1500.00 [1:1500.00]",
				"2024-02-29..2024-03-30 due 2024-03-31 total 1500.00 [1:1500.00]",
				"2024-03-31..2024-04-29 due 2024-04-30 total 1500.00 [1:1500.00]",
				"2024-04-30..2024-05-30 due 2024-05-31 total 1500.00 [1:1500.00]",
			},
		},
		{
			name: "S3 start modality from the 31st, post, common year",
			edit: func(c *Contract) {
				c.Modality, c.BillingTiming, c.StartAt, c.DueDay, c.DueDate = ModalityStart, BillingPost, MustDate("2023-01-31"), 31, MustDate("2023-02-28")
			},
			until: "2023-04-30",
			expect: []string{
				"2023-01-31..2023-02-27 due 2023-02-28 total 1500.00 [1:1500.00]",
				"2023-02-28..2023-03-30 due 2023-03-31 total 1500.00 [1:1500.00]",
				"2023-03-31..2023-04-29 due 2023-04-30 total 1500.00 [1:1500.00]",
			},
		},
		{
			name: "S4 due_date modality, partial first period across two months",
			edit: func(c *Contract) {
				c.Modality, c.StartAt, c.DueDay, c.DueDate, c.Amount = ModalityDueDate, MustDate("2024-03-20"), 10, MustDate("2024-03-20"), dec("1000.00")
			},
			until: "2024-05-10",
			expect: []string{
				"2024-03-20..2024-04-09 due 2024-03-20 total 677.42 [1:677.42]",
				"2024-04-10..2024-05-09 due 2024-04-10 total 1000.00 [1:1000.00]",
				"2024-05-10..2024-06-09 due 2024-05-10 total 1000.00 [1:1000.00]",
			},
		},
		{
			name: "S4 monthly post, due the 5th of the next month, February of a common year",
			edit: func(c *Contract) {
				c.BillingTiming, c.StartAt, c.DueDate = BillingPost, MustDate("2023-02-01"), MustDate("2023-03-05")
			},
			until: "2023-04-30",
			expect: []string{
				"2023-02-01..2023-02-28 due 2023-03-05 total 1500.00 [1:1500.00]",
				"2023-03-01..2023-03-31 due 2023-04-05 total 1500.00 [1:1500.00]",
			},
		},
		{
			name:  "S5 recurrency_amount limits the installments",
			edit:  func(c *Contract) { c.RecurrencyAmount = 3 },
			until: "2030-12-31",
			expect: []string{
				"2024-01-15..2024-01-31 due 2024-01-15 total 822.58 [1:822.58]",
				"2024-02-01..2024-02-29 due 2024-02-05 total 1500.00 [1:1500.00]",
				"2024-03-01..2024-03-31 due 2024-03-05 total 1500.00 [1:1500.00]",
			},
		},
		{
			name: "S5 end_at cuts and prorates the last period",
			edit: func(c *Contract) {
				c.StartAt, c.EndAt, c.DueDate = MustDate("2024-04-01"), MustDate("2024-06-14"), MustDate("2024-04-05")
			},
			until: "2030-12-31",
			expect: []string{
				"2024-04-01..2024-04-30 due 2024-04-05 total 1500.00 [1:1500.00]",
				"2024-05-01..2024-05-31 due 2024-05-05 total 1500.00 [1:1500.00]",
				"2024-06-01..2024-06-14 due 2024-06-05 total 700.00 [1:700.00]",
			},
		},
		{
			name: "S5 end_at cuts a period that starts on a clamped boundary: a fraction of that period, never more than the rent",
			edit: func(c *Contract) {
				c.Modality, c.StartAt, c.DueDay, c.DueDate, c.EndAt = ModalityStart, MustDate("2024-01-31"), 31, MustDate("2024-01-31"), MustDate("2024-03-29")
			},
			until: "2030-12-31",
			expect: []string{
				"2024-01-31..2024-02-28 due 2024-01-31 total 1500.00 [1:1500.00]",
				"2024-02-29..2024-03-29 due 2024-02-29 total 1451.61 [1:1451.61]",
			},
		},
		{
			name: "S5 end_at cuts a period that ends on a clamped boundary: a fraction of that period",
			edit: func(c *Contract) {
				c.Modality, c.StartAt, c.DueDay, c.DueDate, c.EndAt = ModalityStart, MustDate("2024-01-31"), 31, MustDate("2024-01-31"), MustDate("2024-02-27")
			},
			until: "2030-12-31",
			expect: []string{
				"2024-01-31..2024-02-27 due 2024-01-31 total 1448.28 [1:1448.28]",
			},
		},
		{
			name:   "S1 with a due_date after the second period's due day: nothing is due before due_date",
			edit:   func(c *Contract) { c.DueDate = MustDate("2024-02-10") },
			until:  "2024-02-09",
			expect: []string{},
		},
		{
			name:  "S1 with a due_date after the second period's due day: each later invoice a month after the one before",
			edit:  func(c *Contract) { c.DueDate = MustDate("2024-02-10") },
			until: "2024-04-30",
			expect: []string{
				"2024-01-15..2024-01-31 due 2024-02-10 total 822.58 [1:822.58]",
				"2024-02-01..2024-02-29 due 2024-03-05 total 1500.00 [1:1500.00]",
				"2024-03-01..2024-03-31 due 2024-04-05 total 1500.00 [1:1500.00]",
			},
		},
		{
			name: "S1 start modality with due_date on the second period's due date: not repeated",
			edit: func(c *Contract) {
				c.Modality, c.StartAt, c.DueDay, c.DueDate, c.Proportional = ModalityStart, MustDate("2026-01-10"), 10, MustDate("2026-02-10"), false
			},
			until: "2026-04-10",
			expect: []string{
				"2026-01-10..2026-02-09 due 2026-02-10 total 1500.00 [1:1500.00]",
				"2026-02-10..2026-03-09 due 2026-03-10 total 1500.00 [1:1500.00]",
				"2026-03-10..2026-04-09 due 2026-04-10 total 1500.00 [1:1500.00]",
			},
		},
		{
			name: "S3 pre, due day 30 before the boundary day 31 also where both clamp to the 30th: due the 30th of the next month",
			edit: func(c *Contract) {
				c.Modality, c.StartAt, c.DueDay, c.DueDate = ModalityStart, MustDate("2024-01-31"), 30, MustDate("2024-01-31")
			},
			until: "2024-06-30",
			expect: []string{
				"2024-01-31..2024-02-28 due 2024-01-31 total 1500.00 [1:1500.00]",
				"2024-02-29..2024-03-30 due 2024-03-30 total 1500.00 [1:1500.00]",
				"2024-03-31..2024-04-29 due 2024-04-30 total 1500.00 [1:1500.00]",
				"2024-04-30..2024-05-30 due 2024-05-30 total 1500.00 [1:1500.00]",
				"2024-05-31..2024-06-29 due 2024-06-30 total 1500.00 [1:1500.00]",
			},
		},
		{
			name: "S5 post, a period cut by end_at is due when the full period would have been, after the previous one",
			edit: func(c *Contract) {
				c.BillingTiming, c.StartAt, c.EndAt, c.DueDay, c.DueDate = BillingPost, MustDate("2024-04-01"), MustDate("2024-06-14"), 20, MustDate("2024-05-20")
			},
			until: "2030-12-31",
			expect: []string{
				"2024-04-01..2024-04-30 due 2024-05-20 total 1500.00 [1:1500.00]",
				"2024-05-01..2024-05-31 due 2024-06-20 total 1500.00 [1:1500.00]",
				"2024-06-01..2024-06-14 due 2024-07-20 total 700.00 [1:700.00]",
			},
		},
		{
			name:  "S6 items starting and ending mid-contract, a percentage of the prorated rent, commissions not billed",
			items: []ContractItem{condo, reserve, commission},
			until: "2024-04-05",
			expect: []string{
				"2024-01-15..2024-01-31 due 2024-01-15 total 863.71 [1:822.58 3:41.13]",
				"2024-02-01..2024-02-29 due 2024-02-05 total 1925.00 [1:1500.00 2:350.00 3:75.00]",
				"2024-03-01..2024-03-31 due 2024-03-05 total 1925.00 [1:1500.00 2:350.00 3:75.00]",
				"2024-04-01..2024-04-30 due 2024-04-05 total 1575.00 [1:1500.00 3:75.00]",
			},
		},
		{
			name:  "S6 items of both months of a unified first invoice",
			edit:  func(c *Contract) { c.UnifyFirstInvoice = true },
			items: []ContractItem{condo, reserve},
			until: "2024-03-05",
			expect: []string{
				"2024-01-15..2024-02-29 due 2024-01-15 total 2788.71 [1:2322.58 2:350.00 3:116.13]",
				"2024-03-01..2024-03-31 due 2024-03-05 total 1925.00 [1:1500.00 2:350.00 3:75.00]",
			},
		},
		{
			name: "S7 daily season rent across the new year",
			edit: func(c *Contract) {
				c.Type, c.Recurrency, c.StartAt, c.EndAt, c.DueDate, c.Amount = ContractSeason, Daily, MustDate("2024-12-30"), MustDate("2025-01-02"), MustDate("2024-12-30"), dec("300.00")
			},
			until: "2025-12-31",
			expect: []string{
				"2024-12-30..2024-12-30 due 2024-12-30 total 300.00 [1:300.00]",
				"2024-12-31..2024-12-31 due 2024-12-31 total 300.00 [1:300.00]",
				"2025-01-01..2025-01-01 due 2025-01-01 total 300.00 [1:300.00]",
				"2025-01-02..2025-01-02 due 2025-01-02 total 300.00 [1:300.00]",
			},
		},
		{
			name: "S8 sale installments, the last one takes the rounding rest",
			edit: func(c *Contract) {
				c.Type, c.Amount, c.SignalAmount, c.RecurrencyAmount, c.StartAt, c.DueDate, c.DueDay = ContractSale, dec("100000.00"), dec("10000.00"), 7, MustDate("2024-01-01"), MustDate("2024-01-10"), 10
			},
			until: "2030-12-31",
			expect: []string{
				"2024-01-01..2024-01-31 due 2024-01-10 total 12857.14 [1:12857.14]",
				"2024-02-01..2024-02-29 due 2024-02-10 total 12857.14 [1:12857.14]",
				"2024-03-01..2024-03-31 due 2024-03-10 total 12857.14 [1:12857.14]",
				"2024-04-01..2024-04-30 due 2024-04-10 total 12857.14 [1:12857.14]",
				"2024-05-01..2024-05-31 due 2024-05-10 total 12857.14 [1:12857.14]",
				"2024-06-01..2024-06-30 due 2024-06-10 total 12857.14 [1:12857.14]",
				"2024-07-01..2024-07-31 due 2024-07-10 total 12857.16 [1:12857.16]",
			},
		},
		{
			name: "current_amount, when set, is the rent",
			edit: func(c *Contract) {
				c.CurrentAmount = decimal.NewNullDecimal(dec("1600.00"))
				c.StartAt, c.DueDate = MustDate("2024-02-01"), MustDate("2024-02-05")
			},
			until: "2024-02-05",
			expect: []string{
				"2024-02-01..2024-02-29 due 2024-02-05 total 1600.00 [1:1600.00]",
			},
		},
		{
			name: "amounts given with more than two decimals are billed in cents",
			edit: func(c *Contract) {
				c.Amount, c.StartAt, c.DueDate = dec("1500.005"), MustDate("2024-02-01"), MustDate("2024-02-05")
			},
			items: []ContractItem{{ItemID: 2, Amount: dec("10.004")}},
			until: "2024-02-05",
			expect: []string{
				"2024-02-01..2024-02-29 due 2024-02-05 total 1510.01 [1:1500.01 2:10.00]",
			},
		},
		{
			name:   "nothing due yet",
			until:  "2024-01-14",
			expect: []string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := rentContract()
			if tt.edit != nil {
				tt.edit(&c)
			}
			got := briefs(schedule(t, c, tt.items, nil, tt.until))
			if strings.Join(got, "\n") != strings.Join(tt.expect, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.expect, "\n"))
			}
		})
	}
}

func TestDefaultBillingTiming(t *testing.T) {
	t.Parallel()
	tests := []struct {
		typ  ContractType
		want BillingTiming
	}{
		{ContractRent, BillingPost},          // Lei 8.245/91 art. 20: no rent in advance
		{ContractSeason, BillingPre},         // art. 49: season rent may be taken in advance
		{ContractSale, BillingPre},           // installments are due on their dates
		{ContractSubscription, BillingPre},   // a service, paid for the period ahead
		{ContractType("lease"), BillingPost}, // unknown: treated as a rent
	}
	for _, tt := range tests {
		if got := DefaultBillingTiming(tt.typ); got != tt.want {
			t.Errorf("DefaultBillingTiming(%q) = %q, want %q", tt.typ, got, tt.want)
		}
	}
}

// TestScheduleDefaultBillingTiming: a contract without billing_timing is
// billed with its type's default; one that names it, as named.
func TestScheduleDefaultBillingTiming(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		edit   func(*Contract)
		expect []string
	}{
		{
			name: "S1 rent without billing_timing: in arrears",
			edit: func(c *Contract) { c.BillingTiming = "" },
			expect: []string{
				"2024-01-15..2024-01-31 due 2024-01-15 total 822.58 [1:822.58]",
				"2024-02-01..2024-02-29 due 2024-03-05 total 1500.00 [1:1500.00]",
				"2024-03-01..2024-03-31 due 2024-04-05 total 1500.00 [1:1500.00]",
			},
		},
		{
			name: "S1 rent asking for pre: ahead",
			expect: []string{
				"2024-01-15..2024-01-31 due 2024-01-15 total 822.58 [1:822.58]",
				"2024-02-01..2024-02-29 due 2024-02-05 total 1500.00 [1:1500.00]",
				"2024-03-01..2024-03-31 due 2024-03-05 total 1500.00 [1:1500.00]",
				"2024-04-01..2024-04-30 due 2024-04-05 total 1500.00 [1:1500.00]",
			},
		},
		{
			name: "S1 season without billing_timing: ahead",
			edit: func(c *Contract) { c.Type, c.BillingTiming = ContractSeason, "" },
			expect: []string{
				"2024-01-15..2024-01-31 due 2024-01-15 total 822.58 [1:822.58]",
				"2024-02-01..2024-02-29 due 2024-02-05 total 1500.00 [1:1500.00]",
				"2024-03-01..2024-03-31 due 2024-03-05 total 1500.00 [1:1500.00]",
				"2024-04-01..2024-04-30 due 2024-04-05 total 1500.00 [1:1500.00]",
			},
		},
		{
			name: "S1 subscription without billing_timing: ahead",
			edit: func(c *Contract) { c.Type, c.BillingTiming = ContractSubscription, "" },
			expect: []string{
				"2024-01-15..2024-01-31 due 2024-01-15 total 822.58 [1:822.58]",
				"2024-02-01..2024-02-29 due 2024-02-05 total 1500.00 [1:1500.00]",
				"2024-03-01..2024-03-31 due 2024-03-05 total 1500.00 [1:1500.00]",
				"2024-04-01..2024-04-30 due 2024-04-05 total 1500.00 [1:1500.00]",
			},
		},
		{
			name: "S8 sale: installments due month after month from due_date, whatever billing_timing says",
			edit: func(c *Contract) {
				c.Type, c.BillingTiming, c.Modality, c.RecurrencyAmount = ContractSale, BillingPost, ModalityStart, 3
				c.DueDay, c.DueDate = 10, MustDate("2024-01-20")
			},
			expect: []string{
				"2024-01-15..2024-02-14 due 2024-01-20 total 500.00 [1:500.00]",
				"2024-02-15..2024-03-14 due 2024-02-10 total 500.00 [1:500.00]",
				"2024-03-15..2024-04-14 due 2024-03-10 total 500.00 [1:500.00]",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := rentContract()
			if tt.edit != nil {
				tt.edit(&c)
			}
			got := briefs(schedule(t, c, nil, nil, "2024-04-30"))
			if strings.Join(got, "\n") != strings.Join(tt.expect, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.expect, "\n"))
			}
		})
	}
}

func TestScheduleCopiesContractFields(t *testing.T) {
	t.Parallel()
	c := rentContract()
	c.RecurrencyAmount = 12
	c.LateFee = LateFee{TicketLateFee: true, TicketLateFeeItemID: 1, TicketLateFeePercentage: dec("10"), TicketLateFeeInterest: dec("1"),
		TicketDiscount: true, TicketDiscountMode: DiscountPercentage, TicketDiscountPercentage: dec("5"), TicketDiscountDays: 5}
	inv := schedule(t, c, nil, nil, "2024-02-05")[1]
	if inv.Type != InvoiceContract || inv.ContractID != 7 || inv.PayerID != 40 || inv.BusinessID != 1 || inv.AccountID != 2 || inv.BillingMethod != "ticket" {
		t.Errorf("parties not copied: %+v", inv)
	}
	if inv.LateFee != c.LateFee {
		t.Errorf("late fee settings: got %+v, want %+v", inv.LateFee, c.LateFee)
	}
	if inv.Date != MustDate("2024-02-01") || inv.Description != "Aluguel 2/12 - 01/02/2024 a 29/02/2024" || inv.Paid {
		t.Errorf("date %s description %q paid %v", inv.Date, inv.Description, inv.Paid)
	}
}

// TestScheduleBillsByTheProfile: a generated invoice is billed by the
// contract's billing profile's method (how the tenant pays), the
// contract's own billing_method (how its owners are paid) only when the
// profile names none.
func TestScheduleBillsByTheProfile(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name         string
		profile, own string
		want         string
	}{
		{"the profile's method", "ticket", "ted", "ticket"},
		{"a profile without a method", "", "pix", "pix"},
		{"the same method", "pix", "pix", "pix"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := rentContract()
			c.ProfileMethod, c.BillingMethod = tc.profile, tc.own
			invs := schedule(t, c, nil, nil, "2024-02-05")
			if len(invs) == 0 {
				t.Fatal("no invoice")
			}
			for _, inv := range invs {
				if inv.BillingMethod != tc.want {
					t.Errorf("%s: billing_method %q, want %q", brief(inv), inv.BillingMethod, tc.want)
				}
			}
			if c.BillingMethod != tc.own {
				t.Errorf("the contract's billing_method became %q", c.BillingMethod)
			}
		})
	}
}

func TestScheduleSkipsContractsNotBilled(t *testing.T) {
	t.Parallel()
	tests := []struct {
		active ContractActive
		status ContractStatus
		want   SkipReason
	}{
		{ActiveSuspended, StatusProgress, SkipSuspended},
		{ActiveActive, StatusSuspended, SkipSuspended},
		{ActiveCanceled, StatusProgress, SkipCanceled},
		{ActiveActive, StatusCanceled, SkipCanceled},
		{ActiveFinished, StatusProgress, SkipFinished},
		{ActiveActive, StatusTerminated, SkipFinished},
		{ActivePreReserved, StatusPending, SkipNotActive},
		{ActiveReserved, StatusPending, SkipNotActive},
		{ActiveActive, StatusReadjust, ""}, // awaiting readjustment still bills the current rent
	}
	for _, tt := range tests {
		c := rentContract()
		c.Active, c.Status = tt.active, tt.status
		s, err := ScheduleInvoices(ScheduleInput{Contract: c, RentItemID: 1, Until: MustDate("2024-12-31")})
		if err != nil {
			t.Fatal(err)
		}
		if s.Skip != tt.want || (tt.want != "" && len(s.Invoices) != 0) || (tt.want == "" && len(s.Invoices) == 0) {
			t.Errorf("active %s status %s: skip %q with %d invoices, want %q", tt.active, tt.status, s.Skip, len(s.Invoices), tt.want)
		}
	}
}

func TestScheduleNamesEveryProblem(t *testing.T) {
	t.Parallel()
	c := Contract{Type: "lease", Active: "yes", Recurrency: "weekly", Modality: "fortnight", Amount: dec("-1"), DueDay: 40,
		StartAt: MustDate("2024-05-01"), EndAt: MustDate("2024-04-01")}
	items := []ContractItem{{CalculateMode: "ratio"}}
	_, err := ScheduleInvoices(ScheduleInput{Contract: c, Items: items})
	var ps Problems
	if !errors.As(err, &ps) {
		t.Fatalf("error %v is not Problems", err)
	}
	fields := map[string]bool{}
	for _, p := range ps {
		fields[p.Field] = true
	}
	for _, f := range []string{"type", "active", "recurrency", "modality", "amount", "due_day", "due_date", "end_at", "items[0].calculate_mode", "items[0].item_id", "until"} {
		if !fields[f] {
			t.Errorf("no problem named %s in %v", f, err)
		}
	}
	c = rentContract()
	_, err = ScheduleInvoices(ScheduleInput{Contract: c, Items: items, Until: MustDate("2024-12-31")})
	if !errors.As(err, &ps) || len(ps) != 2 || ps[0].Field != "items[0].calculate_mode" || ps[1].Field != "items[0].item_id" {
		t.Errorf("items: got %v", err)
	}
}

func TestScheduleRefusesSignalOutsideSaleAmount(t *testing.T) {
	t.Parallel()
	for _, signal := range []string{"150000.00", "-1.00"} {
		c := rentContract()
		c.Type, c.Amount, c.SignalAmount, c.RecurrencyAmount = ContractSale, dec("100000.00"), dec(signal), 10
		_, err := ScheduleInvoices(ScheduleInput{Contract: c, RentItemID: 1, Until: MustDate("2030-12-31")})
		var ps Problems
		if !errors.As(err, &ps) || len(ps) != 1 || ps[0].Field != "signal_amount" {
			t.Errorf("signal_amount %s: got %v, want one problem on signal_amount", signal, err)
		}
	}
}

func TestScheduleSkipsExistingInvoices(t *testing.T) {
	t.Parallel()
	c := rentContract()
	all := schedule(t, c, nil, nil, "2024-05-31")
	tests := []struct {
		name     string
		existing []Invoice
		want     int
	}{
		{"all exist", all, 0},
		{"the second exists, with its due date moved", []Invoice{func() Invoice { i := all[1]; i.DueDate = MustDate("2024-02-20"); return i }()}, 4},
		{"a single invoice of the contract does not take a slot", []Invoice{func() Invoice { i := all[1]; i.Type = InvoiceSingle; return i }()}, 5},
		{"an invoice without period takes the slot of its due date", []Invoice{{Type: InvoiceContract, DueDate: MustDate("2024-03-05")}}, 4},
		{"an invoice without period takes the slot of its competence", []Invoice{{Type: InvoiceContract, Date: MustDate("2024-04-01"), DueDate: MustDate("2024-04-12")}}, 4},
		{"an invoice of another contract takes nothing", []Invoice{func() Invoice { i := all[1]; i.ContractID = 8; return i }()}, 5},
		{"a canceled invoice still takes its slot", []Invoice{func() Invoice { i := all[0]; i.Status = InvoiceCanceled; return i }()}, 4},
		{"a manual invoice over two months takes both", []Invoice{{Type: InvoiceContract, PeriodInitial: MustDate("2024-02-10"), PeriodFinal: MustDate("2024-03-10")}}, 3},
	}
	for _, tt := range tests {
		if got := schedule(t, c, nil, tt.existing, "2024-05-31"); len(got) != tt.want {
			t.Errorf("%s: %d invoices, want %d:\n%s", tt.name, len(got), tt.want, strings.Join(briefs(got), "\n"))
		}
	}
}

func TestScheduleRefusesAbsurdInput(t *testing.T) {
	t.Parallel()
	c := rentContract()
	c.Amount = dec("1e40")
	c.TicketLateFeePercentage = dec("50000")
	items := []ContractItem{{ItemID: 2, Amount: dec("-2e15"), CalculateMode: CalculatePercentage, Percentage: dec("1e9")}}
	_, err := ScheduleInvoices(ScheduleInput{Contract: c, Items: items, Until: MustDate("2024-12-31")})
	var ps Problems
	if !errors.As(err, &ps) {
		t.Fatalf("got %v", err)
	}
	want := []string{"ticket_late_fee_percentage", "amount", "items[0].amount", "items[0].percentage"}
	if len(ps) != len(want) {
		t.Fatalf("got %v, want problems on %v", ps, want)
	}
	for i, p := range ps {
		if p.Field != want[i] {
			t.Errorf("problem %d on %s, want %s", i, p.Field, want[i])
		}
	}

	// A start_at mistyped in year 1 would mean millions of daily invoices.
	c = rentContract()
	c.Recurrency, c.StartAt, c.DueDate = Daily, MustDate("0001-01-01"), MustDate("0001-01-01")
	_, err = ScheduleInvoices(ScheduleInput{Contract: c, Until: MustDate("2024-12-31")})
	if !errors.As(err, &ps) || ps[0].Field != "until" {
		t.Errorf("got %v, want a problem on until", err)
	}
}

func TestBelow(t *testing.T) {
	t.Parallel()
	tests := []struct {
		d      string
		digits int
		want   bool
	}{
		{"0", 0, true},
		{"999999999999.99", 12, true},
		{"1000000000000", 12, false},
		{"1e12", 12, false},
		{"0.1e13", 12, false},
		{"-999999999999", 12, true},
		{"-1000000000000.00", 12, false},
		{"9999.999", 4, true},
		{"10000", 4, false},
		{"0.0001", 0, true},
	}
	for _, tt := range tests {
		if got := below(dec(tt.d), tt.digits); got != tt.want {
			t.Errorf("below(%s, %d) = %v", tt.d, tt.digits, got)
		}
	}
}
