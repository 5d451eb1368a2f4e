package api

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/http"
	"time"

	"github.com/propfin/propfin/api/openapi"
	"github.com/propfin/propfin/api/statement"
	"github.com/propfin/propfin/finance"
)

// The owner statement's signed link and its public page and PDF
// (docs/api.md, "Owner statements"): package api/statement signs the
// links, verifies them and renders; this file turns a closed statement
// as storage reads it into the page's view model (statements_view.go).

// statementPath is where the public pages of owner statements are
// served, without an API key: /statements/{token}, and its PDF at
// /statements/{token}/pdf (or ?format=pdf).
const statementPath = "/statements/"

// statementLinks signs the links to the statements' pages, with the
// receipts' secret under the statement signer's own context: a receipt
// token opens no statement, nor the reverse.
type statementLinks struct {
	signer   *statement.Signer // nil: links are not configured
	lifetime time.Duration
}

// newStatementLinks builds the links from the receipts' secret; a secret
// too short is a configuration error.
func newStatementLinks(secret []byte) (*statementLinks, error) {
	links := &statementLinks{lifetime: statement.DefaultLifetime}
	if len(secret) == 0 {
		return links, nil
	}
	signer, err := statement.NewSigner(secret)
	if err != nil {
		return nil, fmt.Errorf("statement links: %w", err)
	}
	links.signer = signer
	return links, nil
}

// verifier is what the public page verifies tokens with: the signer, or,
// with no secret configured, one of a random secret no link was ever
// signed with, so that every link is the page's own 404.
func (l *statementLinks) verifier() *statement.Signer {
	if l.signer != nil {
		return l.signer
	}
	signer, err := statement.NewSigner([]byte(rand.Text() + rand.Text()))
	if err != nil {
		panic("api: statement verifier: " + err.Error())
	}
	return signer
}

// statementLink is GET /financial/ownerStatements/{id}/link: a signed
// link to the statement's public page.
func (s *Server) statementLink(w http.ResponseWriter, r *http.Request) {
	id, ok := pathParamID(w, r, "id")
	if !ok {
		return
	}
	if err := noQuery(r.URL.RawQuery); err != nil {
		writeError(w, r, err)
		return
	}
	if s.statements.signer == nil {
		writeError(w, r, finance.Errorf(finance.Unavailable,
			"Statement links are not configured on this server (PROPFIN_RECEIPT_SECRET)."))
		return
	}
	companyID := principalOf(r.Context()).CompanyID
	if err := s.store.OwnerStatementExists(r.Context(), companyID, id); err != nil {
		writeError(w, r, err)
		return
	}
	expires := time.Now().Add(s.statements.lifetime).UTC().Truncate(time.Second)
	token := s.statements.signer.SignStatement(companyID, id, expires)
	writeJSON(w, http.StatusOK, linkEnvelope{Return: true, Status: http.StatusOK, Data: receiptLinkData{
		URL: s.receipts.base(r) + statementPath + token, ExpiresAt: expires.Format(time.DateTime),
	}})
}

// statementPage serves the page and the PDF of a verified statement
// link (statement.Handler: 404 for a link that is bad, expired, of
// another document or of a statement no longer there; 503 when the
// database does not answer).
func (s *Server) statementPage() http.Handler {
	return statement.Handler(s.loadStatement, s.statements.verifier(), nil)
}

// loadStatement reads the statement a verified link names.
func (s *Server) loadStatement(ctx context.Context, ref statement.Ref) (statement.Document, error) {
	if ref.Kind != statement.KindOwnerStatement { // an income report's link is not served here
		return nil, fmt.Errorf("%w: a %s link on the statements' path", statement.ErrNotFound, ref.Kind)
	}
	page, err := s.store.OwnerStatementPage(ctx, ref.CompanyID, ref.ID)
	switch finance.ErrorCode(err) {
	case finance.NotFound:
		return nil, fmt.Errorf("%w: %w", statement.ErrNotFound, err)
	case finance.Unavailable:
		return nil, fmt.Errorf("%w: %w", statement.ErrUnavailable, err)
	}
	if err != nil {
		return nil, err
	}
	doc, err := ownerStatementOf(page)
	if err != nil {
		return nil, fmt.Errorf("owner statement %d: %w", ref.ID, err)
	}
	return doc, nil
}

// statementLinkOp describes GET /financial/ownerStatements/{id}/link.
func statementLinkOp() operation {
	link, err := reflector.SchemaFor(linkEnvelope{})
	if err != nil {
		panic("api: " + err.Error())
	}
	return operation{
		tag:     "owner statements",
		summary: "A signed link to the owner statement's public page and PDF",
		description: "A new link at every call: `PROPFIN_PUBLIC_URL` (else the request's scheme and host) + " +
			"`/statements/{token}`, valid for 120 days (`expires_at`, UTC); the PDF is the same URL + `/pdf`. " +
			"Without a configured secret, a 503 that says so (docs/api.md, \"Owner statements\"). It takes no query parameters (422).",
		responses: answers(map[int]*openapi.Response{http.StatusOK: jsonAnswer("The link.", link)}, http.StatusNotFound, http.StatusUnprocessableEntity),
	}
}

// statementTokenParam is the token of a statement link.
var statementTokenParam = map[string]*openapi.Parameter{"token": {
	Description: "The token of the link (80 characters of base64url).", Schema: openapi.String()}}

// pdfAnswer is a PDF document.
func pdfAnswer(description string) *openapi.Response {
	return &openapi.Response{Description: description,
		Content: map[string]*openapi.MediaType{"application/pdf": {Schema: &openapi.Schema{Type: "string", Format: "binary"}}}}
}

// statementDocAnswers are the answers of the page and of the PDF, but
// the 200.
var statementDocAnswers = map[int]*openapi.Response{
	http.StatusNotFound:            htmlAnswer("The not-found page: a bad, tampered or expired link, or a statement no longer there."),
	http.StatusServiceUnavailable:  htmlAnswer("The statement cannot be read now; retry after `Retry-After`."),
	http.StatusInternalServerError: htmlAnswer("The statement could not be shown (logged; no detail is given)."),
}

func withAnswer(status int, r *openapi.Response, rest map[int]*openapi.Response) map[int]*openapi.Response {
	out := map[int]*openapi.Response{status: r}
	for k, v := range rest {
		out[k] = v
	}
	return out
}

// statementPageOp describes the public page a statement link opens.
var statementPageOp = operation{
	access:  public,
	tag:     "owner statements",
	summary: "The public page of an owner statement's signed link",
	description: "Server-rendered HTML for the owner, in Portuguese: the statement as it was closed, per contract and " +
		"building its shown lines by kind with their totals, the month's summary, the lines left out counted apart " +
		"(in the balance), and a link to the PDF. `?format=pdf` answers the PDF instead. No script, nothing requested " +
		"from elsewhere (docs/api.md, \"Owner statements and income reports: the pages and PDFs\").",
	pathParams: statementTokenParam,
	params: []*openapi.Parameter{queryParam("format", "`html` (the default) or `pdf`; another value is a 400 page.",
		&openapi.Schema{Type: "string", Enum: []any{"html", "pdf"}})},
	responses: withAnswer(http.StatusOK, &openapi.Response{Description: "The page, or the PDF with `format=pdf`.",
		Content: map[string]*openapi.MediaType{"text/html": {Schema: openapi.String()},
			"application/pdf": {Schema: &openapi.Schema{Type: "string", Format: "binary"}}}},
		withAnswer(http.StatusBadRequest, htmlAnswer("A `format` other than html or pdf."), statementDocAnswers)),
}

// statementPDFOp describes the PDF a statement link opens at .../pdf.
var statementPDFOp = operation{
	access:  public,
	tag:     "owner statements",
	summary: "The PDF of an owner statement's signed link",
	description: "The statement's page as an A4 PDF drawn on the server, `Content-Disposition: inline; " +
		"filename=\"prestacao-de-contas-YYYY-MM.pdf\"` (docs/api.md, \"Owner statements and income reports: the pages and PDFs\").",
	pathParams: statementTokenParam,
	responses:  withAnswer(http.StatusOK, pdfAnswer("The PDF."), statementDocAnswers),
}
