package api

import (
	"context"
	"encoding/json"
	"net/http"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/api/openapi"
	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// The termination of a contract (docs/api.md, "Terminating a contract"):
// POST /financial/contracts/{id}/terminate, previewed or run, both by
// storage.TerminateContract.

// maxMotiveRunes bounds a termination's motive.
const maxMotiveRunes = 2000

// terminateContract is POST /financial/contracts/{id}/terminate: the
// contract is terminated on termination_at as asked (200 with what was
// done), under the request's Idempotency-Key (writeKeyed), or, with
// preview, the same answer with nothing stored.
func (s *Server) terminateContract(w http.ResponseWriter, r *http.Request) {
	id, ok := pathParamID(w, r, "id")
	if !ok {
		return
	}
	if err := checkContentType(r.Header.Get("Content-Type")); err != nil {
		writeError(w, r, err)
		return
	}
	raw, err := readBody(w, r, maxBodyBytes)
	if err != nil {
		writeError(w, r, err)
		return
	}
	req, problems, err := parseTerminationBody(raw)
	if err != nil {
		writeError(w, r, err)
		return
	}
	p := principalOf(r.Context())
	sc := storage.Scope{CompanyID: p.CompanyID, UserID: p.UserID}
	s.writeKeyed(w, r, raw, req.Preview, problems, func(ctx context.Context, tx pgx.Tx) (operationAnswer, error) {
		t, err := storage.TerminateContract(ctx, tx, sc, id, req)
		if err != nil {
			return operationAnswer{}, err
		}
		return answerOf(req.Preview, http.StatusOK, "Contract terminated.", terminationViewOf(t)), nil
	})
}

// parseTerminationBody reads {"termination_at", "requester", "motive",
// "exemption", "preview"}, naming every problem (err is a body that is no
// JSON object).
func parseTerminationBody(raw []byte) (storage.TerminationRequest, []finance.Problem, error) {
	var req storage.TerminationRequest
	obj, problems, err := decodeObject(raw)
	if err != nil {
		return req, nil, err
	}
	fail := func(field, message string) {
		problems = append(problems, finance.Problem{Field: field, Message: message})
	}
	for _, key := range []string{"termination_at", "requester"} {
		if v, given := obj[key]; !given || string(v) == "null" {
			fail(key, "is required")
		}
	}
	for _, key := range sortedKeys(obj) {
		v := obj[key]
		if string(v) == "null" {
			continue
		}
		switch key {
		case "termination_at":
			var s string
			d, err := finance.Date{}, json.Unmarshal(v, &s)
			if err == nil {
				d, err = finance.ParseDate(s)
			}
			if err != nil || d.Year() < 2000 {
				fail(key, "must be a date, YYYY-MM-DD, from 2000-01-01")
			}
			req.At = d
		case "requester":
			var s string
			if json.Unmarshal(v, &s) != nil || !finance.Requester(s).Valid() {
				fail(key, "must be tenant, owner or mutual")
			}
			req.Requester = finance.Requester(s)
		case "motive":
			if json.Unmarshal(v, &req.Motive) != nil {
				fail(key, "must be a string")
			} else if utf8.RuneCountInString(req.Motive) > maxMotiveRunes {
				fail(key, "at most 2000 characters")
			}
		case "exemption":
			if json.Unmarshal(v, &req.Exemption) != nil {
				fail(key, "must be a boolean")
			}
		case "preview":
			if json.Unmarshal(v, &req.Preview) != nil {
				fail(key, "must be a boolean")
			}
		default:
			fail(key, "unknown field")
		}
	}
	return req, problems, nil
}

// terminationView is the data of the operation's answer.
type terminationView struct {
	ContractID       int64                  `json:"contract_id"`
	Preview          bool                   `json:"preview"`
	TerminationAt    finance.Date           `json:"termination_at"`
	Requester        finance.Requester      `json:"requester"`
	Motive           *string                `json:"motive"`
	Exemption        bool                   `json:"exemption"`
	Status           finance.ContractStatus `json:"status"`
	Fine             fineView               `json:"fine"`
	CanceledInvoices []int64                `json:"canceled_invoices"`
	OpenInvoices     []int64                `json:"open_invoices"`
	PaidAfter        []int64                `json:"paid_after"`
	Unserved         *unservedView          `json:"unserved"`
	Deposit          depositView            `json:"deposit"`
	RefundDue        finance.Money          `json:"refund_due"`
	Invoice          *finalInvoiceView      `json:"invoice"`
}

// fineView is the fine: why, the contract's fine, the days, the amount
// charged, the item it is booked as and each owner's share.
type fineView struct {
	Reason        finance.FineReason `json:"reason"`
	Base          finance.Money      `json:"base"`
	TermDays      int                `json:"term_days"`
	RemainingDays int                `json:"remaining_days"`
	Amount        finance.Money      `json:"amount"`
	ItemID        *int64             `json:"item_id"`
	Owners        []ownerShareView   `json:"owners"`
}

type ownerShareView struct {
	OwnerID    int64           `json:"owner_id"`
	Amount     finance.Money   `json:"amount"`
	Percentage finance.Percent `json:"percentage"`
}

type unservedView struct {
	InvoiceID int64         `json:"invoice_id"`
	Amount    finance.Money `json:"amount"`
}

type depositView struct {
	Held     finance.Money `json:"held"`
	Deducted finance.Money `json:"deducted"`
	Returned finance.Money `json:"returned"`
}

// finalInvoiceView is the final invoice as a preview of generation shows
// an invoice, with its id (null in a preview).
type finalInvoiceView struct {
	ID *int64 `json:"id"`
	invoicePreview
}

func terminationViewOf(t storage.ContractTermination) terminationView {
	v := terminationView{ContractID: t.ContractID, Preview: t.Request.Preview, TerminationAt: t.At,
		Requester: t.Request.Requester, Motive: optString(t.Request.Motive), Exemption: t.Request.Exemption, Status: t.Status,
		Fine: fineView{Reason: t.Fine.Reason, Base: finance.Money(t.Fine.Base), TermDays: t.Fine.TermDays,
			RemainingDays: t.Fine.RemainingDays, Amount: finance.Money(t.Fine.Amount), Owners: []ownerShareView{}},
		CanceledInvoices: orEmpty(t.Canceled), OpenInvoices: orEmpty(t.Open), PaidAfter: orEmpty(t.PaidAfter),
		Deposit: depositView{Held: finance.Money(t.Deposit.Held), Deducted: finance.Money(t.Deposit.Deducted),
			Returned: finance.Money(t.Deposit.Returned)},
		RefundDue: finance.Money(t.RefundDue)}
	if t.Fine.Amount.IsPositive() {
		v.Fine.ItemID = optID(t.FineItemID)
	}
	for _, o := range t.FineOwners {
		v.Fine.Owners = append(v.Fine.Owners, ownerShareView{OwnerID: o.OwnerID, Amount: finance.Money(o.Amount),
			Percentage: finance.Percent(o.Percentage)})
	}
	if t.Unserved != nil {
		v.Unserved = &unservedView{InvoiceID: t.Unserved.InvoiceID, Amount: finance.Money(t.Unserved.Amount)}
	}
	if t.Final != nil {
		v.Invoice = &finalInvoiceView{ID: optID(t.FinalID),
			invoicePreview: previewInvoice(storage.GeneratedInvoice{Invoice: *t.Final, BuildingID: t.BuildingID,
				Unset: t.FinalUnset})}
	}
	return v
}

// terminateOp describes POST /financial/contracts/{id}/terminate.
func terminateOp() operation {
	answer, err := reflector.SchemaFor(terminationView{})
	if err != nil {
		panic("api: " + err.Error())
	}
	return operation{
		tag:     "financial/contracts",
		summary: "Terminate a contract, or preview it",
		description: "The lease ends on `termination_at`, its last day (docs/api.md, \"Terminating a contract\"; the rule in " +
			"docs/finance.md, \"Termination\"): the fine of Lei 8.245/91 art. 4 reduced by the days of the term not served " +
			"(none when exempt, after the term, or asked by the owner or by both), the unpaid invoices of periods not wholly " +
			"served canceled, a final invoice with the last period's rent pro rata, the charges billed with it and the fine, " +
			"less the deposit; the contract `terminating` until the date, `terminated` after. With `preview` the same answer " +
			"and nothing stored. A contract that cannot be terminated as asked is a 422 naming each field.",
		body: jsonBody("`termination_at` and `requester` are required.", true, openapi.Object(map[string]*openapi.Schema{
			"termination_at": {Type: "string", Format: "date", Description: "The lease's last day, from 2000-01-01 and not " +
				"before the contract's `start_at`."},
			"requester": openapi.Enum("tenant", "owner", "mutual"),
			"motive":    {Type: "string", MaxLength: openapi.Int(maxMotiveRunes), Description: "Stored as `termination_fee_motive`."},
			"exemption": openapi.Boolean().WithDescription("The tenant is exempt from the fine (art. 4, sole paragraph: " +
				"transferred by the employer)."),
			"preview": openapi.Boolean().WithDescription("Answer what the termination would do, storing nothing."),
		}, "termination_at", "requester")),
		responses: answers(map[int]*openapi.Response{http.StatusOK: jsonAnswer("What the termination did, or would do; "+
			"with the same `Idempotency-Key` and body, the first answer again.", envelope(answer, true))},
			http.StatusNotFound, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType, http.StatusUnprocessableEntity),
		keyed: true,
	}
}
