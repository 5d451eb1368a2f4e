package storage

// EventStatusSQL exposes eventStatusSQL to the package's external tests.
var EventStatusSQL = eventStatusSQL

// AutoTransferStatusCase exposes autoTransferStatusCase to the package's
// external tests.
const AutoTransferStatusCase = autoTransferStatusCase
