// Package boleto builds and reads the Brazilian bank slip (boleto de
// cobrança): the 44-digit barcode, the 47-digit digitable line, the
// due-date factor, and each bank's "nosso número" with its check digit and
// the barcode's 25-digit free field (campo livre).
//
// It is pure computation: no I/O, no clock (the date used to read a factor
// back is the caller's), no global state beyond the table of banks.
//
// # Building a slip
//
//	b := boleto.Beneficiary{Bank: "341", Agency: "0810", Account: "53678", Wallet: "175"}
//	nn, err := boleto.NewNossoNumero(b, 12345678)    // number, check digit, printed form
//	bc, err := boleto.New(b, nn, 13500, due)         // amount in cents (see Cents)
//	bc.String()         // the 44 digits for the bar code
//	bc.FormattedLine()  // the digitable line as printed
//
// The stable API used by the remittance writers of package cnab:
//
//   - Beneficiary: the account issuing the slips (bank, agency and digit,
//     account and digit, wallet, covenant, Sicredi's station, Sicoob's
//     modality), plain strings of digits; Beneficiary.Validate checks it
//     once, before any title.
//   - NewNossoNumero(b, sequence) (NossoNumero, error): the nosso número for
//     a sequence number; NossoNumero has Number, Digit, Printed and Full().
//     At Sicredi the sequence is YYBNNNNN (see SicrediSequence).
//   - BanrisulCode(covenant) (string, error): Banrisul's beneficiary code
//     with its NC, as its remittances carry it.
//   - FreeField(b, nn, amount) (string, error): the 25-digit free field.
//   - New(b, nn, amount, due) (Barcode, error), and Assemble(bank, factor,
//     amount, freeField) from parts.
//   - Cents(decimal.Decimal) (int64, error): an amount in reais as cents.
//   - Factor(due) and FactorDate(factor, ref): the due-date factor and back.
//   - ParseBarcode(s) and ParseLine(s): read a barcode or digitable line,
//     ignoring spaces and punctuation; Barcode.Line, Barcode.FormattedLine.
//
// Input errors are *FieldError values naming the field (Field is the Go
// field name: "Agency", "Covenant", "Sequence", "Amount", "Due", ...);
// errors.Is matches ErrField, or ErrUnsupported for a bank, wallet or
// covenant form not implemented. Parsing errors match ErrLength,
// ErrCharacter, ErrCheckDigit or ErrInvalid.
//
// # The due-date factor
//
// The factor is the number of days from 1997-10-07, restarting at 1000
// after 9999: 9999 was 2025-02-21 and 1000 is 2025-02-22, and it restarts
// every 9000 days. A factor read back from a barcode is ambiguous; FactorDate
// resolves it as the one date with that factor from 3000 days before to
// 5500 days after a reference date (FEBRABAN's window). Dates before
// 2000-07-03 cannot be expressed; the zero time.Time is a slip without a due
// date (factor 0000).
//
// # Banks
//
// Banco do Brasil 001, Santander 033, Banrisul 041, Caixa 104, Bradesco 237,
// Itaú 341, Sicredi 748 and Sicoob 756. The fields each bank uses and the
// documents followed are in docs/boleto.md and in each bank's file.
package boleto
