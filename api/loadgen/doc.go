// Package loadgen sends `propfin bench`'s mixed load at a propfin API: a
// weighted mix of the requests an office's front end makes (lists with
// filters, records opened, invoices written and paid, bills, now and then
// a job), drawn from the records of a data set storage/benchdata wrote,
// from a number of clients each with an API key of its own. It reports
// per route the requests per second, p50 and p99 latency and the 4xx and
// 5xx answered (docs/performance.md). The command's flags and the server
// it starts stay in cmd/propfin.
package loadgen
