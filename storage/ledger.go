package storage

// The ledger of spec 001: the transaction-item catalogue
// (/financial/transactionItems), the ledger entries (/transactions) and
// their files (/transactions/{transaction}/files). The rules around their
// writes are in ledger_rules.go, the special filters in ledger_filters.go;
// docs/api.md has the meaning of every filter. The posting of an invoice's
// payment is in ledger_posting.go, that of a bank's reported payments in
// ledger_reported.go.

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
			// read-only, derived from the entry and its reversals (ledger_filters.go)
			Documented(Column{Name: "status", Type: String, Filterable: true, Enum: EntryStatuses, Expr: entryStatusExpr,
				Equals: entryStatusIs},
				"`paid`; `unpaid`: not paid, and due; `void`: not paid and never to be, cancelled by its reversal before "+
					"either was paid (an owner's transfer voided with its undone payment, and its void)."),
			{Name: "due_date", Type: Date, Filterable: true, Writable: true},
			Documented(Column{Name: "billing_method", Type: String, Filterable: true, Writable: true, Enum: BillingMethods},
				"How the entry is paid (a payment batch pays by `ted`, `deposit`, `pix` or `ticket`); a transfer of the "+
					"nightly run copies its contract's, how its owners are paid."),
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
			// the payment entry a refund's entry takes part of back (read-only; docs/ledger.md, "Refunds")
			{Name: "refunds_id", Type: Int, Filterable: true},
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
			Before: []Hook{refusePostedEntry, refuseTransferRunEntry, refusePostingMode, positiveAmount, prepareEntry, FrozenInBatch(PaymentBatch),
				refuseClosedMonthEntry},
			After: []Hook{createInstallments, recordTransferPaid},
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
