package boleto

// mod10 is the FEBRABAN modulo 10 sum used by the digitable line fields and
// by several banks' check digits: from the rightmost digit leftwards the
// weights alternate 2, 1, 2, 1, ...; a product of two digits counts as the
// sum of its digits. It returns the remainder of the sum by 10.
func mod10Sum(digits string) int {
	sum, weight := 0, 2
	for i := len(digits) - 1; i >= 0; i-- {
		p := int(digits[i]-'0') * weight
		if p > 9 {
			p -= 9
		}
		sum += p
		weight ^= 3 // 2 -> 1 -> 2
	}
	return sum % 10
}

// mod10 returns the modulo 10 check digit: 10 minus the remainder, 0 when
// the remainder is 0.
func mod10(digits string) int {
	r := mod10Sum(digits)
	if r == 0 {
		return 0
	}
	return 10 - r
}

// mod11Sum weighs the digits from the rightmost leftwards with 2, 3, ...,
// maxWeight, then 2 again, and returns the remainder of the sum by 11.
func mod11Sum(digits string, maxWeight int) int {
	sum, weight := 0, 2
	for i := len(digits) - 1; i >= 0; i-- {
		sum += int(digits[i]-'0') * weight
		weight++
		if weight > maxWeight {
			weight = 2
		}
	}
	return sum % 11
}

// mod11Weights weighs the digits from the leftmost rightwards with the
// given weights, repeated, and returns the remainder of the sum by 11.
func mod11Weights(digits string, weights []int) int {
	sum := 0
	for i := 0; i < len(digits); i++ {
		sum += int(digits[i]-'0') * weights[i%len(weights)]
	}
	return sum % 11
}

// isDigits reports whether s is non-empty and made of ASCII digits only.
func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
