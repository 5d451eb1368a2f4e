package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/propfin/propfin/finance"
)

// escapeProblem scans the text of one valid JSON value for \u escapes that
// would not survive as written: \u0000 (PostgreSQL stores no NUL) and a
// UTF-16 surrogate without its other half (Go decodes it to U+FFFD,
// PostgreSQL's jsonb refuses it). It returns why the value is refused, ""
// when it is not. In valid JSON a backslash only occurs inside strings,
// keys included, and always starts a complete escape.
func escapeProblem(raw []byte) string {
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		if raw[i+1] != 'u' {
			i++ // a two-character escape: \" \\ \/ \b \f \n \r \t
			continue
		}
		r := hex4(raw[i+2 : i+6])
		switch {
		case r == 0:
			return "must not contain NUL characters"
		case isHighSurrogate(r) && i+12 <= len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u' && isLowSurrogate(hex4(raw[i+8:i+12])):
			i += 11
		case isHighSurrogate(r) || isLowSurrogate(r):
			return "must not contain a UTF-16 surrogate without its pair"
		default:
			i += 5
		}
	}
	return ""
}

func isHighSurrogate(r rune) bool { return r >= 0xd800 && r < 0xdc00 }

func isLowSurrogate(r rune) bool { return r >= 0xdc00 && r < 0xe000 }

// hex4 reads the four hexadecimal digits of a \u escape; -1 when they are
// not (invalid JSON, which never gets here).
func hex4(b []byte) rune {
	var r rune
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return -1
		}
	}
	return r
}

// jsonFrame is an array or object being read by duplicateKeys.
type jsonFrame struct {
	keys    map[string]bool // nil for an array
	wantKey bool
}

// duplicateKeys names each top-level field of a valid JSON object that is
// given twice, or whose value holds an object with a key given twice:
// encoding/json, like jsonb, would silently keep the last one. Keys are
// compared decoded ("d\u0069" is "di").
func duplicateKeys(body []byte) []finance.Problem {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var stack []*jsonFrame
	var field string // the top-level key whose value is being read
	var problems []finance.Problem
	for {
		tok, err := dec.Token()
		if err != nil {
			return problems // io.EOF: the body was checked to be valid JSON
		}
		if key, ok := tok.(string); ok && len(stack) > 0 && stack[len(stack)-1].wantKey {
			f := stack[len(stack)-1]
			if len(stack) == 1 {
				field = key
			}
			if f.keys[key] && !slices.ContainsFunc(problems, func(p finance.Problem) bool { return p.Field == field }) {
				problems = append(problems, duplicateProblem(field, key, len(stack) == 1))
			}
			f.keys[key], f.wantKey = true, false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &jsonFrame{keys: map[string]bool{}, wantKey: true})
			continue
		case json.Delim('['):
			stack = append(stack, &jsonFrame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 && stack[len(stack)-1].keys != nil {
			stack[len(stack)-1].wantKey = true // a value ended; a key or the end follows
		}
	}
}

func duplicateProblem(field, key string, topLevel bool) finance.Problem {
	if topLevel {
		return finance.Problem{Field: field, Message: "is given more than once"}
	}
	return finance.Problem{Field: field, Message: fmt.Sprintf("holds an object with the key %q more than once", key)}
}
