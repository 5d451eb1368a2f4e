package finance

// InvoiceStatusAsOf returns the invoice's status on today: paid when
// paid, overdue when open and today is after the due date, unpaid when
// open and not yet late (or without a due date). Statuses that are not about lateness (canceled,
// refunded, uncollectible, renegotiated, partially_paid, in_protest) are kept.
func InvoiceStatusAsOf(inv Invoice, today Date) InvoiceStatus {
	switch inv.Status {
	case InvoiceCanceled, InvoiceRefunded, InvoiceUncollectible, InvoiceRenegotiated, InvoicePartiallyPaid, InvoiceInProtest, InvoicePaid:
		return inv.Status
	}
	if inv.Paid {
		return InvoicePaid
	}
	if !inv.DueDate.IsZero() && today.After(inv.DueDate) {
		return InvoiceOverdue
	}
	return InvoiceUnpaid
}

// open reports whether the invoice is still owed: not paid, and neither
// canceled, refunded, written off nor renegotiated (its agreement's
// installments are owed instead).
func open(inv *Invoice) bool {
	if inv.Paid {
		return false
	}
	switch inv.Status {
	case InvoicePaid, InvoiceCanceled, InvoiceRefunded, InvoiceUncollectible, InvoiceRenegotiated:
		return false
	}
	return true
}

// The boundaries of PaymentStatusAsOf and EventStatusAsOf, in days.
const (
	dueSoon5Days  = 5  // due today up to 5 days ahead: due_5_days
	dueSoon10Days = 10 // 6 to 10 days ahead: due_10_days
	late5Days     = 4  // 1 to 4 days overdue: 5_days (less than 5 days)
	late30Days    = 30 // 5 to 30 days overdue: 30_days (less than a month)
	lateMonth     = 90 // 31 to 90 days overdue: month; 91 and more: 3_months
	eventLate     = 5  // 1 to 5 days past: late; 6 to 30: five_days_late
	eventLate5    = 30 // 31 and more: thirty_days_late
)

// PaymentStatusAsOf classifies a contract by its invoices on today (an
// invoice without a due date counts but is never late nor due):
//   - nothing: it has no invoice that counts (canceled ones do not);
//   - by the oldest open invoice past its due date, d days late:
//     5_days for d 1–4, 30_days for 5–30, month for 31–90, 3_months from 91;
//   - else by the nearest open invoice due in a days (0 is today):
//     due_5_days for a 0–5, due_10_days for 6–10;
//   - else ok.
func PaymentStatusAsOf(invoices []Invoice, today Date) PaymentStatus {
	counted, oldestLate, nearestDue := 0, 0, -1
	for i := range invoices {
		inv := &invoices[i]
		if inv.Status == InvoiceCanceled {
			continue
		}
		counted++
		if !open(inv) || inv.DueDate.IsZero() {
			continue
		}
		d := inv.DueDate.DaysUntil(today)
		switch {
		case d > 0:
			oldestLate = max(oldestLate, d)
		case nearestDue < 0 || -d < nearestDue:
			nearestDue = -d
		}
	}
	switch {
	case counted == 0:
		return PaymentNothing
	case oldestLate > lateMonth:
		return Payment3Months
	case oldestLate > late30Days:
		return PaymentMonth
	case oldestLate > late5Days:
		return Payment30Days
	case oldestLate > 0:
		return Payment5Days
	case nearestDue >= 0 && nearestDue <= dueSoon5Days:
		return PaymentDue5Days
	case nearestDue >= 0 && nearestDue <= dueSoon10Days:
		return PaymentDue10Days
	}
	return PaymentOK
}

// EventStatusAsOf returns a calendar event's status on today, given its
// date (initial_date): concluded and cancelled events, and events without
// a date, keep theirs; an event
// d days past its date is late for d 1–5, five_days_late for 6–30 and
// thirty_days_late from 31; an event not past keeps its status, except that
// a late status goes back to scheduled (its date was moved ahead).
func EventStatusAsOf(status EventStatus, date, today Date) EventStatus {
	if status == EventConcluded || status == EventCancelled || date.IsZero() {
		return status
	}
	d := date.DaysUntil(today)
	switch {
	case d > eventLate5:
		return EventThirtyDaysLate
	case d > eventLate:
		return EventFiveDaysLate
	case d > 0:
		return EventLate
	}
	if status == EventLate || status == EventFiveDaysLate || status == EventThirtyDaysLate {
		return EventScheduled
	}
	return status
}
