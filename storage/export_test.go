package storage

// EventStatusSQL exposes eventStatusSQL to the package's external tests.
var EventStatusSQL = eventStatusSQL

// AutoTransferStatusCase exposes autoTransferStatusCase to the package's
// external tests.
const AutoTransferStatusCase = autoTransferStatusCase

// The contract pass's steps, open statuses and step dates, for the
// external tests.
var (
	PaymentStatusSteps  = paymentStatusSteps
	OpenInvoiceStatuses = openInvoiceStatuses
	PaymentStepDates    = paymentStepDates
)
