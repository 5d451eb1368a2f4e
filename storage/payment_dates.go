package storage

import (
	"fmt"

	"github.com/propfin/propfin/finance"
)

// The dates of a payment, as a bank reports them in a return file
// (docs/ledger.md, "Settlement from a bank return file"): a payment is
// reported once made, so its day is neither after the file's own date nor
// after today; and it is credited on or after that day, at most
// MaxCreditDays later, the bound of a part recorded by hand
// (PostInvoicePayment).

// CreditDateProblem is what is wrong with a payment paid on paidAt and
// credited on creditAt, for people, or "" when nothing is: the money is
// credited on or after the day it is paid, at most MaxCreditDays after
// it. A zero creditAt (credited the day it is paid) has nothing wrong.
func CreditDateProblem(paidAt, creditAt finance.Date) string {
	switch {
	case creditAt.IsZero() || paidAt.IsZero():
		return ""
	case creditAt.Before(paidAt):
		return fmt.Sprintf("the credit date %s is before the payment date %s: the money is credited on or after the day it is paid",
			creditAt, paidAt)
	case creditAt.After(paidAt.AddDays(MaxCreditDays)):
		return fmt.Sprintf("the credit date %s is more than %d days after the payment date %s (at most %s): "+
			"a bank credits a payment within days", creditAt, MaxCreditDays, paidAt, paidAt.AddDays(MaxCreditDays))
	}
	return ""
}

// reportedDatesProblem is what is wrong with the dates of a reported
// payment, for people, or "" when nothing is: a payment dated after the
// file's own date, or after today in the company's time zone (the bound of
// a part recorded by hand), has not been made as reported; a credit date
// out of CreditDateProblem's bounds is a typo. Such a payment is not
// settled, so that no money is dated on a day that has not come, nor an
// invoice's refunds and its owners' transfers held for weeks. A file
// generated where the day has turned already (a time zone ahead of the
// company's) is dated after today: what it reports paid today is settled.
func reportedDatesProblem(p *ReportedPayment, today finance.Date) string {
	if problem := PaidDateProblem(p.PaidAt, p.FileDate, today); problem != "" {
		return problem
	}
	if problem := CreditDateProblem(p.PaidAt, p.CreditAt); problem != "" {
		return problem + " (a typo in the file?)"
	}
	return ""
}

// PaidDateProblem is what is wrong with the day a return file reports a
// payment made (paidAt), for people, or "" when nothing is: a day after
// the file's own date (fileDate; zero: the file has none), or after today
// in the company's time zone, has not come when the file was written, or
// has not come yet. A collection title's payment and a payment batch's
// payment are held to it alike, so that no money is booked on a day to
// come.
func PaidDateProblem(paidAt, fileDate, today finance.Date) string {
	switch {
	case !fileDate.IsZero() && paidAt.After(fileDate):
		return fmt.Sprintf("the bank's payment date %s is after %s, the file's own date: a bank reports a payment once made "+
			"(a typo in the file?)", paidAt, fileDate)
	case paidAt.After(today):
		return fmt.Sprintf("the bank's payment date %s is after today (%s in the company's time zone): a payment is booked "+
			"once made (a typo in the file? if the date is right, post the file again on that day)", paidAt, today)
	}
	return ""
}
