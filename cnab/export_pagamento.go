package cnab

// Small exported wrappers over this package's text and document rules, so
// that the payment remittance writer (package cnab/pagamento) formats
// names and checks CPF/CNPJ exactly as the collection writers do.

// PutText writes s into dst as upper-case ASCII, left-aligned and padded
// with spaces, transliterating accented letters (Ç becomes C, Ã becomes
// A) and replacing characters banks do not accept by a space. It reports
// whether s did not fit (the excess is dropped) and whether a character
// had to be replaced.
func PutText(dst []byte, s string) (truncated, replaced bool) { return putText(dst, s) }

// ValidDocument reports whether doc, digits only, is a CPF (11 digits) or
// a CNPJ (14 digits) with correct check digits.
func ValidDocument(doc string) bool { return validDocument(doc) }

// OnlyDigits drops everything but ASCII digits, so that "123.456.789-09"
// and "12345678909" are the same document.
func OnlyDigits(s string) string { return onlyDigits(s) }

// ValidDate reports whether d is a real date between 2000 and 2099, the
// dates a CNAB file can carry.
func ValidDate(d Date) bool { return d.valid() }
