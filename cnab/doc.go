// Package cnab writes collection remittance files (remessa de cobrança) in the
// CNAB 240 and CNAB 400 layouts of the banks propfin works with, and the
// subpackage boleto computes barcodes, digitable lines and each bank's
// "nosso número".
//
// A remittance is written as a stream: NewWriter writes the file header,
// each call to Writer.Write turns one Title into its detail records, and
// Writer.Close writes the trailers with the record counts and totals. Memory
// does not grow with the number of titles, so a batch of any size can be
// written by a background worker straight to a file or an upload.
//
// Every record of every bank is described by one table of fields (the name
// the bank's document gives the field, its first and last position, its
// kind and where its value comes from). The fixed-width printer of package
// cnab/fixedwidth, shared with the payment remittances of cnab/pagamento,
// fills records from these tables: numbers zero-padded on the left, text in
// upper-case ASCII with accents transliterated and space-padded on the
// right. A value longer than its field is an error when it is a number and
// is truncated with a warning when it is text. Every problem names the title
// (by its index in the stream) and the input field it concerns.
//
// The layouts, the documents they follow and what each bank is known to
// reject are listed in docs/cnab.md.
package cnab
