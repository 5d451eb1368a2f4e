package storage

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/finance/statement"
)

// StatementPage is a closed statement as its public page and PDF show
// it: the statement as it was closed (the month, the balances, the totals
// in cents, the lines the owner is shown with the contract and building
// each names), and the names of what it names as they are when it is
// read: the company, the business, the owner, the contracts (with their
// tenants) and the buildings (with their addresses).
type StatementPage struct {
	CompanyName   string
	BusinessName  string
	BusinessTaxID string
	OwnerName     string
	OwnerTaxID    string
	Month         finance.Month
	ClosedOn      finance.Date // the day it was closed, in the company's time zone
	Opening       int64
	Closing       int64
	Totals        statement.Totals
	Lines         []statement.Line // shown only, in the statement's order
	// Contracts and Buildings are those the lines name (and the contracts'
	// buildings), by id; a record deleted since is absent.
	Contracts map[int64]StatementContract
	Buildings map[int64]StatementBuilding
}

// StatementContract is a contract a statement's line names.
type StatementContract struct {
	ID         int64
	Number     int64 // id2, the visible number; 0 when it has none
	Reference  string
	BuildingID int64 // 0: none
	TenantName string
}

// StatementBuilding is a building a statement's line or contract names.
type StatementBuilding struct {
	ID        int64
	Title     string
	Reference string
	Address   Address
}

// OwnerStatementPage reads statement id of the company for its public
// page; a statement of another company, or none, is NotFound.
func (s *Store) OwnerStatementPage(ctx context.Context, companyID, id int64) (StatementPage, error) {
	p, err := s.readStatementHead(ctx, companyID, id)
	if err != nil {
		return p, err
	}
	if p.Lines, err = s.readShownLines(ctx, companyID, id); err != nil {
		return p, err
	}
	if err := s.readStatementRecords(ctx, companyID, &p); err != nil {
		return p, fmt.Errorf("owner statement %d: %w", id, err)
	}
	return p, nil
}

// readStatementHead reads the statement's own row, with the names of the
// company, business and owner.
func (s *Store) readStatementHead(ctx context.Context, companyID, id int64) (StatementPage, error) {
	var p StatementPage
	var month string
	err := s.pool.QueryRow(ctx, `
		SELECT c.name, coalesce(b.name, ''), coalesce(b.tax_id, ''), o.name, coalesce(o.tax_id, ''), st.month,
		       (st.closed_at AT TIME ZONE c.time_zone)::date,
		       (st.opening * 100)::bigint, (st.closing * 100)::bigint, (st.income * 100)::bigint, (st.deductions * 100)::bigint,
		       (st.guarantee * 100)::bigint, (st.transfers * 100)::bigint, (st.adjustments * 100)::bigint,
		       st.shown_lines, st.hidden_lines, (st.hidden_amount * 100)::bigint
		FROM owner_statements st
		JOIN companies c ON c.id = st.company_id
		JOIN persons o ON o.company_id = st.company_id AND o.id = st.owner_id
		LEFT JOIN businesses b ON b.company_id = st.company_id AND b.id = st.business_id
		WHERE st.company_id = $1 AND st.id = $2`, companyID, id).Scan(&p.CompanyName, &p.BusinessName, &p.BusinessTaxID,
		&p.OwnerName, &p.OwnerTaxID, &month, &p.ClosedOn, &p.Opening, &p.Closing, &p.Totals.Income, &p.Totals.Deductions,
		&p.Totals.Guarantee, &p.Totals.Transfers, &p.Totals.Adjustments, &p.Totals.Shown, &p.Totals.HiddenCount,
		&p.Totals.HiddenCents)
	if errors.Is(err, pgx.ErrNoRows) {
		return p, recordNotFound(id)
	}
	if err != nil {
		return p, translate(err, fmt.Sprintf("owner statement %d", id))
	}
	if p.Month, err = finance.ParseMonth(month); err != nil {
		return p, fmt.Errorf("owner statement %d: %w", id, err)
	}
	return p, nil
}

// readShownLines reads the lines of statement id the owner is shown, in
// the statement's order.
func (s *Store) readShownLines(ctx context.Context, companyID, id int64) ([]statement.Line, error) {
	what := fmt.Sprintf("owner statement %d lines", id)
	rows, err := s.pool.Query(ctx, `
		SELECT transaction_id, section, kind, date, description, (amount * 100)::bigint, coalesce(corrects_month, ''),
		       coalesce(destination, ''), coalesce(billing_method, ''), coalesce(contract_id, 0), coalesce(building_id, 0),
		       coalesce(invoice_id, 0), coalesce(item_id, 0), coalesce(item_type, '')
		FROM owner_statement_lines WHERE company_id = $1 AND statement_id = $2 AND NOT hidden ORDER BY position`, companyID, id)
	if err != nil {
		return nil, translate(err, what)
	}
	defer rows.Close()
	var lines []statement.Line
	for rows.Next() {
		var l statement.Line
		var section, kind, corrects string
		if err := rows.Scan(&l.TransactionID, &section, &kind, &l.Date, &l.Description, &l.Cents, &corrects, &l.Destination,
			&l.BillingMethod, &l.ContractID, &l.BuildingID, &l.InvoiceID, &l.ItemID, &l.ItemType); err != nil {
			return nil, translate(err, what)
		}
		l.Section, l.Kind = statement.Section(section), statement.Section(kind)
		if corrects != "" {
			if l.CorrectsMonth, err = finance.ParseMonth(corrects); err != nil {
				return nil, fmt.Errorf("%s: %w", what, err)
			}
		}
		lines = append(lines, l)
	}
	return lines, translate(rows.Err(), what)
}

// readStatementRecords reads the contracts the page's lines name, then
// the buildings the lines and those contracts name.
func (s *Store) readStatementRecords(ctx context.Context, companyID int64, p *StatementPage) error {
	p.Contracts, p.Buildings = map[int64]StatementContract{}, map[int64]StatementBuilding{}
	var contractIDs, buildingIDs []int64
	for _, l := range p.Lines {
		if l.ContractID != 0 {
			contractIDs = append(contractIDs, l.ContractID)
		}
		if l.BuildingID != 0 {
			buildingIDs = append(buildingIDs, l.BuildingID)
		}
	}
	if len(contractIDs) > 0 {
		rows, err := s.pool.Query(ctx, `
			SELECT c.id, coalesce(c.id2, 0), coalesce(c.reference, ''), coalesce(c.building_id, 0), coalesce(t.name, '')
			FROM contracts c LEFT JOIN persons t ON t.company_id = c.company_id AND t.id = c.tenant_id
			WHERE c.company_id = $1 AND c.id = any($2)`, companyID, contractIDs)
		if err != nil {
			return translate(err, "statement contracts")
		}
		for rows.Next() {
			var c StatementContract
			if err := rows.Scan(&c.ID, &c.Number, &c.Reference, &c.BuildingID, &c.TenantName); err != nil {
				rows.Close()
				return translate(err, "statement contracts")
			}
			p.Contracts[c.ID] = c
			if c.BuildingID != 0 {
				buildingIDs = append(buildingIDs, c.BuildingID)
			}
		}
		if err := translate(rows.Err(), "statement contracts"); err != nil {
			return err
		}
	}
	if len(buildingIDs) == 0 {
		return nil
	}
	rows, err := s.pool.Query(ctx, `SELECT id, coalesce(title, ''), coalesce(reference, ''), `+addressSelect("")+`
		FROM buildings WHERE company_id = $1 AND id = any($2)`, companyID, buildingIDs)
	if err != nil {
		return translate(err, "statement buildings")
	}
	defer rows.Close()
	for rows.Next() {
		var b StatementBuilding
		a := &b.Address
		if err := rows.Scan(&b.ID, &b.Title, &b.Reference, &a.ZipCode, &a.Street, &a.Number, &a.Complement, &a.District,
			&a.City, &a.State); err != nil {
			return translate(err, "statement buildings")
		}
		p.Buildings[b.ID] = b
	}
	return translate(rows.Err(), "statement buildings")
}

// OwnerStatementExists says whether the company has statement id: nil,
// or NotFound.
func (s *Store) OwnerStatementExists(ctx context.Context, companyID, id int64) error {
	var found bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM owner_statements WHERE company_id = $1 AND id = $2)`,
		companyID, id).Scan(&found)
	if err != nil {
		return translate(err, fmt.Sprintf("owner statement %d", id))
	}
	if !found {
		return recordNotFound(id)
	}
	return nil
}
