// Package finance is the domain of rental billing: the types of contracts,
// contract items, transaction items and invoices with the API's field
// names and enums, and the pure rules over them:
//
//   - ScheduleInvoices: the invoices a contract should have up to a date
//     and does not have yet (the preview and the generator both);
//   - Readjust: whether the rent is due for readjustment by a price index,
//     the factor and the new amount;
//   - Settle: late fee, interest and punctuality discount on a payment date;
//   - InvoiceStatusAsOf, PaymentStatusAsOf, EventStatusAsOf: overdue
//     classification on a date.
//   - PostPayment: the ledger entries of a paid invoice, line by line,
//     owners' sides split by share (SplitByShares), and Reverse, the
//     entries that undo them (docs/ledger.md).
//   - TransferSchedule, Guaranty, GuaranteedShares, SettleGuarantees and
//     Payouts: the owners' transfers, and AutoTransferFacts.Status, where
//     an invoice's transfer stands (docs/ledger.md).
//   - PlanAgreement: a renegotiation agreement (acordo), the debt of one
//     payer's open invoices on a date cut into installments whose lines
//     keep where each part came from; ReopenOriginal, an original given
//     back by a broken agreement (docs/finance.md).
//
// The coded error every layer returns is here too (errors.go): Error, its
// Code and Problems, built by Errorf and InvalidInput; AsInvalid turns a
// rule's Problems into it.
//
// Every rule takes plain values and returns plain values, does no I/O and
// never reads the clock: "today" is always an argument, so a rule gives
// the same answer on every retry of the job that runs it.
//
// Money is github.com/shopspring/decimal, never a float. One rounding rule
// applies everywhere (see RoundCents): each computed amount is rounded
// once, half away from zero, to the cent. Dates are Date, a calendar date
// without time or zone. The rules and their worked examples are written
// in docs/finance.md; the tests reproduce every example.
package finance
