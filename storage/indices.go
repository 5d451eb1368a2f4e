package storage

import (
	"context"
	"embed"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance"
)

// The price indices: monthly variations in percent, shared by every
// company (like states), read by the readjustment and written through
// PUT /financial/indices, `propfin indices import` and, for the series the
// project ships, after every migration.

// PriceIndices is the resource of GET /financial/indices.
const PriceIndices = "price_indices"

// Sources of a price_indices row.
const (
	IndexShipped = "shipped" // storage/indices/, loaded after migrating
	IndexAPI     = "api"     // PUT /financial/indices
	IndexImport  = "import"  // propfin indices import
)

// IndexIndicators are the indices the table holds: the contract
// indicators that are indices, and IGP-DI (shipped for reference).
var IndexIndicators = []string{"IGP-M", "INCC-M", "INPC", "IVAR", "IPC-BR", "IPCA", "IPC-FIPE", "IGP-DI"}

// maxIndexRows bounds one upsert: forty years of eight indices.
const maxIndexRows = 10_000

//go:embed indices/*.json
var shippedIndexFiles embed.FS

// shippedIndices maps the shipped files to their indicators.
var shippedIndices = map[string]string{
	"igp-m.json": "IGP-M", "ipca.json": "IPCA", "inpc.json": "INPC",
	"ipc-br.json": "IPC-BR", "ipc-sp.json": "IPC-FIPE", "igp-di.json": "IGP-DI",
}

func priceIndicesResource() *Resource {
	return &Resource{
		Name: PriceIndices, Table: "price_indices", Shared: true, ReadOnly: true,
		Columns: []Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "indicator", Type: String, Filterable: true, Enum: IndexIndicators},
			{Name: "month", Type: String, Filterable: true, Expr: `to_char("month", 'YYYY-MM')`, FilterCheck: CheckMonthText},
			{Name: "rate", Type: Decimal, Filterable: true, Precision: 10, Scale: 4},
			{Name: "source", Type: String, Filterable: true, Enum: []string{IndexShipped, IndexAPI, IndexImport}},
			{Name: "created_at", Type: DateTime, Filterable: true},
			{Name: "updated_at", Type: DateTime, Filterable: true},
		},
	}
}

// IndexRow is one month of a price index.
type IndexRow struct {
	Indicator string
	Month     finance.Month
	Rate      decimal.Decimal // percent: 0.07 is +0.07%
}

// Key names the row's index month, for finding a month given twice.
func (r IndexRow) Key() string { return r.Indicator + " " + r.Month.String() }

// ParseIndexRow reads a row from its three texts: the indicator (one of
// IndexIndicators), the month (YYYY-MM, or YYYY-MM-01) and the rate in
// percent (a decimal with at most four places, above -100 and below
// 10,000). The problems name the fields indicator, month and rate.
func ParseIndexRow(indicator, month, rate string) (IndexRow, []finance.Problem) {
	var row IndexRow
	var ps []finance.Problem
	row.Indicator = strings.TrimSpace(indicator)
	if !slices.Contains(IndexIndicators, row.Indicator) {
		ps = append(ps, finance.Problem{Field: "indicator", Message: "must be one of: " + strings.Join(IndexIndicators, ", ")})
	}
	m, ok := parseIndexMonth(strings.TrimSpace(month))
	if !ok {
		ps = append(ps, finance.Problem{Field: "month", Message: "must be a month, YYYY-MM, from 1900-01"})
	}
	row.Month = m
	r, err := decimal.NewFromString(strings.TrimSpace(rate))
	switch {
	case err != nil:
		ps = append(ps, finance.Problem{Field: "rate", Message: "must be a number (percent)"})
	case r.Exponent() < -4 && !r.Equal(r.Round(4)):
		ps = append(ps, finance.Problem{Field: "rate", Message: "must have at most 4 decimal places"})
	case r.LessThanOrEqual(decimal.NewFromInt(-100)) || r.GreaterThanOrEqual(decimal.NewFromInt(10_000)):
		ps = append(ps, finance.Problem{Field: "rate", Message: "must be above -100 and below 10000 (percent)"})
	}
	row.Rate = r
	return row, ps
}

// parseIndexMonth reads YYYY-MM or YYYY-MM-01.
func parseIndexMonth(s string) (finance.Month, bool) {
	if len(s) == len("2006-01-02") {
		d, err := finance.ParseDate(s)
		if err != nil || d.Day() != 1 {
			return 0, false
		}
		s = s[:7]
	}
	m, err := finance.ParseMonth(s)
	if err != nil || m.Year() < 1900 || m.Year() > 9999 || len(s) != 7 {
		return 0, false
	}
	return m, true
}

// UpsertResult counts what an upsert did.
type UpsertResult struct {
	Inserted  int `json:"inserted"`
	Updated   int `json:"updated"`
	Unchanged int `json:"unchanged"`
}

// UpsertIndices writes rows in one statement, so that they are stored all
// or none: a month not stored yet is inserted, a stored month with another
// rate is updated (its source and writer with it), an equal one is left.
// by names the API caller (zero for the import). Rows CheckIndexRows
// refuses are a 422 naming each problem.
func UpsertIndices(ctx context.Context, db DBTX, rows []IndexRow, source string, by Scope) (UpsertResult, error) {
	if ps := CheckIndexRows(rows, nil); len(ps) > 0 {
		return UpsertResult{}, finance.InvalidInput(ps)
	}
	return upsertIndices(ctx, db, rows, source, by, "")
}

// CheckIndexRows names every problem of rows as one upsert: more than
// maxIndexRows rows, each month given again after its first. at[i] is the
// position of rows[i] in the body the problems name (data[at[i]]); nil:
// i (a caller that left out rows it refused itself gives the positions of
// those it kept).
func CheckIndexRows(rows []IndexRow, at []int) []finance.Problem {
	var ps []finance.Problem
	if len(rows) > maxIndexRows {
		ps = append(ps, finance.Problem{Field: "data", Message: fmt.Sprintf("at most %d rows at once", maxIndexRows)})
	}
	pos := func(i int) int {
		if at == nil {
			return i
		}
		return at[i]
	}
	seen := make(map[string]int, len(rows))
	for i, r := range rows {
		if j, dup := seen[r.Key()]; dup {
			ps = append(ps, finance.Problem{Field: fmt.Sprintf("data[%d]", pos(i)),
				Message: fmt.Sprintf("%s is given twice (data[%d])", r.Key(), pos(j))})
			continue
		}
		seen[r.Key()] = i
	}
	return ps
}

// upsertIndices is the upsert; guard is an extra condition on the stored
// row for an update to happen.
func upsertIndices(ctx context.Context, db DBTX, rows []IndexRow, source string, by Scope, guard string) (UpsertResult, error) {
	inds, months, rates := make([]string, len(rows)), make([]string, len(rows)), make([]string, len(rows))
	for i, r := range rows {
		inds[i], months[i], rates[i] = r.Indicator, r.Month.First().String(), r.Rate.String()
	}
	var company, user *int64
	if by.CompanyID != 0 {
		company = &by.CompanyID
	}
	if by.UserID != 0 {
		user = &by.UserID
	}
	res, err := db.Query(ctx, `WITH up AS (
		INSERT INTO price_indices AS p (indicator, month, rate, source, updated_by_company, updated_by_user)
		SELECT i, m::date, r::numeric, $4, $5, $6 FROM unnest($1::text[], $2::text[], $3::text[]) AS t(i, m, r)
		ON CONFLICT (indicator, month) DO UPDATE
		SET rate = EXCLUDED.rate, source = EXCLUDED.source, updated_by_company = EXCLUDED.updated_by_company,
		    updated_by_user = EXCLUDED.updated_by_user, updated_at = now()
		WHERE p.rate <> EXCLUDED.rate`+guard+`
		RETURNING xmax = 0 AS inserted
	), `+bumpIndicesVersion+`
	SELECT inserted FROM up`, inds, months, rates, source, company, user)
	if err != nil {
		return UpsertResult{}, translate(err, "upsert price indices")
	}
	inserted, err := pgx.CollectRows(res, pgx.RowTo[bool])
	if err != nil {
		return UpsertResult{}, translate(err, "upsert price indices")
	}
	var out UpsertResult
	for _, ins := range inserted {
		if ins {
			out.Inserted++
		} else {
			out.Updated++
		}
	}
	out.Unchanged = len(rows) - len(inserted)
	return out, nil
}

// LoadShippedIndices writes the series shipped in storage/indices/ (source
// shipped). A month already stored from the API or an import is never
// overwritten; a shipped month whose shipped rate changed is. Migrate runs
// it after the migrations, so every database has the shipped months.
func LoadShippedIndices(ctx context.Context, db DBTX) (UpsertResult, error) {
	var rows []IndexRow
	for _, name := range sortedKeys(shippedIndices) {
		b, err := shippedIndexFiles.ReadFile("indices/" + name)
		if err != nil {
			return UpsertResult{}, fmt.Errorf("read shipped index %s: %w", name, err)
		}
		s, err := finance.ParseSeries(b)
		if err != nil {
			return UpsertResult{}, fmt.Errorf("shipped index %s: %w", name, err)
		}
		for m, v := range s {
			rows = append(rows, IndexRow{Indicator: shippedIndices[name], Month: m, Rate: v})
		}
	}
	return upsertIndices(ctx, db, rows, IndexShipped, Scope{}, " AND p.source = 'shipped'")
}

// bumpIndicesVersion is the CTE of a write of price_indices (its rows
// written are up's) that gives the series a new version when it wrote a
// row, in the write's statement: every write of price_indices goes through
// it (a write by hand must set price_indices_version.version =
// gen_random_uuid() in its transaction, or readers keep the series they
// read).
const bumpIndicesVersion = `bump AS (
		UPDATE price_indices_version SET version = gen_random_uuid(), updated_at = now()
		WHERE EXISTS (SELECT FROM up))`

// loadedIndices is the series LoadIndices read last and the version they
// were read at.
var loadedIndices struct {
	mu      sync.Mutex
	version string
	idx     finance.Indices
}

// LoadIndices reads every stored month of every index (a few thousand
// rows), as the readjustment rule takes them. The series read are kept
// with their version (price_indices_version, replaced by every write):
// while the version a caller sees is the one kept, it reads that one row
// and is given the series kept, the same map for every caller, which none
// may change. A caller that sees another version (a write committed since,
// or its own transaction's) reads the series again, with the version, in
// one statement.
func LoadIndices(ctx context.Context, db DBTX) (finance.Indices, error) {
	var version string
	if err := db.QueryRow(ctx, `SELECT version::text FROM price_indices_version`).Scan(&version); err != nil {
		return nil, translate(err, "price indices version")
	}
	loadedIndices.mu.Lock()
	if loadedIndices.idx != nil && loadedIndices.version == version {
		idx := loadedIndices.idx
		loadedIndices.mu.Unlock()
		return idx, nil
	}
	loadedIndices.mu.Unlock()
	version, idx, err := readIndices(ctx, db)
	if err != nil {
		return nil, err
	}
	loadedIndices.mu.Lock()
	loadedIndices.version, loadedIndices.idx = version, idx
	loadedIndices.mu.Unlock()
	return idx, nil
}

// readIndices reads every stored month of every index and the version
// they are at, in one statement (one snapshot).
func readIndices(ctx context.Context, db DBTX) (string, finance.Indices, error) {
	rows, err := db.Query(ctx, `SELECT v.version::text, p.indicator, to_char(p.month, 'YYYY-MM'), p.rate::text
		FROM price_indices_version v LEFT JOIN price_indices p ON true`)
	if err != nil {
		return "", nil, translate(err, "load price indices")
	}
	defer rows.Close()
	var version string
	idx := finance.Indices{}
	for rows.Next() {
		var ind, month, rate *string
		if err := rows.Scan(&version, &ind, &month, &rate); err != nil {
			return "", nil, translate(err, "load price indices")
		}
		if ind == nil { // no month stored
			continue
		}
		m, err := finance.ParseMonth(*month)
		if err != nil {
			return "", nil, fmt.Errorf("price index %s %s: %w", *ind, *month, err)
		}
		v, err := decimal.NewFromString(*rate)
		if err != nil {
			return "", nil, fmt.Errorf("price index %s %s: %w", *ind, *month, err)
		}
		s := idx[finance.Indicator(*ind)]
		if s == nil {
			s = finance.Series{}
			idx[finance.Indicator(*ind)] = s
		}
		s[m] = v
	}
	if err := rows.Err(); err != nil {
		return "", nil, translate(err, "load price indices")
	}
	return version, idx, nil
}
