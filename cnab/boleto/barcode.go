package boleto

import (
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"
)

const (
	barcodeLen   = 44
	lineLen      = 47
	freeFieldLen = 25
	// MaxAmount is the largest amount in cents a barcode can carry in its
	// 10-digit amount field: R$ 99.999.999,99.
	MaxAmount = 9_999_999_999
	// currencyReal is the currency code of the real.
	currencyReal = '9'
)

// Barcode is a valid 44-digit boleto barcode (código de barras):
//
//	positions  1-3   bank code
//	           4     currency code, 9 for the real
//	           5     general check digit, modulo 11
//	           6-9   due-date factor
//	          10-19  amount in cents
//	          20-44  free field, defined by the bank
//
// The zero Barcode is not valid; obtain one from New, Assemble, ParseBarcode
// or ParseLine.
type Barcode struct {
	d [barcodeLen]byte
}

// New builds the barcode of a title: the beneficiary's bank, the nosso
// número from NewNossoNumero, the amount in cents (0 for a slip whose amount
// is filled in at payment) and the due date (the zero time for a slip
// without one). An error is a *FieldError naming the field.
func New(b Beneficiary, nn NossoNumero, amount int64, due time.Time) (Barcode, error) {
	if amount < 0 || amount > MaxAmount {
		return Barcode{}, fieldErr(b.Bank, "Amount", strconv.FormatInt(amount, 10), "must be from 0 to %d cents", int64(MaxAmount))
	}
	factor, err := Factor(due)
	if err != nil {
		return Barcode{}, err
	}
	free, err := FreeField(b, nn, amount)
	if err != nil {
		return Barcode{}, err
	}
	return Assemble(b.Bank, factor, amount, free)
}

// Assemble builds a barcode from its parts: a 3-digit bank code, the
// due-date factor (0 or 1000-9999), the amount in cents and the 25-digit
// free field. It computes the general check digit.
func Assemble(bank string, factor int, amount int64, freeField string) (Barcode, error) {
	var bc Barcode
	switch {
	case len(bank) != 3 || !isDigits(bank):
		return bc, fieldErr(bank, "Bank", bank, "must be 3 digits")
	case factor != 0 && (factor < factorMin || factor > factorMax):
		return bc, fieldErr(bank, "Factor", strconv.Itoa(factor), "must be 0 or from 1000 to 9999")
	case amount < 0 || amount > MaxAmount:
		return bc, fieldErr(bank, "Amount", strconv.FormatInt(amount, 10), "must be from 0 to %d cents", int64(MaxAmount))
	case len(freeField) != freeFieldLen || !isDigits(freeField):
		return bc, fieldErr(bank, "FreeField", freeField, "must be 25 digits")
	}
	d := bc.d[:]
	copy(d[0:3], bank)
	d[3] = currencyReal
	putDigits(d[5:9], int64(factor))
	putDigits(d[9:19], amount)
	copy(d[19:44], freeField)
	d[4] = byte('0' + generalCheckDigit(&bc.d))
	return bc, nil
}

// putDigits writes n zero-padded into dst.
func putDigits(dst []byte, n int64) {
	for i := len(dst) - 1; i >= 0; i-- {
		dst[i] = byte('0' + n%10)
		n /= 10
	}
}

// generalCheckDigit is the barcode's check digit (position 5): modulo 11
// with weights 2 to 9 over the other 43 digits; a result of 0, 10 or 11 is 1.
func generalCheckDigit(d *[barcodeLen]byte) int {
	sum, weight := 0, 2
	for i := barcodeLen - 1; i >= 0; i-- {
		if i == 4 {
			continue
		}
		sum += int(d[i]-'0') * weight
		if weight++; weight > 9 {
			weight = 2
		}
	}
	dv := 11 - sum%11
	if dv == 0 || dv == 10 || dv == 11 {
		return 1
	}
	return dv
}

// String returns the 44 digits.
func (b Barcode) String() string { return string(b.d[:]) }

// Bank returns the 3-digit bank code.
func (b Barcode) Bank() string { return string(b.d[0:3]) }

// CheckDigit returns the general check digit.
func (b Barcode) CheckDigit() int { return int(b.d[4] - '0') }

// Factor returns the due-date factor, 0 for a slip without a due date.
func (b Barcode) Factor() int { return int(atoi(b.d[5:9])) }

// Amount returns the amount in cents, 0 when it is filled in at payment.
func (b Barcode) Amount() int64 { return atoi(b.d[9:19]) }

// FreeField returns the 25-digit free field.
func (b Barcode) FreeField() string { return string(b.d[19:44]) }

// DueDate returns the due date by FactorDate: the one date with the
// barcode's factor in the window around ref (normally today). It returns
// false for a slip without a due date or a factor outside the window.
func (b Barcode) DueDate(ref time.Time) (time.Time, bool) {
	return FactorDate(b.Factor(), ref)
}

func atoi(d []byte) int64 {
	var n int64
	for _, c := range d {
		n = n*10 + int64(c-'0')
	}
	return n
}

// Line returns the 47-digit digitable line (linha digitável), digits only:
//
//	field 1: bank, currency, free field 1-5, modulo 10 check digit
//	field 2: free field 6-15, modulo 10 check digit
//	field 3: free field 16-25, modulo 10 check digit
//	field 4: the general check digit
//	field 5: due-date factor and amount
func (b Barcode) Line() string {
	var l [lineLen]byte
	b.putLine(&l)
	return string(l[:])
}

// FormattedLine returns the digitable line as printed on the slip:
// "AAABC.CCCCX DDDDD.DDDDDY EEEEE.EEEEEZ K UUUUVVVVVVVVVV".
func (b Barcode) FormattedLine() string {
	var l [lineLen]byte
	b.putLine(&l)
	out := make([]byte, 0, lineLen+7)
	out = append(out, l[0:5]...)
	out = append(out, '.')
	out = append(out, l[5:10]...)
	out = append(out, ' ')
	out = append(out, l[10:15]...)
	out = append(out, '.')
	out = append(out, l[15:21]...)
	out = append(out, ' ')
	out = append(out, l[21:26]...)
	out = append(out, '.')
	out = append(out, l[26:32]...)
	out = append(out, ' ', l[32], ' ')
	out = append(out, l[33:47]...)
	return string(out)
}

func (b Barcode) putLine(l *[lineLen]byte) {
	d := &b.d
	copy(l[0:4], d[0:4])
	copy(l[4:9], d[19:24])
	l[9] = byte('0' + mod10(string(l[0:9])))
	copy(l[10:20], d[24:34])
	l[20] = byte('0' + mod10(string(l[10:20])))
	copy(l[21:31], d[34:44])
	l[31] = byte('0' + mod10(string(l[21:31])))
	l[32] = d[4]
	copy(l[33:47], d[5:19])
}

// lineFields are the digitable line's three checked fields: the digits'
// range and the check digit's position.
var lineFields = [3]struct{ start, end int }{{0, 9}, {10, 20}, {21, 31}}

// ParseBarcode reads a 44-digit barcode. Spaces and punctuation are
// ignored; any other non-digit character, a length other than 44, a
// currency other than 9 or a wrong general check digit is an error that
// says which.
func ParseBarcode(s string) (Barcode, error) {
	var bc Barcode
	n, err := collectDigits(s, bc.d[:], "barcode")
	if err != nil {
		return Barcode{}, err
	}
	if n != barcodeLen {
		return Barcode{}, fmt.Errorf("barcode has %d digits, want 44: %w", n, ErrLength)
	}
	if err := bc.check("barcode"); err != nil {
		return Barcode{}, err
	}
	return bc, nil
}

// ParseLine reads a 47-digit digitable line and returns its barcode. Spaces
// and punctuation are ignored; any other non-digit character, a length
// other than 47, a wrong field check digit, a currency other than 9 or a
// wrong general check digit is an error that says which.
func ParseLine(s string) (Barcode, error) {
	var l [lineLen]byte
	n, err := collectDigits(s, l[:], "digitable line")
	if err != nil {
		return Barcode{}, err
	}
	if n != lineLen {
		return Barcode{}, fmt.Errorf("digitable line has %d digits, want 47: %w", n, ErrLength)
	}
	for i, f := range lineFields {
		want := byte('0' + mod10(string(l[f.start:f.end])))
		if got := l[f.end]; got != want {
			return Barcode{}, fmt.Errorf("digitable line field %d check digit (position %d) is %c, want %c: %w",
				i+1, f.end+1, got, want, ErrCheckDigit)
		}
	}
	var bc Barcode
	d := &bc.d
	copy(d[0:4], l[0:4])
	d[4] = l[32]
	copy(d[5:19], l[33:47])
	copy(d[19:24], l[4:9])
	copy(d[24:34], l[10:20])
	copy(d[34:44], l[21:31])
	if err := bc.check("digitable line"); err != nil {
		return Barcode{}, err
	}
	return bc, nil
}

// check validates the currency and the general check digit.
func (b *Barcode) check(what string) error {
	if b.d[0] == '8' {
		return fmt.Errorf("%s starts with 8: a utility or tax collection (arrecadação) code, not a boleto: %w", what, ErrInvalid)
	}
	if b.d[3] != currencyReal {
		return fmt.Errorf("%s currency code is %c, want 9 (real): %w", what, b.d[3], ErrInvalid)
	}
	if want := byte('0' + generalCheckDigit(&b.d)); b.d[4] != want {
		return fmt.Errorf("%s general check digit is %c, want %c: %w", what, b.d[4], want, ErrCheckDigit)
	}
	if f := b.Factor(); f != 0 && f < factorMin {
		return fmt.Errorf("%s due-date factor %04d is neither 0 nor from 1000 to 9999: %w", what, f, ErrInvalid)
	}
	return nil
}

// collectDigits copies the digits of s into dst, skipping spaces and
// punctuation, and returns how many digits s has (possibly more than
// len(dst)).
func collectDigits(s string, dst []byte, what string) (int, error) {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			if n < len(dst) {
				dst[n] = c
			}
			n++
		case isSeparator(c):
		default:
			r, _ := utf8.DecodeRuneInString(s[i:])
			return 0, fmt.Errorf("%s has %q at byte %d, want digits, spaces or punctuation: %w", what, r, i+1, ErrCharacter)
		}
	}
	return n, nil
}

// isSeparator reports whether c is an ASCII space or punctuation character.
func isSeparator(c byte) bool {
	switch {
	case c == ' ', c == '\t', c == '\n', c == '\r':
		return true
	case c >= '!' && c <= '/', c >= ':' && c <= '@', c >= '[' && c <= '`', c >= '{' && c <= '~':
		return true
	}
	return false
}
