package cnab

// A payer's and a beneficiary's CPF or CNPJ are held to the one rule of
// propfin, pix.ValidTaxID: 11 digits for a CPF, 14 letters or digits for a
// CNPJ (the alphanumeric CNPJ of IN RFB 2.229/2024 included, written in
// the document fields right-aligned and zero-padded as digits are), with
// right check digits. Banks reject a payer or beneficiary whose document
// fails its check digits.

// bareDocument is a CPF or CNPJ as an input writes it, bare: its ASCII
// digits and letters (upper-cased), the punctuation people write dropped,
// so that "123.456.789-09" is 12345678909 and "12.abc.345/01de-35" is
// 12ABC34501DE35.
func bareDocument(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case '0' <= c && c <= '9', 'A' <= c && c <= 'Z':
			b = append(b, c)
		case 'a' <= c && c <= 'z':
			b = append(b, c-'a'+'A')
		}
	}
	return string(b)
}

// onlyDigits drops everything but ASCII digits, so that "01310-200" and
// "01310200" are the same postcode.
func onlyDigits(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			b := make([]byte, 0, len(s))
			for j := 0; j < len(s); j++ {
				if s[j] >= '0' && s[j] <= '9' {
					b = append(b, s[j])
				}
			}
			return string(b)
		}
	}
	return s
}
