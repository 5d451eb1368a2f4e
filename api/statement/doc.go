// Package statement renders the documents a property manager gives its
// owners when a month or a year is closed, as a public HTML page and as a
// PDF of the same content: the owner statement of a month (prestação de
// contas, [OwnerStatement]) and the owner's yearly income report (informe
// de rendimentos, [IncomeReport]).
//
// The documents are plain view models, filled by the caller from what it
// stores; this package reads nothing and knows no storage. It computes
// what follows from them (the totals of each section and of the month, the
// net of each month of the year) so that a page and its PDF can never
// disagree, and refuses a document whose closing balance does not follow
// from its lines: an inconsistent statement is the loader's bug, reported
// rather than shown.
//
// The page is server-rendered with html/template, its style inline (no
// script, no image, no request to any address, as the receipt pages), in
// Portuguese, readable on a phone and printable. The PDF is A4, drawn in Go
// with codeberg.org/go-pdf/fpdf and its standard Helvetica (Windows-1252:
// every letter of Portuguese), no browser involved.
//
// The boundary: [Handler] serves a document reached through a signed,
// expiring link ([Signer]); it verifies the token, calls a load function
// with the [Ref] it names and answers the page or, for `.../pdf` and
// `?format=pdf`, the PDF. [Respond] does the answering alone, for a caller
// that verified the request itself. docs/api.md describes the links, the
// page, the PDF and their headers.
package statement
