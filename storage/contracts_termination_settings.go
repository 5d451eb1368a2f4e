package storage

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
)

// The company's finance settings as GET and PUT /financial/settings give
// them (docs/api.md, "/financial/settings"): the readjustment's
// (readjust_settings.go), the termination's, the items its final invoice
// books the fine and the deposit's deduction as
// (companies.termination_fee_item_id and termination_deposit_item_id,
// migration 0033), the write-off's item (invoices_refund.go), and the
// billing reminders' (reminders_settings.go), the agreements' break days
// (agreements_settings.go) and how the owners' transfers are paid
// (transfers_settings.go).

// TerminationSettings are the items a termination's final invoice books
// the fine and the deposit's deduction as; nil: not set (the fine is then
// booked as the contract's late-fee item, else the company's fee item).
type TerminationSettings struct {
	FeeItemID     *int64 `json:"termination_fee_item_id"`
	DepositItemID *int64 `json:"termination_deposit_item_id"`
}

// Settings are every finance setting of a company.
type Settings struct {
	ReadjustSettings
	TerminationSettings
	WriteOffSettings
	ReminderSettings
	AgreementSettings
	TransferSettings
}

// ItemSetting is a change of an item setting: Set says it is changed, to
// ID, or cleared when ID is 0.
type ItemSetting struct {
	Set bool
	ID  int64
}

// SettingsChange is a change of settings; what it does not set is kept.
type SettingsChange struct {
	Readjust                           ReadjustSettingsChange
	FeeItem, DepositItem, WriteOffItem ItemSetting
	Reminders                          ReminderSettingsChange
	AgreementBreakDays                 *int    // nil: kept
	TransferPayment                    *string // nil: kept
}

// SettingsOf reads a company's finance settings.
func SettingsOf(ctx context.Context, q DBTX, companyID int64) (Settings, error) {
	r, err := ReadjustSettingsOf(ctx, q, companyID)
	if err != nil {
		return Settings{}, err
	}
	s := Settings{ReadjustSettings: r}
	err = q.QueryRow(ctx, `SELECT termination_fee_item_id, termination_deposit_item_id, write_off_item_id, agreement_break_days,
		transfer_payment
		FROM companies WHERE id = $1`, companyID).Scan(&s.FeeItemID, &s.DepositItemID, &s.WriteOffSettings.ItemID, &s.BreakDays,
		&s.TransferPayment)
	if err != nil {
		return s, translate(err, "company")
	}
	s.ReminderSettings, err = ReminderSettingsOf(ctx, q, companyID)
	return s, err
}

// UpdateSettings applies a change to the scope's company's settings and
// returns them as stored. Any problem is a 422 naming its field, and
// nothing is stored: bad readjustment candidates, an item setting naming
// no item of the company, or one that does not charge the payer (a line
// of the final invoice debits the customer, as every line the schedule
// writes).
func (s *Store) UpdateSettings(ctx context.Context, sc Scope, change SettingsChange) (Settings, error) {
	if change.Readjust.Candidates != nil {
		if problems := CheckReadjustCandidates(change.Readjust.Candidates); problems != nil {
			return Settings{}, finance.InvalidInput(problems)
		}
	}
	if problems := change.Reminders.check(); problems != nil {
		return Settings{}, finance.InvalidInput(problems)
	}
	var out Settings
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := checkItemSettings(ctx, tx, sc.CompanyID, change); err != nil {
			return err
		}
		if w := change.WriteOffItem; w.Set && w.ID != 0 {
			if ps := CheckWriteOffItem(ctx, tx, sc.CompanyID, w.ID); ps != nil {
				return finance.InvalidInput(ps)
			}
		}
		_, err := tx.Exec(ctx, `UPDATE companies SET
				readjust_allow_reduction = coalesce($2, readjust_allow_reduction),
				readjust_candidates = coalesce($3, readjust_candidates),
				termination_fee_item_id = CASE WHEN $4 THEN nullif($5::bigint, 0) ELSE termination_fee_item_id END,
				termination_deposit_item_id = CASE WHEN $6 THEN nullif($7::bigint, 0) ELSE termination_deposit_item_id END,
				write_off_item_id = CASE WHEN $8 THEN nullif($9::bigint, 0) ELSE write_off_item_id END,
				reminders_enabled = coalesce($10, reminders_enabled),
				reminder_days = coalesce($11, reminder_days),
				reminders_reply_to = CASE WHEN $12 THEN $13 ELSE reminders_reply_to END,
				reminders_sender_name = CASE WHEN $14 THEN $15 ELSE reminders_sender_name END
			WHERE id = $1`, sc.CompanyID, change.Readjust.AllowReduction, change.Readjust.Candidates,
			change.FeeItem.Set, change.FeeItem.ID, change.DepositItem.Set, change.DepositItem.ID,
			change.WriteOffItem.Set, change.WriteOffItem.ID,
			change.Reminders.Enabled, change.Reminders.days(), change.Reminders.SetReplyTo, change.Reminders.ReplyTo,
			change.Reminders.SetSenderName, change.Reminders.SenderName)
		if err != nil {
			return translate(err, "update settings")
		}
		if err := setAgreementBreakDays(ctx, tx, sc.CompanyID, change.AgreementBreakDays); err != nil {
			return err
		}
		if err := setTransferPayment(ctx, tx, sc.CompanyID, change.TransferPayment); err != nil {
			return err
		}
		out, err = SettingsOf(ctx, tx, sc.CompanyID)
		return err
	})
	return out, err
}

// checkItemSettings names the item settings of change that name no item
// of the company, or one that cannot book a line of the final invoice.
func checkItemSettings(ctx context.Context, tx pgx.Tx, companyID int64, change SettingsChange) error {
	settings := []struct {
		field string
		s     ItemSetting
	}{{"termination_fee_item_id", change.FeeItem}, {"termination_deposit_item_id", change.DepositItem}}
	var ids []int64
	for _, x := range settings {
		if x.s.Set && x.s.ID != 0 {
			ids = append(ids, x.s.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	items, err := transactionItemsByID(ctx, tx, companyID, ids)
	if err != nil {
		return err
	}
	var ps []finance.Problem
	for _, x := range settings {
		if !x.s.Set || x.s.ID == 0 {
			continue
		}
		it, ok := items[x.s.ID]
		switch {
		case !ok:
			ps = append(ps, finance.Problem{Field: x.field, Message: fmt.Sprintf("transaction item %d not found", x.s.ID)})
		default:
			ps = append(ps, lineProblems(x.field, *it)...)
		}
	}
	if len(ps) > 0 {
		return finance.InvalidInput(ps)
	}
	return nil
}
