package storage

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
)

// A company's agreement setting (companies.agreement_break_days; GET and
// PUT /financial/settings): how many days an installment may stay overdue
// before the nightly run breaks its agreement.

// AgreementSettings are a company's agreement settings, as
// /financial/settings names them.
type AgreementSettings struct {
	// BreakDays: an agreement is broken by the nightly overdue run once
	// one of its installments is owed more than this many days after its
	// due date (1 to 366, default 30).
	BreakDays int `json:"agreement_break_days"`
}

// The bounds of agreement_break_days.
const (
	MinAgreementBreakDays = 1
	MaxAgreementBreakDays = 366
)

// CheckAgreementBreakDays says what is wrong with agreement_break_days.
func CheckAgreementBreakDays(days int) []finance.Problem {
	if days < MinAgreementBreakDays || days > MaxAgreementBreakDays {
		return []finance.Problem{{Field: "agreement_break_days", Message: fmt.Sprintf("must be between %d and %d; got %d",
			MinAgreementBreakDays, MaxAgreementBreakDays, days)}}
	}
	return nil
}

// setAgreementBreakDays stores agreement_break_days (nil: kept), checked.
func setAgreementBreakDays(ctx context.Context, tx pgx.Tx, companyID int64, days *int) error {
	if days == nil {
		return nil
	}
	if ps := CheckAgreementBreakDays(*days); ps != nil {
		return finance.InvalidInput(ps)
	}
	_, err := tx.Exec(ctx, `UPDATE companies SET agreement_break_days = $2 WHERE id = $1`, companyID, *days)
	return translate(err, "update agreement settings")
}
