package cnab

// Small exported wrappers over this package's document and date rules, so
// that the payment remittance writer (package cnab/pagamento) checks
// CPF/CNPJ and dates exactly as the collection writers do.

// ValidDocument reports whether doc, digits only, is a CPF (11 digits) or
// a CNPJ (14 digits) with correct check digits.
func ValidDocument(doc string) bool { return validDocument(doc) }

// OnlyDigits drops everything but ASCII digits, so that "123.456.789-09"
// and "12345678909" are the same document.
func OnlyDigits(s string) string { return onlyDigits(s) }

// ValidDate reports whether d is a real date between 2000 and 2099, the
// dates a CNAB file can carry.
func ValidDate(d Date) bool { return d.valid() }
