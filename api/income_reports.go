package api

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/api/openapi"
	statementpage "github.com/propfin/propfin/api/statement"
	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/finance/statement"
	"github.com/propfin/propfin/storage"
)

// The owners' income reports (informes de rendimentos, docs/api.md,
// "Income reports"): GET /financial/incomeReports computes an owner's
// report of a year from the closed statements (the rule is
// finance/statement's BuildIncome), GET /financial/incomeReports/link
// gives a signed link to its public page and PDF, served at
// /incomeReports/{token} by api/statement's Handler.

// Paths of the income reports.
const (
	incomeReportsPath = "/financial/incomeReports"
	incomePagePath    = "/incomeReports/"
)

// Bounds of an income report's year: those of the documents.
const (
	firstIncomeYear = 1900
	lastIncomeYear  = 9999
)

// parseIncomeQuery reads filter[owner_id] and filter[year], both required,
// and, when business is true, filter[business_id]; `_` is ignored and
// anything else is a 422. The year is held to the company's today once
// read (incomeYearToCome).
func parseIncomeQuery(rawQuery string, business bool) (storage.IncomeQuery, error) {
	var q storage.IncomeQuery
	p := &queryParser{}
	id := func(key, value string) int64 {
		v, ok := p.value(key, storage.Int, value)
		if !ok || !p.once(key) {
			return -1
		}
		if v.(int64) < 1 {
			p.fail(key, "must be a positive id")
			return -1
		}
		return v.(int64)
	}
	for _, kv := range p.params(rawQuery) {
		switch {
		case kv.key == "_":
		case kv.key == "filter[owner_id]":
			q.OwnerID = id(kv.key, kv.value)
		case kv.key == "filter[business_id]" && business:
			q.BusinessID = id(kv.key, kv.value)
		case kv.key == "filter[year]":
			y, err := strconv.Atoi(kv.value)
			if err != nil || y < firstIncomeYear || y > lastIncomeYear {
				p.fail(kv.key, "must be a calendar year, %d to %d", firstIncomeYear, lastIncomeYear)
				y = -1
			}
			if p.once(kv.key) {
				q.Year = y
			}
		default:
			p.fail(kv.key, "unknown query parameter")
		}
	}
	if q.OwnerID == 0 {
		p.fail("filter[owner_id]", "is required: the id of the owner (a person) whose report it is")
	}
	if q.Year == 0 {
		p.fail("filter[year]", "is required: the calendar year of the report")
	}
	return q, p.err()
}

// The report's JSON, keys in this order.
type (
	incomeReportJSON struct {
		OwnerID int64           `json:"owner_id"`
		Year    int             `json:"year"`
		Owner   incomePartyJSON `json:"owner"`
		// ClosedThrough is the company's last closed month: the report holds
		// the months closed so far.
		ClosedThrough *finance.Month `json:"closed_through"`
		// Final says the report is the year's informe, the one its link
		// gives: the year is over and every month it reads is closed;
		// otherwise Warning says why it is not yet (or never will be).
		Final   bool    `json:"final"`
		Warning *string `json:"warning"`
		// Businesses are the administrators the rent was received through
		// (the issuers of the report), one per business with a figure in
		// the year; each contract's paying source is its tenant.
		Businesses []incomeBusinessJSON `json:"businesses"`
		Contracts  []incomeContractJSON `json:"contracts"`
		Months     []incomeMonthJSON    `json:"months"`
		Total      incomeFiguresJSON    `json:"total"`
	}
	incomeBusinessJSON struct {
		BusinessID *int64            `json:"business_id"`
		Name       *string           `json:"name"`
		TaxID      *string           `json:"tax_id"`
		Months     []incomeMonthJSON `json:"months"`
		Total      incomeFiguresJSON `json:"total"`
	}
	incomePayingSourceJSON struct {
		// Kind is company (a tenant with a CNPJ: the fonte pagadora),
		// individual (a CPF: carnê-leão) or unknown (no tenant, or no tax
		// id).
		Kind  statementpage.PayerKind `json:"kind"`
		ID    *int64                  `json:"id"`
		Name  *string                 `json:"name"`
		TaxID *string                 `json:"tax_id"`
	}
	incomePartyJSON struct {
		ID    *int64  `json:"id"`
		Name  *string `json:"name"`
		TaxID *string `json:"tax_id"`
	}
	incomeContractJSON struct {
		ContractID *int64          `json:"contract_id"`
		BusinessID *int64          `json:"business_id"`
		Reference  *string         `json:"reference"`
		Tenant     incomePartyJSON `json:"tenant"`
		// PayingSource is who paid the rent, as the owner's return declares
		// it: the tenant, a company (the fonte pagadora, by its CNPJ, that
		// withheld the contract's tax_withheld) or a person (carnê-leão).
		PayingSource incomePayingSourceJSON `json:"paying_source"`
		BuildingID   *int64                 `json:"building_id"`
		Address      *string                `json:"address"`
		StartAt      finance.Date           `json:"start_at"`
		EndAt        finance.Date           `json:"end_at"`
		Months       []incomeMonthJSON      `json:"months"`
		Total        incomeFiguresJSON      `json:"total"`
	}
	incomeMonthJSON struct {
		Month       finance.Month `json:"month"`
		GrossRent   finance.Money `json:"gross_rent"`
		AdminFee    finance.Money `json:"admin_fee"`
		TaxWithheld finance.Money `json:"tax_withheld"`
		Net         finance.Money `json:"net"`
	}
	incomeFiguresJSON struct {
		GrossRent   finance.Money `json:"gross_rent"`
		AdminFee    finance.Money `json:"admin_fee"`
		TaxWithheld finance.Money `json:"tax_withheld"`
		Net         finance.Money `json:"net"`
	}
)

// money is an amount in cents as the API writes money.
func money(cents int64) finance.Money { return finance.Money(decimal.New(cents, -2)) }

func figuresJSON(m statement.IncomeMonth) incomeFiguresJSON {
	return incomeFiguresJSON{GrossRent: money(m.Gross), AdminFee: money(m.AdminFee), TaxWithheld: money(m.Withheld),
		Net: money(m.Net())}
}

func monthsJSON(year int, months [12]statement.IncomeMonth) []incomeMonthJSON {
	out := make([]incomeMonthJSON, 12)
	for i, m := range months {
		f := figuresJSON(m)
		out[i] = incomeMonthJSON{Month: finance.NewMonth(year, time.Month(i+1)), GrossRent: f.GrossRent, AdminFee: f.AdminFee,
			TaxWithheld: f.TaxWithheld, Net: f.Net}
	}
	return out
}

// optionalText is a text, or null for "".
func optionalText(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// optionalID is an id, or null for 0.
func optionalID(id int64) *int64 {
	if id == 0 {
		return nil
	}
	return &id
}

func partyJSON(id int64, name, taxID string) incomePartyJSON {
	return incomePartyJSON{ID: optionalID(id), Name: optionalText(name), TaxID: optionalText(taxID)}
}

// incomeReportOf is an owner's report as the API answers it.
func incomeReportOf(r *storage.IncomeReports, o storage.IncomeOwner) incomeReportJSON {
	y := statement.BuildIncome(r.Year, o.Lines)
	out := incomeReportJSON{OwnerID: o.ID, Year: r.Year, Owner: partyJSON(o.ID, o.Name, o.TaxID),
		Businesses: []incomeBusinessJSON{}, Contracts: []incomeContractJSON{}, Months: monthsJSON(r.Year, y.Months),
		Total: figuresJSON(y.Total)}
	for _, b := range y.Businesses {
		source := incomeSource(r, b.BusinessID)
		out.Businesses = append(out.Businesses, incomeBusinessJSON{BusinessID: optionalID(b.BusinessID),
			Name: optionalText(source.Name), TaxID: optionalText(source.TaxID), Months: monthsJSON(r.Year, b.Months),
			Total: figuresJSON(b.Total)})
	}
	if r.Closed {
		m := r.ClosedThrough
		out.ClosedThrough = &m
	}
	why := incomeNotFinal(r, o)
	out.Final, out.Warning = why == "", optionalText(why)
	for _, c := range y.Contracts {
		k := r.Contracts[c.ContractID]
		out.Contracts = append(out.Contracts, incomeContractJSON{ContractID: optionalID(c.ContractID),
			BusinessID: optionalID(c.BusinessID), Reference: optionalText(k.Reference),
			Tenant: partyJSON(k.Tenant.ID, k.Tenant.Name, k.Tenant.TaxID), PayingSource: payingSourceJSON(k.Tenant),
			BuildingID: optionalID(k.BuildingID),
			Address:    optionalText(k.Property.Line()), StartAt: k.Start, EndAt: k.End,
			Months: monthsJSON(r.Year, c.Months), Total: figuresJSON(c.Total)})
	}
	return out
}

// payingSourceJSON is a contract's paying source: its tenant, by kind.
func payingSourceJSON(tenant storage.IncomeParty) incomePayingSourceJSON {
	p := partyJSON(tenant.ID, tenant.Name, tenant.TaxID)
	kind := statementpage.PayerOf(statementpage.Party{Name: tenant.Name, TaxID: tenant.TaxID})
	return incomePayingSourceJSON{Kind: kind, ID: p.ID, Name: p.Name, TaxID: p.TaxID}
}

// incomeReports is GET /financial/incomeReports.
func (s *Server) incomeReports(w http.ResponseWriter, r *http.Request) {
	q, err := parseIncomeQuery(r.URL.RawQuery, true)
	if err != nil {
		writeError(w, r, err)
		return
	}
	reports, err := s.reads.IncomeReports(r.Context(), principalOf(r.Context()).CompanyID, q)
	if err == nil {
		err = incomeYearToCome(reports, q.Year)
	}
	if err != nil {
		writeError(w, r, err)
		return
	}
	out := make([]incomeReportJSON, len(reports.Owners))
	for i, o := range reports.Owners {
		out[i] = incomeReportOf(reports, o)
	}
	writeReport(w, r, out)
}

// incomeReportLink is GET /financial/incomeReports/link: a signed link to
// the public page of the owner's report of the year, once it is final
// (incomePending).
func (s *Server) incomeReportLink(w http.ResponseWriter, r *http.Request) {
	q, err := parseIncomeQuery(r.URL.RawQuery, false)
	if err != nil {
		writeError(w, r, err)
		return
	}
	companyID := principalOf(r.Context()).CompanyID
	reports, err := s.reads.IncomeReports(r.Context(), companyID, q)
	if err == nil {
		err = incomeYearToCome(reports, q.Year)
	}
	if err != nil {
		writeError(w, r, err)
		return
	}
	signer := s.statements.signer
	if signer == nil {
		writeError(w, r, finance.Errorf(finance.Unavailable,
			"Income report links are not configured on this server (PROPFIN_RECEIPT_SECRET)."))
		return
	}
	if why := incomeNotFinal(reports, reports.Owners[0]); why != "" {
		writeError(w, r, finance.InvalidInput([]finance.Problem{{Field: "filter[year]", Message: why}}))
		return
	}
	expires := time.Now().Add(s.statements.lifetime).UTC().Truncate(time.Second)
	token := signer.SignIncomeReport(companyID, q.OwnerID, q.Year, expires)
	writeJSON(w, http.StatusOK, linkEnvelope{Return: true, Status: http.StatusOK, Data: receiptLinkData{
		URL: s.receipts.base(r) + incomePagePath + token, ExpiresAt: expires.Format(time.DateTime),
	}})
}

// incomeYearToCome refuses (422 on filter[year]) a year after the
// company's current one: its report could only be zeros.
func incomeYearToCome(reports *storage.IncomeReports, year int) error {
	if today := reports.Today; year > today.Year() {
		return finance.InvalidInput([]finance.Problem{{Field: "filter[year]", Message: fmt.Sprintf(
			"is after the current year, %d (today is %s in the company's time zone): a year's report is computed from "+
				"its first day on", today.Year(), today)}})
	}
	return nil
}

// incomeNotFinal is why the owner's report is not the year's informe
// yet, "" when it is: the months it reads are not all closed
// (incomePending), or an entry that counts in the year is on no closed
// statement yet (incomeUnstated).
func incomeNotFinal(reports *storage.IncomeReports, o storage.IncomeOwner) string {
	if why := incomePending(reports, reports.Year); why != "" {
		return why
	}
	return incomeUnstated(reports, o)
}

// shownCorrections is how many of the entries on no closed statement a
// warning names; it counts the others.
const shownCorrections = 3

// incomeUnstated is why a report whose months are all closed is not final
// still: entries that count in the year by the rule (a refund made after
// it counts on the day of the payment it gives back, an undoing on the
// payment's date) are on no closed statement yet, so the report, read
// from the closed statements, leaves them out while the DIMOB of the year,
// read from the ledger, declares them (docs/ledger.md, "Which years have
// one"). It names them in the DIMOB's words and the month whose close
// states them all; "" when there is none.
func incomeUnstated(reports *storage.IncomeReports, o storage.IncomeOwner) string {
	if len(o.Unstated) == 0 {
		return ""
	}
	wait, last := reports.ClosedThrough.Add(1), o.Unstated[0].Date
	var what []string
	for _, c := range o.Unstated {
		if m := finance.NewMonth(c.Date.Year(), c.Date.Month()); m > wait {
			wait = m
		}
		if c.Date.After(last) {
			last = c.Date
		}
		if len(what) < shownCorrections {
			what = append(what, correctionText(c))
		}
	}
	text := strings.Join(what, "; ")
	if more := len(o.Unstated) - len(what); more > 0 {
		text += fmt.Sprintf("; and %d more", more)
	}
	return fmt.Sprintf("%s: on no closed statement yet, so the report, read from the closed statements, leaves it out while "+
		"the DIMOB of %d declares it; the informe of %d is given once %s is closed (the owners:statements job): if the owner "+
		"was given it before %s, give the new one (the owner's return amended with it)", text, reports.Year, reports.Year, wait,
		last)
}

// correctionText says what an entry on no closed statement is and where
// it counts.
func correctionText(c storage.IncomeCorrection) string {
	switch c.Kind {
	case storage.CorrectionRefund:
		return storage.RefundCountsText(c.InvoiceID, c.Date, c.Day)
	case storage.CorrectionUndone:
		return fmt.Sprintf("the payment of invoice %d of %s, undone on %s, counts in %s, the payment's month", c.InvoiceID,
			c.Day, c.Date, c.Day.Month())
	}
	if c.InvoiceID == 0 {
		return fmt.Sprintf("an entry of %s counts in %s", c.Date, c.Day.Month())
	}
	return fmt.Sprintf("the entries of invoice %d of %s count in %s, the day the tenant paid (%s)", c.InvoiceID, c.Date,
		c.Day.Month(), c.Day)
}

// incomePending is why the report of year is not the year's informe yet,
// "" when it is: the one the link gives and the report answers as final.
// A year whose January is before the company's first closed month never
// has one (its earlier months are in the first statements' opening
// balances, on no statement), whatever is closed later; a year not over
// in the company's time zone waits for its end; with no month closed yet,
// it needs the months from January through the next January; else it
// waits for the next January's close: a line counts on the day the
// tenant paid, so a payment of December 31st credited in January is on
// January's statement.
func incomePending(reports *storage.IncomeReports, year int) string {
	january, next := finance.NewMonth(year, time.January), finance.NewMonth(year+1, time.January)
	switch {
	case reports.Closed && reports.ClosedFrom > january:
		return fmt.Sprintf("the company's owner statements start at %s: the months of %d before it are in the first "+
			"statements' opening balances, on no statement, so the informe of %d (its document and its link) can never be "+
			"issued, whatever is closed later: it would leave out what was received in those months", reports.ClosedFrom, year, year)
	case year >= reports.Today.Year():
		return fmt.Sprintf("%d is not over (today is %s in the company's time zone): the report holds the months closed so far; "+
			"the year's is given once it is over and %s is closed (the owners:statements job)", year, reports.Today, next)
	case !reports.Closed:
		return fmt.Sprintf("the company has closed none of its months: the report of %d is given once its owner statements "+
			"are closed from %s (or earlier) through %s (the owners:statements job)", year, january, next)
	case reports.ClosedThrough < next:
		return fmt.Sprintf("the company has closed its months through %s: the report of %d is given once %s is closed "+
			"(the owners:statements job; a payment of %d credited in %s is on its statement)", reports.ClosedThrough, year, next,
			year, next)
	}
	return ""
}

// incomePage serves the page and PDF of a verified link; without a
// configured secret every link is the 404 page (statementLinks.verifier).
func (s *Server) incomePage() http.Handler {
	return statementpage.Handler(s.loadIncomeReport, s.statements.verifier(), nil)
}

// loadIncomeReport reads the report a verified link names.
func (s *Server) loadIncomeReport(ctx context.Context, ref statementpage.Ref) (statementpage.Document, error) {
	if ref.Kind != statementpage.KindIncomeReport {
		return nil, fmt.Errorf("%w: a %s link", statementpage.ErrNotFound, ref.Kind)
	}
	reports, err := s.reads.IncomeReports(ctx, ref.CompanyID, storage.IncomeQuery{Year: ref.Year, OwnerID: ref.ID})
	switch finance.ErrorCode(err) {
	case finance.NotFound:
		return nil, fmt.Errorf("%w: %w", statementpage.ErrNotFound, err)
	case finance.Unavailable:
		return nil, fmt.Errorf("%w: %w", statementpage.ErrUnavailable, err)
	}
	if err != nil {
		return nil, err
	}
	doc := incomeDocument(reports, reports.Owners[0])
	doc.Notice = incomeNotice(reports, reports.Owners[0])
	return doc, nil
}

// incomeDocument is an owner's report as its page and PDF show it. The
// administrator of each contract (its Source; the paying source is its
// tenant, statementpage.PayerOf) is the business whose books hold it (the
// legal entity that received the rent on the owner's behalf, by its name
// and CNPJ, as the DIMOB declares it), the company's name for entries of
// no business; the document is headed by the business when the report's
// contracts are all of one, else by the company's name, and shows each
// source's contracts under it when there are several. Each contract is
// named by its reference, else its id.
func incomeDocument(r *storage.IncomeReports, o storage.IncomeOwner) statementpage.IncomeReport {
	y := statement.BuildIncome(r.Year, o.Lines)
	doc := statementpage.IncomeReport{Company: statementpage.Party{Name: r.CompanyName},
		Owner: statementpage.Party{Name: o.Name, TaxID: o.TaxID}, Year: r.Year, IssuedAt: o.ClosedAt}
	if len(y.Businesses) == 1 {
		if b := incomeSource(r, y.Businesses[0].BusinessID); b.Name != "" {
			doc.Company = b
		}
	}
	for _, c := range y.Contracts {
		k := r.Contracts[c.ContractID]
		ic := statementpage.IncomeContract{Title: contractTitle(c.ContractID, k.Reference),
			Source:  incomeSource(r, c.BusinessID),
			Tenant:  statementpage.Party{Name: k.Tenant.Name, TaxID: k.Tenant.TaxID},
			Address: k.Property.Line(), Start: dateTime(k.Start), End: dateTime(k.End)}
		for i, m := range c.Months {
			ic.Months[i] = statementpage.IncomeMonth{Gross: statementpage.Cents(m.Gross), AdminFee: statementpage.Cents(m.AdminFee),
				Withheld: statementpage.Cents(m.Withheld)}
		}
		doc.Contracts = append(doc.Contracts, ic)
	}
	return doc
}

// incomeSource is the administrator of the books of business id: the
// business, by its name and CNPJ; for entries of no business (id 0), the
// company's name.
func incomeSource(r *storage.IncomeReports, id int64) statementpage.Party {
	if id == 0 {
		return statementpage.Party{Name: r.CompanyName}
	}
	b := r.Businesses[id]
	return statementpage.Party{Name: b.Name, TaxID: b.TaxID}
}

// contractTitle names a contract on the documents.
func contractTitle(id int64, reference string) string {
	switch {
	case id == 0:
		return "Lançamentos sem contrato"
	case reference != "":
		return "Contrato " + reference
	}
	return "Contrato " + strconv.FormatInt(id, 10)
}

// dateTime is a date as the documents take it; the zero time for none.
func dateTime(d finance.Date) time.Time {
	if d.IsZero() {
		return time.Time{}
	}
	return d.Time()
}

// incomeQueryParams are the parameters of both income report routes.
func incomeQueryParams(business bool) []*openapi.Parameter {
	params := []*openapi.Parameter{
		queryParam("filter[owner_id]", "Required: the owner (a person of the company) whose report it is; a person of the company who owns nothing (no share, no owner statement, no entry as owner) is a 422.", openapi.Integer()),
		queryParam("filter[year]", "Required: the calendar year, 1900 to the current one (the company's time zone).", openapi.Integer()),
	}
	params[0].Required, params[1].Required = true, true
	if business {
		params = append(params, queryParam("filter[business_id]",
			"Only the books of this business (the CNPJ that collected the rent): its contracts' figures.", openapi.Integer()))
	}
	return append(params, cacheBuster())
}

// incomeReportsOp describes GET /financial/incomeReports.
func incomeReportsOp() operation {
	schema, err := reflector.SchemaFor([]incomeReportJSON{})
	if err != nil {
		panic("api: " + err.Error())
	}
	return operation{
		tag:     "financial/incomeReports",
		summary: "An owner's income report (informe de rendimentos) of a year",
		description: "Computed from the company's closed owner statements, read-only: per contract (tenant, property, " +
			"start and end) and month, the gross rent received, the administration fee and the income tax withheld, " +
			"and the net; the months and the year of every contract. The entries counted, their figures and their " +
			"months are the DIMOB's: a payment or its reversal, in the month the tenant paid (docs/api.md, \"Income " +
			"reports\"; the rule: docs/ledger.md, \"Rent income: one rule for the informe and the DIMOB\"). `data` " +
			"holds the owner's report; `final` false and `warning` say it is not yet the year's informe (the year is " +
			"not over, its months are not all closed, or a correction of the year made since, a refund or an undoing " +
			"that the DIMOB of the year declares already, is on no closed statement yet). A missing or malformed filter, a year after the company's " +
			"current one, or any other parameter, is a 422; an owner the company does not have, a 404.",
		params: incomeQueryParams(true),
		responses: answers(map[int]*openapi.Response{http.StatusOK: jsonAnswer("The report.", envelope(schema, false))},
			http.StatusNotFound, http.StatusUnprocessableEntity),
	}
}

// incomeReportLinkOp describes GET /financial/incomeReports/link.
func incomeReportLinkOp() operation {
	link, err := reflector.SchemaFor(linkEnvelope{})
	if err != nil {
		panic("api: " + err.Error())
	}
	return operation{
		tag:     "financial/incomeReports",
		summary: "A signed link to the public page and PDF of an owner's income report",
		description: "A new link at every call: `PROPFIN_PUBLIC_URL` (else the request's scheme and host) + " +
			"`/incomeReports/{token}`, valid 120 days (`expires_at`, UTC). The report is of every business's books. " +
			"Given once the year is over and the company has closed its months from January through the next January " +
			"(a payment of December 31st credited in January is on January's statement); else a 422 on `filter[year]` " +
			"saying why: the year not over, the month it waits for (a correction of the year on no closed statement " +
			"yet included), or, for a year that starts before the company's " +
			"first closed month, that the year never has one. An owner the " +
			"company does not have is a 404; without a configured secret, a 503 that says so.",
		params: incomeQueryParams(false),
		responses: answers(map[int]*openapi.Response{http.StatusOK: jsonAnswer("The link.", link)},
			http.StatusNotFound, http.StatusUnprocessableEntity, http.StatusServiceUnavailable),
	}
}

// incomePageOp describes the public page (and PDF) an income report link
// opens; pdf says it is the .../pdf route.
func incomePageOp(pdf bool) operation {
	pdfAnswer := &openapi.Response{Description: "The PDF (`Content-Disposition: inline; filename=\"informe-de-rendimentos-<year>.pdf\"`).",
		Content: map[string]*openapi.MediaType{"application/pdf": {Schema: &openapi.Schema{Type: "string", Format: "binary"}}}}
	op := operation{
		access:  public,
		tag:     "income reports",
		summary: "The public page of an income report's signed link",
		description: "Server-rendered HTML for the owner, in Portuguese: the report as the closed statements give it " +
			"now, per contract and month, with the year's totals; with `?format=pdf`, the same report as a PDF. A bad, " +
			"tampered or expired link, or an owner no longer there, is the 404 page (docs/api.md, \"Income reports\").",
		pathParams: map[string]*openapi.Parameter{"token": {Description: "The token of the link (80 characters of base64url).",
			Schema: openapi.String()}},
		params: []*openapi.Parameter{queryParam("format", "`html` (the default) or `pdf`.",
			openapi.Enum("html", "pdf"))},
		responses: map[int]*openapi.Response{
			http.StatusOK: {Description: "The page, or the PDF with `format=pdf`.", Content: map[string]*openapi.MediaType{
				"text/html": {Schema: openapi.String()}, "application/pdf": pdfAnswer.Content["application/pdf"]}},
			http.StatusBadRequest:         htmlAnswer("A format other than html or pdf."),
			http.StatusNotFound:           htmlAnswer("The not-found page."),
			http.StatusServiceUnavailable: htmlAnswer("The report cannot be read now; retry after `Retry-After`."),
		},
	}
	if pdf {
		op.summary = "The PDF of an income report's signed link"
		op.description = "The report of the link as a PDF (A4), the same content as its page (docs/api.md, \"Income reports\")."
		op.params = nil
		op.responses = map[int]*openapi.Response{
			http.StatusOK:                 pdfAnswer,
			http.StatusNotFound:           htmlAnswer("The not-found page."),
			http.StatusServiceUnavailable: htmlAnswer("The report cannot be read now; retry after `Retry-After`."),
		}
	}
	return op
}
