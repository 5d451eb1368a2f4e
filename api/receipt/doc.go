// Package receipt serves the public page of an invoice or a ledger
// transaction: the payment slip while it is unpaid (boleto digitable line
// and barcode, PIX QR code and copy-and-paste code) and the payment
// receipt once it is paid.
//
// The page is reached without an API key, only through a signed, expiring
// link ([Signer]). It is server-rendered with html/template from a [Page],
// a plain view model the caller fills from storage; its style, script and
// images are inline (the images as data: URIs), so it makes no request to
// any other address, and the Content-Security-Policy the [Handler] sends
// forbids it to.
//
// The boundary: [Handler] verifies the token and calls a load function
// with the [Ref] it names; that function reads the record (of that company
// only) and returns a [Page], or an error matching [ErrNotFound]
// (answered 404) or [ErrUnavailable] (answered 503). The route and the
// storage code live with the caller. docs/api.md describes the token
// format, its lifetime, the page and its headers.
package receipt
