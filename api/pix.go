package api

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"unicode/utf8"

	"github.com/propfin/propfin/api/openapi"
	"github.com/propfin/propfin/jobs"
	"github.com/propfin/propfin/storage"
)

// maxPixBody bounds the body of POST /pix/validate: 100,000 payloads of
// the longest valid size (512 characters), quoted and separated, fit.
const maxPixBody = 64 << 20

// validatePix is POST /pix/validate: {"payloads": [...]} or an NDJSON body
// (Content-Type application/x-ndjson, one JSON string a line). Up to 100
// payloads are checked in the request (200 with every result); more, up to
// 100,000, become a pix:validate job (202).
func (s *Server) validatePix(w http.ResponseWriter, r *http.Request) {
	ndjson := isNDJSON(r.Header.Get("Content-Type"))
	if !ndjson {
		if err := checkContentType(r.Header.Get("Content-Type")); err != nil {
			writeError(w, r, err)
			return
		}
	}
	body, err := readBody(w, r, maxPixBody)
	if err != nil {
		writeError(w, r, err)
		return
	}
	if !utf8.Valid(body) {
		writeError(w, r, storage.InvalidInput([]storage.Problem{{Field: "body", Message: "must be valid UTF-8"}}))
		return
	}
	payloads, err := pixPayloads(ndjson, body)
	if err != nil {
		writeError(w, r, err)
		return
	}
	if len(payloads) <= jobs.MaxInlinePix {
		writeJSON(w, http.StatusOK, map[string]any{"return": true, "status": http.StatusOK, "data": jobs.ValidatePix(payloads)})
		return
	}
	sub := jobs.Submission{Kind: jobs.KindPixValidate, Payload: body} // a JSON body is the payload
	if ndjson {
		if sub, err = jobs.NewPixValidate(payloads); err != nil {
			writeError(w, r, err)
			return
		}
	}
	s.submitJob(w, r, sub, body)
}

func isNDJSON(contentType string) bool {
	mediaType, _, _ := mime.ParseMediaType(contentType)
	return mediaType == "application/x-ndjson"
}

// pixPayloads reads the payload list of either body form and checks its
// size.
func pixPayloads(ndjson bool, body []byte) ([]string, error) {
	var payloads []string
	var err error
	if ndjson {
		payloads, err = ndjsonStrings(body)
	} else {
		payloads, err = jsonPixPayloads(body)
	}
	if err != nil {
		return nil, err
	}
	switch {
	case len(payloads) == 0:
		return nil, storage.InvalidInput([]storage.Problem{{Field: "payloads", Message: "must hold at least one payload"}})
	case len(payloads) > jobs.MaxPixPayloads:
		return nil, storage.InvalidInput([]storage.Problem{{Field: "payloads",
			Message: fmt.Sprintf("holds %d payloads; at most %d", len(payloads), jobs.MaxPixPayloads)}})
	}
	return payloads, nil
}

// jsonPixPayloads reads {"payloads": [...]}: a key given twice or an entry
// that is not a string is named.
func jsonPixPayloads(body []byte) ([]string, error) {
	var req jobs.PixValidatePayload
	err := req.UnmarshalJSON(body)
	var coded *storage.Error
	switch {
	case errors.As(err, &coded):
		return nil, withProblems(err, duplicateKeys(body))
	case err != nil:
		return nil, storage.InvalidInput([]storage.Problem{{Field: "body",
			Message: `must be {"payloads": ["...", ...]}, or NDJSON with Content-Type application/x-ndjson`}})
	}
	if problems := duplicateKeys(body); len(problems) > 0 {
		return nil, storage.InvalidInput(problems)
	}
	return req.Payloads, nil
}

// ndjsonStrings reads one JSON string per line; blank lines are skipped.
// A line that is not a JSON string is named by its number.
func ndjsonStrings(body []byte) ([]string, error) {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 64<<10), maxPixBody)
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		var s string
		if err := json.Unmarshal(text, &s); err != nil || text[0] != '"' {
			return nil, storage.InvalidInput([]storage.Problem{{Field: "line " + strconv.Itoa(line),
				Message: "must be a JSON string"}})
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		return nil, storage.InvalidInput([]storage.Problem{{Field: "body", Message: "could not be read as NDJSON"}})
	}
	return out, nil
}

// validatePixOp describes POST /pix/validate.
func validatePixOp() operation {
	payloads := openapi.Array(openapi.String())
	payloads.MinItems, payloads.MaxItems = openapi.Int(1), openapi.Int(jobs.MaxPixPayloads)
	report, err := reflector.SchemaFor(jobs.PixReport{})
	if err != nil {
		panic("api: " + err.Error())
	}
	return operation{
		tag:     "pix",
		summary: "Validate PIX payloads",
		description: fmt.Sprintf("Checks BR Code payloads (docs/pix.md): up to %d in the request (200 with every "+
			"result), more, up to %d, as a `pix:validate` job (202). The body is `{\"payloads\": [...]}` or NDJSON "+
			"(`application/x-ndjson`, one JSON string a line), at most 64 MiB.", jobs.MaxInlinePix, jobs.MaxPixPayloads),
		params: []*openapi.Parameter{idempotencyKey()},
		body: &openapi.RequestBody{Required: true, Content: map[string]*openapi.MediaType{
			"application/json":     {Schema: openapi.Object(map[string]*openapi.Schema{"payloads": payloads}, "payloads")},
			"application/x-ndjson": {Schema: openapi.String().WithDescription("One JSON string a line; blank lines are skipped.")},
		}},
		responses: answers(map[int]*openapi.Response{
			http.StatusOK:       jsonAnswer("Every payload's result, in order.", envelope(report, false)),
			http.StatusAccepted: jobAccepted(),
		}, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType, http.StatusUnprocessableEntity),
	}
}
