// Package pagamento writes payment remittances (remessa de pagamento a
// fornecedores) in the CNAB 240 layouts banks use for paying suppliers
// from a company's account: credit transfers to an account (same-bank
// credit or TED), PIX to account data, PIX by key, and boletos paid by
// their 44-digit barcode.
//
// A remittance is written as a stream, like the collection remittances
// of package cnab: NewWriter checks the paying company's account and
// writes the file header, each call to Writer.Write turns one Payment
// into its detail segments (A and B for transfers and PIX, J and J-52 for
// boletos), and Writer.Close writes the batch and file trailers with the
// record counts and totals. Payments of the same kind (the bank's "forma
// de lançamento") share a batch; a new batch opens whenever the kind
// changes, so a caller that groups its payments by kind gets one batch
// per kind, and memory does not grow with the number of payments.
//
// Every record of every bank is one table of fields, named and numbered
// as in the bank's document, filled by the fixed-width printer of
// package cnab/fixedwidth that the collection remittances use: numbers
// zero-padded, text in upper-case ASCII (accents transliterated)
// space-padded, a number that does not fit an error, a text
// that does not fit truncated with a warning. Every problem is a
// cnab.Problem whose Title is the payment's index in the stream (or
// cnab.HeaderIndex for the remittance itself) and whose Field is the
// input field in the JSON spelling of docs/cnab-pagamento.md.
//
// The payment's own reference (Payment.Reference, "seu número") is
// written in the segment A or J field the bank returns unchanged in its
// return file; docs/cnab-pagamento.md lists its position per bank.
package pagamento
