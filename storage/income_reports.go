package storage

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/finance/statement"
)

// What the owners' income reports (informes de rendimentos) of a calendar
// year read: the lines of the closed statements that count in the year,
// by the rule the DIMOB reads by too (declared.go), and the owners,
// contracts and businesses they name (docs/ledger.md, "Income reports").
// The report is finance/statement's (BuildIncome); this file reads,
// set-based, in one snapshot: one query for the company's items, one for
// the lines of every owner asked, one for their owners, one for their
// contracts, one for their businesses, whatever the number of owners.

// IncomeQuery says whose reports of which year to read.
type IncomeQuery struct {
	Year       int
	OwnerID    int64 // 0: every owner with a line in the year
	BusinessID int64 // 0: the books of every business (and those of none)
}

// IncomeParty is a person or business an income report names; ID 0 when
// it names nobody (a contract without a tenant).
type IncomeParty struct {
	ID          int64
	Name, TaxID string
}

// IncomeOwner is an owner and the lines its report reads.
type IncomeOwner struct {
	ID          int64
	Name, TaxID string
	Lines       []statement.IncomeLine // in the order of the statements' months and positions
	// ClosedAt is when the latest statement a line was read from was
	// closed, the wall clock of the company's time zone (in UTC); the zero
	// time when there is none.
	ClosedAt time.Time
	// Unstated are the owner's entries that count in the year by the rule
	// and are on no closed statement yet (a refund or an undoing made
	// after the year, in a month not closed; an entry written after its
	// month was closed), read once the company's statements reach the
	// next January: until the months they are stated in are closed, the
	// report does not hold them, while the DIMOB of the year, read from
	// the ledger, does.
	Unstated []IncomeCorrection
}

// CorrectionKind is what an entry on no closed statement is.
type CorrectionKind string

// The kinds of IncomeCorrection.
const (
	// CorrectionRefund is a refund of a payment of the year (it counts on
	// the payment's day).
	CorrectionRefund CorrectionKind = "refund"
	// CorrectionUndone is the reversal of a payment undone (it counts on
	// the payment's date).
	CorrectionUndone CorrectionKind = "undone"
	// CorrectionEntry is any other entry: a payment, or an entry written
	// after its month was closed.
	CorrectionEntry CorrectionKind = "entry"
)

// IncomeCorrection is what an owner's report of a year lacks: the entries
// of one kind, invoice and date counting on one day of the year, on no
// closed statement.
type IncomeCorrection struct {
	Kind      CorrectionKind
	InvoiceID int64        // 0: an entry of no invoice
	Date      finance.Date // the entries' date: the day the refund, the undoing or the credit was made
	Day       finance.Date // the day they count on, in the year
}

// IncomeContract is a contract an owner's lines name, as it is now: its
// reference, start and end (its end_at, or its termination_at when it
// ended before), tenant and property.
type IncomeContract struct {
	ID         int64
	Reference  string
	Start, End finance.Date // End zero: open-ended
	Tenant     IncomeParty
	BuildingID int64
	Property   Address
}

// IncomeReports is what the income reports of a year read.
type IncomeReports struct {
	CompanyName string
	Year        int
	// ClosedThrough is the company's last closed month; Closed false when
	// it has closed none.
	ClosedThrough finance.Month
	Closed        bool
	// ClosedFrom is the company's first closed month (with Closed): the
	// months before it are in the first statements' openings, on no line.
	ClosedFrom finance.Month
	// Today is the company's today (its time zone) when they were read.
	Today      finance.Date
	Owners     []IncomeOwner // by id
	Contracts  map[int64]IncomeContract
	Businesses map[int64]IncomeParty
}

// IncomeReports reads the company's income reports of q.Year, in one
// read-only snapshot: the lines of the closed statements of the owner
// asked (or of every owner) that the rule declares and whose day is in
// the year; with the owners, the contracts and the businesses they name. An owner
// asked that is not a person of the company is NotFound; one without
// lines in the year is an owner without lines.
func (s *Store) IncomeReports(ctx context.Context, companyID int64, q IncomeQuery) (*IncomeReports, error) {
	out := &IncomeReports{Year: q.Year, Contracts: map[int64]IncomeContract{}, Businesses: map[int64]IncomeParty{}}
	err := pgx.BeginTxFunc(ctx, s.reads, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
		func(tx pgx.Tx) error {
			if err := readIncomeCompany(ctx, tx, companyID, out); err != nil {
				return err
			}
			if err := checkIncomeBusiness(ctx, tx, companyID, q.BusinessID); err != nil {
				return err
			}
			owners, err := readIncomeLines(ctx, tx, companyID, q)
			if err != nil {
				return err
			}
			asked := q.OwnerID != 0 && len(owners) == 0
			if asked {
				owners = []IncomeOwner{{ID: q.OwnerID}}
			}
			if out.Closed && out.ClosedThrough >= finance.NewMonth(q.Year+1, time.January) {
				if owners, err = readIncomeUnstated(ctx, tx, companyID, q, owners); err != nil {
					return err
				}
			}
			if out.Owners, err = readIncomeOwners(ctx, tx, companyID, owners); err != nil {
				return err
			}
			if q.OwnerID != 0 && len(out.Owners) == 0 {
				return finance.Errorf(finance.NotFound, "The company has no person %d.", q.OwnerID)
			}
			if asked {
				if err := checkIncomeOwner(ctx, tx, companyID, q.OwnerID); err != nil {
					return err
				}
			}
			return readIncomeNames(ctx, tx, companyID, out)
		})
	if err != nil {
		return nil, translate(err, "income reports")
	}
	return out, nil
}

// checkIncomeOwner refuses (422 on filter[owner_id]) a person of the
// company who is no owner of it: no share of a building, no owner
// statement, no entry of the ledger credited or debited to them. An owner
// who has nothing in the year (a building sold, a contract ended) is an
// owner still, with a report of zeros.
func checkIncomeOwner(ctx context.Context, tx pgx.Tx, companyID, personID int64) error {
	var owner bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM building_owners WHERE company_id = $1 AND person_id = $2)
		OR EXISTS (SELECT 1 FROM owner_statements WHERE company_id = $1 AND owner_id = $2)
		OR EXISTS (SELECT 1 FROM transactions WHERE company_id = $1 AND owner_id = $2)`, companyID, personID).Scan(&owner); err != nil {
		return fmt.Errorf("income reports: the owner: %w", err)
	}
	if !owner {
		return finance.InvalidInput([]finance.Problem{{Field: "filter[owner_id]", Message: fmt.Sprintf("person %d is no owner of "+
			"the company: no share of its buildings, no owner statement, no entry of its books names them as owner", personID)}})
	}
	return nil
}

// checkIncomeBusiness refuses a business the company does not have, as
// the DIMOB's request does: 422 on filter[business_id].
func checkIncomeBusiness(ctx context.Context, tx pgx.Tx, companyID, businessID int64) error {
	if businessID == 0 {
		return nil
	}
	var found bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM businesses WHERE company_id = $1 AND id = $2)`,
		companyID, businessID).Scan(&found); err != nil {
		return fmt.Errorf("income reports: the business: %w", err)
	}
	if !found {
		return finance.InvalidInput([]finance.Problem{{Field: "filter[business_id]",
			Message: fmt.Sprintf("no businesses with id %d", businessID)}})
	}
	return nil
}

// readIncomeCompany reads the company's name, today and first and last
// closed months.
func readIncomeCompany(ctx context.Context, tx pgx.Tx, companyID int64, out *IncomeReports) error {
	var first, last *string
	err := tx.QueryRow(ctx, `SELECT c.name, m.first, m.last FROM companies c,
		LATERAL (SELECT min(month) AS first, max(month) AS last FROM owner_statement_months m WHERE m.company_id = c.id) m
		WHERE c.id = $1`, companyID).Scan(&out.CompanyName, &first, &last)
	if err != nil {
		return translate(err, fmt.Sprintf("company %d", companyID))
	}
	if out.Today, err = CompanyToday(ctx, tx, companyID); err != nil {
		return err
	}
	if last == nil || first == nil {
		return nil
	}
	if out.ClosedFrom, err = finance.ParseMonth(*first); err != nil {
		return fmt.Errorf("owner statement months: %w", err)
	}
	if out.ClosedThrough, err = finance.ParseMonth(*last); err != nil {
		return fmt.Errorf("owner statement months: %w", err)
	}
	out.Closed = true
	return nil
}

// incomeLinesSQL selects the lines of closed statements that count in a
// year ($5): of statements from its January on ($2), of owner $3 and
// business $4 when not null, whose entries the rule declares
// (storage/declared.go: a payment or its reversal, no guarantee's, of an
// item declared, $6 and $7 the items and their figures), with each line's
// figure and day, the day in the year: the day the tenant paid, as the
// DIMOB counts it. No line of an earlier statement can count in the year:
// a line's day is never after its entry's date.
var incomeLinesSQL = `
WITH ` + declaredReversalsSQL + `
SELECT s.owner_id, coalesce(s.business_id, 0), s.month, s.closed_at AT TIME ZONE ` + companyZoneSQL("$1") + `, l.section, l.kind,
       coalesce(l.corrects_month, ''), coalesce(l.item_type, ''), l.hidden, (l.amount * 100)::bigint, coalesce(l.contract_id, 0),
       coalesce(l.building_id, 0), l.transaction_id, l.date, ` + declaredFigureSQL("$6", "$7") + `, d.day
FROM owner_statements s
JOIN owner_statement_lines l ON l.company_id = s.company_id AND l.statement_id = s.id
JOIN transactions t ON t.company_id = l.company_id AND t.id = l.transaction_id
` + declaredDayJoinsSQL + `
CROSS JOIN LATERAL (SELECT ` + declaredDaySQL + ` AS day) d
WHERE s.company_id = $1 AND s.month >= $2
  AND ($3::bigint IS NULL OR s.owner_id = $3) AND ($4::bigint IS NULL OR s.business_id = $4)
  AND ` + declaredEntrySQL + ` AND ` + declaredFigureSQL("$6", "$7") + ` IS NOT NULL
  AND d.day >= make_date($5, 1, 1) AND d.day < make_date($5 + 1, 1, 1)
ORDER BY s.owner_id, s.month, coalesce(s.business_id, 0), l.position`

// readIncomeLines reads the lines of q's year, grouped by owner.
func readIncomeLines(ctx context.Context, tx pgx.Tx, companyID int64, q IncomeQuery) ([]IncomeOwner, error) {
	items, err := readDeclaredItems(ctx, tx, companyID)
	if err != nil {
		return nil, err
	}
	first := finance.NewMonth(q.Year, time.January)
	rows, err := tx.Query(ctx, incomeLinesSQL, companyID, first.String(), nullID(q.OwnerID), nullID(q.BusinessID), q.Year,
		items.ids, items.figures)
	if err != nil {
		return nil, translate(err, "income report lines")
	}
	defer rows.Close()
	var owners []IncomeOwner
	for rows.Next() {
		var owner int64
		var month, section, kind, corrects string
		var closedAt time.Time
		var figure int32
		var l statement.IncomeLine
		if err := rows.Scan(&owner, &l.BusinessID, &month, &closedAt, &section, &kind, &corrects, &l.ItemType, &l.Hidden,
			&l.Cents, &l.ContractID, &l.BuildingID, &l.TransactionID, &l.Date, &figure, &l.Day); err != nil {
			return nil, translate(err, "income report lines")
		}
		l.Section, l.Kind, l.Declared = statement.Section(section), statement.Section(kind), finance.Declared(figure)
		if l.Month, err = finance.ParseMonth(month); err != nil {
			return nil, fmt.Errorf("income report lines: %w", err)
		}
		if corrects != "" {
			if l.CorrectsMonth, err = finance.ParseMonth(corrects); err != nil {
				return nil, fmt.Errorf("income report lines: %w", err)
			}
		}
		if n := len(owners); n == 0 || owners[n-1].ID != owner {
			owners = append(owners, IncomeOwner{ID: owner})
		}
		o := &owners[len(owners)-1]
		o.Lines = append(o.Lines, l)
		if closedAt.After(o.ClosedAt) {
			o.ClosedAt = closedAt
		}
	}
	if err := rows.Err(); err != nil {
		return nil, translate(err, "income report lines")
	}
	return owners, nil
}

// incomeUnstatedSQL selects the entries of owner $3 (every owner when
// null) and business $4 (every one when null) that count in year $2 by
// the rule (storage/declared.go, $5 and $6 the items and their figures)
// and are on no owner statement, one row per owner, kind, invoice, date
// and day. A line's day is never after its entry's date, so the entries
// are of the owner's ledger from the year's January on (its index).
var incomeUnstatedSQL = `
WITH ` + declaredReversalsSQL + `
SELECT DISTINCT t.owner_id,
       CASE WHEN ref.id IS NOT NULL AND rev.id IS NULL THEN '` + string(CorrectionRefund) + `'
            WHEN back.id IS NOT NULL THEN '` + string(CorrectionUndone) + `'
            ELSE '` + string(CorrectionEntry) + `' END,
       coalesce(t.invoice_id, 0), t.date, d.day
FROM transactions t
` + declaredDayJoinsSQL + `
CROSS JOIN LATERAL (SELECT ` + declaredDaySQL + ` AS day) d
WHERE t.company_id = $1 AND t.date >= make_date($2, 1, 1)
  AND ($3::bigint IS NULL OR t.owner_id = $3) AND ($4::bigint IS NULL OR t.business_id = $4)
  AND ` + declaredEntrySQL + ` AND ` + declaredFigureSQL("$5", "$6") + ` IS NOT NULL
  AND d.day >= make_date($2, 1, 1) AND d.day < make_date($2 + 1, 1, 1)
  AND NOT EXISTS (SELECT 1 FROM owner_statement_lines l WHERE l.company_id = t.company_id AND l.transaction_id = t.id)
ORDER BY 1, 4, 3, 2, 5`

// readIncomeUnstated reads the entries of q's year on no closed
// statement into their owners' Unstated, adding an owner that has only
// those (its report reads no line yet).
func readIncomeUnstated(ctx context.Context, tx pgx.Tx, companyID int64, q IncomeQuery, owners []IncomeOwner) ([]IncomeOwner, error) {
	items, err := readDeclaredItems(ctx, tx, companyID)
	if err != nil {
		return nil, err
	}
	rows, err := tx.Query(ctx, incomeUnstatedSQL, companyID, q.Year, nullID(q.OwnerID), nullID(q.BusinessID), items.ids, items.figures)
	if err != nil {
		return nil, translate(err, "income report entries on no statement")
	}
	defer rows.Close()
	byOwner := map[int64][]IncomeCorrection{}
	for rows.Next() {
		var owner int64
		var kind string
		var c IncomeCorrection
		if err := rows.Scan(&owner, &kind, &c.InvoiceID, &c.Date, &c.Day); err != nil {
			return nil, translate(err, "income report entries on no statement")
		}
		c.Kind = CorrectionKind(kind)
		byOwner[owner] = append(byOwner[owner], c)
	}
	if err := rows.Err(); err != nil {
		return nil, translate(err, "income report entries on no statement")
	}
	for i := range owners {
		owners[i].Unstated = byOwner[owners[i].ID]
		delete(byOwner, owners[i].ID)
	}
	for id, cs := range byOwner {
		owners = append(owners, IncomeOwner{ID: id, Unstated: cs})
	}
	slices.SortFunc(owners, func(a, b IncomeOwner) int { return cmp.Compare(a.ID, b.ID) })
	return owners, nil
}

// readIncomeOwners reads the owners' names and tax ids, keeping those
// that are persons of the company.
func readIncomeOwners(ctx context.Context, tx pgx.Tx, companyID int64, owners []IncomeOwner) ([]IncomeOwner, error) {
	ids := make([]int64, len(owners))
	for i, o := range owners {
		ids[i] = o.ID
	}
	rows, err := tx.Query(ctx, `SELECT id, name, coalesce(tax_id, '') FROM persons WHERE company_id = $1 AND id = any($2)`,
		companyID, ids)
	if err != nil {
		return nil, translate(err, "income report owners")
	}
	defer rows.Close()
	names := map[int64][2]string{}
	for rows.Next() {
		var id int64
		var name, taxID string
		if err := rows.Scan(&id, &name, &taxID); err != nil {
			return nil, translate(err, "income report owners")
		}
		names[id] = [2]string{name, taxID}
	}
	if err := rows.Err(); err != nil {
		return nil, translate(err, "income report owners")
	}
	kept := owners[:0]
	for _, o := range owners {
		if n, ok := names[o.ID]; ok {
			o.Name, o.TaxID = n[0], n[1]
			kept = append(kept, o)
		}
	}
	return kept, nil
}

// readIncomeNames reads the contracts and businesses the owners' lines
// name.
func readIncomeNames(ctx context.Context, tx pgx.Tx, companyID int64, out *IncomeReports) error {
	var contracts, businesses []int64
	for _, o := range out.Owners {
		for _, l := range o.Lines {
			if l.ContractID != 0 {
				contracts = append(contracts, l.ContractID)
			}
			if l.BusinessID != 0 {
				businesses = append(businesses, l.BusinessID)
			}
		}
	}
	rows, err := tx.Query(ctx, `
		SELECT c.id, coalesce(c.reference, ''), c.start_at, least(c.end_at, c.termination_at),
		       coalesce(c.tenant_id, 0), coalesce(tp.name, ''), coalesce(tp.tax_id, ''), coalesce(c.building_id, 0), `+
		addressSelect("b")+`
		FROM contracts c
		LEFT JOIN persons tp ON tp.company_id = c.company_id AND tp.id = c.tenant_id
		LEFT JOIN buildings b ON b.company_id = c.company_id AND b.id = c.building_id
		WHERE c.company_id = $1 AND c.id = any($2)`, companyID, contracts)
	if err != nil {
		return translate(err, "income report contracts")
	}
	for rows.Next() {
		var c IncomeContract
		var start, end *finance.Date
		a := &c.Property
		if err := rows.Scan(&c.ID, &c.Reference, &start, &end, &c.Tenant.ID, &c.Tenant.Name, &c.Tenant.TaxID, &c.BuildingID,
			&a.ZipCode, &a.Street, &a.Number, &a.Complement, &a.District, &a.City, &a.State); err != nil {
			rows.Close()
			return translate(err, "income report contracts")
		}
		if start != nil {
			c.Start = *start
		}
		if end != nil {
			c.End = *end
		}
		out.Contracts[c.ID] = c
	}
	if err := translate(rows.Err(), "income report contracts"); err != nil {
		return err
	}
	rows, err = tx.Query(ctx, `SELECT id, name, coalesce(tax_id, '') FROM businesses WHERE company_id = $1 AND id = any($2)`,
		companyID, businesses)
	if err != nil {
		return translate(err, "income report businesses")
	}
	defer rows.Close()
	for rows.Next() {
		var b IncomeParty
		if err := rows.Scan(&b.ID, &b.Name, &b.TaxID); err != nil {
			return translate(err, "income report businesses")
		}
		out.Businesses[b.ID] = b
	}
	return translate(rows.Err(), "income report businesses")
}

// Line is the address in one line: "Rua Augusta, 500, loja 2,
// Consolação, São Paulo - SP, CEP 01305-000", the parts it has; empty
// without a street.
func (a Address) Line() string {
	if strings.TrimSpace(a.Street) == "" {
		return ""
	}
	var parts []string
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			parts = append(parts, s)
		}
	}
	add(a.Street)
	add(a.Number)
	add(a.Complement)
	add(a.District)
	city, state := strings.TrimSpace(a.City), strings.TrimSpace(a.State)
	switch {
	case city != "" && state != "":
		add(city + " - " + state)
	default:
		add(city + state)
	}
	if zip := strings.TrimSpace(a.ZipCode); len(zip) == 8 {
		add("CEP " + zip[:5] + "-" + zip[5:])
	} else {
		add(zip)
	}
	return strings.Join(parts, ", ")
}
