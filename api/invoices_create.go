package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"time"

	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/api/openapi"
	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/jobs"
	"github.com/propfin/propfin/storage"
)

// invoicesCreateBody is the body of POST /financial/contracts/{id}/invoicesCreate.
type invoicesCreateBody struct {
	preview bool
	until   finance.Date // zero: the company's today plus its lead time
}

// readInvoicesCreate reads {"preview": bool, "until": "YYYY-MM-DD"}, both
// optional; an empty body is {}. It returns the body as the
// Idempotency-Key compares it.
func readInvoicesCreate(w http.ResponseWriter, r *http.Request) (invoicesCreateBody, []byte, error) {
	var b invoicesCreateBody
	if err := checkContentType(r.Header.Get("Content-Type")); err != nil {
		return b, nil, err
	}
	raw, err := readBody(w, r, maxBodyBytes)
	if err != nil {
		return b, nil, err
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = []byte("{}")
	}
	obj, problems, err := decodeObject(raw)
	if err != nil {
		return b, nil, err
	}
	for _, key := range sortedKeys(obj) {
		switch key {
		case "preview":
			if json.Unmarshal(obj[key], &b.preview) != nil {
				problems = append(problems, finance.Problem{Field: "preview", Message: "must be true or false"})
			}
		case "until":
			var s string
			d, err := finance.Date{}, json.Unmarshal(obj[key], &s)
			if err == nil {
				d, err = finance.ParseDate(s)
			}
			if err != nil || d.Year() < 2000 {
				problems = append(problems, finance.Problem{Field: "until", Message: "must be a date, YYYY-MM-DD, from 2000-01-01"})
			}
			b.until = d
		default:
			problems = append(problems, finance.Problem{Field: key, Message: "unknown field"})
		}
	}
	if len(problems) > 0 {
		return b, nil, finance.InvalidInput(problems)
	}
	return b, raw, nil
}

// invoicesCreate is POST /financial/contracts/{id}/invoicesCreate: the
// contract's invoices due up to until that it does not have yet. With
// preview, 200 and the invoices a run would create, nothing stored;
// otherwise an invoices:generate job (202). A contract that cannot be
// billed is a 422 saying why, for both; another company's is a 404.
func (s *Server) invoicesCreate(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r)
	if !ok {
		return
	}
	body, raw, err := readInvoicesCreate(w, r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	companyID := principalOf(r.Context()).CompanyID
	if body.until.IsZero() {
		zone, lead, err := storage.InvoiceLead(r.Context(), s.store.Pool(), companyID)
		if err != nil {
			writeError(w, r, err)
			return
		}
		body.until = jobs.DefaultUntil(time.Now(), zone, lead)
	}
	// the check, and the preview: the generation without its write
	gen, err := storage.GenerateInvoices(r.Context(), s.store.Pool(), companyID, []int64{id}, body.until,
		storage.GenerateOptions{Preview: true})
	if err == nil {
		err = gen.ContractError(id)
	}
	if err != nil {
		writeError(w, r, err)
		return
	}
	if body.preview {
		a := answerOf(true, http.StatusOK, "", previewOf(id, body.until, gen.Invoices))
		writeJSON(w, a.status, a.envelope)
		return
	}
	sub, err := jobs.NewContractGeneration(id, body.until)
	if err != nil {
		writeError(w, r, err)
		return
	}
	s.submitJob(w, r, sub, raw)
}

// invoicePreview is a scheduled invoice as the preview shows it: the
// fields a run writes, with its lines.
type invoicePreview struct {
	Type                     finance.InvoiceType  `json:"type"`
	ContractID               int64                `json:"contract_id"`
	PayerID                  int64                `json:"payer_id"`
	BuildingID               *int64               `json:"building_id"`
	BusinessID               int64                `json:"business_id"`
	AccountID                int64                `json:"account_id"`
	BillingID                *int64               `json:"billing_id"`
	BillingMethod            string               `json:"billing_method"`
	Description              string               `json:"description"`
	Total                    finance.Money        `json:"total"`
	Date                     finance.Date         `json:"date"`
	DueDate                  finance.Date         `json:"due_date"`
	PeriodInitial            finance.Date         `json:"period_initial"`
	PeriodFinal              finance.Date         `json:"period_final"`
	TicketLateFee            bool                 `json:"ticket_late_fee"`
	TicketLateFeeItemID      *int64               `json:"ticket_late_fee_item_id"`
	TicketLateFeePercentage  *finance.Percent     `json:"ticket_late_fee_percentage"`
	TicketLateFeeInterest    *finance.Percent     `json:"ticket_late_fee_interest"`
	TicketDiscount           bool                 `json:"ticket_discount"`
	TicketDiscountMode       *string              `json:"ticket_discount_mode"`
	TicketDiscountFixed      *finance.Money       `json:"ticket_discount_fixed"`
	TicketDiscountPercentage *finance.Percent     `json:"ticket_discount_percentage"`
	TicketDiscountDays       *int                 `json:"ticket_discount_days"`
	TicketDiscountAction     *string              `json:"ticket_discount_action"`
	Items                    []invoiceLinePreview `json:"items"`
}

// invoiceLinePreview is one line of a previewed invoice.
type invoiceLinePreview struct {
	ItemID      int64         `json:"item_id"`
	Amount      finance.Money `json:"amount"`
	Description *string       `json:"description"`
}

// generationPreview is the data of a preview: the contract, until, how
// many invoices and their sum, and the invoices (keys in name order).
type generationPreview struct {
	ContractID int64            `json:"contract_id"`
	Count      int              `json:"count"`
	Invoices   []invoicePreview `json:"invoices"`
	Total      finance.Money    `json:"total"`
	Until      finance.Date     `json:"until"`
}

// previewOf is the data of a preview.
func previewOf(contractID int64, until finance.Date, invoices []storage.GeneratedInvoice) generationPreview {
	out := make([]invoicePreview, len(invoices))
	total := decimal.Zero
	for i, g := range invoices {
		out[i] = previewInvoice(g)
		total = total.Add(g.Total)
	}
	return generationPreview{ContractID: contractID, Until: until, Count: len(out), Total: finance.Money(total), Invoices: out}
}

func previewInvoice(g storage.GeneratedInvoice) invoicePreview {
	inv := g.Invoice
	p := invoicePreview{
		Type: inv.Type, ContractID: inv.ContractID, PayerID: inv.PayerID, BuildingID: optID(g.BuildingID),
		BusinessID: inv.BusinessID, AccountID: inv.AccountID, BillingID: optID(inv.BillingID),
		BillingMethod: inv.BillingMethod, Description: inv.Description, Total: finance.Money(inv.Total),
		Date: inv.Date, DueDate: inv.DueDate, PeriodInitial: inv.PeriodInitial, PeriodFinal: inv.PeriodFinal,
		TicketLateFee: inv.TicketLateFee, TicketLateFeeItemID: optID(inv.TicketLateFeeItemID),
		TicketLateFeePercentage: unlessUnset(g.Unset.LateFeePercentage, finance.Percent(inv.TicketLateFeePercentage)),
		TicketLateFeeInterest:   unlessUnset(g.Unset.LateFeeInterest, finance.Percent(inv.TicketLateFeeInterest)),
		TicketDiscount:          inv.TicketDiscount, TicketDiscountMode: optString(string(inv.TicketDiscountMode)),
		TicketDiscountFixed:      unlessUnset(g.Unset.DiscountFixed, finance.Money(inv.TicketDiscountFixed)),
		TicketDiscountPercentage: unlessUnset(g.Unset.DiscountPercentage, finance.Percent(inv.TicketDiscountPercentage)),
		TicketDiscountDays:       unlessUnset(g.Unset.DiscountDays, inv.TicketDiscountDays),
		TicketDiscountAction:     optString(string(inv.TicketDiscountAction)),
		Items:                    make([]invoiceLinePreview, len(inv.Items)),
	}
	for j, l := range inv.Items {
		p.Items[j] = invoiceLinePreview{ItemID: l.ItemID, Amount: finance.Money(l.Amount), Description: optString(l.Description)}
	}
	return p
}

// unlessUnset is v, or nil (null) for a setting the invoice leaves
// unset, as the run writes it.
func unlessUnset[T any](unset bool, v T) *T {
	if unset {
		return nil
	}
	return &v
}

func optID(id int64) *int64 {
	if id == 0 {
		return nil
	}
	return &id
}

func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// invoicesCreateOp describes POST /financial/contracts/{id}/invoicesCreate.
func invoicesCreateOp() operation {
	preview, err := reflector.SchemaFor(generationPreview{})
	if err != nil {
		panic("api: " + err.Error())
	}
	until := &openapi.Schema{Type: "string", Format: "date", Description: "The last due date to bill, inclusive, " +
		"from 2000-01-01; default the company's today plus its lead time (`invoice_lead_days`)."}
	return operation{
		tag:     "financial/contracts",
		summary: "Generate a contract's invoices",
		description: "The contract's invoices due up to `until` that it does not have yet (docs/api.md, " +
			"\"Generating a contract's invoices\"). With `preview`, 200 and the invoices a run would create, nothing " +
			"stored; otherwise an `invoices:generate` job (202). A contract that cannot be billed is a 422 with one " +
			"problem per reason, for both.",
		params: []*openapi.Parameter{idempotencyKey()},
		body: jsonBody("Both fields optional; an empty body is `{}`.", false, openapi.Object(map[string]*openapi.Schema{
			"preview": openapi.Boolean().WithDescription("Answer what a run would create, storing nothing."),
			"until":   until,
		})),
		responses: answers(map[int]*openapi.Response{
			http.StatusOK:       jsonAnswer("The preview.", envelope(preview, true)),
			http.StatusAccepted: jobAccepted(),
		}, http.StatusNotFound, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType, http.StatusUnprocessableEntity),
	}
}
