package receipt

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/propfin/propfin/api/publicpage"
)

var (
	// ErrNotFound is what a load function returns (or wraps) when the
	// record does not exist, belongs to another company, or must not be
	// shown: the handler answers 404, as for a bad link.
	ErrNotFound = errors.New("receipt record not found")
	// ErrUnavailable is what a load function returns (or wraps) when the
	// record cannot be read for now (database down, timeout): the handler
	// answers 503 with Retry-After. Any other error is answered 500.
	ErrUnavailable = errors.New("receipt record unavailable")
)

// Handler serves the public page. The token is the last segment of the
// request path (mount it as /<prefix>/:token); there is no query
// parameter. Only GET and HEAD are served.
//
// A token that does not verify (wrong, tampered, expired) and a load
// error matching ErrNotFound are answered 404 with the same HTML page; a
// load error matching ErrUnavailable 503, any other load or render error
// 500, each with an HTML page free of internal text (the error is logged
// through slog's default logger). Every answer carries Content-Type
// text/html; charset=utf-8, Cache-Control: no-store, nosniff, no referrer
// and the Content-Security-Policy of the page. now is the clock (time.Now
// when nil).
func Handler(load func(context.Context, Ref) (Page, error), signer *Signer, now func() time.Time) http.Handler {
	if now == nil {
		now = time.Now
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		shell.SetHeaders(w.Header())
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			writePage(w, http.StatusMethodNotAllowed, renderMethodNotAllowed)
			return
		}
		ref, err := signer.Verify(lastSegment(r.URL.Path), now())
		if err != nil {
			writePage(w, http.StatusNotFound, RenderNotFound)
			return
		}
		serve(w, r, load, ref)
	})
}

// serve loads and renders the page of a verified ref.
func serve(w http.ResponseWriter, r *http.Request, load func(context.Context, Ref) (Page, error), ref Ref) {
	ctx := r.Context()
	page, err := load(ctx, ref)
	switch {
	case errors.Is(err, ErrNotFound):
		writePage(w, http.StatusNotFound, RenderNotFound)
		return
	case err != nil:
		logFailure(ctx, "loading receipt page", ref, err)
		status := http.StatusInternalServerError
		if errors.Is(err, ErrUnavailable) {
			status = http.StatusServiceUnavailable
			w.Header().Set("Retry-After", "30")
		}
		writePage(w, status, renderUnavailable)
		return
	}
	var buf bytes.Buffer
	if err := Render(&buf, page); err != nil {
		logFailure(ctx, "rendering receipt page", ref, err)
		writePage(w, http.StatusInternalServerError, renderUnavailable)
		return
	}
	publicpage.WriteBody(w, http.StatusOK, buf.Bytes())
}

func logFailure(ctx context.Context, msg string, ref Ref, err error) {
	slog.Default().ErrorContext(ctx, msg, "kind", ref.Kind, "company_id", ref.CompanyID, "id", ref.ID, "err", err)
}

// writePage writes an error page with status.
func writePage(w http.ResponseWriter, status int, render func(w io.Writer) error) {
	var buf bytes.Buffer
	if err := render(&buf); err != nil { // the embedded templates are tested: not expected
		buf.Reset()
		buf.WriteString("<!doctype html><title>Erro</title><p>Erro.</p>")
	}
	publicpage.WriteBody(w, status, buf.Bytes())
}

// lastSegment is what follows the last slash of path.
func lastSegment(path string) string {
	return path[strings.LastIndexByte(path, '/')+1:]
}
