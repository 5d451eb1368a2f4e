package storage

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// The company's finance settings as /financial/settings reads and writes
// them: the readjustment options (readjust_settings.go) and the agreements'
// (agreements_settings.go), all on the company's row.

// Settings are a company's finance settings, with their API names.
type Settings struct {
	ReadjustSettings
	AgreementSettings
}

// SettingsChange is a change of settings: a nil field is left as it is.
type SettingsChange struct {
	Readjust           ReadjustSettingsChange
	AgreementBreakDays *int
}

// SettingsOf reads a company's finance settings.
func SettingsOf(ctx context.Context, q DBTX, companyID int64) (Settings, error) {
	var s Settings
	var err error
	if s.ReadjustSettings, err = ReadjustSettingsOf(ctx, q, companyID); err != nil {
		return s, err
	}
	s.AgreementSettings, err = AgreementSettingsOf(ctx, q, companyID)
	return s, err
}

// UpdateSettings applies a change to the scope's company's settings, in
// one transaction, and returns them as stored; any problem is a 422 naming
// its field, and nothing is stored.
func (s *Store) UpdateSettings(ctx context.Context, sc Scope, change SettingsChange) (Settings, error) {
	var out Settings
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := updateReadjustSettings(ctx, tx, sc.CompanyID, change.Readjust); err != nil {
			return err
		}
		if err := setAgreementBreakDays(ctx, tx, sc.CompanyID, change.AgreementBreakDays); err != nil {
			return err
		}
		var err error
		out, err = SettingsOf(ctx, tx, sc.CompanyID)
		return err
	})
	return out, err
}
