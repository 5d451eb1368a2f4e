package storage

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance"
)

// Requests to the bank about members reverted after their file (docs/api.md,
// "Batches" and "Payment batches"): the collection titles to drop (pedido
// de baixa) and the payments to cancel (exclusão). The next file of the
// account, whichever batch of the company it is for, carries them: it
// claims them, in its own transaction, by marking each with its batch
// (drop_batch_id, cancel_batch_id), so that a file rolled back asks
// nothing and a file stored asks once; the members a layout refuses are
// released, to be asked by a later file.

// TicketDrop is a reverted title the next file of its account asks the
// bank to drop, as it was registered.
type TicketDrop struct {
	MemberID       int64
	BatchID        int64 // the batch it was sent in
	InvoiceID      int64
	OurNumber      int64
	NossoNumero    string // with its check digit, as the slip prints it
	DocumentNumber string
	Amount         decimal.Decimal
	Due            finance.Date
}

// PendingTicketDrops counts an account's reverted titles not asked to
// drop yet.
func PendingTicketDrops(ctx context.Context, q DBTX, companyID, accountID int64) (int64, error) {
	var n int64
	err := q.QueryRow(ctx, `SELECT count(*) FROM ticket_batch_invoices
		WHERE company_id = $1 AND account_id = $2 AND state = 'reverted' AND drop_batch_id IS NULL`,
		companyID, accountID).Scan(&n)
	return n, translate(err, fmt.Sprintf("titles to drop of account %d", accountID))
}

// ClaimTicketDrops marks, in tx, every reverted title of the account of
// the locked batch b that is not asked to drop yet as asked by b's file,
// and hands each to fn, by nosso número; reading stops at fn's first
// error. The titles are locked until tx ends.
func ClaimTicketDrops(ctx context.Context, tx pgx.Tx, b *Batch, fn func(*TicketDrop) error) error {
	what := fmt.Sprintf("titles to drop in the file of ticket batch %d", b.ID)
	rows, err := tx.Query(ctx, `
		WITH claimed AS (
		    UPDATE ticket_batch_invoices SET drop_batch_id = $3, updated_at = now()
		    WHERE company_id = $1 AND account_id = $2 AND state = 'reverted' AND drop_batch_id IS NULL
		    RETURNING id, batch_id, invoice_id, our_number, nosso_numero, nosso_numero_digit, document_number,
		              (amount * 100)::bigint AS cents, due_date)
		SELECT id, batch_id, invoice_id, our_number, nosso_numero || CASE WHEN nosso_numero_digit = '' THEN ''
		       ELSE '-' || nosso_numero_digit END, document_number, cents, due_date
		FROM claimed ORDER BY our_number`, b.CompanyID, b.AccountID, b.ID)
	if err != nil {
		return translate(err, what)
	}
	defer rows.Close()
	var d TicketDrop
	var cents int64
	for rows.Next() {
		if err := rows.Scan(&d.MemberID, &d.BatchID, &d.InvoiceID, &d.OurNumber, &d.NossoNumero, &d.DocumentNumber,
			&cents, &d.Due); err != nil {
			return translate(err, what)
		}
		d.Amount = decimal.New(cents, -2)
		if err := fn(&d); err != nil {
			return err
		}
	}
	return translate(rows.Err(), what)
}

// ReleaseTicketDrops takes back the claim of batch b's file on titles
// (member ids) it could not carry: a later file asks for them.
func ReleaseTicketDrops(ctx context.Context, tx pgx.Tx, b *Batch, members []int64) error {
	if len(members) == 0 {
		return nil
	}
	_, err := tx.Exec(ctx, `UPDATE ticket_batch_invoices SET drop_batch_id = NULL, updated_at = now()
		WHERE company_id = $1 AND id = any($2) AND drop_batch_id = $3`, withValues, b.CompanyID, members, b.ID)
	return translate(err, fmt.Sprintf("titles to drop in the file of ticket batch %d", b.ID))
}

// PaymentCancel is a reverted payment the next file of its account asks
// the bank to cancel, as it was sent: the payment, and the day its file
// scheduled it for (its due date, or the day the file was written when
// that was later).
type PaymentCancel struct {
	MemberID int64
	BatchID  int64 // the batch it was sent in
	Day      finance.Date
	PaymentMember
}

// PendingPaymentCancels counts an account's reverted payments not asked
// to cancel yet: the PIX ones and the others.
func PendingPaymentCancels(ctx context.Context, q DBTX, companyID, accountID int64) (pix, other int64, err error) {
	err = q.QueryRow(ctx, `SELECT count(*) FILTER (WHERE m.method IN ('pix_account', 'pix_key')),
		count(*) FILTER (WHERE m.method NOT IN ('pix_account', 'pix_key'))
		FROM payment_batch_transactions m
		JOIN payment_batches b ON b.company_id = m.company_id AND b.id = m.batch_id
		WHERE m.company_id = $1 AND b.account_id = $2 AND m.state = 'reverted' AND m.cancel_batch_id IS NULL`,
		companyID, accountID).Scan(&pix, &other)
	return pix, other, translate(err, fmt.Sprintf("payments to cancel of account %d", accountID))
}

// ClaimPaymentCancels marks, in tx, the reverted payments of the account
// of the locked batch b that are not asked to cancel yet, of the methods
// given (nil: all), as asked by b's file, and hands each to fn in file
// order (grouped as their file grouped them); reading stops at fn's first
// error. The payments are locked until tx ends.
func ClaimPaymentCancels(ctx context.Context, tx pgx.Tx, b *Batch, methods []string, fn func(*PaymentCancel) error) error {
	what := fmt.Sprintf("payments to cancel in the file of payment batch %d", b.ID)
	rows, err := tx.Query(ctx, `
		WITH claimed AS (
		    UPDATE payment_batch_transactions m SET cancel_batch_id = $3, updated_at = now()
		    FROM payment_batches pb
		    WHERE m.company_id = $1 AND pb.company_id = m.company_id AND pb.id = m.batch_id AND pb.account_id = $2
		      AND m.state = 'reverted' AND m.cancel_batch_id IS NULL AND ($4::text[] IS NULL OR m.method = any($4))
		    RETURNING m.id, m.batch_id, coalesce(m.transaction_id, 0) AS transaction_id, m.reference, m.method,
		              (m.amount * 100)::bigint AS amount, (m.nominal * 100)::bigint AS nominal,
		              (m.discount * 100)::bigint AS discount, (m.surcharge * 100)::bigint AS surcharge, m.due_date,
		              m.file_order, pb.closed_at, m.payee_name, m.payee_document, coalesce(m.bank, '') AS bank,
		              coalesce(m.ispb, '') AS ispb, coalesce(m.agency, '') AS agency,
		              coalesce(m.agency_digit, '') AS agency_digit, coalesce(m.account, '') AS account,
		              coalesce(m.account_digit, '') AS account_digit, coalesce(m.account_type, '') AS account_type,
		              coalesce(m.pix_key, '') AS pix_key, coalesce(m.pix_key_type, '') AS pix_key_type,
		              coalesce(m.barcode, '') AS barcode)
		SELECT c.id, c.batch_id, c.transaction_id, c.reference, c.method, c.amount, c.nominal, c.discount, c.surcharge,
		       c.due_date, greatest(c.due_date, (c.closed_at AT TIME ZONE coalesce(co.time_zone, 'America/Sao_Paulo'))::date),
		       c.file_order, c.payee_name, c.payee_document, c.bank, c.ispb, c.agency, c.agency_digit, c.account,
		       c.account_digit, c.account_type, c.pix_key, c.pix_key_type, c.barcode
		FROM claimed c JOIN companies co ON co.id = $1
		ORDER BY c.file_order, c.id`, b.CompanyID, b.AccountID, b.ID, methods)
	if err != nil {
		return translate(err, what)
	}
	defer rows.Close()
	var c PaymentCancel
	var amount, nominal, discount, surcharge int64
	for rows.Next() {
		m := &c.PaymentMember
		if err := rows.Scan(&c.MemberID, &c.BatchID, &m.TransactionID, &m.Reference, &m.Method, &amount, &nominal,
			&discount, &surcharge, &m.Due, &c.Day, &m.FileOrder, &m.PayeeName, &m.PayeeDocument, &m.Bank, &m.ISPB,
			&m.Agency, &m.AgencyDigit, &m.Account, &m.AccountDigit, &m.AccountType, &m.PIXKey, &m.PIXKeyType,
			&m.Barcode); err != nil {
			return translate(err, what)
		}
		m.Amount, m.Nominal, m.Discount, m.Surcharge = cents(amount), cents(nominal), cents(discount), cents(surcharge)
		if err := fn(&c); err != nil {
			return err
		}
	}
	return translate(rows.Err(), what)
}

// ReleasePaymentCancels takes back the claim of batch b's file on
// payments (member ids) it could not carry: a later file asks for them.
func ReleasePaymentCancels(ctx context.Context, tx pgx.Tx, b *Batch, members []int64) error {
	if len(members) == 0 {
		return nil
	}
	_, err := tx.Exec(ctx, `UPDATE payment_batch_transactions SET cancel_batch_id = NULL, updated_at = now()
		WHERE company_id = $1 AND id = any($2) AND cancel_batch_id = $3`, withValues, b.CompanyID, members, b.ID)
	return translate(err, fmt.Sprintf("payments to cancel in the file of payment batch %d", b.ID))
}
