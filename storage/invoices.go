package storage

// The invoices of spec 001 (/invoices) with their lines, files, messages
// and history. The rules around their writes are in invoices_rules.go; the
// decisions clients rely on are in docs/api.md, "Invoices".

import "github.com/propfin/propfin/finance"

// Resource names of the invoices.
const (
	Invoices        = "invoices"
	InvoiceItems    = "invoice_items"
	InvoiceFiles    = "invoice_files"
	InvoiceMessages = "invoice_messages"
	InvoiceHistory  = "invoice_history"
)

// InvoiceStatuses are the spec's invoice statuses.
var InvoiceStatuses = []string{"paid", "unpaid", "overdue", "in_protest", "refunded", "partially_paid", "canceled", "uncollectible",
	"renegotiated"}

// AutoTransferStatuses are the values of an invoice's
// auto_transfer_status besides null (finance.AutoTransferStatuses).
var AutoTransferStatuses = autoTransferStatuses()

func autoTransferStatuses() []string {
	out := make([]string, len(finance.AutoTransferStatuses))
	for i, s := range finance.AutoTransferStatuses {
		out[i] = string(s)
	}
	return out
}

// invoiceStatusExpr reads the stored status as of today in the company's
// time zone: an open invoice stored unpaid or overdue is overdue once its
// due date has passed and unpaid before, whatever the nightly run wrote.
const invoiceStatusExpr = `CASE WHEN ` + invoiceStoredOpen +
	` THEN CASE WHEN "due_date" < {today} THEN 'overdue' ELSE 'unpaid' END ELSE "status" END`

// invoiceStoredOpen holds for the invoices whose status is read through
// the due date (invoiceStatusExpr): not paid, stored unpaid or overdue.
const invoiceStoredOpen = `NOT "paid" AND "status" IN ('unpaid', 'overdue')`

// invoiceStatusIs is filter[status]=value on the stored columns, so that
// the partial indexes of the open invoices (invoices_open_due_date,
// invoices_open_status) serve overdue and unpaid, which the expression
// hides from every index: overdue is an invoice of invoiceStoredOpen due
// before today, unpaid one due today or later, and any other status is
// read as stored. It selects the rows the expression does because a paid
// invoice is never stored unpaid or overdue (invoices_paid_status_check,
// migration 0024): were it, the expression would read its stored status.
// Today is the planner's bound (TodayBound), so that a month's open
// invoices are read in due-date order and the page ends the scan.
func invoiceStatusIs(f *FilterSQL, status string) string {
	switch status {
	case "overdue":
		return invoiceStoredOpen + ` AND "due_date" < ` + f.TodayBound()
	case "unpaid":
		return invoiceStoredOpen + ` AND "due_date" >= ` + f.TodayBound()
	}
	return `"status" = ` + f.Value()
}

// invoicePastDueExpr is an invoice still owed (invoiceOpen) whose due
// date is before today: the overdue invoices, and the partially paid and
// protested ones past due, whose status says how they stand instead.
const invoicePastDueExpr = `(` + invoiceOpen + ` AND "due_date" < {today})`

// invoiceOpen holds for an invoice still owed: not paid, and neither
// canceled, refunded, written off nor renegotiated (its agreement's
// installments are owed instead).
const invoiceOpen = `NOT "paid" AND "status" NOT IN ('paid', 'canceled', 'refunded', 'uncollectible', 'renegotiated')`

// linesChargedToPayer holds for the invoice lines that count toward the
// invoice's total: every client line except those whose transaction item
// debits a party other than the customer (an administration fee debited
// to the owner is a deduction from the owner, not a charge to the payer).
const linesChargedToPayer = `"kind" = 'line' AND EXISTS (SELECT 1 FROM transaction_items ti ` +
	`WHERE ti.company_id = invoice_items.company_id AND ti.id = invoice_items.item_id ` +
	`AND (coalesce(ti.debit, '') = 'customer') <> (coalesce(ti.credit, '') = 'customer'))`

func invoicesResource() *Resource {
	money := func(name string) Column {
		return Column{Name: name, Type: Decimal, Filterable: true, Writable: true, Precision: 14, Scale: 2}
	}
	percent := func(name string) Column {
		return Column{Name: name, Type: Decimal, Filterable: true, Writable: true, Precision: 5, Scale: 2}
	}
	readMoney := func(name string) Column {
		return Column{Name: name, Type: Decimal, Filterable: true, Precision: 14, Scale: 2}
	}
	w := func(name string, t Type) Column { return Column{Name: name, Type: t, Filterable: true, Writable: true} }
	ref := func(name, resource string) Column {
		return Column{Name: name, Type: Int, Filterable: true, Writable: true, References: resource}
	}
	required := func(c Column) Column { c.Required = true; return c }
	enum := func(c Column, values ...string) Column { c.Enum = values; return c }
	billingMethod := enum(required(w("billing_method", String)), BillingMethods...)
	billingMethod.UpdateRequired = true
	return &Resource{
		Name: Invoices, Table: "invoices", CustomFields: true,
		Columns: columns([]Column{
			{Name: "id", Type: Int, Filterable: true},
			w("id2", String),
			enum(required(w("type", String)), "single", "contract"),
			required(ref("payer_id", Persons)),
			ref("contract_id", Contracts),
			ref("building_id", Buildings),
			required(ref("business_id", Businesses)),
			required(ref("account_id", Accounts)),
			ref("billing_id", Billings),
			billingMethod,
			{Name: "status", Type: String, Filterable: true, Writable: true, Enum: InvoiceStatuses, Stored: true, Expr: invoiceStatusExpr,
				Equals: invoiceStatusIs},
			w("paid", Bool),
			w("paid_at", Date),
			w("credit_at", Date),
			w("payment_error", Bool),
			readMoney("paid_amount"), readMoney("paid_late_fee"), readMoney("paid_interest"), readMoney("paid_discount"),
			// kept by POST /invoices/{id}/refund and /writeOff (invoices_refund.go), never by CRUD
			readMoney("refunded_amount"), {Name: "written_off_at", Type: Date, Filterable: true},
			// extension: what of the total is still owed (invoice_payments.go)
			Documented(Column{Name: "balance", Type: Decimal, Filterable: true, Precision: 14, Scale: 2, Expr: invoiceBalanceExpr},
				"What of `total` is still owed: the principal the invoice's standing parts (`/invoices/{invoice}/payments`) "+
					"have not paid; 0.00 once it is paid, canceled, refunded, written off or renegotiated. A late payment "+
					"of it owes the late fee and interest on it besides (docs/ledger.md, \"Part payments\")."),
			// extension: open and past its due date, whatever the status reads (partially_paid included)
			Documented(Column{Name: "past_due", Type: Bool, Filterable: true, Expr: invoicePastDueExpr},
				"True while the invoice is still owed (`unpaid`, `overdue`, `in_protest`, `partially_paid`) and its "+
					"`due_date` is before today in the company's time zone: a partially paid invoice past due reads "+
					"`partially_paid` and `past_due` true. `filter[past_due]=true` and `filter[overdue]=true` find the same "+
					"invoices."),
			required(w("description", String)),
			required(money("total")),
			required(w("date", Date)),
			required(w("due_date", Date)),
			w("guaranteed_transfer", Bool),
			w("period_initial", Date),
			w("period_final", Date),
			{Name: "tag", Type: IntArray, Filterable: true, Writable: true, References: Tags},
			w("ticket_registered", Bool),
			w("ticket_date", DateTime),
			w("ticket_key", String),
			w("ticket_id", Int),
			money("ticket_fee"),
			w("ticket_link", String),
			w("ticket_barcode", String),
			w("ticket_info", String),
			w("ticket_digitable", String),
			w("ticket_without_pix", Bool),
			w("ticket_late_fee", Bool),
			ref("ticket_late_fee_item_id", TransactionItems),
			percent("ticket_late_fee_percentage"),
			percent("ticket_late_fee_interest"),
			w("ticket_discount", Bool),
			enum(w("ticket_discount_mode", String), "fixed", "percentage"),
			money("ticket_discount_fixed"),
			percent("ticket_discount_percentage"),
			enum(w("ticket_discount_action", String), "business", "owner"),
			w("ticket_discount_days", Int),
			w("transfer_auto_disabled", Bool),
			// kept by the transfer run, the payment posting and the writes
			// that change the run's facts (transfers_status.go), never by CRUD
			{Name: "auto_transfer_status", Type: String, Filterable: true, Enum: AutoTransferStatuses},
			{Name: "protest", Type: JSONText, Filterable: true, Writable: true},
			// written by POST /invoices/{id}/pixCode, discarded by the rules
			{Name: "pix_code", Type: String, Filterable: true},
			// the building the posting pays the owners of (docs/api.md, "Defaults")
			Effective(ref("building_id", Buildings), invoiceContractBuilding),
			// kept by the agreements (agreements.go), never by CRUD: the
			// agreement that renegotiated the invoice last, or whose
			// installment it is, and its number
			{Name: "agreement_id", Type: Int, Filterable: true},
			{Name: "agreement_installment", Type: Int, Filterable: true},
		}, timestampColumns()),
		Relations: []Relation{
			{Name: "items", Kind: HasMany, Resource: InvoiceItems, Key: "invoice_id", Where: `"kind" = 'line'`},
			{Name: "itemsPayer", Kind: HasMany, Resource: InvoiceItems, Key: "invoice_id", Where: linesChargedToPayer},
			{Name: "itemsAllGroupTransfer", Kind: HasMany, Resource: InvoiceItems, Key: "invoice_id",
				Order: `"owner_id" NULLS LAST, "kind" <> 'line'`},
			{Name: "itemsAll", Kind: HasMany, Resource: InvoiceItems, Key: "invoice_id"},
			{Name: "autoTransactions", Kind: HasMany, Resource: Transactions, Key: "invoice_id", Where: `"mode" IN ('invoice', 'chargeback')`},
			{Name: "building", Kind: BelongsTo, Resource: Buildings, Key: "building_id"},
			{Name: "billing", Kind: BelongsTo, Resource: Billings, Key: "billing_id"},
			{Name: "payer", Kind: BelongsTo, Resource: Persons, Key: "payer_id"},
			{Name: "account", Kind: BelongsTo, Resource: Accounts, Key: "account_id"},
			{Name: "contract", Kind: BelongsTo, Resource: Contracts, Key: "contract_id"},
			{Name: "business", Kind: BelongsTo, Resource: Businesses, Key: "business_id"},
			{Name: "lateFeeItem", Kind: BelongsTo, Resource: TransactionItems, Key: "ticket_late_fee_item_id"},
			{Name: "files", Kind: HasMany, Resource: InvoiceFiles, Key: "invoice_id"},
			{Name: "tags", Kind: InArray, Resource: Tags, Key: "tag"},
			{Name: "messages", Kind: HasMany, Resource: InvoiceMessages, Key: "invoice_id"},
			// extension: the shares of the invoice's building (its own, else
			// its contract's: the shares its payment is posted to)
			{Name: "owners", Kind: HasMany, Resource: BuildingOwners, Key: "building_id", From: "building_id_effective"},
			// extension: the agreement of an original or an installment
			{Name: "agreement", Kind: BelongsTo, Resource: Agreements, Key: "agreement_id"},
			// extension: its payments, parts and whole (/invoices/{invoice}/payments)
			{Name: "payments", Kind: HasMany, Resource: InvoicePayments, Key: "invoice_id", Order: `"n"`},
		},
		Children:      []Child{{Name: "items", Resource: InvoiceItems, Key: "invoice_id", Required: true, Where: `"kind" = 'line'`}},
		DeleteOptions: []string{"removeLiquidated", "removeWithFiscalNote"},
		HooksWarn:     true, // paid: false undoing several parts, or refunds
		Hooks: Hooks{
			Before: []Hook{FrozenInBatch(TicketBatch), frozenByAgreement, invoiceStatusRules, invoicePayment, undoWriteOff,
				invoiceFrozenWhenPaid, discardPixCode, rememberInvoiceLines, invoiceDeleteRules},
			After: []Hook{checkInvoiceTotal, checkOwnerLines, postInvoicePayment, keepAutoTransferStatus, keepInstallmentAgreement,
				writeInvoiceHistory, emitInvoiceEvent},
		},
		Filters: []SpecialFilter{
			ColumnIn("ticketIdIn", "ticket_key", String),
			ColumnInText("idOldIn", "id2"),
			ThroughOne("referenceId", String, "contract_id", "contracts", "id", "reference"),
			Predicate("emptyProtest", func(*FilterSQL) string {
				return `"protest" IS NULL OR "protest" ~ '^\s*(\{\s*\}|\[\s*\]|null|""|)\s*$'`
			}),
			protestIDIn(),
			Predicate("unpaid", func(*FilterSQL) string { return invoiceOpen }),
			Predicate("overdue", func(f *FilterSQL) string { return invoiceOpen + ` AND ` + pastDue(`"due_date"`, f) }),
			Predicate("early", func(f *FilterSQL) string { return invoiceOpen + ` AND ` + notYetDue(`"due_date"`, f) }),
			ColumnIn("contractIn", "contract_id", Int),
			Through("contractIdIn", Int, "contract_id", "contracts", "id", "id2"),
			invoiceBuildingIn("buildingIn", "id"),
			invoiceBuildingIn("buildingId2In", "reference"),
			ColumnMin("dateMin", "date", Date),
			ColumnMax("dateMax", "date", Date),
			ColumnMin("dueDateMin", "due_date", Date),
			ColumnIn("businessIn", "business_id", Int),
			ColumnIn("accountIn", "account_id", Int),
			ColumnIn("payerIn", "payer_id", Int),
			invoiceOwnerIn(),
			invoiceTenantIn(),
			Predicate("registered", func(*FilterSQL) string { return `"ticket_registered"` }),
			Predicate("registeredOrPix", func(*FilterSQL) string { return `"ticket_registered" OR coalesce("pix_code", '') <> ''` }),
			enumIn(ColumnIn("billingMethodIn", "billing_method", String), BillingMethods),
			ArrayOverlap("tagIn", "tag"),
			enumIn(ColumnIn("autoTransferStatus", "auto_transfer_status", String), AutoTransferStatuses),
			Within("periodContains", "period_initial", "period_final", Date),
			Normalized(Through("payerTaxIdIn", String, "payer_id", "persons", "id", "tax_id"), NormalizeTaxID),
			// extension: the invoices of collection batches (docs/api.md, "Batches")
			Through("ticketBatchIn", Int, "id", "ticket_batch_invoices", "invoice_id", "batch_id"),
		},
	}
}

// invoiceContractBuilding is the building of an invoice's contract, which
// an invoice without building_id is for (the posting pays its owners).
const invoiceContractBuilding = `(SELECT c.building_id FROM contracts c WHERE c.company_id = "invoices"."company_id" AND c.id = "invoices"."contract_id")`

// enumIn checks an In-filter's values against an enum.
func enumIn(f SpecialFilter, values []string) SpecialFilter {
	f.Enum = values
	return f
}

// invoiceBuilding is an invoice's building: its own, else its contract's.
func invoiceBuilding(f *FilterSQL) string {
	return `coalesce("building_id", (SELECT c.building_id FROM contracts c WHERE c.company_id = ` + f.Company() +
		` AND c.id = "contract_id"))`
}

// invoiceBuildingIn keeps the invoices whose building (its own, else its
// contract's) has one of the values in column: id (buildingIn) or
// reference (buildingId2In, the property code).
func invoiceBuildingIn(name, column string) SpecialFilter {
	elem := Int
	if column != "id" {
		elem = String
	}
	return SpecialFilter{Name: name, Elem: elem, Condition: func(f *FilterSQL) string {
		return invoiceBuilding(f) + ` IN (SELECT b.id FROM buildings b WHERE b.company_id = ` + f.Company() +
			` AND b.` + ident(column) + ` = any(` + f.Value() + `))`
	}}
}

// invoiceOwnerIn keeps the invoices of the buildings (their own, else
// their contract's) those persons own a share of (ownerIn[]).
func invoiceOwnerIn() SpecialFilter {
	return SpecialFilter{Name: "ownerIn", Elem: Int, Condition: func(f *FilterSQL) string {
		return invoiceBuilding(f) + ` IN (SELECT o.building_id FROM building_owners o WHERE o.company_id = ` + f.Company() +
			` AND o.person_id = any(` + f.Value() + `))`
	}}
}

// invoiceTenantIn keeps the invoices of contracts whose tenant is one of
// the persons, and the invoices without a contract whose payer is
// (tenantIn[]).
func invoiceTenantIn() SpecialFilter {
	return SpecialFilter{Name: "tenantIn", Elem: Int, Condition: func(f *FilterSQL) string {
		v := f.Value()
		return `CASE WHEN "contract_id" IS NULL THEN "payer_id" = any(` + v + `) ELSE "contract_id" IN ` +
			`(SELECT c.id FROM contracts c WHERE c.company_id = ` + f.Company() + ` AND c.tenant_id = any(` + v + `)) END`
	}}
}

// protestIDIn keeps the invoices whose protest JSON is an object with an
// "id" among the values (compared as text: 7 and "7" alike).
func protestIDIn() SpecialFilter {
	return SpecialFilter{Name: "protestIdIn", Elem: String, Condition: func(f *FilterSQL) string {
		return `CASE WHEN "protest" ~ '^\s*\{' THEN "protest"::jsonb ->> 'id' END = any(` + f.Value() + `)`
	}}
}

// invoiceItemsResource is an invoice's lines, written through the
// invoice's `items` (never on a route of their own). Clients write lines
// of kind 'line'; the payment posting writes the settlement lines.
func invoiceItemsResource() *Resource {
	return &Resource{
		Name: InvoiceItems, Table: "invoice_items",
		Columns: columns([]Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "invoice_id", Type: Int, Filterable: true},
			{Name: "kind", Type: String, Filterable: true, Enum: []string{"line", "late_fee", "interest", "discount"}},
			{Name: "item_id", Type: Int, Filterable: true, Writable: true, Required: true, References: TransactionItems},
			{Name: "amount", Type: Decimal, Filterable: true, Writable: true, Required: true, Precision: 14, Scale: 2},
			{Name: "description", Type: String, Filterable: true, Writable: true},
			{Name: "owner_id", Type: Int, Filterable: true, Writable: true, References: Persons},
			{Name: "broker_id", Type: Int, Filterable: true, Writable: true, References: Persons},
			{Name: "fiscal_note", Type: String, Filterable: true, Writable: true},
			// an installment's line: the original invoice and line it is a
			// share of, and the part (line, late_fee, interest); written by
			// the agreements, never by CRUD
			{Name: "origin_invoice_id", Type: Int, Filterable: true},
			{Name: "origin_line_id", Type: Int, Filterable: true},
			{Name: "agreement_part", Type: String, Filterable: true, Enum: []string{"line", "late_fee", "interest"}},
			// a settlement line's payment: the number n of the invoice's
			// part (/invoices/{id}/payments) it settled; written by the posting
			{Name: "payment_n", Type: Int, Filterable: true},
		}, timestampColumns()),
		Hooks: Hooks{Before: []Hook{checkBookableLine}},
		Relations: []Relation{
			{Name: "item", Kind: BelongsTo, Resource: TransactionItems, Key: "item_id"},
			{Name: "owner", Kind: BelongsTo, Resource: Persons, Key: "owner_id"},
			{Name: "broker", Kind: BelongsTo, Resource: Persons, Key: "broker_id"},
		},
	}
}

// invoiceFilesResource is /invoices/{invoice}/files: a minimal record of a
// file a client stores elsewhere (name, URL, content type).
func invoiceFilesResource() *Resource {
	return &Resource{
		Name: InvoiceFiles, Table: "invoice_files",
		Parent: &Parent{Resource: Invoices, Key: "invoice_id"},
		Columns: columns([]Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "invoice_id", Type: Int, Filterable: true},
			{Name: "name", Type: String, Filterable: true, Writable: true, Required: true},
			{Name: "url", Type: String, Filterable: true, Writable: true, Required: true},
			{Name: "content_type", Type: String, Filterable: true, Writable: true},
		}, timestampColumns()),
		Relations: []Relation{{Name: "invoice", Kind: BelongsTo, Resource: Invoices, Key: "invoice_id"}},
	}
}

// invoiceMessagesResource is /invoices/{invoice}/messages: a minimal
// record of a message about the invoice (channel, recipient, body, when
// sent), filled by the client that sends it.
func invoiceMessagesResource() *Resource {
	return &Resource{
		Name: InvoiceMessages, Table: "invoice_messages",
		Parent: &Parent{Resource: Invoices, Key: "invoice_id"},
		Columns: columns([]Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "invoice_id", Type: Int, Filterable: true},
			{Name: "channel", Type: String, Filterable: true, Writable: true, Required: true, Enum: []string{"email", "sms", "whatsapp", "other"}},
			{Name: "recipient", Type: String, Filterable: true, Writable: true},
			{Name: "body", Type: String, Filterable: true, Writable: true, Required: true},
			{Name: "sent_at", Type: DateTime, Filterable: true, Writable: true},
		}, timestampColumns()),
		Relations: []Relation{{Name: "invoice", Kind: BelongsTo, Resource: Invoices, Key: "invoice_id"}},
	}
}

// invoiceHistoryResource is GET /invoices/{invoice}/history: the rows
// WriteInvoiceHistory writes, read-only.
func invoiceHistoryResource() *Resource {
	return &Resource{
		Name: InvoiceHistory, Table: "invoice_history", ReadOnly: true,
		Parent: &Parent{Resource: Invoices, Key: "invoice_id"},
		Columns: []Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "invoice_id", Type: Int, Filterable: true},
			{Name: "at", Type: DateTime, Filterable: true},
			{Name: "actor", Type: String, Filterable: true, Enum: []string{ActorUser, ActorJob, ActorReturnFile, ActorSystem}},
			{Name: "actor_id", Type: Int, Filterable: true},
			{Name: "origin", Type: String, Filterable: true},
			{Name: "changes", Type: JSON},
			{Name: "note", Type: String, Filterable: true},
		},
	}
}
