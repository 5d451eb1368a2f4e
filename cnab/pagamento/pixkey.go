package pagamento

import (
	"github.com/propfin/propfin/pix"

	"strings"

	"github.com/propfin/propfin/cnab"
)

// checkKey checks a PIX key against its type (the formats of the BCB's
// DICT) and keeps it in the form written to the file.
func checkKey(s *state) {
	key := strings.TrimSpace(s.p.PIXKey)
	if key == "" {
		s.Fail("pix_key", "required for a PIX by key")
		return
	}
	var ok bool
	switch s.p.PIXKeyType {
	case KeyPhone:
		ok = validPhone(key)
	case KeyEmail:
		ok = validEmail(key)
		key = strings.ToLower(key)
	case KeyDocument:
		key = cnab.BareDocument(key)
		ok = pix.ValidTaxID(key)
		if ok && key != s.benefDoc {
			// Only the holder of a CPF or CNPJ can register it as a key,
			// so the money goes to that holder whatever the file says;
			// Santander refuses the file when the two differ.
			s.Fail("pix_key", "a CPF/CNPJ key belongs to its holder: it must be beneficiary.document")
			return
		}
	case KeyRandom:
		key = strings.ToLower(key)
		ok = validUUID(key)
	case "":
		s.Fail("pix_key_type", "required: phone, email, document or random")
		return
	default:
		s.Fail("pix_key_type", "want phone, email, document or random")
		return
	}
	if !ok {
		s.Fail("pix_key", "not a valid "+string(s.p.PIXKeyType)+" key")
		return
	}
	s.pixKey = key
}

// validPhone accepts a mobile number, the only kind the DICT registers:
// +55, a two-digit area code (11 to 99, none ending in 0) and nine digits
// starting with 9 (Itaú's
// SISPAG note 40: "número de celular com nove dígitos").
func validPhone(k string) bool {
	rest, ok := strings.CutPrefix(k, "+55")
	return ok && len(rest) == 11 && isDigits(rest) && rest[0] != '0' && rest[1] != '0' && rest[2] == '9'
}

// validEmail accepts up to 77 printable ASCII characters with one @ that
// is neither first nor last. Only ASCII fits the file's character set.
func validEmail(k string) bool {
	if len(k) > 77 {
		return false
	}
	at := strings.IndexByte(k, '@')
	if at <= 0 || at == len(k)-1 || strings.Count(k, "@") != 1 {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] <= ' ' || k[i] >= 0x7f {
			return false
		}
	}
	return true
}

// validUUID accepts the 8-4-4-4-12 hexadecimal form of a random key.
func validUUID(k string) bool {
	if len(k) != 36 {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
				return false
			}
		}
	}
	return true
}
