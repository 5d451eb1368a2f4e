package storage

// The declared resources. Each declaration drives list, get, create, update
// and delete; the API maps paths to them.

// Resource names.
const (
	States             = "states"
	BuildingCategories = "building_categories"
	BuildingTypes      = "building_types"
	Constructors       = "constructors"
	Buildings          = "buildings"
	Jobs               = "jobs"
)

func statesResource() *Resource {
	return &Resource{
		Name: States, Table: "states", Shared: true, ReadOnly: true,
		Columns: []Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "name", Type: String, Filterable: true},
			{Name: "abbreviation", Type: String, Filterable: true},
		},
	}
}

func buildingCategoriesResource() *Resource {
	return &Resource{
		Name: BuildingCategories, Table: "building_categories", CustomFields: true,
		Columns: []Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "description", Type: String, Filterable: true, Writable: true, Required: true},
			{Name: "color", Type: String, Filterable: true, Writable: true, Required: true},
		},
		Relations: []Relation{
			{Name: "types", Kind: HasMany, Resource: BuildingTypes, Key: "category_id"},
		},
	}
}

func buildingTypesResource() *Resource {
	return &Resource{
		Name: BuildingTypes, Table: "building_types", CustomFields: true,
		Columns: []Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "description", Type: String, Filterable: true, Writable: true},
			{Name: "category_id", Type: Int, Filterable: true, Writable: true, Required: true, References: BuildingCategories},
		},
		Relations: []Relation{
			{Name: "category", Kind: BelongsTo, Resource: BuildingCategories, Key: "category_id"},
			{Name: "buildings", Kind: HasMany, Resource: Buildings, Key: "type_id"},
		},
	}
}

func constructorsResource() *Resource {
	return &Resource{
		Name: Constructors, Table: "constructors", CustomFields: true,
		Columns: []Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "name", Type: String, Filterable: true, Writable: true, Required: true},
			{Name: "state_id", Type: Int, Filterable: true, Writable: true, References: States},
			{Name: "notes", Type: String, Filterable: true, Writable: true},
		},
		Relations: []Relation{
			{Name: "state", Kind: BelongsTo, Resource: States, Key: "state_id"},
			{Name: "buildings", Kind: HasMany, Resource: Buildings, Key: "constructor_id"},
		},
	}
}

// buildingsResource is the property table (/buildings): its reference,
// title, type, constructor and address, and its owners
// (/buildings/{building}/owners).
func buildingsResource() *Resource {
	return &Resource{
		Name: Buildings, Table: "buildings", CustomFields: true,
		Columns: columns([]Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "reference", Type: String, Filterable: true, Writable: true},
			{Name: "title", Type: String, Filterable: true, Writable: true},
			{Name: "type_id", Type: Int, Filterable: true, Writable: true, References: BuildingTypes},
			{Name: "constructor_id", Type: Int, Filterable: true, Writable: true, References: Constructors},
			{Name: "condominium_id", Type: Int, Filterable: true, Writable: true, References: Condominiums},
		}, addressColumns(), timestampColumns()),
		Relations: []Relation{
			{Name: "type", Kind: BelongsTo, Resource: BuildingTypes, Key: "type_id"},
			{Name: "constructor", Kind: BelongsTo, Resource: Constructors, Key: "constructor_id"},
			{Name: "owners", Kind: HasMany, Resource: BuildingOwners, Key: "building_id"},
			{Name: "condominium", Kind: BelongsTo, Resource: Condominiums, Key: "condominium_id"},
		},
		Filters: []SpecialFilter{
			// the buildings those persons own a share of
			Through("ownerIn", Int, "id", "building_owners", "building_id", "person_id"),
		},
	}
}

// jobsResource is the read side of the job platform (GET /jobs): jobs are
// written only by submissions, workers and the job operations, never by
// CRUD. The payload is not exposed: a bulk job's payload can be tens of
// megabytes.
func jobsResource() *Resource {
	return &Resource{
		Name: Jobs, Table: "jobs", ReadOnly: true,
		Columns: []Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "kind", Type: String, Filterable: true},
			{Name: "state", Type: String, Filterable: true, Enum: JobStates},
			{Name: "progress", Type: JSON},
			{Name: "result", Type: JSON},
			{Name: "error", Type: String, Filterable: true},
			{Name: "attempts", Type: Int, Filterable: true},
			{Name: "submitted_by", Type: String, Filterable: true},
			{Name: "created_at", Type: DateTime, Filterable: true},
			{Name: "started_at", Type: DateTime, Filterable: true},
			{Name: "finished_at", Type: DateTime, Filterable: true},
		},
		Filters: []SpecialFilter{
			ColumnIn("kindIn", "kind", String),
			stateIn(),
		},
	}
}

// stateIn is filter[stateIn][]: job states, each checked.
func stateIn() SpecialFilter {
	f := ColumnIn("stateIn", "state", String)
	f.Enum = JobStates
	return f
}

// Resources returns fresh declarations of every resource, so that callers
// (tests among them) may add their own before building a registry.
func Resources() []*Resource {
	return []*Resource{
		statesResource(),
		buildingCategoriesResource(),
		buildingTypesResource(),
		constructorsResource(),
		buildingsResource(),
		jobsResource(),
		personsResource(),
		businessesResource(),
		accountsResource(),
		plansResource(),
		billingsResource(),
		tagsResource(),
		buildingOwnersResource(),
		contractsResource(),
		contractDocumentsResource(),
		contractVehiclesResource(),
		contractOccupantsResource(),
		contractItemsResource(),
		contractFilesResource(),
		contractInspectionsResource(),
		contractInsurancesResource(),
		usersResource(),
		teamsResource(),
		teamUsersResource(),
		userGroupsResource(),
		userGroupUsersResource(),
		userGroupPermissionsResource(),
		userGroupBuildingsResource(),
		userGroupPersonsResource(),
		condominiumsResource(),
		condominiumGroupsResource(),
		condominiumPurposesResource(),
		condominiumUnitsResource(),
		condominiumRelatedResource(),
		condominiumDetailsResource(),
		countriesResource(),
		citiesResource(),
		districtsResource(),
		funnelsResource(),
		funnelStepsResource(),
		dealsResource(),
		dealStepHistoryResource(),
		calendarsResource(),
		eventsResource(),
		eventFilesResource(),
		eventFeedbacksResource(),
		transactionItemsResource(),
		transactionsResource(),
		transactionFilesResource(),
		invoicesResource(),
		invoiceItemsResource(),
		invoiceFilesResource(),
		invoiceMessagesResource(),
		invoiceHistoryResource(),
		priceIndicesResource(),
		contractReadjustmentsResource(),
		ticketBatchesResource(),
		ticketBatchInvoicesResource(),
		paymentBatchesResource(),
		paymentBatchTransactionsResource(),
	}
}

// DefaultRegistry is the registry of every declared resource.
func DefaultRegistry() *Registry {
	reg, err := NewRegistry(Resources()...)
	if err != nil {
		panic("storage: invalid resource declarations: " + err.Error())
	}
	return reg
}
