package storage

import "net/mail"

// The company's users (/users, an extension), the user teams of spec 000
// (/users/teams) with their members (/users/teams/{team}/users), and the
// user groups (/users/groups) with their users, permissions, buildings and
// persons, each a sub-resource of the group (docs/api.md, "Users, user
// teams and user groups").

// Resource names of the teams' and groups' link records (Users and Teams
// are with the contracts, which point at them).
const (
	TeamUsers            = "team_users"
	UserGroups           = "user_groups"
	UserGroupUsers       = "user_group_users"
	UserGroupPermissions = "user_group_permissions"
	UserGroupBuildings   = "user_group_buildings"
	UserGroupPersons     = "user_group_persons"
)

// CheckEmail accepts one bare e-mail address (ana@example.com), without a
// display name or angle brackets.
func CheckEmail(v string) string {
	a, err := mail.ParseAddress(v)
	if err != nil || a.Address != v || a.Name != "" {
		return "must be an e-mail address like ana@example.com"
	}
	return ""
}

// usersResource is the company's users: created through /users, and by
// `propfin apikey` for a company's first key.
func usersResource() *Resource {
	var k contractColumnKit
	email := k.w("email", String)
	email.Check = CheckEmail
	return &Resource{
		Name: Users, Table: "users", CustomFields: true,
		Columns: columns([]Column{
			{Name: "id", Type: Int, Filterable: true},
			required(k.w("name", String)),
			email,
		}, timestampColumns()),
		Relations: []Relation{
			{Name: "teams", Kind: HasMany, Resource: TeamUsers, Key: "user_id"},
			{Name: "groups", Kind: HasMany, Resource: UserGroupUsers, Key: "user_id"},
			{Name: "managedTeams", Kind: HasMany, Resource: Teams, Key: "manager_id"},
		},
	}
}

func teamsResource() *Resource {
	var k contractColumnKit
	return &Resource{
		Name: Teams, Table: "teams", CustomFields: true,
		Columns: columns([]Column{
			{Name: "id", Type: Int, Filterable: true},
			required(k.w("name", String)),
			required(k.ref("manager_id", Users)),
			required(k.ref("business_id", Businesses)),
			k.w("notes", String),
		}, timestampColumns()),
		Relations: []Relation{
			{Name: "manager", Kind: BelongsTo, Resource: Users, Key: "manager_id"},
			{Name: "users", Kind: HasMany, Resource: TeamUsers, Key: "team_id"},
			{Name: "business", Kind: BelongsTo, Resource: Businesses, Key: "business_id"},
		},
	}
}

// teamUsersResource is a team's members (/users/teams/{team}/users): the
// team comes from the path; a user is in a team once.
func teamUsersResource() *Resource {
	var k contractColumnKit
	return &Resource{
		Name: TeamUsers, Table: "team_users",
		Parent: &Parent{Resource: Teams, Key: "team_id"},
		Columns: columns([]Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "team_id", Type: Int, Filterable: true},
			required(k.ref("user_id", Users)),
		}, timestampColumns()),
		Relations: []Relation{
			{Name: "team", Kind: BelongsTo, Resource: Teams, Key: "team_id"},
			{Name: "user", Kind: BelongsTo, Resource: Users, Key: "user_id"},
		},
		Filters: []SpecialFilter{ColumnIn("userIn", "user_id", Int)},
	}
}

func userGroupsResource() *Resource {
	var k contractColumnKit
	many := func(name, resource string) Relation {
		return Relation{Name: name, Kind: HasMany, Resource: resource, Key: "group_id"}
	}
	return &Resource{
		Name: UserGroups, Table: "user_groups", CustomFields: true,
		Columns: columns([]Column{
			{Name: "id", Type: Int, Filterable: true},
			required(k.w("name", String)),
			k.w("type", String),
			k.w("notes", String),
		}, timestampColumns()),
		Relations: []Relation{
			many("users", UserGroupUsers),
			many("permissions", UserGroupPermissions),
			many("buildings", UserGroupBuildings),
			many("persons", UserGroupPersons),
		},
	}
}

// userGroupChild is a sub-resource of a user group
// (/users/groups/{group}/<path>): one link column, the group from the path.
func userGroupChild(name, table string, link Column, rels ...Relation) *Resource {
	return &Resource{
		Name: name, Table: table,
		Parent: &Parent{Resource: UserGroups, Key: "group_id"},
		Columns: columns([]Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "group_id", Type: Int, Filterable: true},
			link,
		}, timestampColumns()),
		Relations: append([]Relation{{Name: "group", Kind: BelongsTo, Resource: UserGroups, Key: "group_id"}}, rels...),
	}
}

func userGroupUsersResource() *Resource {
	var k contractColumnKit
	return userGroupChild(UserGroupUsers, "user_group_users", required(k.ref("user_id", Users)),
		Relation{Name: "user", Kind: BelongsTo, Resource: Users, Key: "user_id"})
}

func userGroupPermissionsResource() *Resource {
	var k contractColumnKit
	return userGroupChild(UserGroupPermissions, "user_group_permissions", required(k.w("permission", String)))
}

func userGroupBuildingsResource() *Resource {
	var k contractColumnKit
	return userGroupChild(UserGroupBuildings, "user_group_buildings", required(k.ref("building_id", Buildings)),
		Relation{Name: "building", Kind: BelongsTo, Resource: Buildings, Key: "building_id"})
}

func userGroupPersonsResource() *Resource {
	var k contractColumnKit
	return userGroupChild(UserGroupPersons, "user_group_persons", required(k.ref("person_id", Persons)),
		Relation{Name: "person", Kind: BelongsTo, Resource: Persons, Key: "person_id"})
}
