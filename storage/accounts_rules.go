package storage

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
)

// Write rules of the bank accounts (docs/api.md, "/financial/accounts"),
// run as hooks in the write's transaction: an account is checked when it
// is written, against the same rules a batch of it is checked against
// later (BatchType.AccountProblems), so that a batch does not fail on an
// account accepted before.

// accountTermColumns are the accounts columns the remittance rules read:
// the bank, the layout and the agreements' fields (the collection
// agreement's, and the payment agreement's code).
var accountTermColumns = []string{"bank", "layout", "agency", "agency_digit", "account", "account_digit",
	"wallet", "wallet_variation", "covenant", "transmission_code", "station", "modality", "payment_covenant"}

// AccountTerms are an account's bank, layout and agreement as the
// remittance rules read them: accounts columns by name (those of
// accountTermColumns), "" when not set.
type AccountTerms map[string]string

// Get is a column's value, blanks trimmed.
func (a AccountTerms) Get(column string) string { return strings.TrimSpace(a[column]) }

// Terms are the account's terms, as the remittance rules read them.
func (a *BankAccount) Terms() AccountTerms {
	return AccountTerms{"bank": a.Bank, "layout": a.Layout, "agency": a.Agency, "agency_digit": a.AgencyDigit,
		"account": a.Account, "account_digit": a.AccountDigit, "wallet": a.Wallet, "wallet_variation": a.WalletVariation,
		"covenant": a.Covenant, "transmission_code": a.TransmissionCode, "station": a.Station, "modality": a.Modality}
}

// Terms are the account's terms, as the remittance rules read them, its
// payment agreement's code among them.
func (a *PaymentAccount) Terms() AccountTerms {
	terms := a.BankAccount.Terms()
	terms["payment_covenant"] = a.PaymentCovenant
	return terms
}

// readAccountTerms reads the terms of an account of the company; found is
// false when the company has no such account.
func readAccountTerms(ctx context.Context, q DBTX, companyID int64, id any) (terms AccountTerms, found bool, err error) {
	values := make([]string, len(accountTermColumns))
	targets := make([]any, len(values))
	cols := make([]string, len(values))
	for i, col := range accountTermColumns {
		targets[i], cols[i] = &values[i], "coalesce("+ident(col)+", '')"
	}
	err = q.QueryRow(ctx, `SELECT `+strings.Join(cols, ", ")+` FROM accounts WHERE company_id = $1 AND id = $2`,
		companyID, id).Scan(targets...)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("terms of account %v: %w", id, err)
	}
	terms = make(AccountTerms, len(values))
	for i, col := range accountTermColumns {
		terms[col] = values[i]
	}
	return terms, true, nil
}

// termsAfter are the terms an account has once the write is done: the
// values it sets, else the stored ones.
func termsAfter(c *Change) AccountTerms {
	terms := make(AccountTerms, len(accountTermColumns))
	for _, col := range accountTermColumns {
		if v, ok := c.Value(col).(string); ok {
			terms[col] = v
		}
	}
	return terms
}

// checkRemittanceAccount is the hook of the accounts: an account with a
// layout (the collection layout) is one that sends collection
// remittances, so it must be able to send those of a collection batch
// (its bank and layout a pair written here, with the columns that layout
// requires); otherwise the write is a 422 naming the columns to fix. An
// account in cnab240 that pays only (no wallet, say) passes too when it
// can send payment remittances (a payment bank with the columns its
// payment header carries), as payment-only accounts were written before
// the layout was only the collection's; one without a layout is not
// checked here (a payment batch checks its account when it is created).
// It runs on create and on an update that gives any of the columns the
// rules read, so that an account stored before the rule can still have
// its description changed.
func checkRemittanceAccount(_ context.Context, _ pgx.Tx, c *Change) error {
	if c.Op == OpDelete || c.Op == OpUpdate && !givesAny(c, accountTermColumns) {
		return nil
	}
	terms := termsAfter(c)
	if terms.Get("layout") == "" {
		return nil
	}
	ps := TicketBatch.AccountProblems(terms)
	if len(ps) == 0 || terms.Get("layout") == "cnab240" && len(PaymentBatch.AccountProblems(terms)) == 0 {
		return nil
	}
	return finance.InvalidInput(ps)
}

// givesAny reports whether the write sets one of columns.
func givesAny(c *Change, columns []string) bool {
	for _, col := range columns {
		if c.Given(col) {
			return true
		}
	}
	return false
}

// ProblemsText joins problems into one sentence, each as "field:
// message", for a problem that names them on one field (account_id).
func ProblemsText(ps []finance.Problem) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.Field + ": " + p.Message
	}
	return strings.Join(parts, "; ")
}

// numberingColumns are the accounts columns that make its agreement at
// the bank (accounts.numbering: migration 0046), whose accounts share one
// nosso número counter.
var numberingColumns = []string{"bank", "agency", "account", "wallet", "covenant", "station"}

// memoNumbering keeps an account's agreement before an update, for
// joinNumbering.
const memoNumbering = "numbering"

// rememberNumbering is the before hook that reads the agreement an
// account is of before an update that gives its fields (its row is locked
// by the write already).
func rememberNumbering(ctx context.Context, tx pgx.Tx, c *Change) error {
	if c.Op != OpUpdate || !givesAny(c, numberingColumns) {
		return nil
	}
	var numbering *string
	if err := tx.QueryRow(ctx, `SELECT numbering FROM accounts WHERE company_id = $1 AND id = $2`,
		c.Scope.CompanyID, c.ID).Scan(&numbering); err != nil {
		return translate(err, fmt.Sprintf("agreement of account %d", c.ID))
	}
	c.Remember(memoNumbering, numbering)
	return nil
}

// joinNumbering is the after hook that has an account joining an
// agreement (created with its fields, or updated into them) go on with
// its counter. An account updated into an agreement may have given
// titles already: the agreement's counter is raised to its next number,
// under the counter's lock (taken after the account's row, as no write
// taking titles' numbers holds the counter while it waits for an account
// being written here), so that no account of the agreement gives a number
// it gave. Each account shows the agreement's next number (the others
// when they next take numbers). An update that leaves the agreement as it
// was takes no lock.
func joinNumbering(ctx context.Context, tx pgx.Tx, c *Change) error {
	if c.Op == OpDelete || c.Op == OpUpdate && !givesAny(c, numberingColumns) {
		return nil
	}
	var numbering *string
	var next int64
	if err := tx.QueryRow(ctx, `SELECT numbering, next_nosso_numero FROM accounts WHERE company_id = $1 AND id = $2`,
		c.Scope.CompanyID, c.ID).Scan(&numbering, &next); err != nil {
		return translate(err, fmt.Sprintf("agreement of account %d", c.ID))
	}
	before, _ := c.Memo[memoNumbering].(*string)
	if numbering == nil || before != nil && *before == *numbering {
		return nil
	}
	shared := next
	var err error
	if c.Op == OpCreate {
		// a new account has given nothing: it reads the counter only
		err = tx.QueryRow(ctx, `SELECT greatest($3::bigint, coalesce(max(next_nosso_numero), 0)) FROM nosso_numero_counters
			WHERE company_id = $1 AND numbering = $2`, c.Scope.CompanyID, *numbering, next).Scan(&shared)
	} else {
		err = tx.QueryRow(ctx, `INSERT INTO nosso_numero_counters AS c (company_id, numbering, next_nosso_numero)
			SELECT $1, $2, greatest($3::bigint, coalesce(max(next_nosso_numero), 1)) FROM accounts
			WHERE company_id = $1 AND numbering = $2
			ON CONFLICT (company_id, numbering) DO UPDATE
			SET next_nosso_numero = greatest(c.next_nosso_numero, excluded.next_nosso_numero), updated_at = now()
			RETURNING next_nosso_numero`, c.Scope.CompanyID, *numbering, next).Scan(&shared)
	}
	if err != nil {
		return translate(err, fmt.Sprintf("agreement of account %d", c.ID))
	}
	if shared == next {
		return nil
	}
	_, err = tx.Exec(ctx, `UPDATE accounts SET next_nosso_numero = $3 WHERE company_id = $1 AND id = $2`,
		c.Scope.CompanyID, c.ID, shared)
	return translate(err, fmt.Sprintf("agreement of account %d", c.ID))
}
