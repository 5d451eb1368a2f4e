package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/api/openapi"
	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// The operator alerts (docs/operations.md, "Alerts"): a job that ended
// failed, a scheduled run not finished at its set time, an owner's
// transfer the bank paid after it was voided, a short payment a return
// file did not book, money a return file or a part brought that nothing
// books. Each is a row raised once; the webhook sender reads those not
// sent yet, and the resolutions of those delivered open. An over payment
// holds until an operator records what was done with the money (POST
// /operator/alerts/{id}/resolve, audited); the others close by themselves.

// alertJSON is an alert as /operator/alerts writes it.
type alertJSON struct {
	CompanyID int64   `json:"company_id"`
	ID        int64   `json:"id"`
	Kind      string  `json:"kind"`
	JobID     *int64  `json:"job_id"`
	JobKind   *string `json:"job_kind"`
	Schedule  *string `json:"schedule"`
	RunDate   *string `json:"run_date"`
	// TransactionID is the transfer of a void_transfer_paid alert.
	TransactionID *int64 `json:"transaction_id"`
	// InvoiceID or PaymentID is what a short_payment alert names.
	InvoiceID *int64  `json:"invoice_id"`
	PaymentID *int64  `json:"payment_id"`
	Message   string  `json:"message"`
	RaisedAt  string  `json:"raised_at"`
	SentAt    *string `json:"sent_at"`
	// ResolvedSentAt is when the webhook delivered the resolution of an
	// alert it had delivered open.
	ResolvedSentAt *string `json:"resolved_sent_at"`
	// Resolution and the rest: what was done with an over payment's
	// money, why, by whom and when (null while not said).
	Resolution       *string `json:"resolution"`
	ResolutionReason *string `json:"resolution_reason"`
	ResolvedBy       *string `json:"resolved_by"`
	ResolvedAt       *string `json:"resolved_at"`
	Open             bool    `json:"open"`
}

func alertOf(a storage.Alert) alertJSON {
	out := alertJSON{CompanyID: a.CompanyID, ID: a.ID, Kind: a.Kind, JobID: a.JobID, JobKind: a.JobKind,
		Schedule: a.Schedule, TransactionID: a.TransactionID, InvoiceID: a.InvoiceID, PaymentID: a.PaymentID,
		Message: a.Message, RaisedAt: a.RaisedAt.UTC().Format(time.DateTime), SentAt: utcText(a.SentAt),
		ResolvedSentAt: utcText(a.ResolvedSentAt), Resolution: a.Resolution, ResolutionReason: a.ResolutionReason,
		ResolvedBy: a.ResolvedBy, ResolvedAt: utcText(a.ResolvedAt), Open: a.Open}
	if a.RunDate != nil {
		d := a.RunDate.Format(time.DateOnly)
		out.RunDate = &d
	}
	return out
}

// alertSchema is an alert as /operator/alerts writes it.
func alertSchema() *openapi.Schema {
	return openapi.Object(map[string]*openapi.Schema{"company_id": openapi.Integer(), "id": openapi.Integer(),
		"kind": openapi.Enum(storage.AlertKinds...), "job_id": openapi.Nullable(openapi.Integer()),
		"job_kind": openapi.Nullable(openapi.String()), "schedule": openapi.Nullable(openapi.String()),
		"run_date": openapi.Nullable(openapi.String()), "transaction_id": openapi.Nullable(openapi.Integer()),
		"invoice_id": openapi.Nullable(openapi.Integer()), "payment_id": openapi.Nullable(openapi.Integer()),
		"message": openapi.String(), "raised_at": openapi.String(),
		"sent_at": openapi.Nullable(openapi.String()), "resolved_sent_at": openapi.Nullable(openapi.String()),
		"resolution": openapi.Nullable(openapi.Enum(storage.AlertResolutions...)), "resolution_reason": openapi.Nullable(openapi.String()),
		"resolved_by": openapi.Nullable(openapi.String()), "resolved_at": openapi.Nullable(openapi.String()),
		"open": openapi.Boolean()},
		"company_id", "id", "kind", "job_id", "job_kind", "schedule", "run_date", "transaction_id", "invoice_id",
		"payment_id", "message", "raised_at", "sent_at", "resolved_sent_at", "resolution", "resolution_reason", "resolved_by",
		"resolved_at", "open")
}

func operatorAlertsOp() operation {
	alert := alertSchema()
	return operation{
		access: byOperator, tag: "operators", summary: "The operator alerts of the last 7 days",
		description: "Newest first, at most 500, those raised in the last 7 days and the `over_payment` and " +
			"`unbooked_payment` alerts not resolved however old: `job_failed` (a job that ended failed, once per job and retry), " +
			"`run_missing` (a company's scheduled run not finished at the set time after its firing, or after its " +
			"submission when it was made later, once per schedule and date; `job_id` names the run when one is recorded), `void_transfer_paid` (the bank paid an owner's transfer voided with its undone payment: " +
			"the owner may owe it; `transaction_id` is the transfer, once per transfer), `short_payment` (a return file's " +
			"line paid less than its parts add up to, not booked, once per line of the file's content: its invoice or " +
			"payment in `invoice_id` or `payment_id`), `over_payment` (money a return file's line brought for the invoice " +
			"in `invoice_id` that nothing books: beyond its rest or the bank's parts, or on an invoice paid already; once " +
			"per line; or a part recorded by hand that paid more than the discounted amount by the discount date, once per " +
			"part, `job_id` null), `unbooked_payment` (a payment return's line reports the payment in `payment_id` " +
			"paid and books nothing, `not_settled` or `already_paid`: money out that nothing books; once per line). `open`: the job is still failed, no run of the night has succeeded, " +
			"the owner still owes on the transfer's invoice, the invoice or payment paid short is still unpaid, or the " +
			"over payment or unbooked payment is not resolved (`POST /operator/alerts/{id}/resolve`: `resolution`, `resolution_reason`, " +
			"`resolved_by`, `resolved_at`). `sent_at`: " +
			"when the operator webhook delivered it (null: not yet); `resolved_sent_at`: when it delivered the " +
			"alert's resolution, its second post, made once an alert delivered open stops holding (null: none yet).",
		responses: answers(map[int]*openapi.Response{http.StatusOK: jsonAnswer("The alerts.",
			envelope(openapi.Array(alert), false))}),
	}
}

// operatorAlerts is GET /operator/alerts.
func (s *Server) operatorAlerts(w http.ResponseWriter, r *http.Request) {
	alerts, err := storage.Alerts(r.Context(), s.store.Pool(), time.Now().AddDate(0, 0, -7), 500)
	if err != nil {
		writeError(w, r, err)
		return
	}
	out := make([]alertJSON, len(alerts))
	for i, a := range alerts {
		out[i] = alertOf(a)
	}
	writeJSON(w, http.StatusOK, dataEnvelope{Return: true, Status: http.StatusOK, Data: out})
}

func resolveAlertOp() operation {
	return operation{
		access: byOperator, tag: "operators", summary: "Record what was done with an over payment's money",
		description: "Closes an `over_payment` or `unbooked_payment` alert, which nothing in the ledger closes (the money was booked " +
			"nowhere): `resolution` says what was done with it, `refunded` (given back to the payer), `applied` (to " +
			"another invoice, a credit of the payer's) or `other`, and `reason` (required, up to 500 bytes) how. One " +
			"transaction with a row of the audit log (`/operator/audit`, action `alerts.resolve`); the alert is then " +
			"`open` false, out of the gauge `propfin_operator_alerts_open`, and pruned with the others once old. 409 " +
			"for an alert of another kind (it closes by itself once what it names is settled) or one resolved already; " +
			"404 for no such alert.",
		body: resolutionBody(),
		responses: answers(map[int]*openapi.Response{http.StatusOK: jsonAnswer("The alert as it leaves it, with the audit row's id.",
			envelope(openapi.Object(map[string]*openapi.Schema{"alert": alertSchema(), "audit_id": openapi.Integer()},
				"alert", "audit_id"), true))},
			http.StatusNotFound, http.StatusConflict, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType,
			http.StatusUnprocessableEntity),
	}
}

// resolveAlert is POST /operator/alerts/{id}/resolve with {"resolution",
// "reason"}.
func (s *Server) resolveAlert(w http.ResponseWriter, r *http.Request) {
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
	req.Operator = operatorOf(r.Context())
	if len(problems) > 0 {
		writeError(w, r, finance.InvalidInput(problems))
		return
	}
	var a storage.Alert
	var audit int64
	err = pgx.BeginFunc(r.Context(), s.store.Pool(), func(tx pgx.Tx) error {
		var err error
		a, audit, err = storage.ResolveAlert(r.Context(), tx, id, req)
		return err
	})
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, dataEnvelope{Return: true, Status: http.StatusOK,
		Message: fmt.Sprintf("Alert %d resolved: %s.", id, *a.Resolution),
		Data:    map[string]any{"alert": alertOf(a), "audit_id": audit}})
}

// resolutionBody is the body of a resolution, an operator's or a
// company's: {"resolution", "reason"}, both required.
func resolutionBody() *openapi.RequestBody {
	return jsonBody("What was done with the money.", true, openapi.Object(map[string]*openapi.Schema{
		"resolution": openapi.Enum(storage.AlertResolutions...),
		"reason":     (&openapi.Schema{Type: "string", MaxLength: openapi.Int(maxOperatorReason)}).WithDescription("How; required."),
	}, "resolution", "reason"))
}

// readResolution reads the body of a resolution, {"resolution", "reason"}
// (an operator's or a company's): both required, strings, the reason 1 to
// 500 bytes of text; problems gets every one named.
func readResolution(obj map[string]json.RawMessage, problems []finance.Problem) (storage.AlertResolution, []finance.Problem) {
	var req storage.AlertResolution
	for _, key := range sortedKeys(obj) {
		var target *string
		switch key {
		case "resolution":
			target = &req.Resolution
		case "reason":
			target = &req.Reason
		default:
			problems = append(problems, finance.Problem{Field: key, Message: "unknown field"})
			continue
		}
		if json.Unmarshal(obj[key], target) != nil {
			problems = append(problems, finance.Problem{Field: key, Message: "must be a string"})
		}
	}
	_, given := obj["resolution"]
	switch {
	case !given:
		problems = append(problems, finance.Problem{Field: "resolution", Message: "is required: one of " +
			strings.Join(storage.AlertResolutions, ", ")})
	case !namedIn(problems, "resolution") && !slices.Contains(storage.AlertResolutions, req.Resolution):
		problems = append(problems, finance.Problem{Field: "resolution", Message: "must be one of " +
			strings.Join(storage.AlertResolutions, ", ")})
	}
	if msg := checkReason(&req.Reason); msg != "" && !namedIn(problems, "reason") {
		problems = append(problems, finance.Problem{Field: "reason", Message: msg})
	}
	return req, problems
}
