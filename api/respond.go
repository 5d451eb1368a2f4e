package api

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/propfin/propfin/storage"
)

// statusOf is the one table from error code to HTTP status.
var statusOf = map[storage.Code]int{
	storage.Invalid:              http.StatusUnprocessableEntity,
	storage.NotFound:             http.StatusNotFound,
	storage.Conflict:             http.StatusConflict,
	storage.Unauthenticated:      http.StatusUnauthorized,
	storage.OperatorOnly:         http.StatusUnauthorized,
	storage.Forbidden:            http.StatusForbidden,
	storage.TooManyRequests:      http.StatusTooManyRequests,
	storage.TooLarge:             http.StatusRequestEntityTooLarge,
	storage.NotAllowed:           http.StatusMethodNotAllowed,
	storage.UnsupportedMediaType: http.StatusUnsupportedMediaType,
	storage.BadRequest:           http.StatusBadRequest,
	storage.URITooLong:           http.StatusRequestURITooLong,
	storage.HeadersTooLarge:      http.StatusRequestHeaderFieldsTooLarge,
	storage.Unavailable:          http.StatusServiceUnavailable,
	storage.Retryable:            http.StatusServiceUnavailable,
	storage.Internal:             http.StatusInternalServerError,
}

// companyNotIdentified is the spec's message when no company can be
// identified from the request.
const companyNotIdentified = "Company not identified. Access through your company site address followed by /admin."

// errorBody is the spec's error envelope.
type errorBody struct {
	Return  bool              `json:"return"`
	Status  int               `json:"status"`
	Message string            `json:"message"`
	Errors  []storage.Problem `json:"errors"`
}

// statusClientClosed is what the request log records for a request whose
// client went away before its answer (nginx's 499): no one receives it.
const statusClientClosed = 499

// writeError writes err in the error envelope. Only coded errors carry
// their message to the caller; anything else is logged and answered as an
// internal error, so internal text never leaks. A request whose client has
// gone is not an error of ours: it is logged at INFO as 499.
func writeError(w http.ResponseWriter, r *http.Request, err error) {
	if clientGone(r) {
		loggerOf(r.Context()).InfoContext(r.Context(), "client went away", "method", r.Method, "path", r.URL.Path, "err", err)
		w.WriteHeader(statusClientClosed)
		return
	}
	var coded *storage.Error
	if !errors.As(err, &coded) {
		coded = &storage.Error{Code: storage.Internal, Message: "Internal error.", Err: err}
	}
	status, ok := statusOf[coded.Code]
	if !ok {
		status = http.StatusInternalServerError
	}
	if status >= 500 {
		loggerOf(r.Context()).ErrorContext(r.Context(), "request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	switch coded.Code {
	case storage.Retryable, storage.Unavailable:
		w.Header().Set("Retry-After", "1")
	case storage.OperatorOnly:
		w.Header().Set("WWW-Authenticate", operatorRealm) // a browser asks for the credential
	}
	message := coded.Message
	switch coded.Code {
	case storage.Internal:
		message = "Internal error."
	case storage.Unauthenticated:
		message = companyNotIdentified
	}
	problems := coded.Problems
	if problems == nil {
		problems = []storage.Problem{}
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
	return append(b, '}')
}
