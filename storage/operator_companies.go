package storage

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/jackc/pgx/v5"
	"golang.org/x/text/unicode/norm"

	"github.com/propfin/propfin/finance"
)

// The companies as operators make and set them (docs/operations.md,
// "Companies and API keys"): created explicitly, with the settings only
// operators set (the time zone, the invoice lead days), listed across
// companies through the operator_companies resource, and found by name only
// when the name is the company's own, with the close names said otherwise.

// OperatorCompanies is the resource name of the companies as operators
// list them.
const OperatorCompanies = "operator_companies"

// Bounds of a company's invoice lead days (companies_invoice_lead_days_check).
const (
	MinInvoiceLeadDays     = 0
	MaxInvoiceLeadDays     = 366
	DefaultInvoiceLeadDays = 30
)

// maxCompanyName bounds a company's name, in characters.
const maxCompanyName = 200

// operatorCompaniesResource is the companies table read across companies
// (shared, read-only): what operators set and when each was made.
func operatorCompaniesResource() *Resource {
	return &Resource{
		Name: OperatorCompanies, Table: "companies", ReadOnly: true, Shared: true,
		Columns: []Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "name", Type: String, Filterable: true},
			{Name: "time_zone", Type: String, Filterable: true},
			{Name: "invoice_lead_days", Type: Int, Filterable: true},
			{Name: "created_at", Type: DateTime, Filterable: true},
		},
		Filters: []SpecialFilter{ColumnIn("idIn", "id", Int)},
	}
}

// CompanySettings are what operators set on a company; a nil field is
// left as it is (an update) or takes its default (a create).
type CompanySettings struct {
	Name            *string
	TimeZone        *string
	InvoiceLeadDays *int
}

// CompanyRecord is a company as operators see it.
type CompanyRecord struct {
	ID              int64
	Name            string
	TimeZone        string
	InvoiceLeadDays int
	CreatedAt       time.Time
}

// CheckCompanySettings names every problem of s: a name that is empty,
// too long or not text, a time zone the tz database (Go's and
// PostgreSQL's) does not name, lead days out of bounds.
func CheckCompanySettings(ctx context.Context, q DBTX, s CompanySettings) ([]finance.Problem, error) {
	var problems []finance.Problem
	if s.Name != nil {
		name := strings.TrimSpace(*s.Name)
		if name == "" || len([]rune(name)) > maxCompanyName || strings.ContainsFunc(name, unicode.IsControl) {
			problems = append(problems, finance.Problem{Field: "name", Message: fmt.Sprintf("must be 1 to %d characters of text", maxCompanyName)})
		}
	}
	if s.TimeZone != nil {
		ok, err := knownTimeZone(ctx, q, *s.TimeZone)
		if err != nil {
			return nil, err
		}
		if !ok {
			problems = append(problems, finance.Problem{Field: "time_zone",
				Message: "must be a time zone of the tz database, such as America/Sao_Paulo or America/Manaus"})
		}
	}
	if d := s.InvoiceLeadDays; d != nil && (*d < MinInvoiceLeadDays || *d > MaxInvoiceLeadDays) {
		problems = append(problems, finance.Problem{Field: "invoice_lead_days",
			Message: fmt.Sprintf("must be a whole number of days from %d to %d", MinInvoiceLeadDays, MaxInvoiceLeadDays)})
	}
	return problems, nil
}

// knownTimeZone says whether zone is a zone name both Go (the scheduler
// reads it) and PostgreSQL (every "today" is computed there) know: an
// Area/City name or UTC, never an abbreviation, an offset or "Local".
func knownTimeZone(ctx context.Context, q DBTX, zone string) (bool, error) {
	if zone == "" || zone == "Local" || strings.HasPrefix(zone, "posix/") || strings.HasPrefix(zone, "right/") {
		return false, nil
	}
	if _, err := time.LoadLocation(zone); err != nil {
		return false, nil
	}
	if zone != "UTC" && !strings.Contains(zone, "/") {
		return false, nil // EST, GMT+3, Brazil: abbreviations and old aliases
	}
	var ok bool
	err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_timezone_names WHERE name = $1)`, zone).Scan(&ok)
	if err != nil {
		return false, translate(err, "time zone")
	}
	return ok, nil
}

// CreateCompany makes a company with its first user ("Administrator", whom
// its keys belong to) in tx. A name equal to another company's, or the
// same but for case, accents and spaces, is a Conflict naming it.
func CreateCompany(ctx context.Context, tx pgx.Tx, s CompanySettings) (CompanyRecord, error) {
	if s.Name == nil {
		return CompanyRecord{}, finance.InvalidInput([]finance.Problem{{Field: "name", Message: "is required"}})
	}
	problems, err := CheckCompanySettings(ctx, tx, s)
	if err != nil || len(problems) > 0 {
		return CompanyRecord{}, errors.Join(err, invalidOrNil(problems))
	}
	name := strings.TrimSpace(*s.Name)
	if err := checkNameFree(ctx, tx, 0, name); err != nil {
		return CompanyRecord{}, err
	}
	zone, lead := DefaultTimeZone, DefaultInvoiceLeadDays
	if s.TimeZone != nil {
		zone = *s.TimeZone
	}
	if s.InvoiceLeadDays != nil {
		lead = *s.InvoiceLeadDays
	}
	var c CompanyRecord
	err = tx.QueryRow(ctx, `INSERT INTO companies (name, time_zone, invoice_lead_days) VALUES ($1, $2, $3)
		RETURNING id, name, time_zone, invoice_lead_days, created_at`, name, zone, lead).
		Scan(&c.ID, &c.Name, &c.TimeZone, &c.InvoiceLeadDays, &c.CreatedAt)
	if err != nil {
		return CompanyRecord{}, translate(err, "company "+name)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO users (company_id, name) VALUES ($1, 'Administrator')`, c.ID); err != nil {
		return CompanyRecord{}, translate(err, "first user of company "+name)
	}
	return c, nil
}

// UpdateCompany changes what s gives of company id in tx and returns the
// company before and after.
func UpdateCompany(ctx context.Context, tx pgx.Tx, id int64, s CompanySettings) (before, after CompanyRecord, err error) {
	problems, err := CheckCompanySettings(ctx, tx, s)
	if err != nil || len(problems) > 0 {
		return before, after, errors.Join(err, invalidOrNil(problems))
	}
	if before, err = lockCompany(ctx, tx, id); err != nil {
		return before, after, err
	}
	after = before
	if s.Name != nil {
		after.Name = strings.TrimSpace(*s.Name)
		if fold(after.Name) != fold(before.Name) {
			if err := checkNameFree(ctx, tx, id, after.Name); err != nil {
				return before, after, err
			}
		}
	}
	if s.TimeZone != nil {
		after.TimeZone = *s.TimeZone
	}
	if s.InvoiceLeadDays != nil {
		after.InvoiceLeadDays = *s.InvoiceLeadDays
	}
	_, err = tx.Exec(ctx, `UPDATE companies SET name = $2, time_zone = $3, invoice_lead_days = $4 WHERE id = $1`,
		id, after.Name, after.TimeZone, after.InvoiceLeadDays)
	return before, after, translate(err, fmt.Sprintf("company %d", id))
}

// invalidOrNil is the Invalid error of problems, nil without any.
func invalidOrNil(problems []finance.Problem) error {
	if len(problems) == 0 {
		return nil
	}
	return finance.InvalidInput(problems)
}

// GetCompany is company id; NotFound when there is none.
func GetCompany(ctx context.Context, q DBTX, id int64) (CompanyRecord, error) {
	var c CompanyRecord
	err := q.QueryRow(ctx, `SELECT id, name, time_zone, invoice_lead_days, created_at FROM companies WHERE id = $1`, id).
		Scan(&c.ID, &c.Name, &c.TimeZone, &c.InvoiceLeadDays, &c.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return c, finance.Errorf(finance.NotFound, "No company has the id %d.", id)
	}
	return c, translate(err, fmt.Sprintf("company %d", id))
}

func lockCompany(ctx context.Context, tx pgx.Tx, id int64) (CompanyRecord, error) {
	var c CompanyRecord
	err := tx.QueryRow(ctx, `SELECT id, name, time_zone, invoice_lead_days, created_at FROM companies
		WHERE id = $1 FOR UPDATE`, id).Scan(&c.ID, &c.Name, &c.TimeZone, &c.InvoiceLeadDays, &c.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return c, finance.Errorf(finance.NotFound, "No company has the id %d.", id)
	}
	return c, translate(err, fmt.Sprintf("company %d", id))
}

// checkNameFree refuses a name another company (not except) has, exactly
// or but for case, accents and spaces: "horizonte imóveis" is "Horizonte
// Imóveis".
func checkNameFree(ctx context.Context, q DBTX, except int64, name string) error {
	all, err := Companies(ctx, q)
	if err != nil {
		return err
	}
	for _, c := range all {
		if c.ID != except && fold(c.Name) == fold(name) {
			return &finance.Error{Code: finance.Conflict,
				Message:  fmt.Sprintf("Company %d is named %q already.", c.ID, c.Name),
				Problems: []finance.Problem{{Field: "name", Message: fmt.Sprintf("is the name of company %d, %q", c.ID, c.Name)}}}
		}
	}
	return nil
}

// CompanyByName is the company named name: exactly, else but for case,
// accents and spaces, as a company's creation tells names apart
// (checkNameFree), when one company is. Several named so (names kept from
// before that rule) are a Conflict listing them; none is NotFound, whose
// message lists the companies with a close name (by id) to pick from.
func CompanyByName(ctx context.Context, q DBTX, name string) (CompanyInfo, error) {
	all, err := Companies(ctx, q)
	if err != nil {
		return CompanyInfo{}, err
	}
	name = strings.TrimSpace(name)
	var same []CompanyInfo
	for _, c := range all {
		switch {
		case c.Name == name:
			return c, nil
		case fold(c.Name) == fold(name):
			same = append(same, c)
		}
	}
	switch {
	case len(same) == 1:
		return same[0], nil
	case len(same) > 1:
		return CompanyInfo{}, finance.Errorf(finance.Conflict, "%d companies are named %q but for case, accents and spaces: %s. "+
			"Name one exactly, or by its id.", len(same), name, companyList(same))
	}
	near := CloseNames(all, name)
	msg := fmt.Sprintf("No company is named %q.", name)
	if len(near) > 0 {
		msg += " Close names: " + companyList(near) + "."
	}
	return CompanyInfo{}, finance.Errorf(finance.NotFound, "%s", msg)
}

// companyList names companies for people: "\"Horizonte Imóveis\" (id 2), ...".
func companyList(cs []CompanyInfo) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = fmt.Sprintf("%q (id %d)", c.Name, c.ID)
	}
	return strings.Join(names, ", ")
}

// maxCloseNames bounds the close names an error lists.
const maxCloseNames = 5

// CloseNames are the companies whose name is close to name: the same but
// for case, accents and spaces, one holding the other, or a few letters
// apart; closest first, at most 5.
func CloseNames(companies []CompanyInfo, name string) []CompanyInfo {
	want := fold(name)
	type scored struct {
		c     CompanyInfo
		score int
	}
	var found []scored
	for _, c := range companies {
		have := fold(c.Name)
		d := distance(want, have)
		switch {
		case have == want:
			found = append(found, scored{c, 0})
		case want != "" && (strings.Contains(have, want) || strings.Contains(want, have)):
			found = append(found, scored{c, 1 + d})
		case d <= max(2, len([]rune(want))/5):
			found = append(found, scored{c, 1 + d})
		}
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].score < found[j].score })
	out := make([]CompanyInfo, 0, min(len(found), maxCloseNames))
	for i := 0; i < len(found) && i < maxCloseNames; i++ {
		out = append(out, found[i].c)
	}
	return out
}

// fold is a name as people mean it: lower case, no accents, spaces
// collapsed.
func fold(s string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(strings.ToLower(s)) {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// distance is the Levenshtein distance of a and b, in runes.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur := make([]int, len(rb)+1)
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(rb)]
}

// CompanyChanges are the settings after differs from before in, each with
// its value before and after.
func CompanyChanges(before, after CompanyRecord) map[string][2]any {
	out := map[string][2]any{}
	if before.Name != after.Name {
		out["name"] = [2]any{before.Name, after.Name}
	}
	if before.TimeZone != after.TimeZone {
		out["time_zone"] = [2]any{before.TimeZone, after.TimeZone}
	}
	if before.InvoiceLeadDays != after.InvoiceLeadDays {
		out["invoice_lead_days"] = [2]any{before.InvoiceLeadDays, after.InvoiceLeadDays}
	}
	return out
}

// CompanyCreatedSelection is the audit log's selection of a company made.
func CompanyCreatedSelection(c CompanyRecord) string {
	return fmt.Sprintf("company=%d name=%s time_zone=%s invoice_lead_days=%d",
		c.ID, strconv.Quote(c.Name), c.TimeZone, c.InvoiceLeadDays)
}

// CompanyChangeSelection is the audit log's selection of a company's
// update: each field changed, from and to, in the order of their names.
func CompanyChangeSelection(id int64, changed map[string][2]any) string {
	keys := make([]string, 0, len(changed))
	for k := range changed {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := []string{fmt.Sprintf("company=%d", id)}
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%s->%s", k, quoteValue(changed[k][0]), quoteValue(changed[k][1])))
	}
	return strings.Join(parts, " ")
}

func quoteValue(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return fmt.Sprint(v)
}

// ListCompanies lists every company by id, with its settings.
func ListCompanies(ctx context.Context, q DBTX) ([]CompanyRecord, error) {
	rows, err := q.Query(ctx, `SELECT id, name, time_zone, invoice_lead_days, created_at FROM companies ORDER BY id`)
	if err != nil {
		return nil, translate(err, "companies")
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[CompanyRecord])
	return out, translate(err, "companies")
}
