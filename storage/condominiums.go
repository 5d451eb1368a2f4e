package storage

// The condominiums and developments of spec 000 (/condominiums) with their
// unit-type groups and the groups' purposes (written through the
// condominium's groups text, condominiums_rules.go), their units and
// related people (sub-resources), and the location records they point at
// (countries, cities, districts). What each decision means is in
// docs/api.md, "Condominiums".

// Resource names of the condominiums and their locations.
const (
	Condominiums        = "condominiums"
	CondominiumGroups   = "condominium_groups"
	CondominiumPurposes = "condominium_group_purposes"
	CondominiumUnits    = "condominium_units"
	CondominiumRelated  = "condominium_related"
	CondominiumDetails  = "condominium_details"
	Countries           = "countries"
	Cities              = "cities"
	Districts           = "districts"
)

// Enums of the condominiums.
var (
	CondominiumModes = []string{"condominium", "release"}
	// CondominiumAccesses are a record's access, as a contract's.
	CondominiumAccesses = []string{"all", "responsible"}
	PurposeTypes        = []string{"sale", "rent", "season"}
	UnitStatuses        = []string{"available", "reserved", "sold", "unavailable"}
)

// condominiumColumns are every field of the spec's condominium table, with
// created_at and updated_at: groups is written only, and stored as rows by
// the hooks; details is written on update only.
func condominiumColumns() []Column {
	var k contractColumnKit
	const maxInt = 1<<31 - 1
	titleCol := required(k.w("title", String))
	titleCol.UpdateRequired = true
	array := func(name, resource string) Column {
		return Column{Name: name, Type: IntArray, Filterable: true, Writable: true, References: resource}
	}
	return columns([]Column{
		{Name: "id", Type: Int, Filterable: true},
		k.w("id2", Int),
		required(k.enum("mode", CondominiumModes...)),
		required(k.w("status", String)),
		k.w("lock", String),
		required(k.ref("type_id", BuildingTypes)),
		// a stage of the development: no stages table, so no reference
		k.w("stage_id", Int),
		k.ref("country_id", Countries),
		k.ref("state_id", States),
		k.ref("city_id", Cities),
		k.ref("district_id", Districts),
		array("tag", Tags),
		array("responsible", Users),
		k.ref("constructor_id", Constructors),
		k.enum("access", CondominiumAccesses...),
		array("pickup", Users),
		k.w("slug", String),
		k.ref("updated_by", Users),
		k.ref("created_by", Users),
		k.w("principal_media", String),
		k.between("built_year", 1000, 9999),
		k.between("total_floors", 0, maxInt),
		k.between("total_by_floor", 0, maxInt),
		k.between("blocks", 0, maxInt),
		titleCol,
		k.w("content", String),
		k.w("lock_description", String),
		k.w("street", String),
		k.between("number", 0, maxInt),
		k.w("complement", String),
		cepInteger(k.between("zip_code", 0, 99999999)),
		k.w("notes", String),
		k.w("html_title", String),
		k.w("html_keyword", String),
		k.w("html_description", String),
		{Name: "groups", Type: JSONText, Writable: true, WriteOnly: true, Unstored: true},
		// ids of the company's condominium details (/condominiums/details)
		{Name: "details", Type: IntArray, Writable: true, UpdateOnly: true, References: CondominiumDetails},
	}, timestampColumns())
}

// cepInteger is the spec's integer zip_code of a condominium, which a body
// may also give as the CEP's text (01310-200, 01310200): its digits are the
// integer.
func cepInteger(c Column) Column {
	c.Normalize = NormalizeCEP
	return c
}

func condominiumsResource() *Resource {
	one := func(name, resource, key string) Relation {
		return Relation{Name: name, Kind: BelongsTo, Resource: resource, Key: key}
	}
	many := func(name, resource string) Relation {
		return Relation{Name: name, Kind: HasMany, Resource: resource, Key: "condominium_id"}
	}
	return &Resource{
		Name: Condominiums, Table: "condominiums", CustomFields: true,
		Columns: condominiumColumns(),
		Relations: []Relation{
			many("buildings", Buildings),
			many("purposes", CondominiumPurposes),
			many("groups", CondominiumGroups),
			many("units", CondominiumUnits),
			many("related", CondominiumRelated),
			// extensions (docs/api.md, "Condominiums")
			one("type", BuildingTypes, "type_id"),
			one("constructor", Constructors, "constructor_id"),
			one("country", Countries, "country_id"),
			one("state", States, "state_id"),
			one("city", Cities, "city_id"),
			one("district", Districts, "district_id"),
			{Name: "tags", Kind: InArray, Resource: Tags, Key: "tag"},
			{Name: "details", Kind: InArray, Resource: CondominiumDetails, Key: "details"},
		},
		Hooks: Hooks{
			Before: []Hook{stampAuthor, checkGroups},
			After:  []Hook{writeGroups},
		},
	}
}

// condominiumGroupsResource is the unit-type groups of a development:
// written through its condominium's groups text, read through its
// includes, deleted one by one (DELETE /condominiums/groups/{id}).
func condominiumGroupsResource() *Resource {
	read := func(name string) Column { return Column{Name: name, Type: String, Filterable: true} }
	return &Resource{
		Name: CondominiumGroups, Table: "condominium_groups",
		Columns: columns([]Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "condominium_id", Type: Int, Filterable: true},
			read("title"), read("status"), read("area_total"), read("bathroom"), read("bedroom"), read("room"), read("suite"),
		}, timestampColumns()),
		Relations: []Relation{
			{Name: "condominium", Kind: BelongsTo, Resource: Condominiums, Key: "condominium_id"},
			{Name: "purposes", Kind: HasMany, Resource: CondominiumPurposes, Key: "group_id"},
			{Name: "units", Kind: HasMany, Resource: CondominiumUnits, Key: "group_id"},
		},
	}
}

// condominiumPurposesResource is what a group is offered for (sale) and
// its figures, read through the includes only.
func condominiumPurposesResource() *Resource {
	read := func(name string) Column { return Column{Name: name, Type: String, Filterable: true} }
	return &Resource{
		Name: CondominiumPurposes, Table: "condominium_group_purposes", ReadOnly: true,
		Columns: columns([]Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "condominium_id", Type: Int, Filterable: true},
			{Name: "group_id", Type: Int, Filterable: true},
			{Name: "type", Type: String, Filterable: true, Enum: PurposeTypes},
			read("amount"), read("condominium"), read("iptu_amount"),
		}, timestampColumns()),
		Relations: []Relation{
			{Name: "group", Kind: BelongsTo, Resource: CondominiumGroups, Key: "group_id"},
		},
	}
}

// condominiumChild is the start of a sub-resource of a condominium
// (/condominiums/{condominium}/<path>): the condominium comes from the
// path, and include[condominium] reaches it.
func condominiumChild(name, table string, cols []Column, rels ...Relation) *Resource {
	return &Resource{
		Name: name, Table: table,
		Parent: &Parent{Resource: Condominiums, Key: "condominium_id"},
		Columns: columns([]Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "condominium_id", Type: Int, Filterable: true},
		}, cols, timestampColumns()),
		Relations: append([]Relation{{Name: "condominium", Kind: BelongsTo, Resource: Condominiums, Key: "condominium_id"}}, rels...),
	}
}

// condominiumUnitsResource is the units of a development (extension):
// each of a group of the same development, maybe a building.
func condominiumUnitsResource() *Resource {
	var k contractColumnKit
	res := condominiumChild(CondominiumUnits, "condominium_units", []Column{
		k.ref("group_id", CondominiumGroups),
		k.ref("building_id", Buildings),
		k.w("block", String),
		k.w("floor", Int),
		k.w("number", String),
		k.enum("status", UnitStatuses...),
		k.w("notes", String),
	},
		Relation{Name: "group", Kind: BelongsTo, Resource: CondominiumGroups, Key: "group_id"},
		Relation{Name: "building", Kind: BelongsTo, Resource: Buildings, Key: "building_id"},
	)
	res.Filters = []SpecialFilter{EnumIn("statusIn", "status", UnitStatuses), ColumnIn("groupIn", "group_id", Int)}
	res.Hooks = Hooks{Before: []Hook{SameParent("group_id", "condominium_groups", "condominium_id", "group", "condominium")}}
	return res
}

// condominiumRelatedResource is the people related to a condominium
// (extension): its syndic, administrator, contacts.
func condominiumRelatedResource() *Resource {
	var k contractColumnKit
	return condominiumChild(CondominiumRelated, "condominium_related", []Column{
		required(k.ref("person_id", Persons)),
		k.w("role", String),
	}, Relation{Name: "person", Kind: BelongsTo, Resource: Persons, Key: "person_id"})
}

// condominiumDetailsResource is the company's catalogue of the details a
// condominium lists (a pool, a gym): its `details` are ids of these.
func condominiumDetailsResource() *Resource {
	var k contractColumnKit
	return &Resource{
		Name: CondominiumDetails, Table: "condominium_details",
		Columns: columns([]Column{
			{Name: "id", Type: Int, Filterable: true},
			required(k.w("name", String)),
		}, timestampColumns()),
	}
}

func countriesResource() *Resource {
	var k contractColumnKit
	return &Resource{
		Name: Countries, Table: "countries",
		Columns: columns([]Column{
			{Name: "id", Type: Int, Filterable: true},
			required(k.w("name", String)),
			k.w("abbreviation", String),
		}, timestampColumns()),
		Relations: []Relation{{Name: "cities", Kind: HasMany, Resource: Cities, Key: "country_id"}},
	}
}

func citiesResource() *Resource {
	var k contractColumnKit
	return &Resource{
		Name: Cities, Table: "cities",
		Columns: columns([]Column{
			{Name: "id", Type: Int, Filterable: true},
			required(k.w("name", String)),
			k.ref("state_id", States),
			k.ref("country_id", Countries),
		}, timestampColumns()),
		Relations: []Relation{
			{Name: "state", Kind: BelongsTo, Resource: States, Key: "state_id"},
			{Name: "country", Kind: BelongsTo, Resource: Countries, Key: "country_id"},
			{Name: "districts", Kind: HasMany, Resource: Districts, Key: "city_id"},
		},
	}
}

func districtsResource() *Resource {
	var k contractColumnKit
	return &Resource{
		Name: Districts, Table: "districts",
		Columns: columns([]Column{
			{Name: "id", Type: Int, Filterable: true},
			required(k.w("name", String)),
			required(k.ref("city_id", Cities)),
		}, timestampColumns()),
		Relations: []Relation{{Name: "city", Kind: BelongsTo, Resource: Cities, Key: "city_id"}},
	}
}
