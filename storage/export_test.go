package storage

// EventStatusSQL exposes eventStatusSQL to the package's external tests.
var EventStatusSQL = eventStatusSQL

// The contract pass's steps, open statuses and step dates, for the
// external tests.
var (
	PaymentStatusSteps  = paymentStatusSteps
	OpenInvoiceStatuses = openInvoiceStatuses
	PaymentStepDates    = paymentStepDates
)
