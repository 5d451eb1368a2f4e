package pix

import "strings"

// Problem codes. A code names the rule that was broken; together with
// [Problem.Field] it is stable and meant for programs, while
// [Problem.Message] is for people and may be reworded.
const (
	// CodeEmpty: the payload is empty.
	CodeEmpty = "empty"
	// CodeSurroundingSpace: spaces or line breaks before or after the payload.
	CodeSurroundingSpace = "surrounding_space"
	// CodeTooLong: the payload, or a field, is longer than its limit.
	CodeTooLong = "too_long"
	// CodeSyntax: an object does not start with a two-digit ID and a
	// two-digit length.
	CodeSyntax = "syntax"
	// CodeOverrun: an object's length runs past the end of its container.
	CodeOverrun = "overrun"
	// CodeEmptyValue: an object declares length 00.
	CodeEmptyValue = "empty_value"
	// CodeOrder: the payload format indicator (00) is not the first object.
	CodeOrder = "order"
	// CodeAfterCRC: something follows the CRC (63), which must be last.
	CodeAfterCRC = "after_crc"
	// CodeDuplicate: the same ID appears twice in one container.
	CodeDuplicate = "duplicate"
	// CodeMissing: a mandatory field is absent.
	CodeMissing = "missing"
	// CodeInvalidValue: a field with a fixed value or format has another.
	CodeInvalidValue = "invalid_value"
	// CodeCharset: a field holds a character it may not hold.
	CodeCharset = "charset"
	// CodeInvalidAmount: the amount is not a positive decimal with a dot
	// and at most two decimals.
	CodeInvalidAmount = "invalid_amount"
	// CodeNoPixAccount: no merchant account template (26 to 51) carries
	// the PIX GUI br.gov.bcb.pix.
	CodeNoPixAccount = "no_pix_account"
	// CodeKeyAndURL: the PIX template has both a key (static) and a URL
	// (dynamic).
	CodeKeyAndURL = "key_and_url"
	// CodeNoKeyOrURL: the PIX template has neither a key nor a URL.
	CodeNoKeyOrURL = "no_key_or_url"
	// CodeInvalidKey: the key is none of the PIX key formats.
	CodeInvalidKey = "invalid_key"
	// CodeKeyCheckDigit: a CPF or CNPJ key whose check digits are wrong.
	CodeKeyCheckDigit = "key_check_digit"
	// CodeInvalidURL: the dynamic location URL has a scheme or a space.
	CodeInvalidURL = "invalid_url"
	// CodeCRCFormat: the CRC is not four hexadecimal digits.
	CodeCRCFormat = "crc_format"
	// CodeCRCMismatch: the CRC does not match the payload.
	CodeCRCMismatch = "crc_mismatch"
)

// Field names used in [Problem.Field]. An object the package does not
// interpret is named by its EMV ID path instead, such as "64" or "26.03".
const (
	FieldPayload           = "payload"
	FieldPayloadFormat     = "payload_format"      // 00
	FieldPointOfInitiation = "point_of_initiation" // 01
	FieldMerchantAccount   = "merchant_account"    // 26 to 51, GUI br.gov.bcb.pix
	FieldKey               = "key"                 // 26.01
	FieldDescription       = "description"         // 26.02
	FieldURL               = "url"                 // 26.25
	FieldMCC               = "mcc"                 // 52
	FieldCurrency          = "currency"            // 53
	FieldAmount            = "amount"              // 54
	FieldCountry           = "country"             // 58
	FieldMerchantName      = "merchant_name"       // 59
	FieldMerchantCity      = "merchant_city"       // 60
	FieldPostalCode        = "postal_code"         // 61
	FieldAdditionalData    = "additional_data"     // 62
	FieldTxID              = "txid"                // 62.05
	FieldCRC               = "crc"                 // 63
)

// Problem is one broken rule. It marshals to the shape of an item of the
// API error envelope's errors array.
type Problem struct {
	Code    string `json:"code"`
	Field   string `json:"field"`
	Message string `json:"message"`
}

// String gives "field: message (code)".
func (p Problem) String() string {
	return p.Field + ": " + p.Message + " (" + p.Code + ")"
}

// Problems is every problem found in one payload or one build input. It is
// an error; use [Problems.Err] to get a nil error when there are none.
type Problems []Problem

// Error joins the problems with "; ", each as "field: message (code)";
// callers add their context when they wrap it.
func (ps Problems) Error() string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.String()
	}
	return strings.Join(parts, "; ")
}

// Err returns ps as an error, or nil when ps is empty.
func (ps Problems) Err() error {
	if len(ps) == 0 {
		return nil
	}
	return ps
}

// Has reports whether a problem with the code exists for the field.
func (ps Problems) Has(code, field string) bool {
	for _, p := range ps {
		if p.Code == code && p.Field == field {
			return true
		}
	}
	return false
}
