package storage

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
)

// A company's readjustment settings (companies.readjust_allow_reduction
// and readjust_candidates; docs/finance.md, "Readjustment"): the options
// the nightly run and the contract operation pass to finance.Readjust.

// ReadjustSettings are a company's readjustment settings, with the names
// GET and PUT /financial/settings give them.
type ReadjustSettings struct {
	// AllowReduction lets a negative accumulated index lower the rent;
	// without it the rent is kept.
	AllowReduction bool `json:"readjust_allow_reduction"`
	// Candidates are the indices highest_index and lowest_index compare,
	// in order of preference on a tie.
	Candidates []string `json:"readjust_candidates"`
}

// Options are the settings as the rule takes them.
func (s ReadjustSettings) Options() finance.ReadjustOptions {
	candidates := make([]finance.Indicator, len(s.Candidates))
	for i, c := range s.Candidates {
		candidates[i] = finance.Indicator(c)
	}
	return finance.ReadjustOptions{AllowReduction: s.AllowReduction, Candidates: candidates}
}

// ReadjustSettingsChange is a change of settings: a nil field is left as
// it is.
type ReadjustSettingsChange struct {
	AllowReduction *bool
	Candidates     []string
}

// CheckReadjustCandidates says what is wrong with a list of candidates:
// it must name between one and all of IndexIndicators, each once. The
// problems name the field readjust_candidates.
func CheckReadjustCandidates(candidates []string) []finance.Problem {
	problem := func(format string, args ...any) []finance.Problem {
		return []finance.Problem{{Field: "readjust_candidates", Message: fmt.Sprintf(format, args...)}}
	}
	if len(candidates) == 0 {
		return problem("must name at least one index")
	}
	for i, c := range candidates {
		if !slices.Contains(IndexIndicators, c) {
			return problem("%q (element %d) is not an index: must be one of %s", c, i, strings.Join(IndexIndicators, ", "))
		}
		if slices.Index(candidates, c) < i {
			return problem("%q is given more than once", c)
		}
	}
	return nil
}

// ReadjustSettingsOf reads a company's readjustment settings.
func ReadjustSettingsOf(ctx context.Context, q DBTX, companyID int64) (ReadjustSettings, error) {
	var s ReadjustSettings
	err := q.QueryRow(ctx, `SELECT readjust_allow_reduction, readjust_candidates FROM companies WHERE id = $1`,
		companyID).Scan(&s.AllowReduction, &s.Candidates)
	if err != nil {
		return s, translate(err, "company")
	}
	return s, nil
}

// UpdateReadjustSettings applies a change to the scope's company's
// settings and returns them as stored. Bad candidates are a 422 naming
// readjust_candidates, and nothing is stored.
func (s *Store) UpdateReadjustSettings(ctx context.Context, sc Scope, change ReadjustSettingsChange) (ReadjustSettings, error) {
	if change.Candidates != nil {
		if problems := CheckReadjustCandidates(change.Candidates); problems != nil {
			return ReadjustSettings{}, finance.InvalidInput(problems)
		}
	}
	var out ReadjustSettings
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `UPDATE companies SET
				readjust_allow_reduction = coalesce($2, readjust_allow_reduction),
				readjust_candidates = coalesce($3, readjust_candidates)
			WHERE id = $1`, sc.CompanyID, change.AllowReduction, change.Candidates)
		if err != nil {
			return translate(err, "update readjustment settings")
		}
		out, err = ReadjustSettingsOf(ctx, tx, sc.CompanyID)
		return err
	})
	return out, err
}
