package api

import (
	"net/http"
	"time"

	"github.com/propfin/propfin/api/openapi"
	"github.com/propfin/propfin/storage"
)

// The operator alerts (docs/operations.md, "Alerts"): a job that ended
// failed, a scheduled run not finished at its set time, an owner's
// transfer the bank paid after it was voided, a short payment a return
// file did not book. Each is a row raised once; the webhook sender reads
// those not sent yet, and the resolutions of those delivered open.

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
	Open           bool    `json:"open"`
}

func alertOf(a storage.Alert) alertJSON {
	out := alertJSON{CompanyID: a.CompanyID, ID: a.ID, Kind: a.Kind, JobID: a.JobID, JobKind: a.JobKind,
		Schedule: a.Schedule, TransactionID: a.TransactionID, InvoiceID: a.InvoiceID, PaymentID: a.PaymentID,
		Message: a.Message, RaisedAt: a.RaisedAt.UTC().Format(time.DateTime), SentAt: utcText(a.SentAt),
		ResolvedSentAt: utcText(a.ResolvedSentAt), Open: a.Open}
	if a.RunDate != nil {
		d := a.RunDate.Format(time.DateOnly)
		out.RunDate = &d
	}
	return out
}

func operatorAlertsOp() operation {
	alert := openapi.Object(map[string]*openapi.Schema{"company_id": openapi.Integer(), "id": openapi.Integer(),
		"kind": openapi.Enum(storage.AlertKinds...), "job_id": openapi.Nullable(openapi.Integer()),
		"job_kind": openapi.Nullable(openapi.String()), "schedule": openapi.Nullable(openapi.String()),
		"run_date": openapi.Nullable(openapi.String()), "transaction_id": openapi.Nullable(openapi.Integer()),
		"invoice_id": openapi.Nullable(openapi.Integer()), "payment_id": openapi.Nullable(openapi.Integer()),
		"message": openapi.String(), "raised_at": openapi.String(),
		"sent_at": openapi.Nullable(openapi.String()), "resolved_sent_at": openapi.Nullable(openapi.String()),
		"open": openapi.Boolean()},
		"company_id", "id", "kind", "job_id", "job_kind", "schedule", "run_date", "transaction_id", "invoice_id",
		"payment_id", "message", "raised_at", "sent_at", "resolved_sent_at", "open")
	return operation{
		access: byOperator, tag: "operators", summary: "The operator alerts of the last 7 days",
		description: "Newest first, at most 500: `job_failed` (a job that ended failed, once per job and retry), " +
			"`run_missing` (a company's scheduled run not finished at the set time after its firing, or after its " +
			"submission when it was made later, once per schedule and date; `job_id` names the run when one is recorded), `void_transfer_paid` (the bank paid an owner's transfer voided with its undone payment: " +
			"the owner may owe it; `transaction_id` is the transfer, once per transfer), `short_payment` (a return file's " +
			"line paid less than its parts add up to, not booked, once per line of the file's content: its invoice or " +
			"payment in `invoice_id` or `payment_id`), `over_payment` (money a return file's line brought for the invoice " +
			"in `invoice_id` that nothing books: beyond its rest or the bank's parts, or on an invoice paid already; once " +
			"per line). `open`: the job is still failed, no run of the night has succeeded, " +
			"the owner still owes on the transfer's invoice, the invoice or payment paid short is still unpaid, or it is " +
			"an over payment (for the week it is listed). `sent_at`: " +
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
	writeJSON(w, http.StatusOK, map[string]any{"return": true, "status": http.StatusOK, "data": out})
}
