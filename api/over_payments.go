package api

import (
	"fmt"
	"net/http"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/api/openapi"
	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// The company's over payments (docs/api.md, "Over payments"): read through
// the declared resource, closed by POST /financial/overPayments/{id}/resolve
// saying what was done with the money, as the operator's POST
// /operator/alerts/{id}/resolve does.

// overPaymentsPath is where the over payments' routes live.
const overPaymentsPath = "/financial/overPayments"

// overPaymentReads are the reads of the declared resource.
func (s *Server) overPaymentReads() (resourceHandlers, resourceDoc) {
	reg := s.store.Registry()
	h := resourceHandlers{store: s.store, reads: s.reads, res: reg.MustResource(storage.OverPayments), path: overPaymentsPath}
	return h, resourceDoc{reg: reg, res: h.res, path: overPaymentsPath}
}

func resolveOverPaymentOp() operation {
	return operation{
		tag: "financial/overPayments", summary: "Record what was done with an over payment's money",
		description: "Closes one of the company's over payments, which nothing in the ledger closes (the money was booked " +
			"nowhere): `resolution` says what was done with it, `refunded` (given back to the payer), `applied` (to another " +
			"invoice, a credit of the payer's) or `other`, and `reason` (required, up to 500 bytes) how. `resolved_by` names the " +
			"API key (`key <id>`) or its user (`user <id>`); the operator's alert is the same row and closes with it. 409 for " +
			"one resolved already (naming by whom and when); 404 for no over payment of the company by that id.",
		body: resolutionBody(),
		responses: answers(map[int]*openapi.Response{http.StatusOK: jsonAnswer("The over payment as GET shows it.",
			envelope(openapi.Ref(storage.OverPayments), true))},
			http.StatusNotFound, http.StatusConflict, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType,
			http.StatusUnprocessableEntity),
	}
}

// resolveOverPayment is POST /financial/overPayments/{id}/resolve with
// {"resolution", "reason"}: 200 with the over payment as GET shows it.
func (s *Server) resolveOverPayment(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r)
	if !ok {
		return
	}
	obj, problems, err := readObject(w, r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	req, problems := readResolution(obj, problems)
	p := principalOf(r.Context())
	req.Operator = resolverOf(p)
	if len(problems) > 0 {
		writeError(w, r, finance.InvalidInput(problems))
		return
	}
	var a storage.Alert
	err = pgx.BeginFunc(r.Context(), s.store.Pool(), func(tx pgx.Tx) error {
		var err error
		a, err = storage.ResolveOverPayment(r.Context(), tx, p.CompanyID, id, req)
		return err
	})
	if err != nil {
		writeError(w, r, err)
		return
	}
	rec, err := s.store.Get(r.Context(), s.store.Registry().MustResource(storage.OverPayments), storage.Company(p.CompanyID), id,
		storage.GetQuery{})
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, dataEnvelope{Return: true, Status: http.StatusOK,
		Message: fmt.Sprintf("Over payment %d resolved: %s.", id, *a.Resolution), Data: rec})
}

// resolverOf names who resolved an over payment through the API: the
// key's user when it has one, else the key.
func resolverOf(p storage.Principal) string {
	if p.UserID != 0 {
		return fmt.Sprintf("user %d", p.UserID)
	}
	return fmt.Sprintf("key %d", p.KeyID)
}
