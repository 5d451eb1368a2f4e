package storage

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/propfin/propfin/finance"
)

// Limits of the custom fields of one record, checked on what is stored: on
// create the fields sent, on update the fields once merged with those
// already stored.
const (
	// MaxCustomFields bounds the custom fields of one record.
	MaxCustomFields = 100
	// MaxCustomFieldsBytes bounds the custom fields of one record encoded
	// as one compact JSON object ({"name":value,...}, names without `_`).
	MaxCustomFieldsBytes = 64 << 10
)

// CustomFieldsProblem is the problem of a record's custom fields past the
// limits of one record, nil within them. Its field is "customFields": no
// one field is to blame.
func CustomFieldsProblem(fields map[string]json.RawMessage) (*finance.Problem, error) {
	if len(fields) > MaxCustomFields {
		return &finance.Problem{Field: "customFields", Message: fmt.Sprintf("at most %d custom fields per record", MaxCustomFields)}, nil
	}
	size, err := encodedSize(fields)
	if err != nil {
		return nil, err
	}
	if size > MaxCustomFieldsBytes {
		return &finance.Problem{Field: "customFields", Message: fmt.Sprintf(
			"the custom fields of a record take at most %d bytes as compact JSON (these take %d)", MaxCustomFieldsBytes, size)}, nil
	}
	return nil, nil
}

// encodedSize is the length of fields as one compact JSON object.
func encodedSize(fields map[string]json.RawMessage) (int, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(fields); err != nil {
		return 0, fmt.Errorf("encode custom fields: %w", err)
	}
	return len(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), nil
}

// checkCustomFields refuses custom fields past the limits of one record.
func checkCustomFields(fields map[string]json.RawMessage) error {
	p, err := CustomFieldsProblem(fields)
	if err != nil {
		return err
	}
	if p != nil {
		return finance.InvalidInput([]finance.Problem{*p})
	}
	return nil
}

// checkStoredCustomFields holds the custom fields a write left on rec to
// the limits of one record; called inside the write's transaction, a
// refusal undoes the write.
func checkStoredCustomFields(rec *Record) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(rec.custom, &fields); err != nil {
		return fmt.Errorf("read custom fields: %w", err)
	}
	return checkCustomFields(fields)
}
