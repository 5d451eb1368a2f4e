package storage

import (
	"context"
	"crypto/rand"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"
)

// The ledger of spec 001: the transaction-item catalogue
// (/financial/transactionItems), the ledger entries (/transactions) and
// their files (/transactions/{transaction}/files). docs/api.md has the
// meaning of every filter.

// Resource names of the ledger.
const (
	TransactionItems = "transaction_items"
	Transactions     = "transactions"
	TransactionFiles = "transaction_files"
)

// The resources the ledger points at that are declared elsewhere.
const (
	invoicesName  = "invoices"
	contractsName = "contracts"
)

// Enums of the ledger.
var (
	// Parties are who an item debits or credits, and whose statement
	// (extract) an entry sits on.
	Parties = []string{"business", "owner", "customer", "broker"}
	// ItemTypes are the kinds of transaction items.
	ItemTypes = []string{"default", "commission", "single_commission", "rent", "tariff", "fee", "discount", "duty", "iptu"}
	// ItemPurposes are what a transaction item is for.
	ItemPurposes = []string{"rent", "sale", "subscription"}
	// EntryModes are how a ledger entry came to be.
	EntryModes = []string{"transaction", "invoice", "transfer", "commission", "transfer_commission", "guaranteed_rent", "chargeback"}
	// EntryTypes are the sides of a ledger entry.
	EntryTypes = []string{"debit", "credit", "transfer"}
	// ContractTypes and ContractActivities are the contracts' type and
	// active enums, as the ledger's filters take them.
	ContractTypes      = []string{"rent", "season", "sale", "subscription"}
	ContractActivities = []string{"active", "pre_reserved", "reserved", "suspended", "canceled", "finished"}
)

// Periodicity is the step between two installments of a recurring entry.
type Periodicity struct {
	Months, Days int
}

// Periodicities are the recurrency_periodicity values a recurring entry
// takes, with their steps.
var Periodicities = map[string]Periodicity{
	"weekly":     {Days: 7},
	"biweekly":   {Days: 14},
	"monthly":    {Months: 1},
	"bimonthly":  {Months: 2},
	"quarterly":  {Months: 3},
	"semiannual": {Months: 6},
	"yearly":     {Months: 12},
}

// periodicityNames lists Periodicities' keys from the shortest step.
var periodicityNames = []string{"weekly", "biweekly", "monthly", "bimonthly", "quarterly", "semiannual", "yearly"}

// postedModes are the modes of the entries an invoice payment posts: with
// their invoice set, they are the book and only undoing the payment
// changes them.
var postedModes = []string{"invoice", "chargeback"}

func transactionItemsResource() *Resource {
	return &Resource{
		Name: TransactionItems, Table: "transaction_items", CustomFields: true,
		Columns: columns([]Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "description", Type: String, Filterable: true, Writable: true, Required: true},
			{Name: "debit", Type: String, Filterable: true, Writable: true, Enum: Parties},
			{Name: "credit", Type: String, Filterable: true, Writable: true, Enum: Parties},
			{Name: "type", Type: String, Filterable: true, Writable: true, Enum: ItemTypes},
			{Name: "purpose", Type: String, Filterable: true, Writable: true, Enum: ItemPurposes},
			{Name: "active", Type: Bool, Filterable: true, Writable: true},
			{Name: "guaranteed_transfer", Type: Bool, Filterable: true, Writable: true},
			{Name: "owner_report", Type: Bool, Filterable: true, Writable: true},
			{Name: "readjust", Type: Bool, Filterable: true, Writable: true},
			{Name: "fiscal_note", Type: Bool, Filterable: true, Writable: true},
			{Name: "dimob", Type: Bool, Filterable: true, Writable: true},
			{Name: "blocked", Type: Bool, Filterable: true, Writable: true},
			{Name: "debit_plan_id", Type: Int, Filterable: true, Writable: true, References: Plans},
			{Name: "credit_plan_id", Type: Int, Filterable: true, Writable: true, References: Plans},
		}, timestampColumns()),
		Relations: []Relation{
			{Name: "debitPlan", Kind: BelongsTo, Resource: Plans, Key: "debit_plan_id"},
			{Name: "creditPlan", Kind: BelongsTo, Resource: Plans, Key: "credit_plan_id"},
			{Name: "transactions", Kind: HasMany, Resource: Transactions, Key: "item_id"},
		},
		Filters: []SpecialFilter{
			EnumIn("typeIn", "type", ItemTypes),
			EnumIn("debitIn", "debit", Parties),
			EnumIn("creditIn", "credit", Parties),
			EnumIn("purposeIn", "purpose", ItemPurposes),
			Predicate("withReadjust", holds("readjust")),
			Predicate("generatesFiscalNote", holds("fiscal_note")),
			Predicate("onlyRent", equals("purpose", "rent")),
			Predicate("onlySale", equals("purpose", "sale")),
			involvedIn(),
		},
		Hooks: Hooks{Before: []Hook{refuseUsedItem}},
	}
}

// involvedIn is filter[involvedIn][]: the items debiting or crediting one
// of the parties.
func involvedIn() SpecialFilter {
	f := AnyColumnIn("involvedIn", String, "debit", "credit")
	f.Enum = Parties
	return f
}

// holds is a predicate's condition that a boolean column holds.
func holds(name string) func(*FilterSQL) string {
	return func(*FilterSQL) string { return ident(name) }
}

// equals is a predicate's condition that a column has a fixed value (a
// declared constant, never a request's).
func equals(name, value string) func(*FilterSQL) string {
	return func(*FilterSQL) string { return ident(name) + " = '" + value + "'" }
}

// refuseUsedItem refuses to delete a transaction item that invoice lines,
// ledger entries or invoices (as their late-fee item) still use, saying
// which: the foreign keys would refuse it anyway, with a message naming
// nothing. The item's row is locked by then, so no new use can slip in.
func refuseUsedItem(ctx context.Context, tx pgx.Tx, c *Change) error {
	if c.Op != OpDelete {
		return nil
	}
	var lines, entries, invoices int64
	err := tx.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM invoice_items WHERE company_id = $1 AND item_id = $2),
		(SELECT count(*) FROM transactions WHERE company_id = $1 AND (item_id = $2 OR commission_item_id = $2)),
		(SELECT count(*) FROM invoices WHERE company_id = $1 AND ticket_late_fee_item_id = $2)`,
		c.Scope.CompanyID, c.ID).Scan(&lines, &entries, &invoices)
	if err != nil {
		return fmt.Errorf("count uses of item %d: %w", c.ID, err)
	}
	var uses []string
	for _, u := range []struct {
		n           int64
		one, plural string
	}{
		{lines, "invoice line", "invoice lines"},
		{entries, "ledger entry", "ledger entries"},
		{invoices, "invoice as its late-fee item", "invoices as their late-fee item"},
	} {
		switch {
		case u.n == 1:
			uses = append(uses, "1 "+u.one)
		case u.n > 1:
			uses = append(uses, fmt.Sprintf("%d %s", u.n, u.plural))
		}
	}
	if len(uses) == 0 {
		return nil
	}
	return Errorf(Conflict, "The transaction item is used by %s and was not deleted; set active to false to stop using it.",
		strings.Join(uses, " and "))
}

func transactionsResource() *Resource {
	money := func(name string) Column {
		return Column{Name: name, Type: Decimal, Filterable: true, Writable: true, Precision: 14, Scale: 2}
	}
	ref := func(name, resource string) Column {
		return Column{Name: name, Type: Int, Filterable: true, Writable: true, References: resource}
	}
	return &Resource{
		Name: Transactions, Table: "transactions", CustomFields: true,
		Columns: columns([]Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "company_id", Type: Int, Filterable: true},
			{Name: "split", Type: String, Filterable: true},
			ref("invoice_id", invoicesName),
			{Name: "transfer_id", Type: Int, Filterable: true},
			{Name: "morph_key", Type: String, Filterable: true},
			{Name: "mode", Type: String, Filterable: true, Writable: true, Enum: EntryModes},
			{Name: "type", Type: String, Filterable: true, Writable: true, Required: true, Enum: EntryTypes},
			ref("account_id", Accounts),
			ref("business_id", Businesses),
			ref("plan_id", Plans),
			{Name: "user_id", Type: Int, Filterable: true},
			ref("item_id", TransactionItems),
			{Name: "guaranteed_transfer_id", Type: Int, Filterable: true},
			ref("person_id", Persons),
			ref("building_id", Buildings),
			ref("contract_id", contractsName),
			ref("broker_id", Persons),
			ref("owner_id", Persons),
			ref("tenant_id", Persons),
			// an extension of the spec's body: derived from the parties when
			// a create leaves it out (deriveExtract)
			{Name: "extract", Type: String, Filterable: true, Writable: true, Enum: Parties},
			{Name: "date", Type: Date, Filterable: true, Writable: true, Required: true},
			{Name: "position", Type: Int, Filterable: true},
			{Name: "amount", Type: Decimal, Filterable: true, Writable: true, Required: true, Precision: 14, Scale: 2},
			money("amount_primary"),
			{Name: "percentage", Type: Decimal, Filterable: true, Precision: 7, Scale: 4},
			// an extension of the spec's body, like extract
			{Name: "competence", Type: Date, Filterable: true, Writable: true},
			{Name: "description", Type: String, Filterable: true, Writable: true},
			{Name: "paid", Type: Bool, Filterable: true, Writable: true},
			{Name: "due_date", Type: Date, Filterable: true, Writable: true},
			{Name: "billing_method", Type: String, Filterable: true, Writable: true, Enum: BillingMethods},
			{Name: "tag", Type: IntArray, Filterable: true, Writable: true, References: Tags},
			{Name: "notes", Type: String, Filterable: true, Writable: true},
			money("interest"),
			money("discount"),
			{Name: "check_agency", Type: String, Filterable: true, Writable: true},
			{Name: "check_account", Type: String, Filterable: true, Writable: true},
			{Name: "check_id", Type: String, Filterable: true, Writable: true},
			{Name: "recurrency_periodicity", Type: String, Filterable: true, Writable: true, Enum: periodicityNames},
			{Name: "recurrency_total", Type: Int, Filterable: true, Writable: true},
			{Name: "recurrency_installment", Type: Int, Filterable: true, Writable: true},
			{Name: "commission", Type: Bool, Filterable: true, Writable: true},
			{Name: "commission_mode", Type: String, Filterable: true, Writable: true, Enum: []string{"fixed", "percentage"}},
			money("commission_fixed"),
			{Name: "commission_percentage", Type: Decimal, Filterable: true, Writable: true, Precision: 7, Scale: 4},
			ref("commission_item_id", TransactionItems),
			{Name: "commission_id", Type: Int, Filterable: true, Writable: true},
			{Name: "metadata", Type: JSONText, Writable: true},
			// the entry an undone payment's reversal reverses (read-only)
			{Name: "reverses_id", Type: Int, Filterable: true},
			// the boleto a payable entry is paid with (payment batches)
			{Name: "ticket_barcode", Type: String, Filterable: true, Writable: true, Check: checkBarcodeShape},
			// the day the entry is due by the rules (docs/api.md, "Defaults")
			Effective(Column{Name: "due_date", Type: Date, Filterable: true}, `"date"`),
		}, timestampColumns()),
		Relations: []Relation{
			{Name: "item", Kind: BelongsTo, Resource: TransactionItems, Key: "item_id"},
			{Name: "commissionItem", Kind: BelongsTo, Resource: TransactionItems, Key: "commission_item_id"},
			{Name: "contract", Kind: BelongsTo, Resource: contractsName, Key: "contract_id"},
			{Name: "owner", Kind: BelongsTo, Resource: Persons, Key: "owner_id"},
			{Name: "person", Kind: BelongsTo, Resource: Persons, Key: "person_id"},
			{Name: "tenant", Kind: BelongsTo, Resource: Persons, Key: "tenant_id"},
			{Name: "building", Kind: BelongsTo, Resource: Buildings, Key: "building_id"},
			{Name: "account", Kind: BelongsTo, Resource: Accounts, Key: "account_id"},
			{Name: "plan", Kind: BelongsTo, Resource: Plans, Key: "plan_id"},
			{Name: "invoice", Kind: BelongsTo, Resource: invoicesName, Key: "invoice_id"},
			{Name: "files", Kind: HasMany, Resource: TransactionFiles, Key: "transaction_id"},
			{Name: "tags", Kind: InArray, Resource: Tags, Key: "tag"},
			// a transfer's: the entries it paid out (their transfer_id is it)
			{Name: "transferredBy", Kind: HasMany, Resource: Transactions, Key: "transfer_id"},
			// a paid-out entry's: every entry paid out by the same transfer
			{Name: "transferredItems", Kind: HasMany, Resource: Transactions, Key: "transfer_id", From: "transfer_id"},
		},
		Filters: transactionFilters(),
		Hooks: Hooks{
			Before: []Hook{refusePostedEntry, refuseTransferRunEntry, refusePostingMode, positiveAmount, prepareEntry, FrozenInBatch(PaymentBatch)},
			After:  []Hook{createInstallments},
		},
	}
}

// transactionFilesResource is a sub-resource of transactions
// (/transactions/{transaction}/files): the entry comes from the path.
func transactionFilesResource() *Resource {
	return &Resource{
		Name: TransactionFiles, Table: "transaction_files",
		Parent: &Parent{Resource: Transactions, Key: "transaction_id"},
		Columns: columns([]Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "transaction_id", Type: Int, Filterable: true},
			{Name: "name", Type: String, Filterable: true, Writable: true, Required: true},
			{Name: "url", Type: String, Filterable: true, Writable: true, Required: true},
			{Name: "content_type", Type: String, Filterable: true, Writable: true},
		}, timestampColumns()),
		Relations: []Relation{
			{Name: "transaction", Kind: BelongsTo, Resource: Transactions, Key: "transaction_id"},
		},
	}
}

// positiveAmount refuses (422 on amount) an entry of zero or less: an
// entry's amount is always positive, its type (debit, credit) gives the
// direction (docs/ledger.md).
func positiveAmount(_ context.Context, _ pgx.Tx, c *Change) error {
	v, given := c.New.Values["amount"]
	if c.Op == OpDelete || !given || v == nil {
		return nil
	}
	d, err := decimal.NewFromString(fmt.Sprint(v))
	if err != nil {
		return fmt.Errorf("amount %v: %w", v, err)
	}
	if !d.IsPositive() {
		return problem("amount", "must be more than zero: the type (debit or credit) gives the direction")
	}
	return nil
}

// refusePostedEntry refuses to change or delete an entry an invoice
// payment posted, or its reversal (modes invoice and chargeback, written by
// the posting alone): the book is changed by undoing the payment, which
// writes reversing entries. They stay protected once their invoice is
// deleted (invoice_id null).
func refusePostedEntry(_ context.Context, _ pgx.Tx, c *Change) error {
	if c.Op == OpCreate {
		return nil
	}
	mode, _ := c.OldValue("mode").(string)
	if slices.Contains(postedModes, mode) {
		return Errorf(Conflict, "This entry was posted from an invoice payment and cannot be %s; undo the invoice payment instead.",
			map[Op]string{OpUpdate: "changed", OpDelete: "deleted"}[c.Op])
	}
	return nil
}

// refuseTransferRunEntry refuses to change or delete an entry the
// owners' transfer run wrote (a transfer or a guaranteed transfer, keyed
// by transfer_key): the entries it paid out point at it, and the payment
// of a guaranteed invoice settles it (docs/ledger.md). A transfer or a
// guaranteed_rent entry made through the API stays editable.
func refuseTransferRunEntry(ctx context.Context, tx pgx.Tx, c *Change) error {
	if c.Op == OpCreate {
		return nil
	}
	if mode, _ := c.OldValue("mode").(string); mode != "transfer" && mode != "guaranteed_rent" {
		return nil
	}
	var byRun bool
	err := tx.QueryRow(ctx, `SELECT transfer_key IS NOT NULL FROM transactions WHERE company_id = $1 AND id = $2`,
		c.Scope.CompanyID, c.ID).Scan(&byRun)
	if err != nil {
		return fmt.Errorf("read entry %d: %w", c.ID, err)
	}
	if byRun {
		return Errorf(Conflict, "This entry was written by the owners' transfer run and cannot be %s.",
			map[Op]string{OpUpdate: "changed", OpDelete: "deleted"}[c.Op])
	}
	return nil
}

// refusePostingMode refuses (422 on mode) a create, or an update, that
// gives an entry the mode of a payment's posting (invoice, chargeback):
// those entries are written by PostInvoicePayment and
// UndoInvoicePayment only. An update sending the entry's current mode
// changes nothing and passes.
func refusePostingMode(_ context.Context, _ pgx.Tx, c *Change) error {
	if c.Op == OpDelete {
		return nil
	}
	mode, _ := c.New.Values["mode"].(string)
	if !slices.Contains(postedModes, mode) || (c.Op == OpUpdate && !c.Changed("mode")) {
		return nil
	}
	return InvalidInput([]Problem{{Field: "mode", Message: fmt.Sprintf(
		"%s entries are written by the payment posting of an invoice only (pay the invoice, or undo its payment); use another mode", mode)}})
}

// prepareEntry fills in, on create, what the body does not give: the
// acting user, the statement the entry sits on, and the numbering of a
// recurrence.
func prepareEntry(_ context.Context, _ pgx.Tx, c *Change) error {
	if c.Op != OpCreate {
		return nil
	}
	if c.Scope.UserID != 0 {
		c.Set("user_id", c.Scope.UserID)
	}
	if c.Value("extract") == nil {
		c.Set("extract", deriveExtract(c))
	}
	return prepareRecurrence(c)
}

// deriveExtract is the statement of an entry created without one: the
// owner's when it names an owner, else the broker's, else the customer's
// when it names a tenant, else the business's.
func deriveExtract(c *Change) string {
	switch {
	case c.Value("owner_id") != nil:
		return "owner"
	case c.Value("broker_id") != nil:
		return "broker"
	case c.Value("tenant_id") != nil:
		return "customer"
	}
	return "business"
}

// prepareRecurrence checks a recurring create (recurrency_total above 1)
// and numbers its first installment: a periodicity is required, the
// installment number is the recurrence's to give, and every installment
// shares one new split.
func prepareRecurrence(c *Change) error {
	total, _ := asInt64(c.Value("recurrency_total"))
	if total <= 1 {
		return nil
	}
	var problems []Problem
	if p, _ := c.Value("recurrency_periodicity").(string); p == "" {
		problems = append(problems, Problem{Field: "recurrency_periodicity",
			Message: "is required when recurrency_total is more than 1 (one of: " + strings.Join(periodicityNames, ", ") + ")"})
	}
	if _, given := c.New.Values["recurrency_installment"]; given {
		problems = append(problems, Problem{Field: "recurrency_installment",
			Message: "is numbered by the recurrence: leave it out when recurrency_total is more than 1"})
	}
	if len(problems) > 0 {
		return InvalidInput(problems)
	}
	split, err := newSplit()
	if err != nil {
		return err
	}
	c.Set("split", split)
	c.Set("recurrency_installment", int64(1))
	return nil
}

// newSplit is a new grouping id: a random UUID (version 4) as text.
func newSplit() (string, error) {
	var u [16]byte
	if _, err := rand.Read(u[:]); err != nil {
		return "", fmt.Errorf("new split: %w", err)
	}
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:]), nil
}

// checkLastInstallment refuses a recurrence whose last installment would
// have a date past 9999-12-31, which the API could not write back.
func checkLastInstallment(ctx context.Context, tx pgx.Tx, c *Change, step Periodicity, total int64) error {
	var past bool
	err := tx.QueryRow(ctx, `SELECT greatest(date, due_date, competence)
		+ make_interval(months => ($3::int - 1) * $4::int, days => ($3::int - 1) * $5::int) > '9999-12-31'
		FROM `+ident(c.Resource.Table)+` WHERE company_id = $1 AND id = $2`,
		c.Scope.CompanyID, c.ID, total, step.Months, step.Days).Scan(&past)
	if err != nil {
		return fmt.Errorf("check the last installment of %d: %w", c.ID, err)
	}
	if past {
		return InvalidInput([]Problem{{Field: "recurrency_total", Message: "the last installment would fall after 9999-12-31"}})
	}
	return nil
}

// installmentFixed are the columns an installment does not copy from the
// first one: its identity and timestamps, what the recurrence advances or
// numbers, and the boleto it is paid with (one installment's).
var installmentFixed = []string{"id", "company_id", "created_at", "updated_at", "date", "due_date", "competence", "recurrency_installment",
	"ticket_barcode"}

// createInstallments writes installments 2..N of a recurring create, in
// its transaction: copies of the first, with date, due date and
// competence advanced by the period times the installment's rank from the
// first's (so month ends clamp without drifting: Jan 31, Feb 28, Mar 31)
// and numbered 2..N.
func createInstallments(ctx context.Context, tx pgx.Tx, c *Change) error {
	if c.Op != OpCreate {
		return nil
	}
	total, _ := asInt64(c.Value("recurrency_total"))
	if total <= 1 {
		return nil
	}
	p, _ := c.Value("recurrency_periodicity").(string)
	step := Periodicities[p]
	if err := checkLastInstallment(ctx, tx, c, step, total); err != nil {
		return err
	}
	var copied []string
	for _, col := range c.Resource.Columns {
		if col.Expr == "" && !slices.Contains(installmentFixed, col.Name) {
			copied = append(copied, ident(col.Name))
		}
	}
	if c.Resource.CustomFields {
		copied = append(copied, "custom_fields")
	}
	advanced := func(col string) string {
		return "(t." + col + " + make_interval(months => s.k * $3::int, days => s.k * $4::int))::date"
	}
	sql := "INSERT INTO " + ident(c.Resource.Table) + " (company_id, date, due_date, competence, recurrency_installment, " +
		strings.Join(copied, ", ") + ") SELECT t.company_id, " + advanced("date") + ", " + advanced("due_date") + ", " +
		advanced("competence") + ", s.k + 1, t." + strings.Join(copied, ", t.") +
		" FROM " + ident(c.Resource.Table) + " t CROSS JOIN generate_series(1, $5::int - 1) AS s(k)" +
		" WHERE t.company_id = $1 AND t.id = $2 ORDER BY s.k"
	if _, err := tx.Exec(ctx, sql, c.Scope.CompanyID, c.ID, step.Months, step.Days, total); err != nil {
		return fmt.Errorf("create installments of %d: %w", c.ID, err)
	}
	return nil
}

// transactionFilters are the special filters of /transactions, each
// meaning as docs/api.md's "Transaction filters: what each means" says.
func transactionFilters() []SpecialFilter {
	return slices.Concat(entryPredicates(), partyPredicates(), entryLists(), relatedFilters())
}

// dueOn is the date an entry is due: its due date, else its date.
const dueOn = `coalesce("due_date", "date")`

// transferModes are the modes of the entries that pay a party out.
const transferModes = `"mode" IN ('transfer', 'transfer_commission')`

// bill is an expense of the business entered by hand: a payable account.
const bill = `"type" = 'debit' AND "mode" = 'transaction'`

// entryPredicates are the boolean filters on an entry's own columns.
func entryPredicates() []SpecialFilter {
	const (
		guaranteed = `"guaranteed_transfer_id" IS NOT NULL`
		commission = `("mode" IN ('commission', 'transfer_commission') OR "commission")`
	)
	return []SpecialFilter{
		Predicate("onlyVisible", func(f *FilterSQL) string {
			return `"reverses_id" IS NULL AND NOT EXISTS (SELECT 1 FROM transactions r WHERE r.company_id = ` + f.Company() +
				` AND r.reverses_id = "transactions"."id")`
		}),
		Predicate("transfer", constant(`"mode" = 'transfer'`)),
		Predicate("brokerTransfer", constant(`"mode" = 'transfer_commission'`)),
		Predicate("autoTransfer", constant(transferModes+` AND "user_id" IS NULL`)),
		Predicate("manualTransfer", constant(transferModes+` AND "user_id" IS NOT NULL`)),
		Predicate("bill", constant(bill)),
		Predicate("billPayment", constant(bill+` AND "paid"`)),
		Predicate("unpaid", constant(`NOT "paid"`)),
		Predicate("paidOrGuaranteed", constant(`"paid" OR `+guaranteed)),
		Predicate("paidGuaranteedOrTransfer", constant(`"paid" OR `+guaranteed+` OR `+transferModes)),
		Predicate("isNotInvoice", constant(`"invoice_id" IS NULL`)),
		Predicate("onlyInvoice", constant(`"invoice_id" IS NOT NULL`)),
		Predicate("onlyAllowed", func(f *FilterSQL) string {
			return `"user_id" IS NULL OR "user_id" = ` + f.User()
		}),
		Predicate("overdue", func(f *FilterSQL) string { return `NOT "paid" AND ` + pastDue(dueOn, f) }),
		Predicate("early", func(f *FilterSQL) string { return `NOT "paid" AND ` + notYetDue(dueOn, f) }),
		Predicate("brokerCommission", constant(commission+` AND "extract" = 'broker'`)),
		Scalar("status", String, []string{"paid", "unpaid"}, func(f *FilterSQL) string {
			return `"paid" = (` + f.Value() + ` = 'paid')`
		}),
		ColumnMin("positionMin", "position", Int),
		ColumnMax("positionMax", "position", Int),
	}
}

// partyPredicates are the statement filters (for<Party>) and the plan
// filters (<party>Plan).
func partyPredicates() []SpecialFilter {
	return []SpecialFilter{
		Predicate("forBusiness", constant(`"extract" = 'business'`)),
		Predicate("forOwner", constant(`"extract" = 'owner'`)),
		Predicate("forBroker", constant(`"extract" = 'broker'`)),
		Predicate("forTenant", constant(`"extract" = 'customer' AND "tenant_id" IS NOT NULL`)),
		Predicate("forPayer", constant(`"extract" = 'customer' AND "person_id" IS NOT NULL`)),
		Predicate("ownerPlan", partyPlan("owner")),
		Predicate("brokerPlan", partyPlan("broker")),
		Predicate("tenantPlan", partyPlan("customer")),
	}
}

// partyPlan: the entry's plan is one the item catalogue books party's side
// to (the debit plan of an item debiting party, or the credit plan of one
// crediting it). party is a declared constant.
func partyPlan(party string) func(*FilterSQL) string {
	return func(f *FilterSQL) string {
		c := f.Company()
		return `"plan_id" IN (SELECT debit_plan_id FROM transaction_items WHERE company_id = ` + c +
			` AND debit = '` + party + `' UNION SELECT credit_plan_id FROM transaction_items WHERE company_id = ` + c +
			` AND credit = '` + party + `')`
	}
}

// constant is a condition without placeholders.
func constant(sql string) func(*FilterSQL) string {
	return func(*FilterSQL) string { return sql }
}

// entryLists are the In-filters on an entry's own columns.
func entryLists() []SpecialFilter {
	typeInvoiceIn := SpecialFilter{Name: "typeInvoiceIn", Elem: String, Enum: EntryTypes, Condition: func(f *FilterSQL) string {
		return `"invoice_id" IS NOT NULL AND "type" = any(` + f.Value() + `)`
	}}
	return []SpecialFilter{
		ColumnIn("guaranteedTransferIn", "guaranteed_transfer_id", Int),
		ColumnIn("haveTransfer", "transfer_id", Int),
		ColumnIn("personIn", "person_id", Int),
		ColumnIn("tenantIn", "tenant_id", Int),
		ColumnIn("ownerIn", "owner_id", Int),
		ColumnIn("brokerIn", "broker_id", Int),
		ColumnIn("buildingIn", "building_id", Int),
		ColumnIn("accountIn", "account_id", Int),
		ColumnIn("businessIn", "business_id", Int),
		{Name: "businessAllowedIn", Elem: Int, Condition: func(f *FilterSQL) string {
			return `"business_id" IS NULL OR "business_id" = any(` + f.Value() + `)`
		}},
		ColumnIn("itemIn", "item_id", Int),
		ColumnIn("planIn", "plan_id", Int),
		TreeIn("planAllIn", "plan_id", "plans", "parent_id"),
		ColumnIn("contractIn", "contract_id", Int),
		ColumnIn("invoiceIn", "invoice_id", Int),
		ArrayOverlap("tagIn", "tag"),
		ColumnIn("billIdIn", "id", Int),
		EnumIn("typeIn", "type", EntryTypes),
		typeInvoiceIn,
		EnumIn("modeIn", "mode", EntryModes),
		EnumIn("billingMethodIn", "billing_method", BillingMethods),
		EnumIn("extractIn", "extract", Parties),
	}
}

// relatedFilters look at the item, contract or invoice an entry points at.
func relatedFilters() []SpecialFilter {
	contractActiveIn := Through("contractActiveIn", String, "contract_id", "contracts", "id", "active")
	contractActiveIn.Enum = ContractActivities
	contractTypeIn := Through("contractTypeIn", String, "contract_id", "contracts", "id", "type")
	contractTypeIn.Enum = ContractTypes
	itemType := Through("itemType", String, "item_id", "transaction_items", "id", "type")
	itemType.Enum = ItemTypes
	invoice := func(cond func(f *FilterSQL) string) func(*FilterSQL) string {
		return func(f *FilterSQL) string { return Related(f, "invoice_id", "invoices", cond(f)) }
	}
	return []SpecialFilter{
		Through("contractIdIn", Int, "contract_id", "contracts", "id", "id2"),
		contractActiveIn,
		contractTypeIn,
		itemType,
		Predicate("itemListOwnerReport", func(f *FilterSQL) string {
			return Related(f, "item_id", "transaction_items", `"owner_report"`)
		}),
		{Name: "invoiceIdIn", Elem: Int, Condition: invoice(func(f *FilterSQL) string {
			return `"id2" = any(` + f.Value() + `::text[])`
		})},
		Predicate("invoiceTypeIn", invoice(constant(`"type" = 'single'`))),
		Scalar("invoiceStatus", String, InvoiceStatuses, invoice(func(f *FilterSQL) string {
			return `CASE WHEN "status" = 'unpaid' AND "due_date" < ` + f.Today() + ` THEN 'overdue' ELSE "status" END = ` + f.Value()
		})),
		Scalar("ticketRegister", String, []string{"registered", "unregistered"}, invoice(func(f *FilterSQL) string {
			return `"ticket_registered" = (` + f.Value() + ` = 'registered')`
		})),
		Scalar("invoicePaidIn", String, []string{"paid", "unpaid"}, invoice(func(f *FilterSQL) string {
			return `"paid" = (` + f.Value() + ` = 'paid')`
		})),
		// extension: the entries of payment batches (docs/api.md, "Payment batches")
		Through("paymentBatchIn", Int, "id", "payment_batch_transactions", "transaction_id", "batch_id"),
	}
}
