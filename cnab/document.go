package cnab

// validDocument reports whether doc is a CPF (11 digits) or a CNPJ (14
// digits) with correct check digits. Banks reject a payer or beneficiary
// whose document fails its check digits.
func validDocument(doc string) bool {
	for i := 0; i < len(doc); i++ {
		if doc[i] < '0' || doc[i] > '9' {
			return false
		}
	}
	switch len(doc) {
	case 11:
		return allSame(doc) == false &&
			cpfDigit(doc[:9], 10) == doc[9]-'0' && cpfDigit(doc[:10], 11) == doc[10]-'0'
	case 14:
		return allSame(doc) == false &&
			cnpjDigit(doc[:12]) == doc[12]-'0' && cnpjDigit(doc[:13]) == doc[13]-'0'
	}
	return false
}

func allSame(s string) bool {
	for i := 1; i < len(s); i++ {
		if s[i] != s[0] {
			return false
		}
	}
	return true
}

// cpfDigit weighs the digits with first, first-1, ... 2.
func cpfDigit(d string, first int) byte {
	sum := 0
	for i := 0; i < len(d); i++ {
		sum += int(d[i]-'0') * (first - i)
	}
	r := sum * 10 % 11
	if r == 10 {
		r = 0
	}
	return byte(r)
}

// cnpjDigit weighs the digits from the right with 2..9, repeated.
func cnpjDigit(d string) byte {
	sum, w := 0, 2
	for i := len(d) - 1; i >= 0; i-- {
		sum += int(d[i]-'0') * w
		w++
		if w > 9 {
			w = 2
		}
	}
	r := sum % 11
	if r < 2 {
		return 0
	}
	return byte(11 - r)
}

// onlyDigits drops everything but ASCII digits, so that "123.456.789-09"
// and "12345678909" are the same document.
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
