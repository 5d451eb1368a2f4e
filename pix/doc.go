// Package pix reads, checks and writes PIX BR Code payloads: the
// copy-and-paste text behind a PIX QR code.
//
// A BR Code is a sequence of EMV data objects, each written as a two-digit
// ID, a two-digit length and that many characters of value, ending with a
// CRC16 check digit (object 63). The package
//
//   - parses a payload into a [Payload], keeping objects it does not
//     interpret ([Parse]);
//   - checks everything the invoice pixCode operation requires and the field
//     limits of the BCB manuals, reporting every problem found, each with a
//     stable code, the field it concerns and a human message ([Validate]);
//   - gives the form to store: the check digit in upper case and nothing
//     else changed ([Normalize]);
//   - builds static and dynamic payloads ([BuildStatic], [BuildDynamic]);
//   - draws a payload as a QR code PNG ([QRPNG]).
//
// It does no I/O. The rules and their sources are listed in docs/pix.md.
package pix
