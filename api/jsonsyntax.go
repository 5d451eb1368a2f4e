package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// utf8BOM is the byte order mark some editors put before UTF-8 text.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// notAnObject says why a body that should be one JSON object is not, and
// where: err is what encoding/json answered on it (nil when it decoded to
// null). Positions are bytes counted from 1.
func notAnObject(body []byte, err error) string {
	var syntaxErr *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	switch {
	case len(bytes.TrimSpace(body)) == 0:
		return "is empty: it must be a JSON object"
	case bytes.HasPrefix(body, utf8BOM):
		return "starts with a byte order mark (EF BB BF): send the JSON without it"
	case err == nil:
		return "must be a JSON object, not null"
	case errors.As(err, &typeErr):
		return "must be a JSON object, not " + jsonKind(typeErr.Value)
	case errors.As(err, &syntaxErr):
		return syntaxProblem(body, syntaxErr)
	}
	return "must be a JSON object"
}

// syntaxProblem words a syntax error of encoding/json found in body.
// Its Offset is the count of bytes read when it was found: the position of
// the byte at fault, or the length of a body that ended too soon.
func syntaxProblem(body []byte, err *json.SyntaxError) string {
	at := int(err.Offset)
	if at < 1 || at > len(body) {
		return "is not valid JSON: " + err.Error()
	}
	b, rest := body[at-1], body[at-1:]
	switch {
	case err.Error() == "unexpected end of JSON input":
		return fmt.Sprintf("ends at byte %d, before the JSON object is complete", at)
	case bytes.HasSuffix([]byte(err.Error()), []byte("after top-level value")):
		return fmt.Sprintf("holds more after the JSON object: byte %d is %s", at, byteName(b))
	case bytes.HasPrefix(rest, []byte("NaN")), bytes.HasPrefix(rest, []byte("Infinity")):
		word := "NaN"
		if b == 'I' {
			word = "Infinity"
		}
		return fmt.Sprintf("is not valid JSON at byte %d: %s is not a JSON number", at, word)
	case b >= 0x80:
		return fmt.Sprintf("is not valid JSON at byte %d: unexpected byte 0x%02X", at, b)
	}
	return fmt.Sprintf("is not valid JSON at byte %d: %s", at, err.Error())
}

// byteName shows a byte of a body: itself, quoted, when it is printable
// ASCII, else its value.
func byteName(b byte) string {
	if b > ' ' && b < 0x7f {
		return fmt.Sprintf("%q", rune(b))
	}
	return fmt.Sprintf("0x%02X", b)
}

// jsonKind names a JSON value by encoding/json's name of it ("array",
// "bool", ...), with its article.
func jsonKind(value string) string {
	switch value {
	case "array":
		return "an array"
	case "bool":
		return "a boolean"
	case "number":
		return "a number"
	case "string":
		return "a string"
	}
	return value
}
