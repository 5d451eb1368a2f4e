package cnab

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"strings"
)

// Input is the JSON description of a remittance that `propfin cnab
// remessa` reads: the remittance's fields and its titles (schema in
// docs/cnab.md).
type Input struct {
	Remittance
	Titles []json.RawMessage `json:"titles"`
}

// DecodeInput reads an Input. Unknown fields are errors, so that a
// misspelt field is never silently ignored. Titles are kept raw and
// decoded one at a time by Input.Each, which names the title of a
// problem.
func DecodeInput(r io.Reader) (Input, error) {
	var in Input
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return Input{}, Problems{{Title: HeaderIndex, Field: jsonField(err), Message: jsonMessage(err)}}
	}
	if dec.More() {
		return Input{}, Problems{{Title: HeaderIndex, Field: "", Message: "data after the JSON object"}}
	}
	return in, nil
}

// Titles decodes the titles in order. A title that does not decode is
// reported with its index and field, and the sequence stops there.
func (in *Input) Each() iter.Seq2[Title, error] {
	return func(yield func(Title, error) bool) {
		for i, raw := range in.Titles {
			var t Title
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&t); err != nil {
				yield(Title{}, Problems{{Title: i, Field: jsonField(err), Message: jsonMessage(err)}})
				return
			}
			if !yield(t, nil) {
				return
			}
		}
	}
}

// jsonField names the field a decoding error concerns, in the input's
// spelling.
func jsonField(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return te.Field
	}
	msg := err.Error()
	if i := strings.Index(msg, `unknown field "`); i >= 0 {
		return strings.TrimSuffix(msg[i+len(`unknown field "`):], `"`)
	}
	return ""
}

func jsonMessage(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("want a %s, got a JSON %s", te.Type, te.Value)
	}
	if strings.Contains(err.Error(), "unknown field") {
		return "unknown field"
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}
