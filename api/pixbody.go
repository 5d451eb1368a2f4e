package api

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/jobs"
)

// The body of POST /pix/validate is read as it arrives, and refused at the
// first limit it passes (more than jobs.MaxPixPayloads payloads, a byte
// that is not UTF-8, the body's size) or the first thing that makes it
// unreadable: a 52 MB body of a million payloads is refused after its
// first 100,001, not decoded whole first.

// readPixPayloads reads the payloads of either body form from body and
// checks their number.
func readPixPayloads(ndjson bool, body io.Reader) ([]string, error) {
	var payloads []string
	var err error
	if ndjson {
		payloads, err = readPixNDJSON(body)
	} else {
		payloads, err = readPixJSON(body)
	}
	if err != nil {
		return nil, err
	}
	if len(payloads) == 0 {
		return nil, finance.InvalidInput([]finance.Problem{{Field: "payloads", Message: "must hold at least one payload"}})
	}
	return payloads, nil
}

// tooManyPayloads is the refusal of the payload past the limit.
func tooManyPayloads() error {
	return finance.InvalidInput([]finance.Problem{{Field: "payloads",
		Message: fmt.Sprintf("holds more than %d payloads; at most %d", jobs.MaxPixPayloads, jobs.MaxPixPayloads)}})
}

// pixShape is the problem of a body that is JSON but not the payload list.
var pixShape = finance.Problem{Field: "body",
	Message: `must be {"payloads": ["...", ...]}, or NDJSON with Content-Type application/x-ndjson`}

// readPixJSON reads {"payloads": ["...", ...]}: the key once (in any case,
// as encoding/json matches it), its value an array of strings or null,
// nothing after the object.
func readPixJSON(body io.Reader) ([]string, error) {
	js := newJSONStream(body)
	switch tok, err := js.token(); {
	case err != nil:
		return nil, err
	case tok != json.Delim('{'):
		return nil, finance.InvalidInput([]finance.Problem{pixShape})
	}
	var payloads []string
	given := false
	for js.dec.More() {
		tok, err := js.token()
		if err != nil {
			return nil, err
		}
		switch key := tok.(string); {
		case !strings.EqualFold(key, "payloads"):
			return nil, finance.InvalidInput([]finance.Problem{{Field: key, Message: "unknown field: the body " + pixShape.Message}})
		case given:
			return nil, finance.InvalidInput([]finance.Problem{{Field: "payloads", Message: "is given more than once"}})
		}
		given = true
		if payloads, err = readPixArray(js); err != nil {
			return nil, err
		}
	}
	if _, err := js.token(); err != nil { // the object's }
		return nil, err
	}
	return payloads, js.end()
}

// readPixArray reads the value of payloads: null, or an array whose every
// element is a string (the others are named, all of them, unless the
// array is over the limit).
func readPixArray(js *jsonStream) ([]string, error) {
	tok, err := js.token()
	switch {
	case err != nil:
		return nil, err
	case tok == nil:
		return nil, nil
	case tok != json.Delim('['):
		return nil, finance.InvalidInput([]finance.Problem{{Field: "payloads", Message: "must be an array of strings"}})
	}
	var payloads []string
	var problems []finance.Problem
	for i := 0; js.dec.More(); i++ {
		if i == jobs.MaxPixPayloads {
			return nil, tooManyPayloads()
		}
		tok, err := js.token()
		if err != nil {
			return nil, err
		}
		if s, ok := tok.(string); ok {
			payloads = append(payloads, s)
			continue
		}
		problems = append(problems, finance.Problem{Field: "payloads." + strconv.Itoa(i), Message: "must be a string"})
		if _, ok := tok.(json.Delim); ok {
			if err := js.skip(); err != nil {
				return nil, err
			}
		}
	}
	if _, err := js.token(); err != nil { // the array's ]
		return nil, err
	}
	if len(problems) > 0 {
		return nil, finance.InvalidInput(problems)
	}
	return payloads, nil
}

// jsonStream reads the tokens of a JSON body as it arrives, its errors as
// problems of the body where it stopped (api/jsonsyntax.go).
type jsonStream struct {
	dec    *json.Decoder
	body   io.Reader
	tokens int
}

func newJSONStream(body io.Reader) *jsonStream {
	return &jsonStream{dec: json.NewDecoder(body), body: body}
}

// token is the next token; an error is coded: the body's reader's own (a
// limit, a byte that is not UTF-8) as it is, else a 422 on body.
func (js *jsonStream) token() (json.Token, error) {
	tok, err := js.dec.Token()
	if err != nil {
		return nil, js.problem(err)
	}
	js.tokens++
	return tok, nil
}

func (js *jsonStream) problem(err error) error {
	var coded *finance.Error
	var syntaxErr *json.SyntaxError
	message := "could not be read as JSON"
	switch {
	case errors.As(err, &coded):
		return err
	case errors.Is(err, io.EOF) && js.tokens == 0:
		message = "is empty: it must be a JSON object"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		message = endedEarly(js.dec.InputOffset())
	case errors.As(err, &syntaxErr):
		// the decoder stops before the byte at fault: it is the first it
		// holds, and what follows it may still be in the body
		rest := make([]byte, len("Infinity"))
		n, _ := io.ReadFull(io.MultiReader(js.dec.Buffered(), js.body), rest)
		message = syntaxAt(syntaxErr.Error(), js.dec.InputOffset()+1, rest[:n])
	}
	return finance.InvalidInput([]finance.Problem{{Field: "body", Message: message}})
}

// skip reads past the array or object whose opening was the last token.
func (js *jsonStream) skip() error {
	for depth := 1; depth > 0; {
		tok, err := js.token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('['), json.Delim('{'):
			depth++
		case json.Delim(']'), json.Delim('}'):
			depth--
		}
	}
	return nil
}

// end checks that nothing but white space follows the value read.
func (js *jsonStream) end() error {
	js.dec.More() // skips the white space, so that the offset is the next byte's
	at := js.dec.InputOffset() + 1
	_, err := js.dec.Token()
	var coded *finance.Error
	switch {
	case errors.Is(err, io.EOF):
		return nil
	case errors.As(err, &coded):
		return err
	}
	return finance.InvalidInput([]finance.Problem{{Field: "body", Message: moreAfter(at)}})
}

// readPixNDJSON reads one JSON string per line; blank lines are skipped.
// A line that is not a JSON string is named by its number.
func readPixNDJSON(body io.Reader) ([]string, error) {
	var out []string
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 64<<10), maxPixBody)
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		if len(out) == jobs.MaxPixPayloads {
			return nil, tooManyPayloads()
		}
		var s string
		if err := json.Unmarshal(text, &s); err != nil || text[0] != '"' {
			return nil, finance.InvalidInput([]finance.Problem{{Field: "line " + strconv.Itoa(line),
				Message: "must be a JSON string"}})
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		var coded *finance.Error
		if errors.As(err, &coded) {
			return nil, err
		}
		return nil, finance.InvalidInput([]finance.Problem{{Field: "body", Message: "could not be read as NDJSON"}})
	}
	return out, nil
}
