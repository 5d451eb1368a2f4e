package storage

import "context"

// RefreshMarkedPaymentStatuses brings the payment status of every contract
// of the company marked since the last overdue run (contract_payment_marks)
// to today, as a write's refresh does (migration 0066), in a transaction
// of its own: run after writers that changed invoices of one contract at
// once have committed (a return file's chunks two at a time), it sees what
// they all wrote, where each of their refreshes saw only its own. The marks
// stay for the night. It returns how many contracts it looked at.
func RefreshMarkedPaymentStatuses(ctx context.Context, q DBTX, companyID int64) (int64, error) {
	var n int64
	err := q.QueryRow(ctx, `WITH marked AS (
			SELECT DISTINCT company_id, contract_id FROM contract_payment_marks WHERE company_id = $1)
		SELECT count(*) FROM marked`, companyID).Scan(&n)
	if err != nil || n == 0 {
		return 0, translate(err, "read the marked contracts")
	}
	_, err = q.Exec(ctx, `SELECT refresh_payment_statuses(array_agg(company_id), array_agg(contract_id))
		FROM (SELECT DISTINCT company_id, contract_id FROM contract_payment_marks WHERE company_id = $1) AS marked`, companyID)
	return n, translate(err, "refresh the marked contracts' payment statuses")
}
