package openapi

import "slices"

// SchemaRef is the $ref of the component schema name.
func SchemaRef(name string) string { return "#/components/schemas/" + name }

// Ref is a schema that is the component schema name.
func Ref(name string) *Schema { return &Schema{Ref: SchemaRef(name)} }

// String is a string schema.
func String() *Schema { return &Schema{Type: "string"} }

// Integer is a 64-bit integer schema.
func Integer() *Schema { return &Schema{Type: "integer", Format: "int64"} }

// Number is a number schema.
func Number() *Schema { return &Schema{Type: "number"} }

// Boolean is a boolean schema.
func Boolean() *Schema { return &Schema{Type: "boolean"} }

// Any is the schema every JSON value matches.
func Any() *Schema { return &Schema{} }

// Enum is a string schema of the values.
func Enum(values ...string) *Schema {
	s := String()
	for _, v := range values {
		s.Enum = append(s.Enum, v)
	}
	return s
}

// Array is an array of items.
func Array(items *Schema) *Schema { return &Schema{Type: "array", Items: items} }

// Object is an object of exactly the properties given (no others), the
// required ones listed.
func Object(properties map[string]*Schema, required ...string) *Schema {
	if properties == nil {
		properties = map[string]*Schema{}
	}
	return &Schema{Type: "object", Properties: properties, Required: required, AdditionalProperties: false}
}

// Nullable is a copy of s that also takes null: its type list gains
// "null" (and its enum null), or, for a $ref (whatever its siblings) or
// a schema without a type, null becomes an alternative.
func Nullable(s *Schema) *Schema {
	c := *s
	if c.Ref != "" { // what the $ref names refuses null whatever the type beside it says
		return &Schema{AnyOf: []*Schema{s, {Type: "null"}}}
	}
	switch t := c.Type.(type) {
	case string:
		c.Type = []string{t, "null"}
	case []string:
		if !slices.Contains(t, "null") {
			c.Type = append(slices.Clone(t), "null")
		}
	default:
		if c.Ref == "" && c.AnyOf == nil && c.OneOf == nil && c.AllOf == nil && c.Properties == nil {
			return &c // no type: null already matches
		}
		return &Schema{AnyOf: []*Schema{s, {Type: "null"}}}
	}
	if len(c.Enum) > 0 && !slices.Contains(c.Enum, any(nil)) {
		c.Enum = append(slices.Clone(c.Enum), nil)
	}
	return &c
}

// WithDescription sets s's description and returns s.
func (s *Schema) WithDescription(text string) *Schema {
	s.Description = text
	return s
}

// Types lists s's type names: none for a schema without a type.
func (s *Schema) Types() []string {
	switch t := s.Type.(type) {
	case string:
		return []string{t}
	case []string:
		return t
	case []any: // a document decoded from JSON
		names := make([]string, 0, len(t))
		for _, n := range t {
			if name, ok := n.(string); ok {
				names = append(names, name)
			}
		}
		return names
	}
	return nil
}

// HasType reports whether s names the type.
func (s *Schema) HasType(name string) bool { return slices.Contains(s.Types(), name) }

// Int returns a pointer to n, for the bounds of a schema.
func Int(n int) *int { return &n }
