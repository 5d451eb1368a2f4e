// Package benchdata fills an empty, migrated database with a realistic
// data set for `propfin bench`: a few property managers, one of them
// large, with their persons, buildings and owners, businesses, bank
// accounts, billing profiles, a chart of plans, a catalogue of
// transaction items, rent contracts with their items, about a year of
// monthly invoices with their lines, the payments of most of them posted
// to the ledger, and the businesses' own bills. With Options.Closing, what
// closing the month and the year reads besides: administration fees on
// every rent invoice, the income tax tenants that are companies withhold,
// contracts and items the DIMOB declares; Options.Day and Options.Owners
// set the data set's day (a calendar year's last, for its DIMOB) and the
// number of owners.
//
// The rows are written with COPY, one statement per table, in one
// transaction: a failed run leaves nothing behind. As in a restore, a
// table's indexes are created again after its rows are in, and foreign
// keys are not checked row by row when the role may turn that off (the
// tests check them). They are not invented
// table by table: the invoices are what finance.ScheduleInvoices
// schedules for each contract (what the nightly invoices:generate writes,
// with its history row), a payment is settled by finance.Settle and booked
// by finance.PostPayment exactly as storage.PostInvoicePayment books it
// (settlement lines, paid amounts, ledger entries), and the stored
// statuses are those the nightly finance:overdue run would store on the
// data set's day. So a nightly run the same day finds nothing to do, and
// the API can read, change, pay and undo every record as if it had
// written it.
//
// Everything is drawn from a seeded generator, per contract, so that a
// seed gives the same data set every time, and each table is written by
// walking the contracts again rather than by holding millions of rows in
// memory. docs/performance.md describes the data set and its sizes.
package benchdata
