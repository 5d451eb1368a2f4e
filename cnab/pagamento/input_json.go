package pagamento

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"strings"

	"github.com/propfin/propfin/cnab"
)

// Input is the JSON description of a payment remittance that `propfin
// cnab pagamento` reads: the remittance's fields and its payments (schema
// in docs/cnab-pagamento.md).
type Input struct {
	Remittance
	Payments []json.RawMessage `json:"payments"`
}

// DecodeInput reads an Input. Unknown fields are errors, so that a
// misspelt field is never silently ignored. Payments are kept raw and
// decoded one at a time by Input.Each, which names the payment of a
// problem.
func DecodeInput(r io.Reader) (Input, error) {
	var in Input
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return Input{}, cnab.Problems{{Title: cnab.HeaderIndex, Field: jsonField(err), Message: jsonMessage(err)}}
	}
	if dec.More() {
		return Input{}, cnab.Problems{{Title: cnab.HeaderIndex, Message: "data after the JSON object"}}
	}
	return in, nil
}

// Each decodes the payments in order. A payment that does not decode is
// reported with its index and field, and the sequence stops there.
func (in *Input) Each() iter.Seq2[Payment, error] {
	return func(yield func(Payment, error) bool) {
		for i, raw := range in.Payments {
			var p Payment
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&p); err != nil {
				yield(Payment{}, cnab.Problems{{Title: i, Field: jsonField(err), Message: jsonMessage(err)}})
				return
			}
			if !yield(p, nil) {
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
