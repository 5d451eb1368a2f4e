// Package openapi is the model of an OpenAPI 3.1 document: the objects of
// the specification the API uses to describe itself (GET /openapi.json),
// encoded under the specification's names, and JSON Schema (draft
// 2020-12, the dialect of OpenAPI 3.1) with constructors for the shapes
// that recur. It knows nothing of propfin: package api fills it from its
// route table and the resource declarations.
package openapi

import "encoding/json"

// Version is the OpenAPI version the documents declare.
const Version = "3.1.0"

// Document is an OpenAPI document.
type Document struct {
	OpenAPI    string                `json:"openapi"`
	Info       Info                  `json:"info"`
	Servers    []Server              `json:"servers,omitempty"`
	Security   []SecurityRequirement `json:"security,omitempty"`
	Tags       []Tag                 `json:"tags,omitempty"`
	Paths      map[string]*PathItem  `json:"paths"`
	Components Components            `json:"components"`
}

// Info is the document's title, version, description and licence.
// Build is an extension (`x-build`): the build of the server, beside the
// version of the API it serves.
type Info struct {
	Title       string   `json:"title"`
	Version     string   `json:"version"`
	Description string   `json:"description,omitempty"`
	License     *License `json:"license,omitempty"`
	Build       string   `json:"x-build,omitempty"`
}

// License names the API's licence by name and SPDX identifier.
type License struct {
	Name       string `json:"name"`
	Identifier string `json:"identifier,omitempty"`
}

// Server is a base URL of the API.
type Server struct {
	URL         string `json:"url"`
	Description string `json:"description,omitempty"`
}

// Tag groups operations.
type Tag struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// SecurityRequirement names the security schemes an operation accepts,
// each with its scopes (none, for HTTP schemes).
type SecurityRequirement map[string][]string

// Components holds what operations refer to by $ref.
type Components struct {
	Schemas         map[string]*Schema         `json:"schemas,omitempty"`
	Responses       map[string]*Response       `json:"responses,omitempty"`
	Parameters      map[string]*Parameter      `json:"parameters,omitempty"`
	Headers         map[string]*Header         `json:"headers,omitempty"`
	SecuritySchemes map[string]*SecurityScheme `json:"securitySchemes,omitempty"`
}

// SecurityScheme is an HTTP authentication scheme.
type SecurityScheme struct {
	Type         string `json:"type"`
	Scheme       string `json:"scheme,omitempty"`
	BearerFormat string `json:"bearerFormat,omitempty"`
	Description  string `json:"description,omitempty"`
}

// PathItem holds the operations of one path, by method.
type PathItem struct {
	Get     *Operation `json:"get,omitempty"`
	Put     *Operation `json:"put,omitempty"`
	Post    *Operation `json:"post,omitempty"`
	Delete  *Operation `json:"delete,omitempty"`
	Options *Operation `json:"options,omitempty"`
	Head    *Operation `json:"head,omitempty"`
	Patch   *Operation `json:"patch,omitempty"`
}

// Methods are the HTTP methods a PathItem holds, in the order Operations
// lists them.
var Methods = []string{"GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH"}

// slot is where the operation of method sits, nil for another method.
func (p *PathItem) slot(method string) **Operation {
	switch method {
	case "GET":
		return &p.Get
	case "PUT":
		return &p.Put
	case "POST":
		return &p.Post
	case "DELETE":
		return &p.Delete
	case "OPTIONS":
		return &p.Options
	case "HEAD":
		return &p.Head
	case "PATCH":
		return &p.Patch
	}
	return nil
}

// Operation returns the operation of method, nil when there is none.
func (p *PathItem) Operation(method string) *Operation {
	if s := p.slot(method); s != nil {
		return *s
	}
	return nil
}

// SetOperation puts op under method; it reports false for a method a
// PathItem cannot hold.
func (p *PathItem) SetOperation(method string, op *Operation) bool {
	s := p.slot(method)
	if s == nil {
		return false
	}
	*s = op
	return true
}

// Operations lists the methods that have an operation, in Methods order.
func (p *PathItem) Operations() []string {
	var methods []string
	for _, m := range Methods {
		if p.Operation(m) != nil {
			methods = append(methods, m)
		}
	}
	return methods
}

// Operation is one method of one path.
type Operation struct {
	Tags        []string              `json:"tags,omitempty"`
	Summary     string                `json:"summary"`
	Description string                `json:"description,omitempty"`
	OperationID string                `json:"operationId"`
	Parameters  []*Parameter          `json:"parameters,omitempty"`
	RequestBody *RequestBody          `json:"requestBody,omitempty"`
	Responses   map[string]*Response  `json:"responses"`
	Security    []SecurityRequirement `json:"security"`
}

// Parameter is a path or query parameter, or a $ref to one.
type Parameter struct {
	Ref         string  `json:"$ref,omitempty"`
	Name        string  `json:"name,omitempty"`
	In          string  `json:"in,omitempty"`
	Description string  `json:"description,omitempty"`
	Required    bool    `json:"required,omitempty"`
	Style       string  `json:"style,omitempty"`
	Explode     *bool   `json:"explode,omitempty"`
	Schema      *Schema `json:"schema,omitempty"`
}

// RequestBody is an operation's body.
type RequestBody struct {
	Description string                `json:"description,omitempty"`
	Required    bool                  `json:"required,omitempty"`
	Content     map[string]*MediaType `json:"content"`
}

// MediaType is the schema of a body of one content type.
type MediaType struct {
	Schema *Schema `json:"schema,omitempty"`
}

// Response is one answer of an operation, or a $ref to one.
type Response struct {
	Ref         string                `json:"$ref,omitempty"`
	Description string                `json:"description,omitempty"`
	Headers     map[string]*Header    `json:"headers,omitempty"`
	Content     map[string]*MediaType `json:"content,omitempty"`
}

// Header is a response header, or a $ref to one.
type Header struct {
	Ref         string  `json:"$ref,omitempty"`
	Description string  `json:"description,omitempty"`
	Schema      *Schema `json:"schema,omitempty"`
}

// Schema is a JSON Schema (draft 2020-12). Type is a type name or a list
// of them (["string", "null"]); AdditionalProperties is a *Schema or a
// bool.
type Schema struct {
	Ref                  string             `json:"$ref,omitempty"`
	Title                string             `json:"title,omitempty"`
	Description          string             `json:"description,omitempty"`
	Type                 any                `json:"type,omitempty"`
	Format               string             `json:"format,omitempty"`
	Enum                 []any              `json:"enum,omitempty"`
	Const                any                `json:"const,omitempty"`
	Default              any                `json:"default,omitempty"`
	Pattern              string             `json:"pattern,omitempty"`
	MinLength            *int               `json:"minLength,omitempty"`
	MaxLength            *int               `json:"maxLength,omitempty"`
	ContentMediaType     string             `json:"contentMediaType,omitempty"`
	Minimum              json.Number        `json:"minimum,omitempty"`
	Maximum              json.Number        `json:"maximum,omitempty"`
	ExclusiveMinimum     json.Number        `json:"exclusiveMinimum,omitempty"`
	ExclusiveMaximum     json.Number        `json:"exclusiveMaximum,omitempty"`
	MultipleOf           json.Number        `json:"multipleOf,omitempty"`
	Items                *Schema            `json:"items,omitempty"`
	MinItems             *int               `json:"minItems,omitempty"`
	MaxItems             *int               `json:"maxItems,omitempty"`
	Properties           map[string]*Schema `json:"properties,omitempty"`
	PatternProperties    map[string]*Schema `json:"patternProperties,omitempty"`
	AdditionalProperties any                `json:"additionalProperties,omitempty"`
	Required             []string           `json:"required,omitempty"`
	AllOf                []*Schema          `json:"allOf,omitempty"`
	AnyOf                []*Schema          `json:"anyOf,omitempty"`
	OneOf                []*Schema          `json:"oneOf,omitempty"`
	ReadOnly             bool               `json:"readOnly,omitempty"`
	Examples             []any              `json:"examples,omitempty"`
}
