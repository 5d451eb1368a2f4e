package cnab

// Small exported wrappers over this package's document and date rules, so
// that the payment remittance writer (package cnab/pagamento) reads
// CPF/CNPJ and dates exactly as the collection writers do.

// BareDocument is a CPF or CNPJ as an input writes it, bare (its digits
// and upper-cased letters); pix.ValidTaxID judges it.
func BareDocument(s string) string { return bareDocument(s) }

// OnlyDigits drops everything but ASCII digits, so that "01310-200" and
// "01310200" are the same postcode.
func OnlyDigits(s string) string { return onlyDigits(s) }

// ValidDate reports whether d is a real date between 2000 and 2099, the
// dates a CNAB file can carry.
func ValidDate(d Date) bool { return d.valid() }
