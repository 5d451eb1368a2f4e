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
// the bank, the layout and the agreement's fields.
var accountTermColumns = []string{"bank", "layout", "agency", "agency_digit", "account", "account_digit",
	"wallet", "wallet_variation", "covenant", "transmission_code", "station", "modality"}

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

// remittanceKinds are the kinds of batch an account may send remittances
// for, collection first: its problems are the ones an account fitting no
// kind is refused with.
var remittanceKinds = []*BatchType{TicketBatch, PaymentBatch}

// checkRemittanceAccount is the hook of the accounts: an account with a
// layout is one that sends remittances, so it must be able to send those
// of a collection batch (its bank and layout a pair written here, with the
// columns that layout requires) or of a payment batch (a payment bank, in
// cnab240); otherwise the write is a 422 naming the columns to fix, with
// the collection rule's reasons. It runs on create and on an update that
// gives any of the columns the rules read, so that an account stored
// before the rule can still have its description changed.
func checkRemittanceAccount(_ context.Context, _ pgx.Tx, c *Change) error {
	if c.Op == OpDelete || c.Op == OpUpdate && !givesAny(c, accountTermColumns) {
		return nil
	}
	terms := termsAfter(c)
	if terms.Get("layout") == "" {
		return nil
	}
	var first []finance.Problem
	for _, bt := range remittanceKinds {
		ps := bt.AccountProblems(terms)
		if len(ps) == 0 {
			return nil
		}
		if first == nil {
			first = ps
		}
	}
	return finance.InvalidInput(first)
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
