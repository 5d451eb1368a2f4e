package finance

import "testing"

func TestInvoiceStatusAsOf(t *testing.T) {
	t.Parallel()
	due := MustDate("2024-03-05")
	tests := []struct {
		status InvoiceStatus
		paid   bool
		today  string
		want   InvoiceStatus
	}{
		{"", false, "2024-03-04", InvoiceUnpaid},
		{"", false, "2024-03-05", InvoiceUnpaid}, // on the due date: not late
		{"", false, "2024-03-06", InvoiceOverdue},
		{InvoiceUnpaid, false, "2024-03-06", InvoiceOverdue},
		{InvoiceOverdue, false, "2024-03-01", InvoiceUnpaid}, // due date moved ahead
		{"", true, "2024-04-01", InvoicePaid},
		{InvoiceCanceled, false, "2024-04-01", InvoiceCanceled},
		{InvoiceRefunded, true, "2024-04-01", InvoiceRefunded},
		{InvoiceUncollectible, false, "2024-04-01", InvoiceUncollectible},
		{InvoiceRenegotiated, false, "2024-04-01", InvoiceRenegotiated},
		{InvoicePartiallyPaid, false, "2024-04-01", InvoicePartiallyPaid},
		{InvoiceInProtest, false, "2024-04-01", InvoiceInProtest},
	}
	if got := InvoiceStatusAsOf(Invoice{}, MustDate("2024-04-01")); got != InvoiceUnpaid {
		t.Errorf("invoice without due date: %s, want unpaid", got)
	}
	for _, tt := range tests {
		inv := Invoice{Status: tt.status, Paid: tt.paid, DueDate: due}
		if got := InvoiceStatusAsOf(inv, MustDate(tt.today)); got != tt.want {
			t.Errorf("status %q paid %v on %s: %s, want %s", tt.status, tt.paid, tt.today, got, tt.want)
		}
	}
}

func TestPaymentStatusBoundaries(t *testing.T) {
	t.Parallel()
	today := MustDate("2024-06-30")
	// open returns an open invoice due `days` days before today (negative:
	// after today).
	open := func(days int) Invoice { return Invoice{DueDate: today.AddDays(-days)} }
	paid := Invoice{Paid: true, DueDate: today.AddDays(-200)}
	tests := []struct {
		name     string
		invoices []Invoice
		want     PaymentStatus
	}{
		{"no invoice", nil, PaymentNothing},
		{"only canceled", []Invoice{{Status: InvoiceCanceled, DueDate: today.AddDays(-40)}}, PaymentNothing},
		{"all paid", []Invoice{paid}, PaymentOK},
		{"due in 11 days", []Invoice{paid, open(-11)}, PaymentOK},
		{"due in 10 days", []Invoice{open(-10)}, PaymentDue10Days},
		{"due in 6 days", []Invoice{open(-6)}, PaymentDue10Days},
		{"due in 5 days", []Invoice{open(-5)}, PaymentDue5Days},
		{"due today", []Invoice{open(0)}, PaymentDue5Days},
		{"nearest decides", []Invoice{open(-9), open(-2)}, PaymentDue5Days},
		{"1 day overdue", []Invoice{open(1)}, Payment5Days},
		{"4 days overdue", []Invoice{open(4)}, Payment5Days},
		{"5 days overdue", []Invoice{open(5)}, Payment30Days},
		{"30 days overdue", []Invoice{open(30)}, Payment30Days},
		{"31 days overdue", []Invoice{open(31)}, PaymentMonth},
		{"90 days overdue", []Invoice{open(90)}, PaymentMonth},
		{"91 days overdue", []Invoice{open(91)}, Payment3Months},
		{"oldest decides", []Invoice{open(2), open(95), open(-3)}, Payment3Months},
		{"overdue beats due soon", []Invoice{open(-1), open(1)}, Payment5Days},
		{"refunded and uncollectible are not owed", []Invoice{
			{Status: InvoiceRefunded, DueDate: today.AddDays(-50)}, {Status: InvoiceUncollectible, DueDate: today.AddDays(-50)}}, PaymentOK},
		{"renegotiated is not owed: its installments are", []Invoice{{Status: InvoiceRenegotiated, DueDate: today.AddDays(-50)}}, PaymentOK},
		{"in protest is still owed", []Invoice{{Status: InvoiceInProtest, DueDate: today.AddDays(-50)}}, PaymentMonth},
		{"partially paid is still owed", []Invoice{{Status: InvoicePartiallyPaid, DueDate: today.AddDays(-3)}}, Payment5Days},
		{"an open invoice without due date is never late", []Invoice{{}}, PaymentOK},
	}
	for _, tt := range tests {
		if got := PaymentStatusAsOf(tt.invoices, today); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
	}
}

func TestEventStatusBoundaries(t *testing.T) {
	t.Parallel()
	date := MustDate("2024-02-28")
	tests := []struct {
		status EventStatus
		today  string
		want   EventStatus
	}{
		{EventScheduled, "2024-02-28", EventScheduled},
		{EventScheduled, "2024-02-29", EventLate},         // 1 day
		{EventScheduled, "2024-03-04", EventLate},         // 5 days
		{EventScheduled, "2024-03-05", EventFiveDaysLate}, // 6 days
		{EventLate, "2024-03-29", EventFiveDaysLate},      // 30 days
		{EventFiveDaysLate, "2024-03-30", EventThirtyDaysLate},
		{EventRecurrent, "2024-02-27", EventRecurrent},
		{EventLate, "2024-02-20", EventScheduled}, // date moved ahead
		{EventConcluded, "2025-01-01", EventConcluded},
		{EventCancelled, "2025-01-01", EventCancelled},
	}
	if got := EventStatusAsOf(EventScheduled, Date{}, MustDate("2025-01-01")); got != EventScheduled {
		t.Errorf("event without date: %s", got)
	}
	for _, tt := range tests {
		if got := EventStatusAsOf(tt.status, date, MustDate(tt.today)); got != tt.want {
			t.Errorf("%s on %s: %s, want %s", tt.status, tt.today, got, tt.want)
		}
	}
}
