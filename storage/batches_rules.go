package storage

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/pix"
)

// Write rules of the batches (docs/api.md, "Batches"), run as hooks in the
// write's transaction.

// checkBatchAccount is the hook of a batch type's batches: it requires,
// on create, an account (already known to be the company's) that can send
// the kind's remittances (BatchType.AccountProblems: the columns to fix)
// and whose business they can name (BatchType.BusinessProblems: its name
// and CPF or CNPJ); a 422 naming account_id, with the account and every
// reason, one problem for the account's columns and one for its business.
func checkBatchAccount(bt *BatchType) Hook {
	return func(ctx context.Context, tx pgx.Tx, c *Change) error {
		id, given := c.New.Values["account_id"]
		if c.Op != OpCreate || !given || id == nil {
			return nil
		}
		terms, found, err := readAccountTerms(ctx, tx, c.Scope.CompanyID, id)
		if err != nil {
			return fmt.Errorf("account of a %s: %w", bt.Label, err)
		}
		if !found {
			return nil // the reference check names it
		}
		var problems []finance.Problem
		if ps := bt.AccountProblems(terms); len(ps) > 0 {
			problems = append(problems, finance.Problem{Field: "account_id", Message: fmt.Sprintf(
				"account %v cannot send the remittances of a %s: %s", id, bt.Label, ProblemsText(ps))})
		}
		business, err := readAccountBusiness(ctx, tx, c.Scope.CompanyID, id)
		if err != nil {
			return fmt.Errorf("account of a %s: %w", bt.Label, err)
		}
		if p, refused := bt.AccountBusinessProblem(id, business); refused {
			problems = append(problems, p)
		}
		if len(problems) > 0 {
			return finance.InvalidInput(problems)
		}
		return nil
	}
}

// AccountBusiness is the business an account is of, as a remittance's
// header names it: its payer (a payment batch's) or its beneficiary (a
// collection batch's).
type AccountBusiness struct {
	ID          int64
	Name, TaxID string
}

// readAccountBusiness reads the business of an account of the company.
func readAccountBusiness(ctx context.Context, q DBTX, companyID int64, account any) (AccountBusiness, error) {
	var b AccountBusiness
	err := q.QueryRow(ctx, `SELECT b.id, b.name, coalesce(b.tax_id, '') FROM accounts a
		JOIN businesses b ON b.company_id = a.company_id AND b.id = a.business_id
		WHERE a.company_id = $1 AND a.id = $2`, companyID, account).Scan(&b.ID, &b.Name, &b.TaxID)
	if err != nil {
		return b, fmt.Errorf("business of account %v: %w", account, err)
	}
	return b, nil
}

// BusinessProblems says why the kind's remittances cannot name the
// business as their remitter, by the business's column to fix; none when
// they can. The rule is their file writers' (cnab and cnab/pagamento,
// checkRemittance; package jobs's tests hold it to them): a name, and a
// valid CPF or CNPJ once its punctuation is taken away (a business's
// tax_id is a CNPJ, the file names the legal entity that collects or
// pays).
func (bt *BatchType) BusinessProblems(b AccountBusiness) []finance.Problem {
	var ps []finance.Problem
	if strings.TrimSpace(b.Name) == "" {
		ps = append(ps, finance.Problem{Field: "name", Message: "not set"})
	}
	switch doc := remittanceDocument(b.TaxID); {
	case doc == "":
		ps = append(ps, finance.Problem{Field: "tax_id", Message: "not set"})
	case !pix.ValidTaxID(doc):
		ps = append(ps, finance.Problem{Field: "tax_id", Message: fmt.Sprintf("%q is not a valid CNPJ", b.TaxID)})
	}
	return ps
}

// AccountBusinessProblem is the problem, on account_id, of account
// whose business the kind's remittances cannot name
// (BatchType.BusinessProblems): the business, what it lacks, and where
// to set it; false when they can name it.
func (bt *BatchType) AccountBusinessProblem(account any, b AccountBusiness) (finance.Problem, bool) {
	ps := bt.BusinessProblems(b)
	if len(ps) == 0 {
		return finance.Problem{}, false
	}
	return finance.Problem{Field: "account_id", Message: fmt.Sprintf("account %v is of business %d (%s), whose name and "+
		"CNPJ the remittances of a %s carry as their %s's: %s; set it (PUT /financial/businesses/%d)", account, b.ID, b.Name,
		bt.Label, bt.Remitter, ProblemsText(ps), b.ID)}, true
}

// remittanceDocument is a tax id as the file writers read it: its ASCII
// letters and digits, the letters upper-cased (an alphanumeric CNPJ), the
// rest (punctuation, blanks) dropped.
func remittanceDocument(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case '0' <= r && r <= '9', 'A' <= r && r <= 'Z':
			return r
		case 'a' <= r && r <= 'z':
			return r - 'a' + 'A'
		}
		return -1
	}, s)
}

// deleteBatch is the hook of a batch type's batches: it refuses (409) to
// delete a batch whose file is written (the bank has its titles or
// payments: revert them instead), and takes the members out of an open
// one first, as the remove operation does.
func deleteBatch(bt *BatchType) Hook {
	return func(ctx context.Context, tx pgx.Tx, c *Change) error {
		if c.Op != OpDelete {
			return nil
		}
		if c.OldValue("status") != "open" {
			return finance.Errorf(finance.Conflict, "The batch's file is written: the batch is kept; take its %s back with revert%s.",
				bt.Members, capitalized(bt.Members))
		}
		b, err := LockBatch(ctx, tx, bt, c.Scope.CompanyID, c.ID)
		if err != nil {
			return err
		}
		_, err = RemoveMembers(ctx, tx, b, ActorOf(c.Scope), nil)
		return err
	}
}

// FrozenInBatch is the hook of a batch type's member records: it refuses
// (409) a change of the columns the record's place in a batch depends on
// (BatchType.Frozen), and its delete, while it is in a batch (added or
// sent). A slip or a bank's payment would no longer be the record's: an
// invoice's title carries its amount and due date; an entry's payment
// what is paid and to whom, or it would be paid twice.
func FrozenInBatch(bt *BatchType) Hook {
	remove := "remove" + capitalized(bt.Members)
	revert := "revert" + capitalized(bt.Members)
	return func(ctx context.Context, tx pgx.Tx, c *Change) error {
		if c.Op == OpCreate {
			return nil
		}
		var changed []string
		if c.Op == OpUpdate {
			for _, col := range bt.Frozen {
				if c.Changed(col) {
					changed = append(changed, col)
				}
			}
			if len(changed) == 0 {
				return nil
			}
		}
		var batch int64
		var status string
		err := tx.QueryRow(ctx, `SELECT m.batch_id, b.status FROM `+bt.MemberTable+` m
			JOIN `+bt.Table+` b ON b.company_id = m.company_id AND b.id = m.batch_id
			WHERE m.company_id = $1 AND m.`+bt.MemberColumn+` = $2 AND m.state = 'added'`, c.Scope.CompanyID, c.ID).Scan(&batch, &status)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s of %s %d: %w", bt.Label, bt.Noun, c.ID, err)
		}
		how := "remove it from the batch (" + remove + ")"
		if status == "closed" {
			how = "revert it in the batch (" + revert + ")"
		}
		if c.Op == OpDelete {
			return finance.Errorf(finance.Conflict, "The %s is in %s %d: %s before deleting it.", bt.Noun, bt.Label, batch, how)
		}
		return finance.Errorf(finance.Conflict, "The %s is in %s %d: its %s cannot change; %s first.",
			bt.Noun, bt.Label, batch, strings.Join(changed, ", "), how)
	}
}
