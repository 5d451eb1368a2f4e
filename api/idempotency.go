package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/api/openapi"
	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// The Idempotency-Key of the operations that write and answer at once (a
// refund, a write-off, a termination, an agreement made, canceled or
// broken; docs/api.md, "Idempotency-Key"). An
// operation declared keyed (operation.keyed) has the header declared in
// the document and read by the route layer (keyedRoute), and writes
// through writeKeyed: its write and the record of its key and answer in
// one transaction (storage.KeyedWrite), so that the same key and body
// answers the first answer again, byte for byte (its Location header
// too), and writes nothing. The
// job-starting requests keep their key on the job they start
// (prepareSubmission); the header is read alike for both (headerKey).

// maxIdempotencyKey bounds an Idempotency-Key header.
const maxIdempotencyKey = 255

// headerKey reads the request's Idempotency-Key: "" when it has none; a
// header given twice, empty, longer than maxIdempotencyKey or not
// printable ASCII is a 422 naming it.
func headerKey(r *http.Request) (string, error) {
	keys := r.Header.Values("Idempotency-Key")
	if len(keys) == 0 {
		return "", nil
	}
	key := keys[0]
	if len(keys) > 1 || key == "" || len(key) > maxIdempotencyKey || !printableASCII(key) {
		return "", finance.InvalidInput([]finance.Problem{{Field: "Idempotency-Key",
			Message: "must be one header of printable ASCII, 1 to 255 characters"}})
	}
	return key, nil
}

// keyedContext marks the request of a keyed route, with its key.
type keyedContext struct{}

// keyedRoute reads the Idempotency-Key of a keyed operation's request
// before its handler runs (a malformed one is a 422, whatever the body
// says) and hands it to writeKeyed through the request's context.
func keyedRoute(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key, err := headerKey(r)
		if err != nil {
			writeError(w, r, err)
			return
		}
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), keyedContext{}, key)))
	})
}

// keyedWrite is a keyed operation's write, in the transaction that records
// its key: its answer, or an error (answered, and nothing recorded).
type keyedWrite func(ctx context.Context, tx pgx.Tx) (operationAnswer, error)

// operationAnswer is the answer of an operation that writes and answers at
// once: its status, its envelope (json.RawMessage: one already encoded),
// and, for a creation, the Location of what it created ("": none).
type operationAnswer struct {
	status   int
	envelope any
	location string
}

// previewMessage is the message of every preview's answer.
const previewMessage = "Preview: nothing was stored."

// answerOf is the answer of an operation previewed or run, of data: with
// preview, 200 and previewMessage; otherwise status and message.
func answerOf(preview bool, status int, message string, data any) operationAnswer {
	if preview {
		status, message = http.StatusOK, previewMessage
	}
	return operationAnswer{status: status, envelope: dataEnvelope{Return: true, Status: status, Message: message, Data: data}}
}

// writeKeyed runs write under the request's Idempotency-Key and answers
// with what it returns, or with the answer recorded under the key: body is
// the request's body as read, compared with the key's first request (with
// the method and the path). A preview neither reads nor records the key:
// it runs write as any request without one (its transaction rolled back
// by the write itself). Only a write that succeeds is recorded.
//
// problems are those reading the body found (an unknown field, a value
// of the wrong type): the write still runs on what was read, in a
// transaction always rolled back and without the key, so that one 422
// names the body's problems and the write's checks together
// (withBodyProblems).
func (s *Server) writeKeyed(w http.ResponseWriter, r *http.Request, body []byte, preview bool, problems []finance.Problem,
	write keyedWrite) {
	key, declared := r.Context().Value(keyedContext{}).(string)
	if !declared {
		writeError(w, r, fmt.Errorf("api: %s %s writes through writeKeyed and is not declared keyed", r.Method, r.URL.Path))
		return
	}
	if len(problems) > 0 {
		writeError(w, r, withBodyProblems(s.checkWrite(r.Context(), write), problems))
		return
	}
	k := storage.IdempotencyKey{}
	if key != "" && !preview {
		digest := requestDigest(r)
		digest.Write(body) //nolint:errcheck // a hash takes every write
		k = storage.IdempotencyKey{Key: key, RequestHash: digest.Sum(nil)}
	}
	answer, _, err := storage.KeyedWrite(r.Context(), s.store.Pool(), principalOf(r.Context()).CompanyID, k,
		func(ctx context.Context, tx pgx.Tx) (storage.KeyedAnswer, error) {
			a, err := write(ctx, tx)
			if err != nil {
				return storage.KeyedAnswer{}, err
			}
			b, err := json.Marshal(a.envelope)
			if err != nil {
				return storage.KeyedAnswer{}, fmt.Errorf("encode the answer: %w", err)
			}
			return storage.KeyedAnswer{Status: a.status, Body: b, Location: a.location}, nil
		})
	if err != nil {
		writeError(w, r, err)
		return
	}
	if answer.Location != "" {
		w.Header().Set("Location", answer.Location)
	}
	writeRaw(w, answer.Status, answer.Body)
}

// errChecked rolls back the transaction of a write run only for its checks.
var errChecked = errors.New("api: checked, not written")

// checkWrite runs write in a transaction it rolls back whatever happens,
// for the refusal it answers (nil when it has none).
func (s *Server) checkWrite(ctx context.Context, write keyedWrite) error {
	err := pgx.BeginFunc(ctx, s.store.Pool(), func(tx pgx.Tx) error {
		if _, err := write(ctx, tx); err != nil {
			return err
		}
		return errChecked
	})
	if errors.Is(err, errChecked) {
		return nil
	}
	return err
}

// keyedParam is the Idempotency-Key header of a keyed operation.
func keyedParam() *openapi.Parameter {
	maxLen := maxIdempotencyKey
	return &openapi.Parameter{Name: "Idempotency-Key", In: "header", Description: "Makes the request repeatable " +
		"(docs/api.md, \"Idempotency-Key\"): the same key with the same body answers the first answer again, its " +
		"status and body, and writes nothing; with another body, or a key of another request, it is a 422 naming " +
		"the header. A request sent while the first of its key has not finished waits for it. Only an answer of " +
		"success is recorded; a `preview` neither reads nor records the key. Keys are the company's, kept as long as a finished job (30 days by default). " +
		"Printable ASCII, 1 to 255 characters.",
		Schema: &openapi.Schema{Type: "string", MinLength: openapi.Int(1), MaxLength: &maxLen}}
}
