package storage

import (
	"context"
	"encoding/hex"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance"
)

// The bank's tariffs a return file reports on lines of their own (a fee
// occurrence: a tariff debited for a title's registration, protest or
// maintenance, a monthly tariff), booked as the business's expense:
// docs/ledger.md, "Tariffs on lines of their own". The tariff of a paid
// title is booked with its payment instead (SettleReportedPayments).

// ReturnTariff is a bank's tariff a return file reports on a line of its
// own, to be booked on the account the bank debited.
type ReturnTariff struct {
	// Key names the line the tariff is reported on (ReturnTariffKey): a
	// tariff is booked once per key, however often its file is read.
	Key       string
	AccountID int64
	// Date is the day the bank debited it (the entry's date).
	Date   finance.Date
	Amount decimal.Decimal
	// Notes go to the entry: the file's line and the bank's words.
	Notes string
}

// ReturnTariffKey is the key of a tariff reported on a line of a return
// file: the file's content (its SHA-256) and the line, the same for the
// same bytes uploaded again (for another account, after its job was
// pruned).
func ReturnTariffKey(sha256 []byte, line int) string {
	return "return:" + hex.EncodeToString(sha256) + ":" + strconv.Itoa(line)
}

// The outcomes of a tariff reported on a line of its own.
const (
	TariffBooked       = "booked"        // booked now
	TariffBookedBefore = "booked_before" // its key was booked by an earlier reading: nothing done
	TariffNoItem       = "no_item"       // the company keeps no active item of type tariff: not booked
	TariffNoAccount    = "no_account"    // the account is not the company's: not booked
)

// BookedTariff is what became of a ReturnTariff: the outcome and the
// entry, when booked now or before.
type BookedTariff struct {
	Outcome string
	EntryID int64
}

// BookReturnTariffs books each tariff as the business's expense: one
// debit on the statement of the business whose account the bank debited
// (finance.BankFee: the company's active item of type tariff, of several
// the lowest id, and its debit plan; mode transaction, paid, dated the
// day debited, keyed by return_key), in one statement whose ON CONFLICT
// books a key once: a key booked before (by another reading of the same
// file's content, or another transaction at once) is left as it is. The
// answer is in the order of tariffs.
func BookReturnTariffs(ctx context.Context, tx pgx.Tx, companyID int64, tariffs []ReturnTariff) ([]BookedTariff, error) {
	out := make([]BookedTariff, len(tariffs))
	if len(tariffs) == 0 {
		return out, nil
	}
	c, err := postingItemsOf(ctx, tx, companyID, nil)
	if err != nil {
		return nil, translate(err, "tariff item")
	}
	if c.tariff == nil {
		for i := range out {
			out[i].Outcome = TariffNoItem
		}
		return out, nil
	}
	businesses, err := accountBusinesses(ctx, tx, companyID, tariffs)
	if err != nil {
		return nil, err
	}
	var keys, types, extracts, descriptions, amounts, notes []string
	var accounts, bizs, items, plans []int64
	var dates []finance.Date
	for i, t := range tariffs {
		biz, ok := businesses[t.AccountID]
		if !ok {
			out[i].Outcome = TariffNoAccount
			continue
		}
		e := finance.BankFee(*c.tariff, biz, t.Amount)
		keys, accounts, bizs, dates = append(keys, t.Key), append(accounts, t.AccountID), append(bizs, e.BusinessID), append(dates, t.Date)
		types, extracts, items, plans = append(types, string(e.Type)), append(extracts, string(e.Extract)), append(items, e.ItemID), append(plans, e.PlanID)
		descriptions, amounts, notes = append(descriptions, e.Description), append(amounts, e.Amount.String()), append(notes, t.Notes)
	}
	inserted, err := insertReturnTariffs(ctx, tx, companyID, keys, accounts, bizs, dates, types, extracts, items, plans,
		descriptions, amounts, notes)
	if err != nil {
		return nil, err
	}
	var before []string
	for i, t := range tariffs {
		if out[i].Outcome != "" {
			continue
		}
		if id, ok := inserted[t.Key]; ok {
			out[i] = BookedTariff{Outcome: TariffBooked, EntryID: id}
		} else {
			before = append(before, t.Key)
		}
	}
	if len(before) == 0 {
		return out, nil
	}
	earlier, err := returnKeyEntries(ctx, tx, companyID, before)
	if err != nil {
		return nil, err
	}
	for i, t := range tariffs {
		if out[i].Outcome == "" {
			out[i] = BookedTariff{Outcome: TariffBookedBefore, EntryID: earlier[t.Key]}
		}
	}
	return out, nil
}

// insertReturnTariffs inserts the tariffs' entries (mode transaction, as
// finance.BankFee builds them) and answers the entry of each key inserted;
// a key already booked is not.
func insertReturnTariffs(ctx context.Context, tx pgx.Tx, companyID int64, keys []string, accounts, bizs []int64, dates []finance.Date,
	types, extracts []string, items, plans []int64, descriptions, amounts, notes []string) (map[string]int64, error) {
	out := map[string]int64{}
	if len(keys) == 0 {
		return out, nil
	}
	rows, err := tx.Query(ctx, `
		INSERT INTO transactions (company_id, split, return_key, mode, type, account_id, business_id, item_id, plan_id,
		    extract, date, position, amount, competence, due_date, description, paid, notes)
		SELECT $1, u.key, u.key, $2, u.type, u.account_id, u.business_id, u.item_id, nullif(u.plan_id, 0),
		    u.extract, u.date, 1, u.amount::numeric, u.date, u.date, u.description, true, nullif(u.notes, '')
		FROM unnest($3::text[], $4::bigint[], $5::bigint[], $6::date[], $7::text[], $8::text[], $9::bigint[], $10::bigint[],
		    $11::text[], $12::text[], $13::text[])
		  AS u(key, account_id, business_id, date, type, extract, item_id, plan_id, description, amount, notes)
		ON CONFLICT (company_id, return_key) WHERE return_key IS NOT NULL DO NOTHING
		RETURNING return_key, id`, withValues, companyID, string(finance.ModeTransaction), keys, accounts, bizs, dates,
		types, extracts, items, plans, descriptions, amounts, notes)
	if err != nil {
		return nil, translate(err, "tariffs of a return file")
	}
	defer rows.Close()
	for rows.Next() {
		var key string
		var id int64
		if err := rows.Scan(&key, &id); err != nil {
			return nil, translate(err, "tariffs of a return file")
		}
		out[key] = id
	}
	return out, translate(rows.Err(), "tariffs of a return file")
}

// accountBusinesses reads the business of each account the tariffs name
// (of the company only).
func accountBusinesses(ctx context.Context, tx pgx.Tx, companyID int64, tariffs []ReturnTariff) (map[int64]int64, error) {
	ids := make([]int64, 0, len(tariffs))
	for _, t := range tariffs {
		ids = append(ids, t.AccountID)
	}
	rows, err := tx.Query(ctx, `SELECT id, business_id FROM accounts WHERE company_id = $1 AND id = any($2)`,
		withValues, companyID, ids)
	if err != nil {
		return nil, translate(err, "accounts of tariffs")
	}
	defer rows.Close()
	out := map[int64]int64{}
	for rows.Next() {
		var id, biz int64
		if err := rows.Scan(&id, &biz); err != nil {
			return nil, translate(err, "accounts of tariffs")
		}
		out[id] = biz
	}
	return out, translate(rows.Err(), "accounts of tariffs")
}

// returnKeyEntries reads the entries booked under keys.
func returnKeyEntries(ctx context.Context, tx pgx.Tx, companyID int64, keys []string) (map[string]int64, error) {
	rows, err := tx.Query(ctx, `SELECT return_key, id FROM transactions WHERE company_id = $1 AND return_key = any($2)`,
		withValues, companyID, keys)
	if err != nil {
		return nil, translate(err, "tariffs booked before")
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var key string
		var id int64
		if err := rows.Scan(&key, &id); err != nil {
			return nil, translate(err, "tariffs booked before")
		}
		out[key] = id
	}
	return out, translate(rows.Err(), "tariffs booked before")
}
