package pix

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// GUI is the globally unique identifier of the PIX arrangement, written
// in object 00 of the merchant account template. It is compared without
// regard to case: the BCB manuals write it both ways.
const GUI = "br.gov.bcb.pix"

// MaxLength is the longest payload accepted, in characters.
const MaxLength = 512

// Point of initiation values (object 01).
const (
	InitiationStatic  = "11" // may be paid many times
	InitiationDynamic = "12" // meant to be paid once
)

// Payload is a parsed BR Code. Fields hold the values exactly as written;
// an absent optional object is the empty string.
type Payload struct {
	FormatIndicator   string          `json:"payload_format"`                // 00
	PointOfInitiation string          `json:"point_of_initiation,omitempty"` // 01
	Account           MerchantAccount `json:"merchant_account"`              // 26 to 51 with the PIX GUI
	MCC               string          `json:"mcc"`                           // 52
	Currency          string          `json:"currency"`                      // 53
	Amount            string          `json:"amount,omitempty"`              // 54
	Country           string          `json:"country"`                       // 58
	MerchantName      string          `json:"merchant_name"`                 // 59
	MerchantCity      string          `json:"merchant_city"`                 // 60
	PostalCode        string          `json:"postal_code,omitempty"`         // 61
	TxID              string          `json:"txid,omitempty"`                // 62.05
	AdditionalData    []Object        `json:"additional_data,omitempty"`     // 62's other objects
	CRC               string          `json:"crc"`                           // 63
	// Other holds, in order, the top-level objects not interpreted above:
	// other arrangements' merchant account templates, 55 to 57, 64,
	// reserved and unreserved templates (65 to 99).
	Other []Object `json:"other,omitempty"`
}

// MerchantAccount is the PIX merchant account information template.
type MerchantAccount struct {
	ID          string   `json:"id"`                    // where it was found, "26" to "51"
	GUI         string   `json:"gui"`                   // 00, br.gov.bcb.pix in any case
	Key         string   `json:"key,omitempty"`         // 01, static payloads
	KeyType     KeyType  `json:"key_type,omitempty"`    // set by Validate when the key is valid
	Description string   `json:"description,omitempty"` // 02, infoAdicional
	URL         string   `json:"url,omitempty"`         // 25, dynamic payloads, without scheme
	Other       []Object `json:"other,omitempty"`       // other objects, such as 03 (fss)
}

// Object is a data object the package keeps without interpreting.
type Object struct {
	ID    string `json:"id"`
	Value string `json:"value"`
}

// IsDynamic reports whether the payload points to a charge location URL
// rather than carrying a key.
func (p Payload) IsDynamic() bool { return p.Account.URL != "" }

// AmountCents is the amount in cents, and false when the payload has no
// amount or it is not a valid amount.
func (p Payload) AmountCents() (int64, bool) {
	if p.Amount == "" || checkAmount(p.Amount) != "" {
		return 0, false
	}
	whole, frac, _ := strings.Cut(p.Amount, ".")
	var cents int64
	for i := 0; i < len(whole); i++ {
		cents = cents*10 + int64(whole[i]-'0')
	}
	frac += "00"
	return cents*100 + int64(frac[0]-'0')*10 + int64(frac[1]-'0'), true
}

// Parse reads the EMV structure of a payload. The error, a [Problems],
// lists the structural problems only (IDs and lengths, overruns, order,
// duplicates, what follows the CRC); the Payload holds what could be read
// even then. Use [Validate] to check the content as well.
func Parse(payload string) (Payload, error) {
	var c checker
	c.read(payload)
	return c.p, c.probs.Err()
}

// Validate parses the payload and checks every rule listed in docs/pix.md,
// returning all the problems found (none when the payload is valid).
// The payload is checked as given: surrounding spaces are a problem, and
// the CRC may be written in either case.
func Validate(payload string) (Payload, Problems) {
	var c checker
	if payload == "" {
		c.add(CodeEmpty, FieldPayload, "the payload is empty")
		return c.p, c.probs
	}
	if trimmed := strings.TrimSpace(payload); trimmed != payload {
		c.add(CodeSurroundingSpace, FieldPayload,
			"the payload has spaces or line breaks before or after it; remove them")
		if trimmed == "" {
			return c.p, c.probs
		}
		// Messages count positions in the payload as given.
		lead := len(payload) - len(strings.TrimLeftFunc(payload, unicode.IsSpace))
		c.base = utf8.RuneCountInString(payload[:lead])
		payload = trimmed
	}
	c.checkLength(payload)
	c.read(payload)
	c.checkContent(payload)
	return c.p, c.probs
}

// Normalize validates the payload and returns the form to store: the CRC
// check digit in upper case, nothing else changed.
func Normalize(payload string) (string, Problems) {
	if _, probs := Validate(payload); len(probs) > 0 {
		return "", probs
	}
	n := len(payload) - 4
	crc := payload[n:]
	if upper := strings.ToUpper(crc); upper != crc {
		return payload[:n] + upper, nil
	}
	return payload, nil
}
