package api

import (
	"fmt"
	"io"
	"mime"
	"net/http"

	"github.com/propfin/propfin/api/openapi"
	"github.com/propfin/propfin/jobs"
)

// maxPixBody bounds the body of POST /pix/validate: 100,000 payloads of
// the longest valid size (512 characters), quoted and separated, fit.
const maxPixBody = 64 << 20

// validatePix is POST /pix/validate: {"payloads": [...]} or an NDJSON body
// (Content-Type application/x-ndjson, one JSON string a line), read as it
// arrives (api/pixbody.go). Up to 100 payloads are checked in the request
// (200 with every result); more, up to 100,000, become a pix:validate job
// (202).
func (s *Server) validatePix(w http.ResponseWriter, r *http.Request) {
	ndjson := isNDJSON(r.Header.Get("Content-Type"))
	if !ndjson {
		if err := checkContentType(r.Header.Get("Content-Type")); err != nil {
			writeError(w, r, err)
			return
		}
	}
	body, err := openBody(w, r, maxPixBody)
	if err != nil {
		writeError(w, r, err)
		return
	}
	digest := requestDigest(r)
	payloads, err := readPixPayloads(ndjson, checkUTF8(io.TeeReader(body, digest)))
	if err != nil {
		writeError(w, r, err)
		return
	}
	if len(payloads) <= jobs.MaxInlinePix {
		writeJSON(w, http.StatusOK, dataEnvelope{Return: true, Status: http.StatusOK, Data: jobs.ValidatePix(payloads)})
		return
	}
	sub, err := jobs.NewPixValidate(payloads)
	if err != nil {
		writeError(w, r, err)
		return
	}
	s.submitDigested(w, r, sub, digest)
}

func isNDJSON(contentType string) bool {
	mediaType, _, _ := mime.ParseMediaType(contentType)
	return mediaType == "application/x-ndjson"
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
