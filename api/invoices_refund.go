package api

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/api/openapi"
	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// The refund and the write-off of an invoice (docs/api.md, "Refunds and
// write-offs"): POST /invoices/{invoice_id}/refund and /writeOff, each
// previewed by the same code rolled back (storage/invoices_refund.go).
// Undoing a write-off is the invoice's update to status unpaid.

// maxReason bounds the reason of a refund or a write-off, in characters.
const maxReason = 500

// refundInvoice is POST /invoices/{invoice_id}/refund with {"amount",
// "date", "reason", "preview"}.
func (s *Server) refundInvoice(w http.ResponseWriter, r *http.Request) {
	s.invoiceOperation(w, r, true)
}

// writeOffInvoice is POST /invoices/{invoice_id}/writeOff with {"date",
// "reason", "preview"}.
func (s *Server) writeOffInvoice(w http.ResponseWriter, r *http.Request) {
	s.invoiceOperation(w, r, false)
}

// invoiceOperation reads the body of a refund (refund true) or a
// write-off, runs it under the request's Idempotency-Key (writeKeyed), and
// answers what it wrote (200), or would write (preview).
func (s *Server) invoiceOperation(w http.ResponseWriter, r *http.Request, refund bool) {
	id, ok := pathParamID(w, r, "invoice_id")
	if !ok {
		return
	}
	raw, obj, problems, err := readObjectBody(w, r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	b, problems := parseOperationBody(obj, refund, problems)
	p := principalOf(r.Context())
	sc := storage.Scope{CompanyID: p.CompanyID, UserID: p.UserID}
	s.writeKeyed(w, r, raw, b.preview, problems, func(ctx context.Context, tx pgx.Tx) (operationAnswer, error) {
		var out storage.InvoiceOperation
		var err error
		message := "Refunded."
		if refund {
			out, err = storage.RefundInvoice(ctx, tx, sc, id, storage.RefundRequest{Amount: b.amount, Date: b.date,
				Reason: b.reason, Preview: b.preview})
		} else {
			message = "Written off."
			out, err = storage.WriteOffInvoice(ctx, tx, sc, id, storage.WriteOffRequest{Date: b.date, Reason: b.reason,
				Preview: b.preview})
		}
		if err != nil {
			return operationAnswer{}, err
		}
		if !refund && len(out.Entries) == 0 {
			message = writtenOffUnbooked
		}
		return answerOf(b.preview, http.StatusOK, message, out), nil
	})
}

// writtenOffUnbooked is the message of a write-off that booked nothing:
// the company keeps no write-off item (docs/api.md, "POST
// /invoices/{invoice_id}/writeOff").
const writtenOffUnbooked = "Written off; nothing was booked: the company keeps no write-off item " +
	"(write_off_item_id, /financial/settings), and an unpaid invoice has no entries to take back."

// operationBody is a refund's or a write-off's body.
type operationBody struct {
	amount  decimal.Decimal
	date    finance.Date
	reason  string
	preview bool
}

// parseOperationBody reads the fields of a refund (amount required) or a
// write-off, naming every problem.
func parseOperationBody(obj map[string]json.RawMessage, refund bool, problems []finance.Problem) (operationBody, []finance.Problem) {
	var b operationBody
	fail := func(field, message string) {
		problems = append(problems, finance.Problem{Field: field, Message: message})
	}
	for _, key := range sortedKeys(obj) {
		raw := obj[key]
		switch key {
		case "amount":
			if !refund {
				fail(key, "unknown field: a write-off is of the invoice's total")
				continue
			}
			v, msg := decimalValue(raw)
			if msg != "" {
				fail(key, msg)
				continue
			}
			d, err := decimal.NewFromString(v.(string))
			if err != nil || d.Abs().GreaterThanOrEqual(decimal.New(1, 12)) {
				fail(key, "must be a decimal number below one trillion, like 1234.56")
				continue
			}
			b.amount = d
		case "date":
			var text string
			d, err := finance.Date{}, json.Unmarshal(raw, &text)
			if err == nil {
				d, err = finance.ParseDate(text)
			}
			if err != nil || d.Year() < 2000 {
				fail(key, "must be a date, YYYY-MM-DD, from 2000-01-01")
				continue
			}
			b.date = d
		case "reason":
			if json.Unmarshal(raw, &b.reason) != nil {
				fail(key, "must be a string")
				continue
			}
			b.reason = strings.TrimSpace(b.reason)
			if msg := checkText(b.reason); msg != "" {
				fail(key, msg)
			} else if utf8.RuneCountInString(b.reason) > maxReason {
				fail(key, "is longer than 500 characters")
			}
		case "preview":
			if json.Unmarshal(raw, &b.preview) != nil {
				fail(key, "must be true or false")
			}
		default:
			fail(key, "unknown field")
		}
	}
	if _, given := obj["amount"]; refund && !given {
		fail("amount", "is required")
	}
	if b.reason == "" && !namesField(problems, "reason") {
		fail("reason", "is required: say why (it is kept in the invoice's history)")
	}
	return b, problems
}

func namesField(problems []finance.Problem, field string) bool {
	for _, p := range problems {
		if p.Field == field {
			return true
		}
	}
	return false
}

// invoiceOperationOp describes POST /invoices/{invoice_id}/refund (refund
// true) and /writeOff.
func invoiceOperationOp(refund bool) operation {
	answer, err := reflector.SchemaFor(storage.InvoiceOperation{})
	if err != nil {
		panic("api: " + err.Error())
	}
	props := map[string]*openapi.Schema{
		"date": {Type: "string", Format: "date", Description: "The day (default: today in the company's time zone); " +
			"not after today."},
		"reason":  {Type: "string", MaxLength: openapi.Int(maxReason), Description: "Why; kept in the invoice's history."},
		"preview": {Type: "boolean", Description: "Answer what would be written, and store nothing."},
	}
	responses := answers(map[int]*openapi.Response{http.StatusOK: jsonAnswer(
		"What was written (or, with preview, would be): the invoice's status and amounts, the entries; with the "+
			"same `Idempotency-Key` and body, the first answer again.",
		envelope(answer, true))}, http.StatusNotFound, http.StatusConflict, http.StatusRequestEntityTooLarge,
		http.StatusUnsupportedMediaType, http.StatusUnprocessableEntity)
	if !refund {
		return operation{tag: "invoices", summary: "Write an open invoice off as uncollectible",
			description: "The invoice becomes `uncollectible` (out of the overdue runs and the open-invoice filters), " +
				"`written_off_at` the day; its total is booked as the business's loss with the company's " +
				"`write_off_item_id` (GET /financial/settings), or not booked when the company keeps none " +
				"(docs/ledger.md, \"Write-offs\"). Undone by `PUT /invoices/{id}` with `status` `unpaid`, which " +
				"reverses the loss. 422 on `paid` for a paid invoice, on `status` for one canceled, refunded or " +
				"written off, on `ticket_batch` for one in a collection batch not reverted, on `date` after today, " +
				"on `write_off_item_id` when the setting's item cannot book the loss; another company's invoice is a 404; an invoice of an agreement the operation would break is a 409.",
			body: jsonBody("The write-off.", true, openapi.Object(props, "reason")), responses: responses, keyed: true}
	}
	props["amount"] = &openapi.Schema{OneOf: []*openapi.Schema{decimalRef(2, false), decimalRef(2, true)},
		Description: "What the payer is given back: more than zero, at most what the payment has left to refund " +
			"(`paid_amount` − `refunded_amount`); a JSON number or its text (`\"12.50\"`), at most two places."}
	return operation{tag: "invoices", summary: "Refund part or all of an invoice's payment",
		description: "Gives the payer back `amount` of the posted payment: the payment stays, and entries of mode " +
			"`chargeback` (`refunds_id` the entry each takes from) take back from every party the same proportion " +
			"of what the payment booked to it, dated the refund's day (docs/ledger.md, \"Refunds\"). The invoice's " +
			"`refunded_amount` grows; it becomes `refunded` when the whole payment is refunded (a partial refund " +
			"keeps `paid`). 422 on `paid` for an invoice without a posted payment, on `amount` beyond what is left " +
			"to refund, on `date` before the payment's credit day or after today; another company's invoice is a 404; an invoice of an agreement the operation would break is a 409.",
		body: jsonBody("The refund.", true, openapi.Object(props, "amount", "reason")), responses: responses, keyed: true}
}
