package api

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/lograte"
	"github.com/propfin/propfin/storage"
)

// The codes only HTTP has: the API gives them, no other layer does.
const (
	TooManyRequests finance.Code = "too_many_requests" // the rate limit is exhausted
	TooLarge        finance.Code = "too_large"         // the request body is over its limit
	NotAllowed      finance.Code = "not_allowed"       // the route exists, the method does not
	OperatorOnly    finance.Code = "operator_only"     // an operator route without the admin credential
	Forbidden       finance.Code = "forbidden"         // refused whoever asks (a cross-origin write to an operator route)
	// UnsupportedMediaType: the request body is declared in a format the
	// API does not read.
	UnsupportedMediaType finance.Code = "unsupported_media_type"
	// BadRequest: the request itself is malformed (a header that may be
	// given once given twice); Problems say which part.
	BadRequest finance.Code = "bad_request"
	// URITooLong: the request's URL is over the API's limit.
	URITooLong finance.Code = "uri_too_long"
	// HeadersTooLarge: the request's header fields are over the API's limit.
	HeadersTooLarge finance.Code = "headers_too_large"
)

// statusOf is the one table from error code to HTTP status.
var statusOf = map[finance.Code]int{
	finance.Invalid:         http.StatusUnprocessableEntity,
	finance.NotFound:        http.StatusNotFound,
	finance.Conflict:        http.StatusConflict,
	finance.Unauthenticated: http.StatusUnauthorized,
	OperatorOnly:            http.StatusUnauthorized,
	Forbidden:               http.StatusForbidden,
	TooManyRequests:         http.StatusTooManyRequests,
	TooLarge:                http.StatusRequestEntityTooLarge,
	NotAllowed:              http.StatusMethodNotAllowed,
	UnsupportedMediaType:    http.StatusUnsupportedMediaType,
	BadRequest:              http.StatusBadRequest,
	URITooLong:              http.StatusRequestURITooLong,
	HeadersTooLarge:         http.StatusRequestHeaderFieldsTooLarge,
	finance.Unavailable:     http.StatusServiceUnavailable,
	finance.Retryable:       http.StatusServiceUnavailable,
	finance.Internal:        http.StatusInternalServerError,
}

// companyNotIdentified is the spec's message when no company can be
// identified from the request.
const companyNotIdentified = "Company not identified. Access through your company site address followed by /admin."

// errorBody is the spec's error envelope.
type errorBody struct {
	Return  bool              `json:"return"`
	Status  int               `json:"status"`
	Message string            `json:"message"`
	Errors  []finance.Problem `json:"errors"`
}

// statusClientClosed is what the request log records for a request whose
// client went away before its answer (nginx's 499): no one receives it.
const statusClientClosed = 499

// writeError writes err in the error envelope. Only coded errors carry
// their message to the caller; anything else is logged and answered as an
// internal error, so internal text never leaks. A request whose client has
// gone is not an error of ours: it is logged at INFO as 499.
// unavailableLogEvery is the most often the API logs requests answered
// 503 unavailable (the database did not answer) with one message; the line
// says how many it left out.
const unavailableLogEvery = time.Second

var unavailableLog = lograte.New(unavailableLogEvery)

func writeError(w http.ResponseWriter, r *http.Request, err error) {
	if clientGone(r) {
		loggerOf(r.Context()).InfoContext(r.Context(), "client went away", "method", r.Method, "path", r.URL.Path, "err", err)
		w.WriteHeader(statusClientClosed)
		return
	}
	var coded *finance.Error
	if !errors.As(err, &coded) {
		coded = &finance.Error{Code: finance.Internal, Message: "Internal error.", Err: err}
	}
	status, ok := statusOf[coded.Code]
	if !ok {
		status = http.StatusInternalServerError
	}
	switch {
	case coded.Code == finance.Unavailable && !errors.Is(err, context.DeadlineExceeded):
		// expected during an outage (the database), answered 503 with
		// Retry-After: one line a second per message, not one per request
		// (a request past its time limit stays an ERROR: a slow query of
		// ours)
		if ok, n := unavailableLog.Allow(coded.Message); ok {
			loggerOf(r.Context()).WarnContext(r.Context(), "request failed: unavailable", "method", r.Method,
				"path", r.URL.Path, "err", err, "suppressed", n, "per", unavailableLogEvery.String())
		}
	case status >= 500:
		loggerOf(r.Context()).ErrorContext(r.Context(), "request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	switch coded.Code {
	case finance.Retryable, finance.Unavailable:
		w.Header().Set("Retry-After", "1")
	case OperatorOnly:
		w.Header().Set("WWW-Authenticate", operatorRealm) // a browser asks for the credential
	}
	message := coded.Message
	switch coded.Code {
	case finance.Internal:
		message = "Internal error."
	case finance.Unauthenticated:
		message = companyNotIdentified
	}
	problems := coded.Problems
	if problems == nil {
		problems = []finance.Problem{}
	}
	writeJSON(w, status, errorBody{Return: false, Status: status, Message: message, Errors: problems})
}

// clientGone reports whether the request's context was cancelled rather
// than timed out: net/http cancels it when the client disconnects (the
// request timeout ends it with DeadlineExceeded instead).
func clientGone(r *http.Request) bool {
	return errors.Is(r.Context().Err(), context.Canceled)
}

// writeJSON writes v with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		body = []byte(`{"return":false,"status":500,"message":"Internal error.","errors":[]}`)
	}
	writeRaw(w, status, body)
}

func writeRaw(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body) //nolint:errcheck // the client went away; nothing to do
}

// recordEnvelope is {"return":true,"status":S,["message":M,]"data":record}.
func recordEnvelope(status int, message string, rec *storage.Record) []byte {
	return writeEnvelope(status, message, rec, nil)
}

// writeEnvelope is a write's answer: recordEnvelope's, with the write's
// warnings after the record when it has any
// ({...,"data":record,"warnings":[{"field":F,"message":M}, ...]}).
func writeEnvelope(status int, message string, rec *storage.Record, warnings []finance.Problem) []byte {
	b := make([]byte, 0, 512)
	b = append(b, `{"return":true,"status":`...)
	b = strconv.AppendInt(b, int64(status), 10)
	if message != "" {
		b = append(b, `,"message":`...)
		enc, _ := json.Marshal(message)
		b = append(b, enc...)
	}
	b = append(b, `,"data":`...)
	if rec == nil {
		b = append(b, "null"...)
	} else {
		b = rec.AppendJSON(b)
	}
	if len(warnings) > 0 {
		b = append(b, `,"warnings":`...)
		enc, _ := json.Marshal(warnings)
		b = append(b, enc...)
	}
	return append(b, '}')
}
