package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// utf8BOM is the byte order mark some editors put before UTF-8 text.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

const startsWithBOM = "starts with a byte order mark (EF BB BF): send the JSON without it"

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
		return startsWithBOM
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
	at := err.Offset
	switch {
	case err.Error() == "unexpected end of JSON input":
		return endedEarly(int64(len(body)))
	case at < 1 || at > int64(len(body)):
		return "is not valid JSON: " + err.Error()
	}
	return syntaxAt(err.Error(), at, body[at-1:])
}

// syntaxAt words encoding/json's message msg about the byte at position
// at (counted from 1), where rest starts.
func syntaxAt(msg string, at int64, rest []byte) string {
	switch {
	case strings.HasSuffix(msg, "after top-level value"):
		return moreAfter(at)
	case at == 1 && bytes.HasPrefix(rest, utf8BOM):
		return startsWithBOM
	case len(rest) == 0:
		return fmt.Sprintf("is not valid JSON at byte %d: %s", at, msg)
	case bytes.HasPrefix(rest, []byte("NaN")):
		return fmt.Sprintf("is not valid JSON at byte %d: NaN is not a JSON number", at)
	case bytes.HasPrefix(rest, []byte("Infinity")):
		return fmt.Sprintf("is not valid JSON at byte %d: Infinity is not a JSON number", at)
	case rest[0] >= 0x80:
		return fmt.Sprintf("is not valid JSON at byte %d: unexpected byte 0x%02X", at, rest[0])
	}
	return fmt.Sprintf("is not valid JSON at byte %d: %s", at, msg)
}

// endedEarly is the problem of a body of size bytes that ends inside its
// JSON value.
func endedEarly(size int64) string {
	return fmt.Sprintf("ends at byte %d, before the JSON object is complete", size)
}

// moreAfter is the problem of a body that goes on after its JSON object,
// from byte at.
func moreAfter(at int64) string {
	return fmt.Sprintf("holds more after the JSON object, from byte %d", at)
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
