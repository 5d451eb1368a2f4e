package storage

// The supporting resources of the finance API (extensions of the spec,
// docs/api.md "Extension resources"): persons, businesses, bank accounts,
// the chart of plans, billing profiles, tags and the owners of a building.

// Resource names of the supporting resources.
const (
	Persons        = "persons"
	Businesses     = "businesses"
	Accounts       = "accounts"
	Plans          = "plans"
	Billings       = "billings"
	Tags           = "tags"
	BuildingOwners = "building_owners"
)

// BillingMethods is the spec's billing-method enum.
var BillingMethods = []string{"ticket", "cash", "deposit", "pix", "ted", "credit", "debit", "check", "debit_account"}

// stateAbbreviations are the 27 federative units, as an address's state.
var stateAbbreviations = []string{
	"AC", "AL", "AP", "AM", "BA", "CE", "DF", "ES", "GO", "MA", "MT", "MS", "MG", "PA",
	"PB", "PR", "PE", "PI", "RJ", "RN", "RS", "RO", "RR", "SC", "SP", "SE", "TO",
}

// addressColumns are the address fields shared by persons, businesses and
// buildings.
func addressColumns() []Column {
	return []Column{
		{Name: "zip_code", Type: String, Filterable: true, Writable: true, Normalize: NormalizeCEP, Check: CheckCEP},
		{Name: "street", Type: String, Filterable: true, Writable: true},
		{Name: "number", Type: String, Filterable: true, Writable: true},
		{Name: "complement", Type: String, Filterable: true, Writable: true},
		{Name: "district", Type: String, Filterable: true, Writable: true},
		{Name: "city", Type: String, Filterable: true, Writable: true},
		{Name: "state", Type: String, Filterable: true, Writable: true, Enum: stateAbbreviations},
	}
}

// timestampColumns are the read-only creation and update instants.
func timestampColumns() []Column {
	return []Column{
		{Name: "created_at", Type: DateTime, Filterable: true},
		{Name: "updated_at", Type: DateTime, Filterable: true},
	}
}

func columns(groups ...[]Column) []Column {
	var out []Column
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

func personsResource() *Resource {
	return &Resource{
		Name: Persons, Table: "persons", CustomFields: true,
		Columns: columns([]Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "name", Type: String, Filterable: true, Writable: true, Required: true},
			{Name: "tax_id", Type: String, Filterable: true, Writable: true, Normalize: NormalizeTaxID, Check: CheckTaxID},
			{Name: "email", Type: String, Filterable: true, Writable: true},
			{Name: "phone", Type: String, Filterable: true, Writable: true},
		}, addressColumns(), []Column{
			{Name: "bank", Type: String, Filterable: true, Writable: true, Check: CheckBankCode},
			{Name: "agency", Type: String, Filterable: true, Writable: true},
			{Name: "agency_digit", Type: String, Filterable: true, Writable: true},
			{Name: "account", Type: String, Filterable: true, Writable: true},
			{Name: "account_digit", Type: String, Filterable: true, Writable: true},
			{Name: "account_type", Type: String, Filterable: true, Writable: true, Enum: []string{"checking", "savings", "payment"}},
			{Name: "pix_key", Type: String, Filterable: true, Writable: true, Normalize: NormalizeTaxID, Check: CheckPixKey},
			// the institution's ISPB, for a PIX to the account (payment batches)
			{Name: "ispb", Type: String, Filterable: true, Writable: true, Check: checkISPB},
		}, timestampColumns()),
		Relations: []Relation{
			{Name: "ownerships", Kind: HasMany, Resource: BuildingOwners, Key: "person_id"},
		},
		Filters: []SpecialFilter{
			Normalized(ColumnIn("taxIdIn", "tax_id", String), NormalizeTaxID),
		},
	}
}

func businessesResource() *Resource {
	return &Resource{
		Name: Businesses, Table: "businesses", CustomFields: true,
		Columns: columns([]Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "name", Type: String, Filterable: true, Writable: true, Required: true},
			{Name: "tax_id", Type: String, Filterable: true, Writable: true, Normalize: NormalizeTaxID, Check: CheckCNPJ},
			// the DIMOB's responsible person before the Receita (docs/dimob.md)
			{Name: "responsible_cpf", Type: String, Filterable: true, Writable: true, Normalize: NormalizeTaxID, Check: CheckCPF},
		}, addressColumns(), timestampColumns()),
		Relations: []Relation{
			{Name: "accounts", Kind: HasMany, Resource: Accounts, Key: "business_id"},
		},
		Filters: []SpecialFilter{
			Normalized(ColumnIn("taxIdIn", "tax_id", String), NormalizeTaxID),
		},
	}
}

func accountsResource() *Resource {
	return &Resource{
		Name: Accounts, Table: "accounts", CustomFields: true,
		Columns: columns([]Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "business_id", Type: Int, Filterable: true, Writable: true, Required: true, References: Businesses},
			{Name: "description", Type: String, Filterable: true, Writable: true},
			{Name: "bank", Type: String, Filterable: true, Writable: true, Check: CheckBankCode},
			Documented(Column{Name: "layout", Type: String, Filterable: true, Writable: true, Enum: []string{"cnab240", "cnab400"}},
				"The layout of the account's collection remittances (boletos, `/financial/ticketBatch`). Payment remittances "+
					"(`/financial/paymentBatch`) are CNAB 240 files whatever it is."),
			{Name: "agency", Type: String, Filterable: true, Writable: true},
			{Name: "agency_digit", Type: String, Filterable: true, Writable: true},
			{Name: "account", Type: String, Filterable: true, Writable: true},
			{Name: "account_digit", Type: String, Filterable: true, Writable: true},
			{Name: "wallet", Type: String, Filterable: true, Writable: true},
			{Name: "wallet_variation", Type: String, Filterable: true, Writable: true},
			{Name: "covenant", Type: String, Filterable: true, Writable: true},
			{Name: "transmission_code", Type: String, Filterable: true, Writable: true},
			{Name: "station", Type: String, Filterable: true, Writable: true},
			{Name: "modality", Type: String, Filterable: true, Writable: true},
			{Name: "pix_key", Type: String, Filterable: true, Writable: true, Normalize: NormalizeTaxID, Check: CheckPixKey},
			// kept by the remittance work, never by CRUD
			{Name: "next_file_sequence", Type: Int, Filterable: true},
			{Name: "next_nosso_numero", Type: Int, Filterable: true},
			// payment batches: the payment agreement's code, and the file
			// sequence of payment remittances (kept by the remittance work)
			Documented(Column{Name: "payment_covenant", Type: String, Filterable: true, Writable: true},
				"The code of the account's payment agreement at the bank, which its payment remittances carry (apart from "+
					"the collection `covenant`); required for a payment batch at every bank but Itaú (341)."),
			{Name: "next_payment_file_sequence", Type: Int, Filterable: true},
		}, timestampColumns()),
		Relations: []Relation{
			{Name: "business", Kind: BelongsTo, Resource: Businesses, Key: "business_id"},
			{Name: "billings", Kind: HasMany, Resource: Billings, Key: "account_id"},
		},
		Filters: []SpecialFilter{
			ColumnIn("businessIn", "business_id", Int),
			ColumnIn("bankIn", "bank", String),
		},
		Hooks: Hooks{Before: []Hook{checkRemittanceAccount, rememberNumbering}, After: []Hook{joinNumbering}},
	}
}

func plansResource() *Resource {
	return &Resource{
		Name: Plans, Table: "plans", CustomFields: true,
		Columns: columns([]Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "name", Type: String, Filterable: true, Writable: true, Required: true},
			{Name: "code", Type: String, Filterable: true, Writable: true},
			{Name: "parent_id", Type: Int, Filterable: true, Writable: true, References: Plans},
		}, timestampColumns()),
		Relations: []Relation{
			{Name: "parent", Kind: BelongsTo, Resource: Plans, Key: "parent_id"},
			{Name: "children", Kind: HasMany, Resource: Plans, Key: "parent_id"},
		},
		Filters: []SpecialFilter{
			// the plans given and every plan below them
			TreeIn("planAllIn", "id", "plans", "parent_id"),
		},
		Hooks: Hooks{Before: []Hook{refusePlanCycle}},
	}
}

func billingsResource() *Resource {
	methodIn := ColumnIn("billingMethodIn", "billing_method", String)
	methodIn.Enum = BillingMethods
	return &Resource{
		Name: Billings, Table: "billings", CustomFields: true,
		Columns: columns([]Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "name", Type: String, Filterable: true, Writable: true, Required: true},
			Documented(Column{Name: "billing_method", Type: String, Filterable: true, Writable: true, Enum: BillingMethods},
				"How the tenant is billed: the invoices of the contracts with this profile are billed by it."),
			{Name: "account_id", Type: Int, Filterable: true, Writable: true, References: Accounts},
			{Name: "ticket_late_fee", Type: Bool, Filterable: true, Writable: true},
			{Name: "ticket_late_fee_percentage", Type: Decimal, Filterable: true, Writable: true, Precision: 5, Scale: 2},
			{Name: "ticket_late_fee_interest", Type: Decimal, Filterable: true, Writable: true, Precision: 5, Scale: 2},
			{Name: "ticket_discount", Type: Bool, Filterable: true, Writable: true},
			{Name: "ticket_discount_mode", Type: String, Filterable: true, Writable: true, Enum: []string{"fixed", "percentage"}},
			{Name: "ticket_discount_fixed", Type: Decimal, Filterable: true, Writable: true, Precision: 14, Scale: 2},
			{Name: "ticket_discount_percentage", Type: Decimal, Filterable: true, Writable: true, Precision: 5, Scale: 2},
			{Name: "ticket_discount_days", Type: Int, Filterable: true, Writable: true},
		}, timestampColumns()),
		Relations: []Relation{
			{Name: "account", Kind: BelongsTo, Resource: Accounts, Key: "account_id"},
		},
		Filters: []SpecialFilter{methodIn},
	}
}

func tagsResource() *Resource {
	return &Resource{
		Name: Tags, Table: "tags",
		Columns: columns([]Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "name", Type: String, Filterable: true, Writable: true, Required: true},
			{Name: "color", Type: String, Filterable: true, Writable: true},
		}, timestampColumns()),
		Filters: []SpecialFilter{
			ColumnIn("idIn", "id", Int),
		},
	}
}

// buildingOwnersResource is a sub-resource of buildings
// (/buildings/{building}/owners): the building comes from the path.
func buildingOwnersResource() *Resource {
	return &Resource{
		Name: BuildingOwners, Table: "building_owners",
		Parent: &Parent{Resource: Buildings, Key: "building_id"},
		Columns: columns([]Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "building_id", Type: Int, Filterable: true},
			{Name: "person_id", Type: Int, Filterable: true, Writable: true, Required: true, References: Persons},
			{Name: "percentage", Type: Decimal, Filterable: true, Writable: true, Precision: 5, Scale: 2},
		}, timestampColumns()),
		Relations: []Relation{
			{Name: "person", Kind: BelongsTo, Resource: Persons, Key: "person_id"},
			{Name: "building", Kind: BelongsTo, Resource: Buildings, Key: "building_id"},
		},
		Filters: []SpecialFilter{
			ColumnIn("personIn", "person_id", Int),
		},
		Hooks: Hooks{Before: []Hook{limitOwnerShares}},
	}
}
