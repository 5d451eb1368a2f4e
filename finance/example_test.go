package finance_test

import (
	"fmt"

	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance"
)

func ExampleScheduleInvoices() {
	contract := finance.Contract{
		ID: 7, Type: finance.ContractRent, Active: finance.ActiveActive, TenantID: 40,
		StartAt: finance.MustDate("2024-01-15"), Recurrency: finance.Monthly, Modality: finance.ModalityMonthly,
		Amount: decimal.RequireFromString("1500.00"), DueDay: 5, DueDate: finance.MustDate("2024-01-15"),
		Proportional: true, RecurrencyAmount: 12,
	}
	// Without billing_timing a rent is billed in arrears: each month is due
	// on the 5th of the next; the first invoice on due_date.
	s, err := finance.ScheduleInvoices(finance.ScheduleInput{
		Contract: contract, RentItemID: 1, Until: finance.MustDate("2024-04-05"),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, inv := range s.Invoices {
		fmt.Println(inv.DueDate, inv.Total.StringFixed(2), inv.Description)
	}
	// Output:
	// 2024-01-15 822.58 Aluguel 1/12 - 15/01/2024 a 31/01/2024
	// 2024-03-05 1500.00 Aluguel 2/12 - 01/02/2024 a 29/02/2024
	// 2024-04-05 1500.00 Aluguel 3/12 - 01/03/2024 a 31/03/2024
}

func ExampleReadjust() {
	// IPCA of 2024, month by month (IBGE).
	ipca := finance.Series{}
	for m, v := range []string{"0.42", "0.83", "0.16", "0.38", "0.46", "0.21", "0.38", "-0.02", "0.44", "0.56", "0.39", "0.52"} {
		ipca[finance.NewMonth(2024, 1).Add(m)] = decimal.RequireFromString(v)
	}
	contract := finance.Contract{
		Amount: decimal.RequireFromString("2000.00"), ReadjustActive: true, ReadjustIndicator: finance.IPCA,
		ReadjustWith: 12, ReadjustAt: finance.MustDate("2025-01-15"),
	}
	r, err := finance.Readjust(contract, finance.Indices{finance.IPCA: ipca}, finance.MustDate("2025-01-15"), finance.ReadjustOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Outcome, r.Variation.StringFixed(2)+"%", r.NewAmount.StringFixed(2), "next", r.NextReadjustAt)
	// Output: readjusted 4.83% 2096.63 next 2026-01-15
}

func ExampleSettle() {
	inv := finance.Invoice{
		Total: decimal.RequireFromString("1500.00"), DueDate: finance.MustDate("2024-03-05"),
		LateFee: finance.LateFee{
			TicketLateFee: true, TicketLateFeePercentage: decimal.NewFromInt(10), TicketLateFeeInterest: decimal.NewFromInt(1),
		},
	}
	s, _ := finance.Settle(inv, finance.MustDate("2024-04-19"))
	fmt.Println(s.DaysLate, s.LateFee.StringFixed(2), s.Interest.StringFixed(2), s.Total.StringFixed(2))
	// Output: 45 150.00 22.50 1672.50
}
