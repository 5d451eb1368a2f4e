package statement

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"

	"github.com/propfin/propfin/api/ptbr"
	"github.com/propfin/propfin/api/publicpage"
)

//go:embed assets/statement.html assets/income.html assets/style.css
var assets embed.FS

var (
	templates = template.Must(template.New("statement").Funcs(template.FuncMap{
		"money":     ptbr.Cents[Cents],
		"date":      ptbr.Date,
		"taxID":     partyTaxID,
		"party":     partyText,
		"lineText":  lineText,
		"period":    period,
		"monthName": monthTitle,
	}).ParseFS(assets, "assets/*.html"))
	style = mustAsset("assets/style.css")
	// contentSecurityPolicy lets the page use its own inline style (by
	// hash) and nothing else: no script, no image, no request.
	contentSecurityPolicy = "default-src 'none'; style-src " + sourceHash(style) +
		"; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)

func mustAsset(name string) string {
	b, err := assets.ReadFile(name)
	if err != nil {
		panic(fmt.Sprintf("statement: embedded asset %s: %v", name, err))
	}
	return string(b)
}

var shell = publicpage.Shell{Style: style, CSP: contentSecurityPolicy}

// sourceHash is a CSP hash source of an inline element's text.
var sourceHash = publicpage.SourceHash

// head is what the top and the foot of both pages read.
type head struct {
	Company Party
	Title   string
	Period  string
	Fine    string
}

// statementView is what the statement template reads.
type statementView struct {
	OwnerStatement
	Head         head
	T            StatementTotals
	Title        string
	Period       string
	Range        string // "01/03/2024 a 31/03/2024"
	LastDay      string
	ShowBusiness bool
	HiddenText   string
	Style        template.CSS
}

// incomeView is what the income report template reads.
type incomeView struct {
	IncomeReport
	Head   head
	T      IncomeTotals
	Title  string
	Period string
	// Issuers are the administrators (the businesses the rent was
	// received through), in T.Sources's order (the Company when the
	// report has no contract); BySource says there are several, each
	// heading its own contracts and their total. The paying sources are
	// the company tenants (T.Payers).
	Issuers  []Party
	BySource bool
	ByMonth  bool // more than one contract: the year's totals month by month too
	Style    template.CSS
}

// Titles of the documents, on the page, the PDF and its metadata.
const (
	statementTitle = "Prestação de contas"
	incomeTitle    = "Informe de rendimentos"
)

func newStatementView(s OwnerStatement) (statementView, error) {
	t, err := s.Totals()
	if err != nil {
		return statementView{}, err
	}
	first, _ := parseMonth(s.Month) // Totals checked it
	v := statementView{
		OwnerStatement: s,
		T:              t,
		Title:          statementTitle,
		Period:         formatMonth(s.Month),
		Range:          ptbr.Date(first) + " a " + lastDay(s.Month),
		LastDay:        lastDay(s.Month),
		ShowBusiness:   differs(s.Business, s.Company),
		HiddenText:     hiddenText(s.Hidden),
		Style:          template.CSS(style),
	}
	v.Head = head{Company: s.Company, Title: v.Title, Period: v.Period,
		Fine: "Demonstrativo emitido por " + s.Company.Name + "."}
	return v, nil
}

func newIncomeView(r IncomeReport) (incomeView, error) {
	t, err := r.Totals()
	if err != nil {
		return incomeView{}, err
	}
	v := incomeView{
		IncomeReport: r,
		T:            t,
		Title:        incomeTitle,
		Period:       "Ano-calendário " + strconv.Itoa(r.Year),
		Issuers:      []Party{r.Company},
		BySource:     len(t.Sources) > 1,
		ByMonth:      len(r.Contracts) > 1,
		Style:        template.CSS(style),
	}
	if len(t.Sources) > 0 {
		v.Issuers = v.Issuers[:0]
		for _, src := range t.Sources {
			v.Issuers = append(v.Issuers, src.Source)
		}
	}
	v.Head = head{Company: r.Company, Title: v.Title, Period: v.Period,
		Fine: "Aluguéis recebidos por intermédio de " + partiesText(v.Issuers) + " no ano-calendário " +
			strconv.Itoa(r.Year) + ", para a declaração de imposto de renda do beneficiário."}
	return v, nil
}

// partiesText names parties in a sentence, each with its tax id: "A
// (CNPJ …)", "A (CNPJ …) e B (CNPJ …)", "A, B e C".
func partiesText(ps []Party) string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = partyText(p)
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " e " + names[len(names)-1]
}

// differs reports whether the business is given and is not the company.
func differs(business, company Party) bool {
	if business.Name == "" {
		return false
	}
	return business.Name != company.Name || ptbr.TaxID(business.TaxID) != ptbr.TaxID(company.TaxID)
}

// RenderStatementHTML writes the page of an owner statement. A statement
// that does not add up ([OwnerStatement.Totals]) is an error and nothing
// is written.
func RenderStatementHTML(w io.Writer, s OwnerStatement) error {
	v, err := newStatementView(s)
	if err != nil {
		return fmt.Errorf("rendering statement page: %w", err)
	}
	return execute(w, "statement", v)
}

// RenderIncomeHTML writes the page of an income report; an invalid report
// ([IncomeReport.Totals]) is an error and nothing is written.
func RenderIncomeHTML(w io.Writer, r IncomeReport) error {
	v, err := newIncomeView(r)
	if err != nil {
		return fmt.Errorf("rendering income report page: %w", err)
	}
	return execute(w, "income", v)
}

func renderError(w io.Writer, title, message string) error {
	return shell.RenderError(w, title, message)
}

// execute runs a template into a buffer first, so a failure writes
// nothing.
func execute(w io.Writer, name string, data any) error {
	var buf bytes.Buffer
	if err := templates.ExecuteTemplate(&buf, name, data); err != nil {
		return fmt.Errorf("executing template %s: %w", name, err)
	}
	if _, err := buf.WriteTo(w); err != nil {
		return fmt.Errorf("writing %s page: %w", name, err)
	}
	return nil
}

// HasIndividuals says the report has rent from persons (the carnê-leão's).
func (v incomeView) HasIndividuals() bool {
	return !v.T.Individuals.isZero() || v.hasPayer(PayerIndividual)
}

// HasUnknown says the report has rent from tenants of no known tax id.
func (v incomeView) HasUnknown() bool { return !v.T.Unknown.isZero() || v.hasPayer(PayerUnknown) }

func (v incomeView) hasPayer(k PayerKind) bool {
	for _, c := range v.T.Contracts {
		if PayerOf(c.Tenant) == k {
			return true
		}
	}
	return false
}
