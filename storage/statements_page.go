package storage

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/finance/statement"
)

// StatementPage is a closed statement as its public page shows it: the
// company, the business and the owner by name, the month, the balances
// and totals in cents, and the lines the owner is shown.
type StatementPage struct {
	CompanyName   string
	BusinessName  string
	BusinessTaxID string
	OwnerName     string
	OwnerTaxID    string
	Month         finance.Month
	Opening       int64
	Closing       int64
	Totals        statement.Totals
	Lines         []statement.Line // shown only, in the statement's order
}

// OwnerStatementPage reads statement id of the company for its public
// page; a statement of another company, or none, is NotFound.
func (s *Store) OwnerStatementPage(ctx context.Context, companyID, id int64) (StatementPage, error) {
	var p StatementPage
	var month string
	err := s.pool.QueryRow(ctx, `
		SELECT c.name, coalesce(b.name, ''), coalesce(b.tax_id, ''), o.name, coalesce(o.tax_id, ''), st.month,
		       (st.opening * 100)::bigint, (st.closing * 100)::bigint, (st.income * 100)::bigint, (st.deductions * 100)::bigint,
		       (st.guarantee * 100)::bigint, (st.transfers * 100)::bigint, (st.adjustments * 100)::bigint,
		       st.shown_lines, st.hidden_lines, (st.hidden_amount * 100)::bigint
		FROM owner_statements st
		JOIN companies c ON c.id = st.company_id
		JOIN persons o ON o.company_id = st.company_id AND o.id = st.owner_id
		LEFT JOIN businesses b ON b.company_id = st.company_id AND b.id = st.business_id
		WHERE st.company_id = $1 AND st.id = $2`, companyID, id).Scan(&p.CompanyName, &p.BusinessName, &p.BusinessTaxID,
		&p.OwnerName, &p.OwnerTaxID, &month, &p.Opening, &p.Closing, &p.Totals.Income, &p.Totals.Deductions,
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
	rows, err := s.pool.Query(ctx, `
		SELECT section, kind, date, description, (amount * 100)::bigint, coalesce(corrects_month, ''), coalesce(destination, '')
		FROM owner_statement_lines WHERE company_id = $1 AND statement_id = $2 AND NOT hidden ORDER BY position`, companyID, id)
	if err != nil {
		return p, translate(err, fmt.Sprintf("owner statement %d lines", id))
	}
	defer rows.Close()
	for rows.Next() {
		var l statement.Line
		var section, kind, corrects string
		if err := rows.Scan(&section, &kind, &l.Date, &l.Description, &l.Cents, &corrects, &l.Destination); err != nil {
			return p, translate(err, fmt.Sprintf("owner statement %d lines", id))
		}
		l.Section, l.Kind = statement.Section(section), statement.Section(kind)
		if corrects != "" {
			if l.CorrectsMonth, err = finance.ParseMonth(corrects); err != nil {
				return p, fmt.Errorf("owner statement %d: %w", id, err)
			}
		}
		p.Lines = append(p.Lines, l)
	}
	return p, translate(rows.Err(), fmt.Sprintf("owner statement %d lines", id))
}
