package openapi

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// Reflector describes Go values as encoding/json writes them, so that the
// schema of an answer is read from the type the handler encodes and
// cannot drift from it.
//
// A struct is an object of its exported fields under their json names;
// a field without omitempty is required. A pointer is its element or null,
// a slice an array, a map an object of its values, json.Number a number,
// json.RawMessage and interfaces any value. A field's `openapi` tag lists
// the JSON types its value takes when its Go type cannot say
// (`openapi:"number,null"` on a json.RawMessage holding a rate), or is
// `openapi:"nullable"`: its type's schema or null (a slice left nil,
// which encoding/json writes as null).
type Reflector struct {
	// Known gives the schema of types that encode themselves
	// (json.Marshaler, encoding.TextMarshaler), or whose JSON says more
	// than their kind (a date held in a string type).
	Known map[reflect.Type]*Schema
}

var (
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
	rawMessage    = reflect.TypeFor[json.RawMessage]()
	jsonNumber    = reflect.TypeFor[json.Number]()
)

// SchemaFor is SchemaOf the type of v.
func (r Reflector) SchemaFor(v any) (*Schema, error) {
	return r.SchemaOf(reflect.TypeOf(v))
}

// SchemaOf returns the schema of the JSON encoding/json writes for a value
// of t. A type that encodes itself and is not Known is an error: its
// fields do not tell what it writes.
func (r Reflector) SchemaOf(t reflect.Type) (*Schema, error) {
	return r.schemaOf(t, nil)
}

func (r Reflector) schemaOf(t reflect.Type, seen []reflect.Type) (*Schema, error) {
	if t == nil {
		return Any(), nil
	}
	if s, ok := r.Known[t]; ok {
		c := *s
		return &c, nil
	}
	switch t {
	case rawMessage:
		return Any(), nil
	case jsonNumber:
		return Number(), nil
	}
	if t.Kind() == reflect.Pointer {
		s, err := r.schemaOf(t.Elem(), seen)
		if err != nil {
			return nil, err
		}
		return Nullable(s), nil
	}
	if t.Implements(jsonMarshaler) || t.Implements(textMarshaler) || reflect.PointerTo(t).Implements(jsonMarshaler) {
		return nil, fmt.Errorf("openapi: %s encodes itself: give its schema in Reflector.Known", t)
	}
	for _, s := range seen {
		if s == t {
			return nil, fmt.Errorf("openapi: %s refers to itself", t)
		}
	}
	switch t.Kind() {
	case reflect.Bool:
		return Boolean(), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return Integer(), nil
	case reflect.Float32, reflect.Float64:
		return Number(), nil
	case reflect.String:
		return String(), nil
	case reflect.Interface:
		return Any(), nil
	case reflect.Slice, reflect.Array:
		items, err := r.schemaOf(t.Elem(), seen)
		if err != nil {
			return nil, err
		}
		return Array(items), nil
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil, fmt.Errorf("openapi: %s: only maps with string keys are JSON objects here", t)
		}
		values, err := r.schemaOf(t.Elem(), seen)
		if err != nil {
			return nil, err
		}
		return &Schema{Type: "object", AdditionalProperties: values}, nil
	case reflect.Struct:
		return r.structSchema(t, append(seen, t))
	}
	return nil, fmt.Errorf("openapi: %s has no JSON form", t)
}

// structSchema is the object encoding/json writes for a struct.
func (r Reflector) structSchema(t reflect.Type, seen []reflect.Type) (*Schema, error) {
	obj := Object(nil)
	if err := r.addFields(obj, t, seen); err != nil {
		return nil, err
	}
	return obj, nil
}

// addFields adds t's fields to obj, those of embedded structs without a
// json name in place, as encoding/json flattens them.
func (r Reflector) addFields(obj *Schema, t reflect.Type, seen []reflect.Type) error {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			if err := r.addFields(obj, f.Type, seen); err != nil {
				return err
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		s, err := r.fieldSchema(f, seen)
		if err != nil {
			return fmt.Errorf("%s.%s: %w", t, f.Name, err)
		}
		obj.Properties[name] = s
		if !strings.Contains(","+opts+",", ",omitempty,") && !strings.Contains(","+opts+",", ",omitzero,") {
			obj.Required = append(obj.Required, name)
		}
	}
	return nil
}

// fieldSchema is the schema of a field: its type's, or the types its
// openapi tag lists.
func (r Reflector) fieldSchema(f reflect.StructField, seen []reflect.Type) (*Schema, error) {
	types, ok := f.Tag.Lookup("openapi")
	if !ok {
		return r.schemaOf(f.Type, seen)
	}
	if types == "nullable" {
		s, err := r.schemaOf(f.Type, seen)
		if err != nil {
			return nil, err
		}
		return Nullable(s), nil
	}
	names := strings.Split(types, ",")
	if len(names) == 1 {
		return &Schema{Type: names[0]}, nil
	}
	return &Schema{Type: names}, nil
}
