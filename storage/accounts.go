package storage

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// The bank accounts as a remittance, a slip and a return file read them:
// the bank, layout and agreement with the business they are in the name
// of, and the accounts of a bank.

// BankAccount is an account as a remittance and a slip need it: the bank
// and layout, the branch and account numbers, the collection agreement,
// and its business (the beneficiary).
type BankAccount struct {
	ID               int64
	Bank, Layout     string // "341", "cnab400"
	Agency           string
	AgencyDigit      string
	Account          string
	AccountDigit     string
	Wallet           string
	WalletVariation  string
	Covenant         string
	TransmissionCode string
	Station          string
	Modality         string
	BusinessID       int64
	BusinessName     string
	BusinessTaxID    string
}

// Business is the account's business as a remittance names it.
func (a *BankAccount) Business() AccountBusiness {
	return AccountBusiness{ID: a.BusinessID, Name: a.BusinessName, TaxID: a.BusinessTaxID}
}

// ReadBankAccount reads an account of the company with its business.
func ReadBankAccount(ctx context.Context, q DBTX, companyID, id int64) (*BankAccount, error) {
	a := &BankAccount{ID: id}
	err := q.QueryRow(ctx, `SELECT coalesce(a.bank, ''), coalesce(a.layout, ''), coalesce(a.agency, ''),
		coalesce(a.agency_digit, ''), coalesce(a.account, ''), coalesce(a.account_digit, ''), coalesce(a.wallet, ''),
		coalesce(a.wallet_variation, ''), coalesce(a.covenant, ''), coalesce(a.transmission_code, ''),
		coalesce(a.station, ''), coalesce(a.modality, ''), b.id, b.name, coalesce(b.tax_id, '')
		FROM accounts a JOIN businesses b ON b.company_id = a.company_id AND b.id = a.business_id
		WHERE a.company_id = $1 AND a.id = $2`, companyID, id).Scan(&a.Bank, &a.Layout, &a.Agency, &a.AgencyDigit,
		&a.Account, &a.AccountDigit, &a.Wallet, &a.WalletVariation, &a.Covenant, &a.TransmissionCode, &a.Station,
		&a.Modality, &a.BusinessID, &a.BusinessName, &a.BusinessTaxID)
	if err != nil {
		return nil, translate(err, fmt.Sprintf("account %d", id))
	}
	return a, nil
}

// PaymentAccount is the account a payment batch pays from, as a payment
// remittance needs it: the bank account, the payment agreement's code and
// the business's address.
type PaymentAccount struct {
	BankAccount
	PaymentCovenant                                        string
	Street, Number, Complement, District, City, State, ZIP string
}

// ReadPaymentAccount reads an account of the company with its business.
func ReadPaymentAccount(ctx context.Context, q DBTX, companyID, id int64) (*PaymentAccount, error) {
	acc, err := ReadBankAccount(ctx, q, companyID, id)
	if err != nil {
		return nil, err
	}
	a := &PaymentAccount{BankAccount: *acc}
	err = q.QueryRow(ctx, `SELECT coalesce(a.payment_covenant, ''), coalesce(b.street, ''), coalesce(b.number, ''),
		coalesce(b.complement, ''), coalesce(b.district, ''), coalesce(b.city, ''), coalesce(b.state, ''),
		coalesce(b.zip_code, '')
		FROM accounts a JOIN businesses b ON b.company_id = a.company_id AND b.id = a.business_id
		WHERE a.company_id = $1 AND a.id = $2`, companyID, id).Scan(&a.PaymentCovenant, &a.Street, &a.Number,
		&a.Complement, &a.District, &a.City, &a.State, &a.ZIP)
	if err != nil {
		return nil, translate(err, fmt.Sprintf("payment account %d", id))
	}
	return a, nil
}

// AccountsOfBank lists the company's accounts at a bank.
func AccountsOfBank(ctx context.Context, q DBTX, companyID int64, bank string) ([]int64, error) {
	rows, err := q.Query(ctx, `SELECT id FROM accounts WHERE company_id = $1 AND bank = $2 ORDER BY id`, companyID, bank)
	if err != nil {
		return nil, translate(err, "accounts of bank "+bank)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	return ids, translate(err, "accounts of bank "+bank)
}

// AccountBank is an account of the company and its bank ("" when none is
// set).
type AccountBank struct {
	ID   int64
	Bank string
}

// AccountBanks lists the company's accounts with their banks, in id
// order: what a return file of a bank where the company has no account is
// refused with.
func AccountBanks(ctx context.Context, q DBTX, companyID int64) ([]AccountBank, error) {
	rows, err := q.Query(ctx, `SELECT id, coalesce(bank, '') FROM accounts WHERE company_id = $1 ORDER BY id`, companyID)
	if err != nil {
		return nil, translate(err, "accounts")
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[AccountBank])
	return out, translate(err, "accounts")
}

// SharedAgreements lists the company's accounts at a bank that share their
// agreement (accounts.numbering, and with it their titles' numbers) with
// another, each agreement's accounts together in id order: only the bank,
// agency, account, wallet and covenant are read.
func SharedAgreements(ctx context.Context, q DBTX, companyID int64, bank string) ([][]BankAccount, error) {
	rows, err := q.Query(ctx, `SELECT id, numbering, coalesce(agency, ''), coalesce(agency_digit, ''), coalesce(account, ''),
		coalesce(account_digit, ''), coalesce(wallet, ''), coalesce(covenant, '')
		FROM accounts WHERE company_id = $1 AND bank = $2 AND numbering IN (
		    SELECT numbering FROM accounts WHERE company_id = $1 AND bank = $2 GROUP BY numbering HAVING count(*) > 1)
		ORDER BY numbering, id`, companyID, bank)
	if err != nil {
		return nil, translate(err, "shared agreements at bank "+bank)
	}
	defer rows.Close()
	var out [][]BankAccount
	last := ""
	for rows.Next() {
		a := BankAccount{Bank: bank}
		var numbering string
		if err := rows.Scan(&a.ID, &numbering, &a.Agency, &a.AgencyDigit, &a.Account, &a.AccountDigit, &a.Wallet,
			&a.Covenant); err != nil {
			return nil, translate(err, "shared agreements at bank "+bank)
		}
		if len(out) == 0 || numbering != last {
			out = append(out, nil)
		}
		out[len(out)-1], last = append(out[len(out)-1], a), numbering
	}
	return out, translate(rows.Err(), "shared agreements at bank "+bank)
}
