package pix

import (
	"strings"
	"testing"
)

func TestCheckKey(t *testing.T) {
	t.Parallel()
	valid := map[string]KeyType{
		"12345678909":                          KeyCPF,  // Receita Federal's sample CPF
		"52998224725":                          KeyCPF,  // another valid CPF
		"00038166000105":                       KeyCNPJ, // CNPJ of the Banco Central do Brasil
		"12ABC34501DE35":                       KeyCNPJ, // Receita Federal's alphanumeric CNPJ example
		"+5561912345678":                       KeyPhone,
		"+5573988899345":                       KeyPhone,
		"fulano@example.com":                   KeyEmail,
		"pix@bcb.gov.br":                       KeyEmail,
		"Fulano.Tal+pix@Example.COM":           KeyEmail,
		"a@localhost":                          KeyEmail, // the DICT pattern needs no dot in the domain
		strings.Repeat("a", 67) + "@gmail.com": KeyEmail, // 77 characters
		"123e4567-e12b-12d1-a456-426655440000": KeyEVP,
		"C4249323-B4CA-43F2-8139-8232AAB09B93": KeyEVP,
	}
	for key, want := range valid {
		got, err := CheckKey(key)
		if err != nil || got != want {
			t.Errorf("CheckKey(%q) = %q, %v; want %q", key, got, err, want)
		}
	}
	invalid := map[string]string{
		"12345678900":                          CodeKeyCheckDigit, // first check digit wrong
		"12345678901":                          CodeKeyCheckDigit, // second check digit wrong
		"11111111111":                          CodeKeyCheckDigit, // passes the arithmetic, never issued
		"00000000000":                          CodeKeyCheckDigit,
		"00038166000106":                       CodeKeyCheckDigit,
		"12ABC34501DE36":                       CodeKeyCheckDigit,
		"00000000000000":                       CodeKeyCheckDigit,
		"123.456.789-09":                       CodeInvalidKey, // punctuation is not written in a payload
		"1234567890":                           CodeInvalidKey, // 10 digits
		"123456789012":                         CodeInvalidKey, // 12 digits
		"12abc34501de35":                       CodeInvalidKey, // CNPJ letters are upper case
		"12ABC34501DEAB":                       CodeInvalidKey, // CNPJ check digits are digits
		"+5511843214321":                       CodeInvalidKey, // not a mobile number (no leading 9)
		"+551194321432":                        CodeInvalidKey, // 8-digit number
		"+5501943214321":                       CodeInvalidKey, // area code with a zero
		"+14155552671":                         CodeInvalidKey, // not Brazil
		"5561912345678":                        CodeInvalidKey, // phone without +
		"+55 61 91234-5678":                    CodeInvalidKey,
		"fulano@":                              CodeInvalidKey,
		"@example.com":                         CodeInvalidKey,
		"fulano gmail.com":                     CodeInvalidKey,
		"fulano@@gmail.com":                    CodeInvalidKey,
		"fulano@gmail..com":                    CodeInvalidKey,
		"fulano@gmail.com.":                    CodeInvalidKey,
		"ação@gmail.com":                       CodeInvalidKey,
		"fulano(x)@gmail.com":                  CodeInvalidKey,
		"123g4567-e12b-12d1-a456-426655440000": CodeInvalidKey,
		"123e4567-e12b-12d1-a456_426655440000": CodeInvalidKey,
		"123e4567e12b12d1a456426655440000":     CodeInvalidKey, // hyphens are part of the format
		"fulano":                               CodeInvalidKey,
		"":                                     CodeInvalidKey,
		strings.Repeat("a", 68) + "@gmail.com": CodeTooLong, // 78 characters
	}
	for key, code := range invalid {
		got, err := CheckKey(key)
		probs, ok := err.(Problems)
		if got != "" || !ok || len(probs) != 1 || probs[0].Code != code || probs[0].Field != FieldKey {
			t.Errorf("CheckKey(%q) = %q, %v; want one %s problem on key", key, got, err, code)
		}
	}
}
