package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Bounds of what one custom field may hold. PostgreSQL's jsonb keeps a
// number exactly, written out in full (1e131071 is 131,072 digits), so a
// number is bounded by its digits as stored, not by the text sent.
const (
	// maxCustomText bounds a string (and a key) inside a custom field, in
	// characters.
	maxCustomText = 10_000
	// maxCustomDigits bounds a number's digits before the decimal point
	// (so its magnitude is below 1e15) and after it, as stored.
	maxCustomDigits = 15
	// maxCustomDepth bounds the nesting of arrays and objects.
	maxCustomDepth = 10
	// maxCustomItems bounds the values and keys inside one custom field.
	maxCustomItems = 1_000
)

// customProblem says why the JSON value of one custom field is refused:
// not UTF-8, a \u escape jsonb cannot store, past the bounds of a custom
// field. "" when it is fine.
func customProblem(raw json.RawMessage) string {
	if !utf8.Valid(raw) {
		return "must be valid UTF-8"
	}
	if msg := escapeProblem(raw); msg != "" {
		return msg
	}
	return customValueProblem(raw)
}

// customValueProblem says why the JSON value of one custom field is past
// the bounds of a custom field; "" when it is within them.
func customValueProblem(raw json.RawMessage) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	depth, items := 0, 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return ""
		}
		if err != nil {
			return "must be a JSON value"
		}
		if msg := tokenProblem(tok, &depth); msg != "" {
			return msg
		}
		if tok == json.Delim(']') || tok == json.Delim('}') {
			continue
		}
		if items++; items > maxCustomItems+1 { // the field's own value is not counted
			return fmt.Sprintf("must hold at most %d values and keys", maxCustomItems)
		}
	}
}

// tokenProblem checks one token of a custom field's value and follows the
// nesting depth.
func tokenProblem(tok json.Token, depth *int) string {
	switch v := tok.(type) {
	case json.Delim:
		if v == '[' || v == '{' {
			if *depth++; *depth > maxCustomDepth {
				return fmt.Sprintf("must nest arrays and objects at most %d deep", maxCustomDepth)
			}
		} else {
			*depth--
		}
	case string:
		if utf8.RuneCountInString(v) > maxCustomText {
			return fmt.Sprintf("must hold texts of at most %d characters", maxCustomText)
		}
	case json.Number:
		return customNumberProblem(string(v))
	}
	return ""
}

// jsonNumber splits a JSON number into its integer digits, fraction digits
// and exponent.
var jsonNumber = regexp.MustCompile(`^-?([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$`)

// customNumberProblem bounds a number by the digits PostgreSQL keeps of it:
// below 1e15 in magnitude, and at most 15 decimal places (numeric keeps
// max(0, places written - exponent) of them: 0e-99 keeps 99 zeros).
func customNumberProblem(s string) string {
	msg := fmt.Sprintf("must be a number below 1e%d with at most %d decimal places", maxCustomDigits, maxCustomDigits)
	m := jsonNumber.FindStringSubmatch(s)
	if m == nil || len(strings.TrimLeft(strings.TrimLeft(m[3], "+-"), "0")) > 6 {
		return msg
	}
	exp := 0
	if m[3] != "" {
		exp, _ = strconv.Atoi(m[3])
	}
	digits := m[1] + m[2]
	point := len(m[1]) + exp // where the decimal point falls in digits
	significant := strings.TrimLeft(digits, "0")
	point -= len(digits) - len(significant)
	if len(m[2])-exp > maxCustomDigits || (significant != "" && point > maxCustomDigits) {
		return msg
	}
	return ""
}
