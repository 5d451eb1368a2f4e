package api

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/api/openapi"
	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// Renegotiation agreements (docs/api.md, "/financial/agreements"): the
// agreements are read through the declared resource with the query
// language; POST creates one (or previews it, the same code without the
// write), and an active one is canceled or broken by its operations.

// agreementsPath is where the agreement routes live.
const agreementsPath = "/financial/agreements"

// agreementReads are the agreements' list and get, through the declared
// resource (the writes are by hand).
func (s *Server) agreementReads() (resourceHandlers, resourceDoc) {
	reg := s.store.Registry()
	h := resourceHandlers{store: s.store, reads: s.reads, res: reg.MustResource(storage.Agreements), path: agreementsPath}
	return h, resourceDoc{reg: reg, res: h.res, path: agreementsPath}
}

// agreementBody is the body of POST /financial/agreements, with the
// bytes it was read from (which an Idempotency-Key compares).
type agreementBody struct {
	req      storage.AgreementRequest
	preview  bool
	raw      []byte
	problems []finance.Problem // the body's, named with the write's checks
}

// readAgreementBody reads {"invoices", "installments", "first_due_date",
// "interval_months", "late_fee_waiver", "interest_waiver", "discount",
// "preview"}: the first three required, every problem named.
func readAgreementBody(w http.ResponseWriter, r *http.Request) (agreementBody, error) {
	b := agreementBody{req: storage.AgreementRequest{IntervalMonths: 1}}
	raw, obj, problems, err := readObjectBody(w, r)
	if err != nil {
		return b, err
	}
	b.raw = raw
	bad := func(field, message string) {
		problems = append(problems, finance.Problem{Field: field, Message: message})
	}
	q := &b.req
	for _, key := range sortedKeys(obj) {
		raw := obj[key]
		switch key {
		case "invoices":
			if json.Unmarshal(raw, &q.InvoiceIDs) != nil || !allPositive(q.InvoiceIDs) {
				bad(key, "must be an array of invoice ids")
			}
		case "installments":
			if json.Unmarshal(raw, &q.Installments) != nil {
				bad(key, "must be an integer")
				q.Installments = 1
			}
		case "interval_months":
			if json.Unmarshal(raw, &q.IntervalMonths) != nil {
				bad(key, "must be an integer")
				q.IntervalMonths = 1
			}
		case "first_due_date":
			var s string
			d, err := finance.Date{}, json.Unmarshal(raw, &s)
			if err == nil {
				d, err = finance.ParseDate(s)
			}
			if err != nil {
				bad(key, "must be a date, YYYY-MM-DD")
				d = finance.MustDate("9999-12-31") // named once
			}
			q.FirstDueDate = d
		case "late_fee_waiver", "interest_waiver", "discount":
			d, ok := agreementDecimal(raw)
			if !ok {
				bad(key, "must be a number")
			}
			*map[string]*decimal.Decimal{"late_fee_waiver": &q.LateFeeWaiver, "interest_waiver": &q.InterestWaiver,
				"discount": &q.Discount}[key] = d
		case "preview":
			if json.Unmarshal(raw, &b.preview) != nil {
				bad(key, "must be true or false")
			}
		default:
			bad(key, "unknown field")
		}
	}
	for _, key := range []string{"invoices", "installments", "first_due_date"} {
		if _, given := obj[key]; !given {
			bad(key, "is required")
		}
	}
	b.problems = problems
	return b, nil
}

// agreementDecimal reads a JSON number or decimal string; null is zero.
func agreementDecimal(raw json.RawMessage) (decimal.Decimal, bool) {
	var m finance.Money
	if err := json.Unmarshal(raw, &m); err != nil {
		return decimal.Zero, false
	}
	return m.Decimal(), true
}

func allPositive(ids []int64) bool {
	for _, id := range ids {
		if id <= 0 {
			return false
		}
	}
	return true
}

// postAgreement is POST /financial/agreements, under the request's
// Idempotency-Key (writeKeyed): with preview, 200 and the agreement a run
// would write, nothing written; otherwise 201 and the agreement written.
// Both answers are the same data (ids null in a preview). A body or
// invoices that cannot be renegotiated: 422 naming the field.
func (s *Server) postAgreement(w http.ResponseWriter, r *http.Request) {
	body, err := readAgreementBody(w, r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	p := principalOf(r.Context())
	sc := storage.Scope{CompanyID: p.CompanyID, UserID: p.UserID}
	s.writeKeyed(w, r, body.raw, body.preview, body.problems, func(ctx context.Context, tx pgx.Tx) (operationAnswer, error) {
		run, err := storage.CreateAgreement(ctx, tx, sc, body.req, body.preview)
		if err != nil {
			return operationAnswer{}, err
		}
		a := answerOf(body.preview, http.StatusCreated, "Created.", agreementViewOf(run))
		if !body.preview {
			a.location = agreementsPath + "/" + strconv.FormatInt(run.ID, 10)
		}
		return a, nil
	})
}

// endAgreement is POST /financial/agreements/{id}/cancel (cancel true) or
// /break, under the request's Idempotency-Key (writeKeyed: a repeat
// answers the first answer, not the 409 of an agreement ended): 200 with
// the agreement as GET shows it, read in the transaction of the end.
func (s *Server) endAgreement(cancel bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
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
		end, message := storage.BreakAgreement, "Agreement broken."
		if cancel {
			end, message = storage.CancelAgreement, "Agreement canceled."
		}
		s.writeKeyed(w, r, raw, false, nil, func(ctx context.Context, tx pgx.Tx) (operationAnswer, error) {
			if err := end(ctx, tx, sc, id); err != nil {
				return operationAnswer{}, err
			}
			rec, err := s.store.GetIn(ctx, tx, s.store.Registry().MustResource(storage.Agreements), sc, id, storage.GetQuery{})
			if err != nil {
				return operationAnswer{}, err
			}
			return operationAnswer{status: http.StatusOK, envelope: json.RawMessage(recordEnvelope(http.StatusOK, message, rec))}, nil
		})
	}
}

// agreementView is an agreement as POST answers it: the columns GET shows
// (paid_amount, dates and timestamps aside), its debts, and its
// installments as the invoices written.
type agreementView struct {
	ID               *int64                  `json:"id"`
	Status           string                  `json:"status"`
	PayerID          int64                   `json:"payer_id"`
	BusinessID       int64                   `json:"business_id"`
	AccountID        int64                   `json:"account_id"`
	Date             finance.Date            `json:"date"`
	InstallmentCount int                     `json:"installment_count"`
	FirstDueDate     finance.Date            `json:"first_due_date"`
	IntervalMonths   int                     `json:"interval_months"`
	LateFeeWaiver    finance.Percent         `json:"late_fee_waiver"`
	InterestWaiver   finance.Percent         `json:"interest_waiver"`
	Discount         finance.Money           `json:"discount"`
	Principal        finance.Money           `json:"principal"`
	LateFee          finance.Money           `json:"late_fee"`
	LateFeeWaived    finance.Money           `json:"late_fee_waived"`
	Interest         finance.Money           `json:"interest"`
	InterestWaived   finance.Money           `json:"interest_waived"`
	Total            finance.Money           `json:"total"`
	InvoiceIDs       []int64                 `json:"invoice_ids"`
	InstallmentIDs   []int64                 `json:"installment_ids" openapi:"nullable"` // null in a preview
	Debts            []storage.AgreementDebt `json:"debts"`
	Installments     []installmentView       `json:"installments"`
}

// installmentView is an installment as the invoice written: its fields
// and lines, each line with its origin.
type installmentView struct {
	ID                      *int64                `json:"id"`
	AgreementInstallment    int                   `json:"agreement_installment"`
	Type                    finance.InvoiceType   `json:"type"`
	PayerID                 int64                 `json:"payer_id"`
	ContractID              *int64                `json:"contract_id"`
	BuildingID              *int64                `json:"building_id"`
	BusinessID              int64                 `json:"business_id"`
	AccountID               int64                 `json:"account_id"`
	BillingID               *int64                `json:"billing_id"`
	BillingMethod           string                `json:"billing_method"`
	Description             string                `json:"description"`
	Total                   finance.Money         `json:"total"`
	Date                    finance.Date          `json:"date"`
	DueDate                 finance.Date          `json:"due_date"`
	TicketLateFee           bool                  `json:"ticket_late_fee"`
	TicketLateFeeItemID     *int64                `json:"ticket_late_fee_item_id"`
	TicketLateFeePercentage finance.Percent       `json:"ticket_late_fee_percentage"`
	TicketLateFeeInterest   finance.Percent       `json:"ticket_late_fee_interest"`
	Items                   []installmentLineView `json:"items"`
}

// installmentLineView is one line of an installment.
type installmentLineView struct {
	ItemID          int64         `json:"item_id"`
	Amount          finance.Money `json:"amount"`
	Description     *string       `json:"description"`
	OwnerID         *int64        `json:"owner_id"`
	BrokerID        *int64        `json:"broker_id"`
	OriginInvoiceID int64         `json:"origin_invoice_id"`
	OriginLineID    *int64        `json:"origin_line_id"`
	AgreementPart   string        `json:"agreement_part"`
}

func agreementViewOf(run *storage.AgreementRun) agreementView {
	t, p := &run.Terms, &run.Plan
	v := agreementView{ID: optID(run.ID), Status: run.Status, PayerID: run.PayerID, BusinessID: run.BusinessID,
		AccountID: run.AccountID, Date: t.Date, InstallmentCount: t.Installments, FirstDueDate: t.FirstDueDate,
		IntervalMonths: t.IntervalMonths, LateFeeWaiver: finance.Percent(t.LateFeeWaiver),
		InterestWaiver: finance.Percent(t.InterestWaiver), Discount: finance.Money(t.Discount),
		Principal: finance.Money(p.Principal), LateFee: finance.Money(p.LateFee), LateFeeWaived: finance.Money(p.LateFeeWaived),
		Interest: finance.Money(p.Interest), InterestWaived: finance.Money(p.InterestWaived), Total: finance.Money(p.Total),
		InvoiceIDs: run.InvoiceIDs, Debts: run.Debts()}
	for _, in := range run.Installments {
		if in.ID != 0 {
			v.InstallmentIDs = append(v.InstallmentIDs, in.ID)
		}
		v.Installments = append(v.Installments, installmentViewOf(in))
	}
	return v
}

func installmentViewOf(in storage.InstallmentInvoice) installmentView {
	inv := &in.Invoice
	v := installmentView{ID: optID(in.ID), AgreementInstallment: in.Number, Type: inv.Type, PayerID: inv.PayerID,
		ContractID: optID(inv.ContractID), BuildingID: optID(in.BuildingID), BusinessID: inv.BusinessID, AccountID: inv.AccountID,
		BillingID: optID(inv.BillingID), BillingMethod: inv.BillingMethod, Description: inv.Description,
		Total: finance.Money(inv.Total), Date: inv.Date, DueDate: inv.DueDate, TicketLateFee: inv.TicketLateFee,
		TicketLateFeeItemID: optID(inv.TicketLateFeeItemID), TicketLateFeePercentage: finance.Percent(inv.TicketLateFeePercentage),
		TicketLateFeeInterest: finance.Percent(inv.TicketLateFeeInterest), Items: []installmentLineView{}}
	for _, l := range in.Lines {
		v.Items = append(v.Items, installmentLineView{ItemID: l.ItemID, Amount: finance.Money(l.Amount),
			Description: optString(l.Description), OwnerID: optID(l.OwnerID), BrokerID: optID(l.BrokerID),
			OriginInvoiceID: l.OriginInvoiceID, OriginLineID: optID(l.OriginLineID), AgreementPart: string(l.Part)})
	}
	return v
}

// postAgreementOp describes POST /financial/agreements.
func postAgreementOp() operation {
	view, err := reflector.SchemaFor(agreementView{})
	if err != nil {
		panic("api: " + err.Error())
	}
	num := func(description string) *openapi.Schema {
		return &openapi.Schema{OneOf: []*openapi.Schema{openapi.Number(), {Type: "string", Pattern: decimalText.String()}},
			Description: description + " A number, or decimal text."}
	}
	return operation{
		tag:     "financial/agreements",
		summary: "Renegotiate a payer's open invoices into installments (or preview it)",
		description: "The debt of the invoices on the company's today (each one's total, late fee and interest by its own rules, " +
			"less the waivers and the discount, pro rata) cut into installments, new invoices of type `single` whose lines keep " +
			"the original invoice and line each part came from (docs/api.md, \"/financial/agreements\"; docs/finance.md, " +
			"\"Renegotiation agreements\"). The originals become `renegotiated`. With `preview`, 200 and the agreement a run would " +
			"write, nothing written; otherwise 201 and the agreement written, the same data with its ids. Invoices of different " +
			"payers, a paid, canceled or renegotiated one, one in a collection batch not reverted, installments below 1, a " +
			"first due date in the past: 422 naming the field (`invoices.N` for the N-th invoice). With the same " +
			"`Idempotency-Key` and body, the first answer again (its `Location` too), nothing written.",
		body: jsonBody("The invoices and the terms.", true, openapi.Object(map[string]*openapi.Schema{
			"invoices":        openapi.Array(openapi.Integer()).WithDescription("The invoices to renegotiate: one payer's, open."),
			"installments":    openapi.Integer().WithDescription("How many installments, 1 to 120."),
			"first_due_date":  {Type: "string", Format: "date", Description: "The first installment's due date, today or later."},
			"interval_months": openapi.Integer().WithDescription("Months between installments, 1 to 12; default 1."),
			"late_fee_waiver": num("Percent of the late fee waived, 0 to 100; default 0."),
			"interest_waiver": num("Percent of the interest waived, 0 to 100; default 0."),
			"discount":        num("An amount off the debt left after the waivers; default 0."),
			"preview":         openapi.Boolean().WithDescription("Answer the agreement a run would write, writing nothing."),
		}, "invoices", "installments", "first_due_date")),
		responses: answers(map[int]*openapi.Response{
			http.StatusOK:      jsonAnswer("The preview.", envelope(view, true)),
			http.StatusCreated: jsonAnswer("The agreement written.", envelope(view, true)),
		}, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType, http.StatusUnprocessableEntity),
		keyed: true,
	}
}

// endAgreementOp describes POST /financial/agreements/{id}/cancel or /break.
func endAgreementOp(cancel bool) operation {
	op := operation{tag: "financial/agreements",
		responses: answers(map[int]*openapi.Response{
			http.StatusOK: jsonAnswer("The agreement as GET shows it.", envelope(openapi.Ref(storage.Agreements), true)),
		}, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity), keyed: true}
	if cancel {
		op.summary = "Cancel an agreement before any installment is paid"
		op.description = "The installments canceled and the originals restored as they were (their status before the " +
			"agreement), a history row each, in one transaction. An installment paid, or an agreement no longer active: 409; " +
			"with the same `Idempotency-Key`, the first answer again instead."
		return op
	}
	op.summary = "Break an agreement"
	op.description = "The installments not paid canceled, and the originals given back less what the paid installments " +
		"carried of each of their lines (docs/finance.md, \"A broken agreement\"), overdue or unpaid by their due dates, a " +
		"history row each, in one transaction. An agreement no longer active: 409; with the same `Idempotency-Key`, the " +
		"first answer again instead."
	return op
}
