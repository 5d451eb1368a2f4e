package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// maxBodyBytes bounds a create or update body.
const maxBodyBytes = 1 << 20

// customFieldName is what may follow the `_` of a custom field.
var customFieldName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_]{0,62}$`)

// readObject reads a request body that must be one JSON object. The
// problems are those a map cannot show (keys given twice), to be reported
// with the others.
func readObject(w http.ResponseWriter, r *http.Request) (map[string]json.RawMessage, []finance.Problem, error) {
	_, obj, problems, err := readObjectBody(w, r)
	return obj, problems, err
}

// readObjectBody is readObject with the body as read, which an
// Idempotency-Key compares (writeKeyed).
func readObjectBody(w http.ResponseWriter, r *http.Request) ([]byte, map[string]json.RawMessage, []finance.Problem, error) {
	if err := checkContentType(r.Header.Get("Content-Type")); err != nil {
		return nil, nil, nil, err
	}
	body, err := readBody(w, r, maxBodyBytes)
	if err != nil {
		return nil, nil, nil, err
	}
	obj, problems, err := decodeObject(body)
	return body, obj, problems, err
}

// checkContentType accepts a body declared as JSON: application/json or a
// +json type (application/vnd.api+json), parameters allowed but a charset
// only UTF-8 (JSON's). No Content-Type at all is read as JSON too: the body
// must be a JSON object anyway, so there is nothing to mistake.
func checkContentType(header string) error {
	if header == "" {
		return nil
	}
	mediaType, params, err := mime.ParseMediaType(header)
	isJSON := err == nil && (mediaType == "application/json" ||
		(strings.HasPrefix(mediaType, "application/") && strings.HasSuffix(mediaType, "+json")))
	charset, given := params["charset"]
	switch {
	case !isJSON:
		return finance.Errorf(UnsupportedMediaType, "The body must be JSON (Content-Type: application/json).")
	case given && !strings.EqualFold(charset, "utf-8"):
		return &finance.Error{Code: UnsupportedMediaType, Message: "The body must be JSON in UTF-8.",
			Problems: []finance.Problem{{Field: "Content-Type",
				Message: fmt.Sprintf("charset %q is not read: JSON bodies are UTF-8 (charset=utf-8, or none)", charset)}}}
	}
	return nil
}

// decodeObject parses a body that must be one JSON object, and names the
// fields it gives twice.
func decodeObject(body []byte) (map[string]json.RawMessage, []finance.Problem, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(body, &obj); err != nil || obj == nil {
		return nil, nil, finance.InvalidInput([]finance.Problem{{Field: "body", Message: notAnObject(body, err)}})
	}
	return obj, duplicateKeys(body), nil
}

// withProblems adds problems found beside a check to its result: a 422
// listing them all.
func withProblems(err error, problems []finance.Problem) error {
	if len(problems) == 0 {
		return err
	}
	var coded *finance.Error
	switch {
	case err == nil:
		return finance.InvalidInput(problems)
	case errors.As(err, &coded) && coded.Code == finance.Invalid:
		return finance.InvalidInput(append(slices.Clone(problems), coded.Problems...))
	}
	return err
}

// withBodyProblems is the refusal of a write whose body had problems
// (an unknown field, a value of the wrong type) and that was checked on
// the rest (err, its own refusal or nil): one 422 naming the body's
// problems, then the check's on the fields the body's did not name (a
// field missing or unreadable is named once). The body is refused as it
// was before it was checked on the rest: a check that ends otherwise than
// in a 422 (the record not found, a conflict, a failure) adds nothing.
func withBodyProblems(err error, problems []finance.Problem) error {
	out := slices.Clone(problems)
	for _, p := range invalidProblems(err) {
		if !namedIn(problems, p.Field) {
			out = append(out, p)
		}
	}
	return finance.InvalidInput(out)
}

// invalidProblems are the problems of a 422 (nil for any other error).
func invalidProblems(err error) []finance.Problem {
	var coded *finance.Error
	if errors.As(err, &coded) && coded.Code == finance.Invalid {
		return coded.Problems
	}
	return nil
}

// namedIn reports whether problems name field, the field it is part of
// ("invoices" for "invoices.0"), or a part of it ("items.0" for "items":
// an element refused is no element to count).
func namedIn(problems []finance.Problem, field string) bool {
	for _, p := range problems {
		if p.Field == field || strings.HasPrefix(field, p.Field+".") || strings.HasPrefix(p.Field, field+".") {
			return true
		}
	}
	return false
}

// readBody reads a request body of at most limit bytes (openBody).
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	body, err := openBody(w, r, limit)
	if err != nil {
		return nil, err
	}
	return readAll(body, r.ContentLength)
}

// openBody opens a request body of at most limit bytes for reading. What
// the headers say is checked before a byte is read: an encoded body is a
// 415, and a Content-Length over limit a 413, answered before the body is
// read, so that a client that sent `Expect: 100-continue` gets no
// `100 Continue` (net/http sends it at the first read) and sends nothing.
// The reader's errors are coded: past limit (a body sent without
// Content-Length) the same 413, a failed read a 422 on body.
func openBody(w http.ResponseWriter, r *http.Request, limit int64) (io.Reader, error) {
	if enc := r.Header.Get("Content-Encoding"); enc != "" && !strings.EqualFold(enc, "identity") {
		return nil, finance.Errorf(UnsupportedMediaType, "The body must not be encoded (Content-Encoding %q is not read).", enc)
	}
	if r.ContentLength > limit {
		return nil, bodyTooLarge(limit)
	}
	return &bodyReader{r: http.MaxBytesReader(w, r.Body, limit), limit: limit}, nil
}

func bodyTooLarge(limit int64) error {
	return finance.Errorf(TooLarge, "The body is larger than %d bytes.", limit)
}

// bodyReader is a request body whose errors are coded (openBody).
type bodyReader struct {
	r     io.Reader
	limit int64
}

func (b *bodyReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	var tooLarge *http.MaxBytesError
	switch {
	case err == nil, errors.Is(err, io.EOF):
	case errors.As(err, &tooLarge):
		err = bodyTooLarge(b.limit)
	default:
		err = &finance.Error{Code: finance.Invalid, Message: "The body could not be read.", Err: err,
			Problems: []finance.Problem{{Field: "body", Message: "could not be read"}}}
	}
	return n, err
}

// readAll reads r to its end. size, when it is known (not negative), is
// what r holds: past the first MiB the buffer is grown once to that size,
// one byte more so that the end is seen without growing it again, instead
// of doubling as it fills; a body refused in its first MiB (a line too
// long, a byte that is not UTF-8) never costs its whole size.
func readAll(r io.Reader, size int64) ([]byte, error) {
	b := make([]byte, 0, min(max(size, 511), firstBuffer)+1)
	for {
		if len(b) == cap(b) {
			if int64(len(b)) <= size {
				b = append(make([]byte, 0, size+1), b...)
			} else {
				b = append(b, 0)[:len(b)]
			}
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if errors.Is(err, io.EOF) {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// firstBuffer is the most readAll reserves before it has read anything.
const firstBuffer = 1 << 20

// parseWrite checks a create (create=true) or update body against the
// resource declaration and reports every problem at once: unknown fields,
// read-only fields, wrong types, missing required fields, nulls and blank
// texts in required fields, custom fields past their bounds, and each
// element of the declared child collections (read through reg; a nil reg
// takes no child collections).
func parseWrite(reg *storage.Registry, res *storage.Resource, obj map[string]json.RawMessage, create bool) (storage.Write, error) {
	w := storage.Write{Values: map[string]any{}, Custom: map[string]json.RawMessage{}}
	var problems []finance.Problem
	fail := func(field, format string, args ...any) {
		problems = append(problems, finance.Problem{Field: field, Message: fmt.Sprintf(format, args...)})
	}
	for _, name := range sortedKeys(obj) {
		raw := obj[name]
		if custom, ok := strings.CutPrefix(name, "_"); ok {
			switch {
			case !res.CustomFields:
				fail(name, "this resource has no custom fields")
			case !customFieldName.MatchString(custom):
				fail(name, "custom field names are letters, digits and _ after the leading _")
			default:
				if msg := customProblem(raw); msg != "" {
					fail(name, "%s", msg)
				} else {
					w.Custom[custom] = raw
				}
			}
			continue
		}
		if ch, isChild := res.Child(name); isChild && reg != nil {
			child := reg.MustResource(ch.Resource)
			writes, childProblems := parseChild(child, ch, raw, create)
			problems = append(problems, childProblems...)
			if w.Children == nil {
				w.Children = map[string][]storage.ChildWrite{}
			}
			w.Children[name] = writes
			continue
		}
		col, ok := res.ColumnByKey(name)
		switch {
		case !ok:
			if path, isSub := subResourcePath(reg, res, name); isSub {
				fail(name, "unknown field: the %s are written through %s, after the record is created", name, path)
			} else {
				fail(name, "unknown field")
			}
			continue
		case col.PlainName && name == col.Name && obj[col.BodyName] != nil:
			fail(name, "is given twice, as %s and as %s", col.BodyName, col.Name)
			continue
		case !col.Writable:
			fail(name, "cannot be written")
			continue
		case col.CreateOnly && !create:
			fail(name, "can only be given on create")
			continue
		case col.UpdateOnly && create:
			fail(name, "can only be given on update")
			continue
		}
		if v, msg := columnValue(col, raw); msg != "" {
			fail(name, "%s", msg)
		} else {
			w.Values[col.Name] = v
		}
	}
	if p, err := storage.CustomFieldsProblem(w.CustomSet()); err != nil || p != nil {
		if err != nil {
			return w, err
		}
		problems = append(problems, *p)
	}
	if create {
		for _, col := range res.Columns {
			if col.Required && !givenIn(obj, col) {
				fail(col.Key(), "is required")
			}
		}
		for _, ch := range res.Children {
			if _, given := obj[ch.Name]; ch.Required && !given {
				fail(ch.Name, "is required")
			}
		}
	} else {
		for _, col := range res.Columns {
			if col.UpdateRequired && !givenIn(obj, col) {
				fail(col.Key(), "is required")
			}
		}
	}
	if len(problems) > 0 {
		return w, finance.InvalidInput(problems)
	}
	return w, nil
}

// givenIn reports whether a body gives the column, under its body key or,
// when it declares PlainName, its plain name.
func givenIn(obj map[string]json.RawMessage, col storage.Column) bool {
	if _, given := obj[col.Key()]; given {
		return true
	}
	_, given := obj[col.Name]
	return given && col.PlainName
}

// columnValue converts the JSON value of a column, or says why it cannot:
// wrong type, a \u escape that would not survive, a required field left
// null or blank, a text outside the column's enum or refused by its Check.
func columnValue(col storage.Column, raw json.RawMessage) (any, string) {
	v, msg := bodyValue(col, raw)
	if msg == "" {
		msg = escapeProblem(raw)
	}
	if msg == "" && col.Required {
		msg = requiredProblem(v)
	}
	if msg == "" && v == nil && col.NotNull {
		msg = "cannot be null"
	}
	if text, ok := v.(string); ok && msg == "" {
		msg = col.CheckEnum(text)
		if msg == "" {
			msg = col.CheckValue(text)
		}
	}
	if texts, ok := v.([]string); ok && msg == "" {
		for _, text := range texts {
			if msg = col.CheckEnum(text); msg != "" {
				break
			}
		}
	}
	return v, msg
}

// requiredProblem says why a value given for a required field does not
// count as given: null, or a text that is empty or only whitespace.
func requiredProblem(v any) string {
	switch text, isText := v.(string); {
	case v == nil:
		return "is required and cannot be null"
	case isText && text == "":
		return "is required"
	case isText && strings.TrimSpace(text) == "":
		return "cannot be blank"
	}
	return ""
}

func sortedKeys(obj map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// bodyValue converts one JSON value to the column's Go value; a non-empty
// message says why it cannot. Integers and booleans are JSON numbers and
// booleans; everything else is a JSON string read by its text form.
func bodyValue(col storage.Column, raw json.RawMessage) (any, string) {
	raw = bytes.TrimSpace(raw)
	if string(raw) == "null" {
		return nil, ""
	}
	switch t := col.Type; t {
	case storage.Int:
		if col.Normalize != nil && bytes.HasPrefix(raw, []byte(`"`)) {
			return normalizedInt(col, raw)
		}
		var n int64
		if err := json.Unmarshal(raw, &n); err != nil {
			return nil, "must be an integer"
		}
		return n, col.CheckInt(n)
	case storage.Bool:
		var b bool
		if err := json.Unmarshal(raw, &b); err != nil {
			return nil, "must be true or false"
		}
		return b, ""
	case storage.IntArray:
		var ns []int64
		if err := json.Unmarshal(raw, &ns); err != nil || ns == nil {
			return nil, "must be an array of integers"
		}
		return ns, ""
	case storage.TextArray:
		return textArrayValue(raw)
	case storage.Decimal:
		v, msg := decimalValue(raw)
		if msg == "" {
			msg = col.CheckDecimal(v.(string))
		}
		return v, msg
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, "must be a string"
	}
	if !utf8.Valid(raw) {
		return nil, "must be valid UTF-8 text"
	}
	return parseColumnText(col, s)
}

// normalizedInt reads an integer column given as text its Normalize knows
// (a condominium's zip_code as "01310-200"): the text's digits.
func normalizedInt(col storage.Column, raw json.RawMessage) (any, string) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, "must be an integer"
	}
	v, msg := parseColumnText(col, s)
	if n, ok := v.(int64); ok && msg == "" {
		msg = col.CheckInt(n)
	}
	return v, msg
}

// decimalValue accepts a JSON number or a numeric string, kept as exact
// text: money never passes through a float.
func decimalValue(raw json.RawMessage) (any, string) {
	text := string(raw)
	if strings.HasPrefix(text, `"`) {
		if err := json.Unmarshal(raw, &text); err != nil {
			return nil, "must be a number"
		}
	}
	return parseText(storage.Decimal, text)
}

// textArrayValue reads a JSON array of strings, each valid text (UTF-8,
// no NUL).
func textArrayValue(raw json.RawMessage) (any, string) {
	var texts []string
	if err := json.Unmarshal(raw, &texts); err != nil || texts == nil || !utf8.Valid(raw) {
		return nil, "must be an array of strings"
	}
	for _, text := range texts {
		if msg := checkText(text); msg != "" {
			return nil, msg
		}
	}
	return texts, ""
}
