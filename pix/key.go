package pix

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// KeyType is the kind of a PIX key (chave) in a static payload.
type KeyType string

// PIX key types, as the DICT (the PIX key directory) defines them.
const (
	KeyCPF   KeyType = "cpf"   // 11 digits, check digits valid
	KeyCNPJ  KeyType = "cnpj"  // 14 characters, 12 letters or digits then 2 check digits
	KeyEmail KeyType = "email" // address, at most 77 characters
	KeyPhone KeyType = "phone" // +55, area code, 9-digit mobile number
	KeyEVP   KeyType = "evp"   // random key: a UUID
)

// CheckKey tells the type of a PIX key written as a payload carries it
// (no punctuation in CPF and CNPJ, +55 before a phone), or why it is not
// one. The error is a [Problems] with field "key".
func CheckKey(key string) (KeyType, error) {
	kt, probs := checkKey(key)
	return kt, probs.Err()
}

func keyProblem(code, msg string, args ...any) (KeyType, Problems) {
	return "", Problems{{Code: code, Field: FieldKey, Message: "key (26.01) " + fmt.Sprintf(msg, args...)}}
}

func checkKey(key string) (KeyType, Problems) {
	if n := utf8.RuneCountInString(key); n > maxKey {
		return keyProblem(CodeTooLong, "has %d characters; at most %d are allowed", n, maxKey)
	}
	switch {
	case strings.HasPrefix(key, "+"):
		if !isMobile(key) {
			return keyProblem(CodeInvalidKey,
				"%q is not a phone key: +55, a two-digit area code and a nine-digit mobile number starting with 9", key)
		}
		return KeyPhone, nil
	case strings.Contains(key, "@"):
		if !isEmail(key) {
			return keyProblem(CodeInvalidKey, "%q is not a valid e-mail key", key)
		}
		return KeyEmail, nil
	case len(key) == 36 && key[8] == '-':
		if !isUUID(key) {
			return keyProblem(CodeInvalidKey,
				"%q is not a valid random key: 8-4-4-4-12 hexadecimal digits separated by hyphens", key)
		}
		return KeyEVP, nil
	case len(key) == 11 && allDigits(key):
		if !validCPF(key) {
			return keyProblem(CodeKeyCheckDigit, "%q is not a valid CPF: its check digits are wrong", key)
		}
		return KeyCPF, nil
	case len(key) == 14 && isCNPJShape(key):
		if !validCNPJ(key) {
			return keyProblem(CodeKeyCheckDigit, "%q is not a valid CNPJ: its check digits are wrong", key)
		}
		return KeyCNPJ, nil
	}
	return keyProblem(CodeInvalidKey,
		"%q is none of the PIX key formats: CPF (11 digits), CNPJ (14 characters), e-mail, +55 mobile phone or random key",
		key)
}

// isMobile: +55, area code 11 to 99 without a zero digit, 9 digits
// starting with 9.
func isMobile(k string) bool {
	return len(k) == 14 && strings.HasPrefix(k, "+55") && allDigits(k[3:]) &&
		k[3] != '0' && k[4] != '0' && k[5] == '9'
}

// isEmail follows the DICT pattern: local part of letters, digits and
// .!#$&'*+/=?^_`{|}~-, an @, then domain labels of letters, digits and
// hyphens separated by dots. Upper case is accepted.
func isEmail(k string) bool {
	local, domain, ok := strings.Cut(k, "@")
	if !ok || local == "" || domain == "" {
		return false
	}
	for i := 0; i < len(local); i++ {
		if !emailLocal[local[i]] {
			return false
		}
	}
	label := 0 // length of the current domain label
	for i := 0; i < len(domain); i++ {
		switch c := domain[i]; {
		case c == '.':
			if label == 0 {
				return false
			}
			label = 0
		case isAlnum(rune(c)) || c == '-':
			label++
		default:
			return false
		}
	}
	return label > 0
}

// emailLocal marks the bytes allowed in an e-mail key's local part.
var emailLocal = func() (t [256]bool) {
	for c := range 128 {
		t[c] = isAlnum(rune(c)) || strings.ContainsRune(".!#$&'*+/=?^_`{|}~-", rune(c))
	}
	return t
}()

func isUUID(k string) bool {
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// validCPF checks the two check digits (modulo 11) of an 11-digit CPF and
// refuses the repeated-digit numbers that pass the arithmetic but are not
// issued.
func validCPF(cpf string) bool {
	if strings.Count(cpf, cpf[:1]) == len(cpf) {
		return false
	}
	return cpf[9] == mod11Digit(cpf[:9], 10) && cpf[10] == mod11Digit(cpf[:10], 11)
}

// mod11Digit is a CPF check digit: weights from first down to 2.
func mod11Digit(s string, first int) byte {
	sum := 0
	for i := 0; i < len(s); i++ {
		sum += int(s[i]-'0') * (first - i)
	}
	return checkDigit(sum)
}

func checkDigit(sum int) byte {
	r := sum % 11
	if r < 2 {
		return '0'
	}
	return byte('0' + 11 - r)
}

// isCNPJShape: 12 upper-case letters or digits, then 2 digits. Letters
// are allowed by the alphanumeric CNPJ (Receita Federal, IN RFB 2.229/2024).
func isCNPJShape(k string) bool {
	for i := 0; i < 12; i++ {
		if !isDigit(k[i]) && !('A' <= k[i] && k[i] <= 'Z') {
			return false
		}
	}
	return isDigit(k[12]) && isDigit(k[13])
}

// validCNPJ checks the two modulo-11 check digits; each character counts
// as its ASCII code minus 48, so digits keep their value and A is 17.
func validCNPJ(cnpj string) bool {
	if strings.Count(cnpj, cnpj[:1]) == len(cnpj) {
		return false
	}
	return cnpj[12] == cnpjDigit(cnpj[:12]) && cnpj[13] == cnpjDigit(cnpj[:13])
}

func cnpjDigit(s string) byte {
	sum := 0
	weight := len(s) - 7 // 5 for the first digit, 6 for the second
	for i := 0; i < len(s); i++ {
		sum += int(s[i]-'0') * weight
		weight--
		if weight < 2 {
			weight = 9
		}
	}
	return checkDigit(sum)
}
