package pix

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Field limits, in characters (EMV QRCPS-MPM data object formats, as
// adopted by the BCB BR Code manual and the PIX manual).
const (
	maxKey         = 77 // 26.01 chave
	maxURL         = 77 // 26.25 url
	maxAmount      = 13 // 54
	maxName        = 25 // 59
	maxCity        = 15 // 60
	maxPostalCode  = 10 // 61
	maxTxID        = 25 // 62.05
	maxTemplate    = 99 // any template's value
	noTxID         = "***"
	currencyBRL    = "986"
	countryBrazil  = "BR"
	formatVersion1 = "01"
)

// checker collects the parsed payload and its problems.
type checker struct {
	p        Payload
	probs    Problems
	seen     [100]bool // top-level IDs read
	repeated [100]bool // top-level IDs reported as duplicate
	complete bool      // the structure was read to its end
	crcPos   int       // byte offset of object 63's ID
	crcLast  bool      // object 63 was read and nothing follows it
	ascii    bool      // the payload is all ASCII: characters are bytes
	base     int       // characters trimmed before the payload, for positions
	hasTxID  bool      // 62.05 was read
	// brokenAccount and brokenAdditional: the PIX template or template 62
	// could not be read to its end, so what it lacks is not reported.
	brokenAccount, brokenAdditional bool
}

func (c *checker) add(code, field, msg string) {
	c.probs = append(c.probs, Problem{Code: code, Field: field, Message: msg})
}

// chars counts the characters of s.
func (c *checker) chars(s string) int {
	if c.ascii {
		return len(s)
	}
	return utf8.RuneCountInString(s)
}

func (c *checker) checkLength(payload string) {
	c.ascii = isASCII(payload)
	if n := c.chars(payload); n > MaxLength {
		c.add(CodeTooLong, FieldPayload, fmt.Sprintf(
			"the payload has %d characters; at most %d are allowed", n, MaxLength))
	}
}

// checkContent checks the values read. A field is reported missing only
// when the whole structure could be read: otherwise it may be in the part
// that could not.
func (c *checker) checkContent(payload string) {
	p := &c.p
	c.fixed(0, FieldPayloadFormat, "payload format indicator (00)", p.FormatIndicator, formatVersion1)
	if v := p.PointOfInitiation; v != "" && v != InitiationStatic && v != InitiationDynamic {
		c.add(CodeInvalidValue, FieldPointOfInitiation, fmt.Sprintf(
			"point of initiation method (01) must be 11 (static) or 12 (dynamic), not %q", v))
	}
	c.checkAccount()
	if c.present(52, FieldMCC, "merchant category code (52)") && p.MCC != "" && !(len(p.MCC) == 4 && allDigits(p.MCC)) {
		c.add(CodeInvalidValue, FieldMCC, fmt.Sprintf(
			"merchant category code (52) must be four digits, such as 0000, not %q", p.MCC))
	}
	c.fixed(53, FieldCurrency, "transaction currency (53)", p.Currency, currencyBRL)
	if p.Amount != "" {
		if msg := checkAmount(p.Amount); msg != "" {
			c.add(CodeInvalidAmount, FieldAmount, "transaction amount (54) "+msg)
		}
	}
	c.fixed(58, FieldCountry, "country code (58)", p.Country, countryBrazil)
	if c.present(59, FieldMerchantName, "merchant name (59)") {
		c.text(FieldMerchantName, "merchant name (59)", p.MerchantName, maxName)
	}
	if c.present(60, FieldMerchantCity, "merchant city (60)") {
		c.text(FieldMerchantCity, "merchant city (60)", p.MerchantCity, maxCity)
	}
	if p.PostalCode != "" {
		c.text(FieldPostalCode, "postal code (61)", p.PostalCode, maxPostalCode)
	}
	c.checkTxID()
	for _, o := range p.AdditionalData {
		c.text("62."+o.ID, "object 62."+o.ID, o.Value, maxTemplate)
	}
	for _, o := range p.Other {
		if o.ID != "64" { // the language template exists to carry other alphabets
			c.text(o.ID, "object "+o.ID, o.Value, maxTemplate)
		}
	}
	c.checkCRC(payload)
}

// present reports whether a mandatory top-level object was read, and
// reports it missing when the structure was complete.
func (c *checker) present(id int, field, name string) bool {
	if c.seen[id] {
		return true
	}
	if c.complete {
		c.add(CodeMissing, field, name+" is missing")
	}
	return false
}

func (c *checker) fixed(id int, field, name, value, want string) {
	if !c.present(id, field, name) {
		return
	}
	if value != want && value != "" { // "" was reported as empty_value
		c.add(CodeInvalidValue, field, fmt.Sprintf("%s must be %q, not %q", name, want, value))
	}
}

// text checks a free-text field: length in characters and character set.
func (c *checker) text(field, name, value string, limit int) {
	if n := c.chars(value); n > limit {
		c.add(CodeTooLong, field, fmt.Sprintf("%s has %d characters; at most %d are allowed", name, n, limit))
	}
	c.charset(field, name, value)
}

// charset reports a character outside the EMV common character set.
func (c *checker) charset(field, name, value string) {
	if at, r, ok := commonCharset(value); !ok {
		c.add(CodeCharset, field, fmt.Sprintf(
			"%s has %q at character %d; only the EMV common character set (printable ASCII, no accents) is allowed",
			name, r, at))
	}
}

func (c *checker) checkAccount() {
	a := &c.p.Account
	if a.ID == "" {
		if c.complete {
			c.add(CodeNoPixAccount, FieldMerchantAccount,
				"no merchant account template (26 to 51) carries the PIX GUI br.gov.bcb.pix")
		}
		return
	}
	switch {
	case c.brokenAccount:
	case a.Key != "" && a.URL != "":
		c.add(CodeKeyAndURL, FieldMerchantAccount,
			"the PIX template has both a key (01, static) and a location URL (25, dynamic); it must have one")
	case a.Key == "" && a.URL == "":
		c.add(CodeNoKeyOrURL, FieldMerchantAccount,
			"the PIX template has neither a key (01, static) nor a location URL (25, dynamic)")
	}
	if a.Key != "" {
		kt, probs := checkKey(a.Key)
		c.probs = append(c.probs, probs...)
		a.KeyType = kt
	}
	if a.Description != "" {
		c.text(FieldDescription, "description (26.02)", a.Description, maxTemplate)
	}
	if a.URL != "" {
		c.probs = append(c.probs, checkURL(a.URL)...)
	}
	for _, o := range a.Other {
		c.text(a.ID+"."+o.ID, "object "+a.ID+"."+o.ID, o.Value, maxTemplate)
	}
}

func checkURL(u string) Problems {
	var probs Problems
	if n := utf8.RuneCountInString(u); n > maxURL {
		probs = append(probs, Problem{CodeTooLong, FieldURL, fmt.Sprintf(
			"location URL (26.25) has %d characters; at most %d are allowed", n, maxURL)})
	}
	if hasPrefixFold(u, "https://") || hasPrefixFold(u, "http://") {
		probs = append(probs, Problem{CodeInvalidURL, FieldURL,
			"location URL (26.25) is written without its scheme: drop the leading https://"})
	}
	if at, r, ok := urlCharset(u); !ok {
		probs = append(probs, Problem{CodeCharset, FieldURL, fmt.Sprintf(
			"location URL (26.25) has %q at character %d; a URL holds printable ASCII without spaces", r, at)})
	}
	return probs
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

func urlCharset(u string) (int, rune, bool) {
	if at, r, ok := commonCharset(u); !ok {
		return at, r, false
	}
	if i := strings.IndexByte(u, ' '); i >= 0 {
		return i + 1, ' ', false
	}
	return 0, 0, true
}

func (c *checker) checkTxID() {
	if !c.hasTxID {
		if c.complete && !c.brokenAdditional && !c.probs.Has(CodeEmptyValue, FieldAdditionalData) {
			c.add(CodeMissing, FieldTxID,
				"the txid (62.05) is missing; write *** when there is none")
		}
		return
	}
	c.probs = append(c.probs, checkTxID(c.p.TxID)...)
}

func checkTxID(t string) Problems {
	if t == noTxID {
		return nil
	}
	var probs Problems
	if n := utf8.RuneCountInString(t); n > maxTxID {
		probs = append(probs, Problem{CodeTooLong, FieldTxID, fmt.Sprintf(
			"txid (62.05) has %d characters; at most %d are allowed", n, maxTxID)})
	}
	for i, r := range t {
		if !isAlnum(r) {
			probs = append(probs, Problem{CodeCharset, FieldTxID, fmt.Sprintf(
				"txid (62.05) has %q at character %d; only letters A-Z, a-z and digits 0-9 are allowed, or *** alone",
				r, utf8.RuneCountInString(t[:i])+1)})
			break
		}
	}
	return probs
}

func isAlnum(r rune) bool {
	return '0' <= r && r <= '9' || 'A' <= r && r <= 'Z' || 'a' <= r && r <= 'z'
}

// checkAmount returns why an amount is invalid, or "".
func checkAmount(a string) string {
	if n := utf8.RuneCountInString(a); n > maxAmount {
		return fmt.Sprintf("has %d characters; at most %d are allowed", n, maxAmount)
	}
	whole, frac, hasDot := strings.Cut(a, ".")
	if !allDigits(whole) || hasDot && frac != "" && (!allDigits(frac) || len(frac) > 2) {
		return fmt.Sprintf("must be digits with a dot before at most two decimals, such as 1234.50, not %q", a)
	}
	if strings.IndexFunc(a, func(r rune) bool { return '1' <= r && r <= '9' }) < 0 {
		return "must be greater than zero; leave it out to let the payer type the amount"
	}
	return ""
}

func (c *checker) checkCRC(payload string) {
	if !c.seen[63] {
		if c.complete {
			c.add(CodeMissing, FieldCRC, "the CRC (63) is missing; it must be the last object")
		}
		return
	}
	if c.p.CRC == "" || !c.crcLast {
		return // empty_value or after_crc was reported
	}
	got, ok := parseHex4(c.p.CRC)
	if !ok {
		c.add(CodeCRCFormat, FieldCRC, fmt.Sprintf(
			"the CRC (63) must be four hexadecimal digits, not %q", c.p.CRC))
		return
	}
	if want := CRC16(payload[:c.crcPos+4]); got != want {
		c.add(CodeCRCMismatch, FieldCRC, fmt.Sprintf(
			"the CRC (63) is %s but the payload's is %04X: the payload was changed or mistyped",
			strings.ToUpper(c.p.CRC), want))
	}
}
