package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/api/openapi"
	"github.com/propfin/propfin/storage"
)

// The void of an owner's transfer by hand (docs/ledger.md, "Voiding a
// transfer by hand"): POST /transactions/{id}/void voids an unpaid
// transfer of the run in no payment batch, as the undo of the payment it
// paid out voids it (storage.VoidTransfer).

// voidTransfer is POST /transactions/{id}/void: 200 with the transfer as
// GET /transactions/{id} shows it (status void), under the request's
// Idempotency-Key (writeKeyed); 409 for a transfer paid, void already or
// in a payment batch, or an entry that is no transfer of the run.
func (s *Server) voidTransfer(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r)
	if !ok {
		return
	}
	if err := noQuery(r.URL.RawQuery); err != nil {
		writeError(w, r, err)
		return
	}
	raw, err := readBody(w, r, maxBodyBytes)
	if err != nil {
		writeError(w, r, err)
		return
	}
	p := principalOf(r.Context())
	sc := storage.Scope{CompanyID: p.CompanyID, UserID: p.UserID}
	s.writeKeyed(w, r, raw, false, nil, func(ctx context.Context, tx pgx.Tx) (operationAnswer, error) {
		v, err := storage.VoidTransfer(ctx, tx, sc, id)
		if err != nil {
			return operationAnswer{}, err
		}
		rec, err := s.store.GetIn(ctx, tx, s.store.Registry().MustResource(storage.Transactions), sc, id, storage.GetQuery{})
		if err != nil {
			return operationAnswer{}, err
		}
		message := fmt.Sprintf("Transfer voided: entry %d reverses it.", v.Void)
		return operationAnswer{status: http.StatusOK, envelope: json.RawMessage(recordEnvelope(http.StatusOK, message, rec))}, nil
	})
}

// voidTransferOp describes POST /transactions/{id}/void.
func voidTransferOp() operation {
	return operation{
		tag:     "transactions",
		summary: "Void an owner's unpaid transfer",
		description: "An owner's transfer the nightly run wrote, unpaid and in no payment batch, is voided as the undo of " +
			"the payment it paid out voids it (docs/ledger.md, \"Voiding a transfer by hand\"): its reversal is written " +
			"beside it, dated today in the company's time zone, and the entries it paid out are released, so that the " +
			"next run pays out what they then add up to. Nothing is deleted. A transfer paid, void already, or in a " +
			"payment batch (the message says how to take it out first), or an entry that is no transfer of the run: 409; " +
			"with the same `Idempotency-Key`, the first answer again instead.",
		responses: answers(map[int]*openapi.Response{
			http.StatusOK: jsonAnswer("The transfer as GET shows it, `status` `void`; `message` names the entry that reverses it.",
				envelope(openapi.Ref(storage.Transactions), true)),
		}, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity),
		keyed: true,
	}
}
