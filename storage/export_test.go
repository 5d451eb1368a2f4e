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

// ReadParticipants and ShippedBanks expose the bank list's reader and the
// list read from the shipped file to the package's external tests.
var (
	ReadParticipants = readParticipants
	ShippedBanks     = banksByCode
)

// The SQL of the contracts' derived defaults, for the external tests.
const (
	BillingTimingDefault = billingTimingDefault
	ReadjustAtDerived    = readjustAtDerived
)

// OnStatement exposes onStatement (the condition on an owner's entry t of
// being stated) to the package's external tests.
const OnStatement = onStatement

// OpeningsSQL exposes the owner statements' openings read to the
// package's external tests.
const OpeningsSQL = openingsSQL
