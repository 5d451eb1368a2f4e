package api

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/propfin/propfin/api/openapi"
	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/pix"
	"github.com/propfin/propfin/storage"
)

// The invoice operations that are not CRUD (spec 001): storing the bank's
// PIX code on an invoice. Receipt links are in receipts.go.

// setPixCode is POST /invoices/{invoice_id}/pixCode with {"pixCode": "..."}:
// the payload is validated by the pix package (EMV structure, PIX scheme,
// key or URL, mandatory fields, CRC16, at most 512 characters) and stored
// with its check digit in upper case, its origin in the invoice's history.
// A payload with problems stores nothing and is a 422 listing each; an
// invoice that takes no PIX code is a 409 saying why. The answer is the
// invoice as GET shows it.
func (s *Server) setPixCode(w http.ResponseWriter, r *http.Request) {
	id, ok := pathParamID(w, r, "invoice_id")
	if !ok {
		return
	}
	code, amount, err := readPixCode(w, r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	p := principalOf(r.Context())
	sc := storage.Scope{CompanyID: p.CompanyID, UserID: p.UserID}
	if err := s.store.SetInvoicePixCode(r.Context(), sc, id, code, amount); err != nil {
		writeError(w, r, err)
		return
	}
	rec, err := s.store.Get(r.Context(), s.store.Registry().MustResource(storage.Invoices), sc, id, storage.GetQuery{})
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeRaw(w, http.StatusOK, recordEnvelope(http.StatusOK, "PIX code stored.", rec))
}

// readPixCode reads the body {"pixCode": "..."} and returns the payload
// normalized for storage with the amount it charges ("" when none), or a
// 422 naming every problem.
func readPixCode(w http.ResponseWriter, r *http.Request) (code, amount string, err error) {
	obj, problems, err := readObject(w, r)
	if err != nil {
		return "", "", err
	}
	for _, key := range sortedKeys(obj) {
		if key != "pixCode" {
			problems = append(problems, finance.Problem{Field: key, Message: "unknown field"})
		}
	}
	raw, given := obj["pixCode"]
	switch {
	case !given:
		problems = append(problems, finance.Problem{Field: "pixCode", Message: "is required"})
	case json.Unmarshal(raw, &code) != nil:
		problems = append(problems, finance.Problem{Field: "pixCode", Message: "must be a string"})
	default:
		normalized, probs := pix.Normalize(code)
		for _, p := range probs {
			problems = append(problems, pixProblem(p))
		}
		code = normalized
	}
	if len(problems) > 0 {
		return "", "", finance.InvalidInput(problems)
	}
	payload, err := pix.Parse(code)
	if err != nil {
		return "", "", fmt.Errorf("parse a validated PIX payload: %w", err)
	}
	return code, payload.Amount, nil
}

// pixProblem is one problem of a PIX payload as a client reads it: the
// field named under pixCode (pixCode.crc, pixCode.merchant_city), the
// message and the package's code.
func pixProblem(p pix.Problem) finance.Problem {
	field := "pixCode"
	if p.Field != "" && p.Field != pix.FieldPayload {
		field += "." + p.Field
	}
	return finance.Problem{Field: field, Message: p.Message + " (" + p.Code + ")"}
}

// pixCodeOp describes POST /invoices/{invoice_id}/pixCode.
var pixCodeOp = operation{
	tag:     "invoices",
	summary: "Store the bank's PIX code on an invoice",
	description: "Validates the BR Code (docs/pix.md) and stores it with its check digit in upper case; the history " +
		"records it. Every problem of the payload is a 422 named under `pixCode`; an invoice without a billing, or " +
		"paid, canceled, refunded or uncollectible, is a 409; a payload charging another amount than the invoice's " +
		"total (or, past its due date, than what is due today with its late fee and interest) is a 422 on `pixCode.amount`. Answers the invoice as `GET /invoices/{id}` shows it.",
	body: jsonBody("The payload.", true, openapi.Object(map[string]*openapi.Schema{
		"pixCode": {Type: "string", MaxLength: openapi.Int(512), Description: "The copy-and-paste BR Code."}}, "pixCode")),
	responses: answers(map[int]*openapi.Response{http.StatusOK: jsonAnswer("The invoice, with its code.",
		envelope(openapi.Ref(storage.Invoices), true))}, http.StatusNotFound, http.StatusConflict,
		http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType, http.StatusUnprocessableEntity),
}
