package storage

// The supporting records of spec 000: the states (reference data shared by
// every company), the property categories and types, the constructors and
// the properties (/buildings); docs/api.md, "Extension resources", says
// what each decision means.

// Resource names of the supporting records.
const (
	States             = "states"
	BuildingCategories = "building_categories"
	BuildingTypes      = "building_types"
	Constructors       = "constructors"
	Buildings          = "buildings"
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
