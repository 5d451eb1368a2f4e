package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/api/openapi"
	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// The part payments of an invoice (docs/api.md, "Part payments"): POST
// /invoices/{invoice}/payments records a part, DELETE
// /invoices/{invoice}/payments/{id} undoes the latest; the parts are
// read through the declared resource (GET /invoices/{invoice}/payments).
// The rules are storage/invoice_payments.go's.

// payInvoicePart is POST /invoices/{invoice}/payments with {"amount",
// "paid_at", "credit_at", "method"}: 201 with the part and the invoice as
// it leaves it, under the request's Idempotency-Key.
func (s *Server) payInvoicePart(w http.ResponseWriter, r *http.Request) {
	id, ok := pathParamID(w, r, "invoice")
	if !ok {
		return
	}
	raw, obj, problems, err := readObjectBody(w, r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	req, problems := parsePartBody(obj, problems)
	p := principalOf(r.Context())
	sc := storage.Scope{CompanyID: p.CompanyID, UserID: p.UserID}
	s.writeKeyed(w, r, raw, false, problems, func(ctx context.Context, tx pgx.Tx) (operationAnswer, error) {
		part, err := storage.PayInvoicePart(ctx, tx, sc, id, req)
		if err != nil {
			return operationAnswer{}, err
		}
		message := "Part recorded."
		if part.Invoice.Paid {
			message = "Paid: the part settles the invoice."
		}
		env := dataEnvelope{Return: true, Status: http.StatusCreated, Message: message, Data: part, Warnings: part.Warnings}
		a := operationAnswer{status: http.StatusCreated, envelope: env}
		a.location = fmt.Sprintf("/invoices/%d/payments/%d", id, part.ID)
		return a, nil
	})
}

// undoInvoicePart is DELETE /invoices/{invoice}/payments/{id}, with an
// optional body {"reason"}: the latest part undone, 200 with it and the
// invoice as it leaves it.
func (s *Server) undoInvoicePart(w http.ResponseWriter, r *http.Request) {
	id, ok := pathParamID(w, r, "invoice")
	if !ok {
		return
	}
	partID, ok := pathParamID(w, r, "id")
	if !ok {
		return
	}
	reason, err := readUndoReason(w, r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	p := principalOf(r.Context())
	sc := storage.Scope{CompanyID: p.CompanyID, UserID: p.UserID}
	part, err := storage.UndoInvoicePart(r.Context(), s.store.Pool(), sc, id, partID, reason)
	if err != nil {
		writeError(w, r, err)
		return
	}
	env := dataEnvelope{Return: true, Status: http.StatusOK, Message: "Part undone.", Data: part}
	var notes []string
	if part.RefundsNote != "" {
		notes = append(notes, part.RefundsNote)
	}
	if over := decimal.Decimal(part.OverPaid); over.IsPositive() {
		notes = append(notes, fmt.Sprintf("it had paid %s over what was due, booked nowhere: its over_payment alert holds "+
			"until what was done with that money is recorded, if it is not yet", over.StringFixed(2)))
	}
	if len(notes) > 0 {
		env.Message = "Part undone; " + strings.Join(notes, "; ") + "."
	}
	writeJSON(w, http.StatusOK, env)
}

// readUndoReason reads the optional body of an undo, {"reason"}: none
// (an empty body), or an object whose reason, when given, is text of at
// most 500 characters; "" when none is said.
func readUndoReason(w http.ResponseWriter, r *http.Request) (string, error) {
	if err := checkContentType(r.Header.Get("Content-Type")); err != nil {
		return "", err
	}
	body, err := readBody(w, r, maxBodyBytes)
	if err != nil || len(bytes.TrimSpace(body)) == 0 {
		return "", err
	}
	obj, problems, err := decodeObject(body)
	if err != nil {
		return "", err
	}
	var reason string
	for _, key := range sortedKeys(obj) {
		switch key {
		case "reason":
			if string(obj[key]) == "null" {
				continue
			}
			if json.Unmarshal(obj[key], &reason) != nil {
				problems = append(problems, finance.Problem{Field: key, Message: "must be a string"})
				continue
			}
			reason = strings.TrimSpace(reason)
			if msg := checkText(reason); msg != "" {
				problems = append(problems, finance.Problem{Field: key, Message: msg})
			} else if utf8.RuneCountInString(reason) > maxReason {
				problems = append(problems, finance.Problem{Field: key, Message: "is longer than 500 characters"})
			}
		default:
			problems = append(problems, finance.Problem{Field: key, Message: "unknown field"})
		}
	}
	if len(problems) > 0 {
		return "", finance.InvalidInput(problems)
	}
	return reason, nil
}

// parsePartBody reads a part's body, naming every problem.
func parsePartBody(obj map[string]json.RawMessage, problems []finance.Problem) (storage.PartRequest, []finance.Problem) {
	var req storage.PartRequest
	fail := func(field, message string) {
		problems = append(problems, finance.Problem{Field: field, Message: message})
	}
	date := func(key string, raw json.RawMessage) finance.Date {
		var text string
		d, err := finance.Date{}, json.Unmarshal(raw, &text)
		if err == nil {
			d, err = finance.ParseDate(text)
		}
		if err != nil || d.Year() < 2000 {
			fail(key, "must be a date, YYYY-MM-DD, from 2000-01-01")
			return finance.Date{}
		}
		return d
	}
	for _, key := range sortedKeys(obj) {
		raw := obj[key]
		switch key {
		case "amount":
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
			if !d.IsPositive() {
				fail(key, "must be more than zero")
				continue
			}
			if !d.Equal(finance.RoundCents(d)) { // said here too, so that it is named beside the body's other problems
				fail(key, d.String()+" has more than two decimal places")
				continue
			}
			req.Amount = d
		case "paid_at":
			req.PaidAt = date(key, raw)
		case "credit_at":
			if string(raw) != "null" {
				req.CreditAt = date(key, raw)
			}
		case "method":
			if string(raw) == "null" {
				continue
			}
			if json.Unmarshal(raw, &req.Method) != nil || !slices.Contains(storage.BillingMethods, req.Method) {
				fail(key, "must be one of "+strings.Join(storage.BillingMethods, ", "))
				req.Method = ""
			}
		default:
			fail(key, "unknown field")
		}
	}
	for _, key := range []string{"amount", "paid_at"} {
		if _, given := obj[key]; !given {
			fail(key, "is required")
		}
	}
	return req, problems
}

// payInvoicePartOp describes POST /invoices/{invoice}/payments.
func payInvoicePartOp() operation {
	answer, err := reflector.SchemaFor(storage.InvoicePart{})
	if err != nil {
		panic("api: " + err.Error())
	}
	props := map[string]*openapi.Schema{
		"amount": {OneOf: []*openapi.Schema{decimalRef(2, false), decimalRef(2, true)},
			Description: "What the payer paid: more than zero, at most what is due on `paid_at` (the rest of the " +
				"invoice with the late fee and interest on it, less the punctuality discount of a whole payment by the " +
				"discount date); by the discount date, up to the invoice's face value (the total without the discount): " +
				"the invoice is paid with its discount and the excess is `over_paid`, booked nowhere and raised as an " +
				"`over_payment` alert; a JSON number or its text, at most two places."},
		"paid_at": {Type: "string", Format: "date", Description: "The day the payer paid; not after today, not " +
			"before the invoice's latest part."},
		"credit_at": {Type: "string", Format: "date", Description: "The day the money was credited (the entries' " +
			"date); default `paid_at`; from `paid_at` to 7 days after it."},
		"method": openapi.Nullable(openapi.Enum(storage.BillingMethods...)).WithDescription("How the payer paid (the " +
			"billing-method enum: `pix`, `ticket` a boleto, `ted` or `deposit` a transfer, `cash`, `check`, `credit` or " +
			"`debit` a card, `debit_account`); optional, null when not said."),
	}
	created := jsonAnswer(
		"The part (`due`: what was due on `paid_at`) and the invoice as it leaves it (`status`, `paid`, "+
			"`paid_amount`, `balance`); with the same `Idempotency-Key` and body, the first answer again.",
		envelope(answer, true))
	created.Content["application/json"].Schema.Properties["warnings"] = openapi.Array(openapi.Ref("Problem")).WithDescription(
		"What the part leaves to do, the part recorded all the same: `amount` when the payer paid more than was due " +
			"by the discount date (the excess, `over_paid`, is booked nowhere: an `over_payment` alert is raised, to give " +
			"it back or apply it), `ticket_batch` when the invoice's boleto is in a " +
			"collection batch (open: its file is refused, remove the invoice; sent: the bank still charges the whole " +
			"total, revert it), `pix_code` when the stored PIX code charges more than the balance (store one for the " +
			"balance), `paid_at` when the part is paid before the company's first owner statement month, `paid_at` or " +
			"`credit_at` when its entries (dated `credit_at`) fall in a month whose owner statements are closed: those " +
			"do not change, the next close states the entries as adjustments of that month. Absent when there is none.")
	return operation{tag: "invoices", summary: "Record a part payment of an invoice",
		description: "Books what the payer paid as a part of the invoice (docs/ledger.md, \"Part payments\"): on " +
			"`paid_at` the rest of the invoice is due with its late fee and interest computed on the rest; a part " +
			"short of that pays principal and charges pro rata, the invoice is `partially_paid` and the rest keeps " +
			"accruing; a part equal to it settles the invoice (`paid`; the punctuality discount only for the whole " +
			"invoice paid by its discount date in one payment). The part's entries (split " +
			"`invoice-<id>-payment-<n>`) credit the owners their share, as a whole payment's. 422, every problem at " +
			"once: `amount` not positive or more than is due that day (the message says how much was due), " +
			"`status` for an invoice not open (paid, canceled, refunded, uncollectible, renegotiated), `paid_at` " +
			"missing, after today or before an earlier part's, `credit_at` before `paid_at` or more than 7 days after it; 409 for an agreement's " +
			"installment (paid whole); another company's invoice is a 404. `method` (optional) says how the payer " +
			"paid; not one of the billing methods: 422.",
		body: jsonBody("The part.", true, openapi.Object(props, "amount", "paid_at")),
		responses: answers(map[int]*openapi.Response{http.StatusCreated: created}, http.StatusNotFound, http.StatusConflict, http.StatusRequestEntityTooLarge,
			http.StatusUnsupportedMediaType, http.StatusUnprocessableEntity),
		keyed: true}
}

// undoInvoicePartOp describes DELETE /invoices/{invoice}/payments/{id}.
func undoInvoicePartOp() operation {
	answer, err := reflector.SchemaFor(storage.InvoicePart{})
	if err != nil {
		panic("api: " + err.Error())
	}
	return operation{tag: "invoices", summary: "Undo the latest part payment of an invoice",
		description: "Reverses the part's entries (dated today), removes its settlement lines and takes its " +
			"amounts off the invoice, which is `partially_paid` again, or `unpaid` (`overdue`) when no part is left; " +
			"the owners' transfers the nightly run wrote unpaid from it are voided (docs/ledger.md, \"Part " +
			"payments\"); the invoice's refunds, which took from every part, are undone with it, and the answer's " +
			"message says so with what they gave back. 409 for a part that " +
			"is not the latest standing one (the message names the later part), one undone already, one of an invoice " +
			"written off (undo the write-off first), an agreement's installment, and while a transfer it would void " +
			"is in a payment batch; 404 for a part of another invoice or company. The body is optional: `reason` " +
			"(up to 500 characters, optional as for `paid: false` and a transfer's void) is kept on the part " +
			"(`undo_reason`) and in the note of the invoice's history row; any other field is a 422.",
		body: jsonBody("Why the part is undone (optional).", false, openapi.Object(map[string]*openapi.Schema{
			"reason": openapi.Nullable(&openapi.Schema{Type: "string", MaxLength: openapi.Int(maxReason)}).WithDescription(
				"Why the part is undone: kept on the part (`undo_reason`) and in the invoice's history.")})),
		responses: answers(map[int]*openapi.Response{http.StatusOK: jsonAnswer(
			"The part, undone, and the invoice as it leaves it.", envelope(answer, true))},
			http.StatusNotFound, http.StatusConflict, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType,
			http.StatusUnprocessableEntity)}
}
