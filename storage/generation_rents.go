package storage

import (
	"context"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/propfin/propfin/finance"
)

// The rent each period bills (docs/finance.md, "The rent of each
// period"): generation reads, beside each contract, its readjustments
// (contract_readjustments, readjusted or kept), the date and the rent in
// force before each, so that a period before a readjustment bills the
// rent it had, not the current one.

// loadRentHistory sets the rent history of the batch's contracts from
// their stored readjustments, in one query for the batch (an index range
// of contract_readjustments_once per contract; none for a contract never
// readjusted).
func loadRentHistory(ctx context.Context, q DBTX, companyID int64, ids []int64, byID map[int64]*contractBilling) error {
	rows, err := q.Query(ctx, `SELECT contract_id, readjust_at, old_amount FROM contract_readjustments
		WHERE company_id = $1 AND contract_id = any($2) ORDER BY contract_id, readjust_at`, companyID, ids)
	if err != nil {
		return translate(err, "contract readjustments")
	}
	defer rows.Close()
	for rows.Next() {
		var (
			contract int64
			at       pgtype.Date
			old      pgtype.Numeric
		)
		if err := rows.Scan(&contract, &at, &old); err != nil {
			return translate(err, "contract readjustments")
		}
		c := &byID[contract].in.Contract
		c.RentHistory = append(c.RentHistory, finance.RentChange{At: dateOf(at), Before: numericDecimal(old)})
	}
	return translate(rows.Err(), "contract readjustments")
}
