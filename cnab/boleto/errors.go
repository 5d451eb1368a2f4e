package boleto

import (
	"errors"
	"fmt"
)

// Errors a caller can test with errors.Is. Every error returned by this
// package wraps one of them and says what exactly was wrong.
var (
	// ErrLength: a barcode or digitable line without the right number of
	// digits.
	ErrLength = errors.New("wrong length")
	// ErrCharacter: a character that is neither a digit nor punctuation or
	// space.
	ErrCharacter = errors.New("invalid character")
	// ErrCheckDigit: a check digit that does not match the digits it
	// protects.
	ErrCheckDigit = errors.New("invalid check digit")
	// ErrInvalid: a barcode or line that is well formed digit by digit but
	// not a boleto (for example a currency other than the real).
	ErrInvalid = errors.New("invalid boleto")
	// ErrField: a beneficiary field, sequence, amount or due date that the
	// bank's rule cannot use; the error is a *FieldError.
	ErrField = errors.New("invalid field")
	// ErrUnsupported: a bank, wallet or covenant this package does not
	// implement.
	ErrUnsupported = errors.New("unsupported")
)

// FieldError names the input field that a bank's rule rejected. Field is the
// Go name of the field (for example "Agency", "Covenant", "Sequence",
// "Amount", "Due").
type FieldError struct {
	Bank   string // bank code, "" when the error is not bank specific
	Field  string
	Value  string
	Reason string
	// Err is the sentinel the error matches with errors.Is: ErrField, or
	// ErrUnsupported for a wallet or covenant form this package does not
	// implement.
	Err error
}

func (e *FieldError) Error() string {
	bank := ""
	if e.Bank != "" {
		bank = "bank " + e.Bank + ": "
	}
	return fmt.Sprintf("boleto: %s%s %q: %s", bank, e.Field, e.Value, e.Reason)
}

// Unwrap lets errors.Is(err, ErrField) (or ErrUnsupported) match.
func (e *FieldError) Unwrap() error {
	if e.Err == nil {
		return ErrField
	}
	return e.Err
}

func fieldErr(bank, field, value, format string, args ...any) error {
	return &FieldError{Bank: bank, Field: field, Value: value, Reason: fmt.Sprintf(format, args...), Err: ErrField}
}

func unsupported(bank, field, value, format string, args ...any) error {
	return &FieldError{Bank: bank, Field: field, Value: value, Reason: fmt.Sprintf(format, args...), Err: ErrUnsupported}
}
