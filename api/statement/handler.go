package statement

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/propfin/propfin/api/publicpage"
)

// Document is what a link shows: an OwnerStatement or an IncomeReport.
type Document interface {
	kind() string
	filename() string
	renderHTML(io.Writer) error
	renderPDF(io.Writer) error
}

func (s OwnerStatement) kind() string                 { return KindOwnerStatement }
func (s OwnerStatement) filename() string             { return "prestacao-de-contas-" + s.Month + ".pdf" }
func (s OwnerStatement) renderHTML(w io.Writer) error { return RenderStatementHTML(w, s) }
func (s OwnerStatement) renderPDF(w io.Writer) error  { return RenderStatementPDF(w, s) }

func (r IncomeReport) kind() string { return KindIncomeReport }
func (r IncomeReport) filename() string {
	return "informe-de-rendimentos-" + strconv.Itoa(r.Year) + ".pdf"
}
func (r IncomeReport) renderHTML(w io.Writer) error { return RenderIncomeHTML(w, r) }
func (r IncomeReport) renderPDF(w io.Writer) error  { return RenderIncomePDF(w, r) }

// Format is how a document is answered.
type Format string

// The formats.
const (
	FormatHTML Format = "html"
	FormatPDF  Format = "pdf"
)

// errFormat is matched by the error of a format that is not html or pdf.
var errFormat = errors.New("unknown format")

// RequestFormat is the format a request asks for: PDF when its path ends
// in /pdf or its query has format=pdf, HTML when neither (or
// format=html), in any case (format=PDF). Another format value is an
// error.
func RequestFormat(r *http.Request) (Format, error) {
	if strings.HasSuffix(r.URL.Path, "/pdf") {
		return FormatPDF, nil
	}
	switch f := r.URL.Query().Get("format"); strings.ToLower(f) {
	case "", string(FormatHTML):
		return FormatHTML, nil
	case string(FormatPDF):
		return FormatPDF, nil
	default:
		return "", fmt.Errorf("format %q, want html or pdf: %w", f, errFormat)
	}
}

// Render writes doc in format f.
func Render(w io.Writer, doc Document, f Format) error {
	switch f {
	case FormatHTML:
		return doc.renderHTML(w)
	case FormatPDF:
		return doc.renderPDF(w)
	}
	return fmt.Errorf("rendering %s: format %q: %w", doc.kind(), f, errFormat)
}

var (
	// ErrNotFound is what a load function returns (or wraps) when the
	// document does not exist, belongs to another company, or must not be
	// shown: the handler answers 404, as for a bad link.
	ErrNotFound = errors.New("statement document not found")
	// ErrUnavailable is what a load function returns (or wraps) when the
	// document cannot be read for now (database down, timeout): the handler
	// answers 503 with Retry-After. Any other error is answered 500.
	ErrUnavailable = errors.New("statement document unavailable")
)

// Handler serves the documents of signed links. The token is the last
// segment of the request path, or the one before a last segment "pdf":
// mount it as /<prefix>/:token and /<prefix>/:token/pdf. The page is
// answered by default; the PDF for .../pdf or ?format=pdf. Only GET and
// HEAD are served.
//
// A token that does not verify (wrong, tampered, expired) and a load
// error matching ErrNotFound are answered 404 with the same HTML page; a
// load error matching ErrUnavailable 503, any other load error, a
// document of another kind than the token's and a render error 500, each
// with an HTML page free of internal text (the error is logged through
// slog's default logger); an unknown format 400. now is the clock
// (time.Now when nil).
func Handler(load func(context.Context, Ref) (Document, error), signer *Signer, now func() time.Time) http.Handler {
	if now == nil {
		now = time.Now
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			writeError(w, http.StatusMethodNotAllowed, "Método não permitido", "Esta página só pode ser lida.")
			return
		}
		ref, err := signer.Verify(token(r.URL.Path), now())
		if err != nil {
			writeNotFound(w)
			return
		}
		doc, err := load(r.Context(), ref)
		switch {
		case errors.Is(err, ErrNotFound):
			writeNotFound(w)
			return
		case err != nil:
			logFailure(r.Context(), "loading statement document", ref, err)
			status := http.StatusInternalServerError
			if errors.Is(err, ErrUnavailable) {
				status = http.StatusServiceUnavailable
				w.Header().Set("Retry-After", "30")
			}
			writeUnavailable(w, status)
			return
		case doc == nil || doc.kind() != ref.Kind:
			logFailure(r.Context(), "loading statement document", ref, fmt.Errorf("the load function gave %T for a link to a %s", doc, ref.Kind))
			writeUnavailable(w, http.StatusInternalServerError)
			return
		}
		Respond(w, r, doc)
	})
}

// token is the path's last segment, or the one before a last "pdf".
func token(path string) string {
	path = strings.TrimSuffix(path, "/pdf")
	return path[strings.LastIndexByte(path, '/')+1:]
}

// Respond answers r with doc in the format r asks for
// ([RequestFormat]): the page (text/html; charset=utf-8, under the page's
// Content-Security-Policy, Content-Disposition: inline) or the PDF
// (application/pdf, Content-Disposition: inline with a file name such as
// prestacao-de-contas-2024-03.pdf or informe-de-rendimentos-2024.pdf).
// Both are Cache-Control: no-store, nosniff, no referrer, not indexed. An
// unknown format is a 400 page, a document that does not render a 500
// page (the error logged); nothing half-rendered is sent.
func Respond(w http.ResponseWriter, r *http.Request, doc Document) {
	f, err := RequestFormat(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, "Formato não disponível",
			"Este documento pode ser visto como página ou baixado em PDF (format=pdf).")
		return
	}
	var buf bytes.Buffer
	if err := Render(&buf, doc, f); err != nil {
		slog.Default().ErrorContext(r.Context(), "rendering statement document", "kind", doc.kind(), "format", f, "err", err)
		writeUnavailable(w, http.StatusInternalServerError)
		return
	}
	h := w.Header()
	shell.SetHeaders(h)
	if f == FormatPDF {
		h.Set("Content-Type", "application/pdf")
		h.Set("Content-Disposition", `inline; filename="`+doc.filename()+`"`)
		h.Del("Content-Security-Policy") // the browser's PDF viewer is not held to a page's policy
	} else {
		h.Set("Content-Disposition", "inline")
	}
	publicpage.WriteBody(w, http.StatusOK, buf.Bytes())
}

func logFailure(ctx context.Context, msg string, ref Ref, err error) {
	slog.Default().ErrorContext(ctx, msg, "kind", ref.Kind, "company_id", ref.CompanyID, "id", ref.ID, "year", ref.Year, "err", err)
}

// writeNotFound answers a link that is wrong, expired or names nothing;
// it says no more than that, so a guessed link learns nothing.
func writeNotFound(w http.ResponseWriter) {
	writeError(w, http.StatusNotFound, "Página não encontrada",
		"Este link não é válido ou expirou. Peça um novo link a quem enviou o documento.")
}

// writeUnavailable answers a document that could not be read or drawn.
func writeUnavailable(w http.ResponseWriter, status int) {
	writeError(w, status, "Página indisponível",
		"Não foi possível mostrar este documento agora. Tente de novo em alguns minutos.")
}

func writeError(w http.ResponseWriter, status int, title, message string) {
	shell.WriteError(w, status, title, message)
}
