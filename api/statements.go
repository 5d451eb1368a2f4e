package api

import (
	"bytes"
	"html/template"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/propfin/propfin/api/openapi"
	"github.com/propfin/propfin/api/receipt"
	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/finance/statement"
	"github.com/propfin/propfin/storage"
)

// statementPath is where the public pages of owner statements are
// served, without an API key: /statements/{token}.
const statementPath = "/statements/"

// statementLink is GET /financial/ownerStatements/{id}/link: a signed
// link to the statement's public page, signed and answered as a receipt
// link is.
func (s *Server) statementLink(w http.ResponseWriter, r *http.Request) {
	id, ok := pathParamID(w, r, "id")
	if !ok {
		return
	}
	if s.receipts.signer == nil {
		writeError(w, r, finance.Errorf(finance.Unavailable,
			"Statement links are not configured on this server (PROPFIN_RECEIPT_SECRET)."))
		return
	}
	companyID := principalOf(r.Context()).CompanyID
	if _, err := s.store.OwnerStatementPage(r.Context(), companyID, id); err != nil {
		writeError(w, r, err)
		return
	}
	expires := time.Now().Add(s.receipts.lifetime).UTC().Truncate(time.Second)
	token := s.receipts.signer.Sign(receipt.KindOwnerStatement, companyID, id, expires)
	writeJSON(w, http.StatusOK, linkEnvelope{Return: true, Status: http.StatusOK, Data: receiptLinkData{
		URL: s.receipts.base(r) + statementPath + token, ExpiresAt: expires.Format(time.DateTime),
	}})
}

// statementPage serves the page of a verified statement link: 404 for a
// link that is bad, expired, of another kind or of a statement no longer
// there; 503 when the database does not answer.
func (s *Server) statementPage(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Robots-Tag", "noindex, nofollow")
	h.Set("Content-Security-Policy", "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	if s.receipts.signer == nil {
		statementError(w, http.StatusNotFound)
		return
	}
	ref, err := s.receipts.signer.Verify(tokenOf(r), time.Now())
	if err != nil || ref.Kind != receipt.KindOwnerStatement {
		statementError(w, http.StatusNotFound)
		return
	}
	page, err := s.store.OwnerStatementPage(r.Context(), ref.CompanyID, ref.ID)
	switch code := finance.ErrorCode(err); {
	case code == finance.NotFound:
		statementError(w, http.StatusNotFound)
		return
	case code == finance.Unavailable:
		h.Set("Retry-After", "30")
		statementError(w, http.StatusServiceUnavailable)
		return
	case err != nil:
		s.log.ErrorContext(r.Context(), "owner statement page", "statement", ref.ID, "err", err)
		statementError(w, http.StatusInternalServerError)
		return
	}
	var buf bytes.Buffer
	if err := statementTemplate.Execute(&buf, statementView(page)); err != nil {
		s.log.ErrorContext(r.Context(), "owner statement page", "statement", ref.ID, "err", err)
		statementError(w, http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusOK)
	w.Write(buf.Bytes()) //nolint:errcheck // the status is written
}

// tokenOf is the last segment of the request's path: the link's token.
func tokenOf(r *http.Request) string {
	return r.URL.Path[strings.LastIndexByte(r.URL.Path, '/')+1:]
}

// statementError writes the page of an error status.
func statementError(w http.ResponseWriter, status int) {
	text := map[int]string{http.StatusNotFound: "Este link não é válido ou expirou.",
		http.StatusServiceUnavailable: "A prestação de contas não pode ser lida agora; tente de novo em instantes."}[status]
	if text == "" {
		text = "Não foi possível mostrar a prestação de contas."
	}
	w.WriteHeader(status)
	statementErrorTemplate.Execute(w, text) //nolint:errcheck // the status is written
}

// The page's values, formatted in Portuguese.
type (
	statementPageView struct {
		Company, Business, BusinessTaxID, Owner, OwnerTaxID, Month string
		Opening, Closing, HiddenAmount                             string
		Hidden                                                     int
		Sections                                                   []sectionView
	}
	sectionView struct {
		Title, Total string
		Lines        []lineView
	}
	lineView struct {
		Date, Description, Amount, Note string
	}
)

// sectionTitles name the sections on the page.
var sectionTitles = map[statement.Section]string{
	statement.Income:      "Recebido dos inquilinos",
	statement.Deductions:  "Descontos",
	statement.Guarantee:   "Aluguel garantido",
	statement.Transfers:   "Repasses",
	statement.Adjustments: "Ajustes de meses fechados",
}

func statementView(p storage.StatementPage) statementPageView {
	v := statementPageView{Company: p.CompanyName, Business: p.BusinessName, BusinessTaxID: p.BusinessTaxID,
		Owner: p.OwnerName, OwnerTaxID: p.OwnerTaxID, Month: monthBR(p.Month), Opening: brl(p.Opening),
		Closing: brl(p.Closing), Hidden: p.Totals.HiddenCount, HiddenAmount: brl(p.Totals.HiddenCents)}
	for _, sec := range statement.Sections {
		sv := sectionView{Title: sectionTitles[sec], Total: brl(p.Totals.Of(sec))}
		for _, l := range p.Lines {
			if l.Section != sec {
				continue
			}
			lv := lineView{Date: dateBR(l.Date), Description: l.Description, Amount: brl(l.Cents), Note: l.Destination}
			if l.IsAdjustment() {
				lv.Note = "corrige " + monthBR(l.CorrectsMonth)
			}
			sv.Lines = append(sv.Lines, lv)
		}
		if len(sv.Lines) > 0 {
			v.Sections = append(v.Sections, sv)
		}
	}
	return v
}

// brl writes cents as "R$ 1.234,56" ("-R$ 1,00" for a negative amount).
func brl(cents int64) string {
	sign := ""
	if cents < 0 {
		sign, cents = "-", -cents
	}
	units := strconv.FormatInt(cents/100, 10)
	var b strings.Builder
	for i, c := range units {
		if i > 0 && (len(units)-i)%3 == 0 {
			b.WriteByte('.')
		}
		b.WriteRune(c)
	}
	frac := cents % 100
	return sign + "R$ " + b.String() + "," + string(rune('0'+frac/10)) + string(rune('0'+frac%10))
}

func dateBR(d finance.Date) string {
	s := d.String()
	return s[8:10] + "/" + s[5:7] + "/" + s[0:4]
}

func monthBR(m finance.Month) string {
	s := m.String()
	return s[5:7] + "/" + s[0:4]
}

var statementTemplate = template.Must(template.New("statement").Parse(`<!doctype html>
<html lang="pt-BR"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Prestação de contas {{.Month}}</title></head><body>
<h1>Prestação de contas de {{.Month}}</h1>
<p>{{.Company}}{{if .Business}} — {{.Business}}{{if .BusinessTaxID}} (CNPJ {{.BusinessTaxID}}){{end}}{{end}}</p>
<p>Proprietário: {{.Owner}}{{if .OwnerTaxID}} ({{.OwnerTaxID}}){{end}}</p>
<p>Saldo anterior: {{.Opening}}</p>
{{range .Sections}}<h2>{{.Title}}</h2>
<table><tbody>{{range .Lines}}<tr><td>{{.Date}}</td><td>{{.Description}}{{if .Note}} ({{.Note}}){{end}}</td><td>{{.Amount}}</td></tr>
{{end}}</tbody><tfoot><tr><td></td><td>Total</td><td>{{.Total}}</td></tr></tfoot></table>
{{end}}{{if .Hidden}}<p>Outros lançamentos não detalhados: {{.Hidden}}, total {{.HiddenAmount}}.</p>
{{end}}<p><strong>Saldo final: {{.Closing}}</strong></p>
</body></html>
`))

var statementErrorTemplate = template.Must(template.New("error").Parse(`<!doctype html>
<html lang="pt-BR"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Prestação de contas</title></head><body><p>{{.}}</p></body></html>
`))

// statementLinkOp describes GET /financial/ownerStatements/{id}/link.
func statementLinkOp() operation {
	link, err := reflector.SchemaFor(linkEnvelope{})
	if err != nil {
		panic("api: " + err.Error())
	}
	return operation{
		tag:     "owner statements",
		summary: "A signed link to the owner statement's public page",
		description: "A new link at every call: `PROPFIN_PUBLIC_URL` (else the request's scheme and host) + " +
			"`/statements/{token}`, valid as receipt links are (`expires_at`, UTC). Without a configured secret, a 503 " +
			"that says so (docs/api.md, \"Owner statements\").",
		responses: answers(map[int]*openapi.Response{http.StatusOK: jsonAnswer("The link.", link)}, http.StatusNotFound),
	}
}

// statementPageOp describes the public page a statement link opens.
var statementPageOp = operation{
	access:  public,
	tag:     "owner statements",
	summary: "The public page of an owner statement's signed link",
	description: "Server-rendered HTML for the owner: the statement as it was closed, its shown lines by section, " +
		"the lines left out counted apart, the balances. A bad, tampered or expired link is the 404 page.",
	pathParams: map[string]*openapi.Parameter{"token": {Description: "The token of the link (78 characters of base64url).",
		Schema: openapi.String()}},
	responses: map[int]*openapi.Response{
		http.StatusOK:                 htmlAnswer("The page."),
		http.StatusNotFound:           htmlAnswer("The not-found page."),
		http.StatusServiceUnavailable: htmlAnswer("The statement cannot be read now; retry after `Retry-After`."),
	},
}
