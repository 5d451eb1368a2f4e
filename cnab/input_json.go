package cnab

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"reflect"
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
	data, err := io.ReadAll(r)
	if err != nil {
		return Input{}, err
	}
	var in Input
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		field := jsonField(err)
		if field == "" {
			field = failingField(data, reflect.TypeFor[Remittance](), "")
		}
		return Input{}, Problems{{Title: HeaderIndex, Field: field, Message: jsonMessage(err)}}
	}
	if dec.More() {
		return Input{}, Problems{{Title: HeaderIndex, Field: "", Message: "data after the JSON object"}}
	}
	return in, nil
}

// Each decodes the titles in order. A title that does not decode is
// yielded with a Problems error naming its index and field, and the
// sequence goes on with the next title.
func (in *Input) Each() iter.Seq2[Title, error] {
	return func(yield func(Title, error) bool) {
		for i, raw := range in.Titles {
			var t Title
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.DisallowUnknownFields()
			err := dec.Decode(&t)
			if err != nil {
				field := jsonField(err)
				if field == "" {
					field = failingField(raw, reflect.TypeFor[Title](), "")
				}
				if !yield(Title{}, Problems{{Title: i, Field: field, Message: jsonMessage(err)}}) {
					return
				}
				continue
			}
			if !yield(t, nil) {
				return
			}
		}
	}
}

// failingField finds the field of a JSON object that does not decode into
// the struct type typ, for errors (a date's, an amount's) that do not say
// which field they concern. It returns the field's dotted JSON name, or ""
// when no single field fails on its own.
func failingField(raw json.RawMessage, typ reflect.Type, prefix string) string {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return ""
	}
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		value, ok := obj[name]
		if !ok || name == "" {
			continue
		}
		if err := json.Unmarshal(value, reflect.New(f.Type).Interface()); err != nil {
			if f.Type.Kind() == reflect.Struct {
				if inner := failingField(value, f.Type, prefix+name+"."); inner != "" {
					return inner
				}
			}
			return prefix + name
		}
	}
	return ""
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

// jsonKind names a Go kind the way the input's schema does.
func jsonKind(k reflect.Kind) string {
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return "an object"
}

func jsonMessage(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("want %s, got a JSON %s", jsonKind(te.Type.Kind()), te.Value)
	}
	if strings.Contains(err.Error(), "unknown field") {
		return "unknown field"
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}
