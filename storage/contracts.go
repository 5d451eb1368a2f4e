package storage

// The contracts of spec 001 (/financial/contracts) with their vehicles,
// occupants and items, their documents (documentables, written with the
// contract), the minimal records a client fills (files, inspections,
// insurances); what their includes point at is declared elsewhere (users
// and teams in users.go, deals in deals.go, events in events.go). The
// rules around their writes are in contracts_rules.go, the special
// filters in contracts_filters.go; what each filter means is in
// docs/api.md, "Contracts".

// Resource names of the contracts and what they point at.
const (
	Contracts           = "contracts"
	ContractVehicles    = "contract_vehicles"
	ContractOccupants   = "contract_occupants"
	ContractItems       = "contract_items"
	ContractDocuments   = "contract_documents"
	ContractFiles       = "contract_files"
	ContractInspections = "contract_inspections"
	ContractInsurances  = "contract_insurances"
	Users               = "users"
	Teams               = "teams"
)

// Enums of the contracts (ContractTypes and ContractActivities are with
// the ledger, whose filters take them too).
var (
	ContractStatuses = []string{"progress", "closing", "readjust", "renew", "no_invoices", "suspended", "pending",
		"finished", "canceled", "terminating", "on_notice", "terminated"}
	ContractPaymentStatuses = []string{"due_5_days", "due_10_days", "nothing", "ok", "5_days", "30_days", "month", "3_months"}
	SaleTypes               = []string{"deed_registration", "financing", "private_document", "assignment_of_rights"}
	ReadjustIndicators      = []string{"IGP-M", "INCC-M", "INPC", "IVAR", "IPC-BR", "IPCA", "highest_index", "lowest_index", "IPC-FIPE"}
	TransferModes           = []string{"manually", "after_receive", "fixed_day_or_next", "fixed_day"}
	FiscalNoteTriggers      = []string{"NONE", "BUSINESS", "MANUAL", "ON_PAYMENT_CONFIRMATION", "ON_PAYMENT_NO_CONVERT"}
	OccupantTypes           = []string{"resident", "tenant", "guarantor", "witness", "payer", "buyer", "procurator"}
	ContractItemModes       = []string{"item", "commission", "service"}
	CommissionedTypes       = []string{"seller", "broker", "pickup", "indicator", "partner", "manager", "director",
		"supervisor", "marketing", "coordinator", "others"}
	DocumentPrivacies = []string{"private", "public"}
)

// guaranteeExpr reads a contract's guarantee, `undefined` when none is
// stored: the spec's filter value for contracts without one.
const guaranteeExpr = `CASE WHEN coalesce("guarantee", '') = '' THEN 'undefined' ELSE "guarantee" END`

// contractColumnKit builds the contracts' columns tersely.
type contractColumnKit struct{}

func (contractColumnKit) w(name string, t Type) Column {
	return Column{Name: name, Type: t, Filterable: true, Writable: true}
}

func (k contractColumnKit) money(name string) Column {
	c := k.w(name, Decimal)
	c.Precision, c.Scale = 14, 2
	return c
}

func (k contractColumnKit) percent(name string) Column {
	c := k.w(name, Decimal)
	c.Precision, c.Scale = 5, 2
	return c
}

func (k contractColumnKit) ref(name, resource string) Column {
	c := k.w(name, Int)
	c.References = resource
	return c
}

func (k contractColumnKit) enum(name string, values ...string) Column {
	c := k.w(name, String)
	c.Enum = values
	return c
}

func (k contractColumnKit) between(name string, lo, hi int64) Column {
	c := k.w(name, Int)
	c.Range = &IntRange{Min: lo, Max: hi}
	return c
}

func required(c Column) Column { c.Required = true; return c }

// contractColumns are every field of the spec's contract table but
// documentables (a child collection), with created_at and updated_at.
func contractColumns() []Column {
	var k contractColumnKit
	const maxInt = 1<<31 - 1
	return columns([]Column{
		{Name: "id", Type: Int, Filterable: true},
		k.w("id2", Int),
		required(k.ref("building_id", Buildings)),
		required(k.ref("tenant_id", Persons)),
		Documented(required(k.ref("billing_id", Billings)), "The billing profile (`/financial/billings`): how the tenant is "+
			"billed. Its `billing_method` is the one the contract's invoices (generated, and the termination's final invoice) "+
			"are billed by."),
		k.w("reference", String),
		required(k.enum("type", ContractTypes...)),
		k.enum("sale_type", SaleTypes...),
		k.enum("active", ContractActivities...),
		k.w("active_date", Date),
		k.enum("status", ContractStatuses...),
		k.w("status_date", Date),
		// kept by the nightly run, never by a client
		{Name: "payment_status", Type: String, Filterable: true, Enum: ContractPaymentStatuses},
		{Name: "payment_status_date", Type: Date, Filterable: true},
		k.ref("user_id", Users),
		k.ref("agent_id", Users),
		k.ref("procurator_id", Persons),
		k.ref("team_id", Teams),
		k.enum("access", "all", "responsible"),
		{Name: "tag", Type: IntArray, Filterable: true, Writable: true, References: Tags},
		k.w("guaranteed_transfer", Bool),
		k.between("guaranteed_transfer_months", 0, maxInt),
		k.between("guaranteed_transfer_release_after_days", 0, maxInt),
		required(k.w("start_at", Date)),
		k.w("end_at", Date),
		k.w("signed_at", Date),
		required(k.enum("recurrency", "daily", "monthly")),
		k.between("recurrency_amount", 1, maxInt),
		storedDefault(k.enum("modality", "start", "due_date", "monthly")),
		required(k.money("amount")),
		k.money("current_amount"),
		k.money("service_rate_amount"),
		k.money("total"),
		k.money("signal_amount"),
		k.money("refund_amount"),
		k.money("fiscal_note_withholding"),
		k.between("due_day", 1, 31),
		required(k.w("due_date", Date)),
		k.enum("billing_timing", "pre", "post"),
		k.money("first_commission"),
		k.money("first_commission_installment"),
		k.money("recurring_commission"),
		k.w("add_commission_on_first", Bool),
		k.w("proportional", Bool),
		k.w("unify_first_invoice", Bool),
		k.w("readjust_active", Bool),
		k.enum("readjust_indicator", ReadjustIndicators...),
		storedDefault(k.between("readjust_with", 1, 120)),
		k.w("readjust_at", Date),
		k.w("readjusted_at", Date),
		{Name: "guarantee", Type: String, Filterable: true, Writable: true, Stored: true, Expr: guaranteeExpr},
		k.w("notes", String),
		k.w("clauses", String),
		k.w("invoice_installment", Int),
		k.ref("witness_1", Persons),
		k.ref("witness_2", Persons),
		k.ref("guarantor_1", Persons),
		k.ref("guarantor_2", Persons),
		k.w("ticket_late_fee", Bool),
		k.ref("ticket_late_fee_item_id", TransactionItems),
		k.percent("ticket_late_fee_percentage"),
		k.percent("ticket_late_fee_interest"),
		k.w("ticket_discount", Bool),
		k.enum("ticket_discount_mode", "fixed", "percentage"),
		k.percent("ticket_discount_percentage"),
		k.money("ticket_discount_fixed"),
		k.between("ticket_discount_days", 0, maxInt),
		// who bears the discount (docs/api.md, "Contracts")
		k.enum("ticket_discount_action", "business", "owner"),
		k.money("termination_fee"),
		k.w("termination_fee_months", Int),
		k.w("termination_fee_exemption", Bool),
		k.money("termination_fee_amount"),
		k.w("termination_fee_comission", String),
		k.w("termination_fee_requester", String),
		k.w("termination_fee_motive", String),
		k.w("termination_fee_calculate_mode", String),
		k.w("termination_at", Date),
		k.ref("deal_id", Deals),
		required(k.ref("business_id", Businesses)),
		required(k.ref("account_id", Accounts)),
		Documented(required(k.enum("billing_method", BillingMethods...)), contractBillingMethodDoc),
		k.w("metadata", JSONText),
		// a document template: no templates table yet, so no reference
		k.w("receipt_document_id", Int),
		storedDefault(k.enum("transfer_mode", TransferModes...)),
		k.w("transfer_auto", Bool),
		k.between("transfer_after_days", 0, maxInt),
		k.ref("renewed_id", Contracts),
		k.enum("fiscal_note_trigger", FiscalNoteTriggers...),
		k.w("dimob", Bool),
	}, contractEffectiveColumns(), timestampColumns())
}

// contractBillingMethodDoc is what a contract's billing_method means (the
// spec's "payment type to owner"; docs/api.md, "Contracts").
const contractBillingMethodDoc = "How the contract's owners are paid (the spec's \"payment type to owner\"), not how " +
	"the tenant pays: the owners' transfers copy it, and a payment batch pays a transfer by `ted`, `deposit` or `pix`; " +
	"with another method the owners are paid by hand. The tenant is billed by the billing profile's (`billing_id`) " +
	"`billing_method`, this one only when the contract has no profile or its profile names none."

// contractEffectiveColumns are the read-only values the rules read where
// a contract leaves null a field whose default depends on other fields,
// so that no stored default could stay right (docs/api.md, "Defaults"):
// billing_timing by the type (finance.DefaultBillingTiming), due_day the
// day of due_date, current_amount the amount until a readjustment sets it,
// readjust_at the next readjustment date the run derives, and, for
// after_receive, transfer_after_days 0.
func contractEffectiveColumns() []Column {
	var k contractColumnKit
	return []Column{
		Effective(k.enum("billing_timing", "pre", "post"), billingTimingDefault),
		Effective(k.w("due_day", Int), `extract(day FROM "due_date")::bigint`),
		Effective(k.money("current_amount"), `"amount"`),
		Effective(k.w("readjust_at", Date), `CASE WHEN "readjust_active" THEN `+readjustAtDerived+` END`),
		Effective(k.w("transfer_after_days", Int), `CASE WHEN "transfer_mode" = 'after_receive' THEN 0 END`),
	}
}

// billingTimingDefault is finance.DefaultBillingTiming in SQL: pre for a
// season rent, a sale and a subscription, post for a rent (and any other
// type). TestBillingTimingDefault holds the two equal.
const billingTimingDefault = `CASE WHEN "type" IN ('season', 'sale', 'subscription') THEN 'pre' ELSE 'post' END`

// storedDefault marks a column whose default the table stores (migration
// 0028): a write may leave it out, and the record reads the default, but
// may not set it to null, which the rules would read as that default.
func storedDefault(c Column) Column {
	c.NotNull = true
	return c
}

func contractsResource() *Resource {
	return &Resource{
		Name: Contracts, Table: "contracts", CustomFields: true,
		Columns:   contractColumns(),
		Relations: contractRelations(),
		Children:  []Child{{Name: "documentables", Resource: ContractDocuments, Key: "contract_id"}},
		Filters:   contractFilters(),
		Warnings:  readjustOffWarning,
		Hooks: Hooks{
			Before: []Hook{
				DatesInOrder("start_at", "end_at"),
				stampChangeDate("status", "status_date"),
				stampChangeDate("active", "active_date"),
			},
			After: []Hook{keepContractAutoTransferStatus},
		},
	}
}

// contractRelations are the spec's contract includes.
func contractRelations() []Relation {
	many := func(name, resource, where string) Relation {
		return Relation{Name: name, Kind: HasMany, Resource: resource, Key: "contract_id", Where: where}
	}
	one := func(name, resource, key string) Relation {
		return Relation{Name: name, Kind: BelongsTo, Resource: resource, Key: key}
	}
	return []Relation{
		many("occupants", ContractOccupants, ""),
		many("buyers", ContractOccupants, `"type" = 'buyer'`),
		many("vehicles", ContractVehicles, ""),
		many("tickets", Invoices, `"billing_method" = 'ticket'`),
		many("inspects", ContractInspections, ""),
		many("events", Events, ""),
		one("business", Businesses, "business_id"),
		one("building", Buildings, "building_id"),
		one("billing", Billings, "billing_id"),
		one("account", Accounts, "account_id"),
		one("user", Users, "user_id"),
		one("renewed", Contracts, "renewed_id"),
		{Name: "renewedTo", Kind: HasMany, Resource: Contracts, Key: "renewed_id"},
		one("team", Teams, "team_id"),
		one("tenant", Persons, "tenant_id"),
		{Name: "owners", Kind: HasMany, Resource: BuildingOwners, Key: "building_id", From: "building_id"},
		many("invoices", Invoices, ""),
		many("items", ContractItems, ""),
		many("commissions", ContractItems, `"mode" = 'commission'`),
		many("insurances", ContractInsurances, ""),
		many("files", ContractFiles, ""),
		many("documentables", ContractDocuments, ""),
		one("deal", Deals, "deal_id"),
	}
}

// contractDocumentsResource is a contract's documentables, written with
// the contract (never on a route of their own).
func contractDocumentsResource() *Resource {
	return &Resource{
		Name: ContractDocuments, Table: "contract_documents",
		Columns: columns([]Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "contract_id", Type: Int, Filterable: true},
			// a document template: no templates table yet, so no reference
			{Name: "template_id", Type: Int, Filterable: true, Writable: true},
			{Name: "content", Type: String, Filterable: true, Writable: true},
			{Name: "privacy", Type: String, Filterable: true, Writable: true, Enum: DocumentPrivacies},
		}, timestampColumns()),
	}
}

// contractChild is the start of a sub-resource of a contract
// (/financial/contracts/{contract}/<path>): the contract comes from the
// path, and include[contract] reaches it.
func contractChild(name, table string, cols []Column, rels ...Relation) *Resource {
	return &Resource{
		Name: name, Table: table,
		Parent: &Parent{Resource: Contracts, Key: "contract_id"},
		Columns: columns([]Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "contract_id", Type: Int, Filterable: true},
		}, cols, timestampColumns()),
		Relations: append([]Relation{{Name: "contract", Kind: BelongsTo, Resource: Contracts, Key: "contract_id"}}, rels...),
	}
}

func contractVehiclesResource() *Resource {
	var k contractColumnKit
	return contractChild(ContractVehicles, "contract_vehicles", []Column{
		k.w("brand", String), k.w("model", String), k.w("color", String), k.w("plate", String),
	})
}

func contractOccupantsResource() *Resource {
	var k contractColumnKit
	res := contractChild(ContractOccupants, "contract_occupants", []Column{
		required(k.enum("type", OccupantTypes...)),
		k.w("name", String),
		k.ref("person_id", Persons),
		{Name: "tax_id", Type: String, Filterable: true, Writable: true, Normalize: NormalizeTaxID, Check: CheckTaxID},
		k.w("principal", Bool),
		k.percent("percentage"),
		k.w("start_at", Date),
		k.w("end_at", Date),
		k.w("description", String),
		k.w("notes", String),
	}, Relation{Name: "person", Kind: BelongsTo, Resource: Persons, Key: "person_id"})
	res.Filters = []SpecialFilter{EnumIn("typeIn", "type", OccupantTypes)}
	res.Hooks = Hooks{Before: []Hook{DatesInOrder("start_at", "end_at")}}
	return res
}

func contractItemsResource() *Resource {
	var k contractColumnKit
	percentage := k.w("percentage", Decimal)
	percentage.Precision, percentage.Scale = 7, 4
	config := k.w("config", JSONText)
	config.Filterable, config.CreateOnly = false, true
	res := contractChild(ContractItems, "contract_items", []Column{
		k.enum("mode", ContractItemModes...),
		k.ref("item_id", TransactionItems),
		k.ref("parent_id", ContractItems),
		k.ref("transfer_owner_id", Persons),
		k.ref("broker_id", Persons),
		k.w("description", String),
		storedDefault(k.enum("calculate_mode", "percentage", "fixed")),
		k.money("amount"),
		percentage,
		storedDefault(k.enum("percentage_mode", "rental_value", "recurring_commission", "first_commission")),
		k.enum("commissioned_type", CommissionedTypes...),
		k.w("start_at", Date),
		k.w("end_at", Date),
		{Name: "item_default", Type: Bool, Filterable: true, FilterOnly: true},
		config,
	},
		Relation{Name: "item", Kind: BelongsTo, Resource: TransactionItems, Key: "item_id"},
		Relation{Name: "parent", Kind: BelongsTo, Resource: ContractItems, Key: "parent_id"},
		Relation{Name: "transfer_owner", Kind: BelongsTo, Resource: Persons, Key: "transfer_owner_id"},
		Relation{Name: "broker", Kind: BelongsTo, Resource: Persons, Key: "broker_id"},
	)
	res.Filters = []SpecialFilter{
		EnumIn("modeIn", "mode", ContractItemModes),
		ColumnIn("contractIn", "contract_id", Int),
		ColumnIn("ownerIn", "transfer_owner_id", Int),
		ColumnMin("amountMin", "amount", Decimal),
		Predicate("withReadjust", func(f *FilterSQL) string {
			return Related(f, "item_id", "transaction_items", `"readjust"`)
		}),
	}
	res.Hooks = Hooks{Before: []Hook{DatesInOrder("start_at", "end_at"),
		SameParent("parent_id", "contract_items", "contract_id", "contract item", "contract")}}
	return res
}

func contractFilesResource() *Resource {
	var k contractColumnKit
	return contractChild(ContractFiles, "contract_files", []Column{
		required(k.w("name", String)), required(k.w("url", String)), k.w("content_type", String),
	})
}

func contractInspectionsResource() *Resource {
	var k contractColumnKit
	return contractChild(ContractInspections, "contract_inspections", []Column{
		required(k.enum("kind", "entry", "exit", "periodic")), k.w("inspected_at", Date), k.w("notes", String),
	})
}

func contractInsurancesResource() *Resource {
	var k contractColumnKit
	res := contractChild(ContractInsurances, "contract_insurances", []Column{
		required(k.enum("kind", "fire", "guarantee", "content", "other")),
		k.w("insurer", String), k.w("policy", String),
		k.w("start_at", Date), k.w("end_at", Date),
		k.money("amount"),
	})
	res.Hooks = Hooks{Before: []Hook{DatesInOrder("start_at", "end_at")}}
	return res
}
