package storage

import "strings"

// The calendar events of spec 000 (/events) with their calendars, files
// and feedbacks, and the minimal user groups their guest groups point at.
// The special filters are in events_filters.go, the rules around their
// writes in events_rules.go; what each means is in docs/api.md,
// "Calendar events".

// Resource names of the calendar.
const (
	Events         = "events"
	Calendars      = "calendars"
	EventFiles     = "event_files"
	EventFeedbacks = "event_feedbacks"
)

// Enums of the calendar events.
var (
	EventTypes = []string{"task", "reminder", "meet", "visit", "whatsapp", "email", "call", "inspect", "maintenance", "billing"}
	// EventStatuses are the spec's; late, five_days_late and
	// thirty_days_late are also what an event reads as once past its day
	// (eventStatusSQL).
	EventStatuses     = []string{"cancelled", "concluded", "scheduled", "recurrent", "late", "five_days_late", "thirty_days_late"}
	EventGuestAccess  = []string{"full", "invite", "view"}
	EventTimeZones    = []string{"America/Sao_Paulo", "America/Noronha", "America/Manaus", "America/Rio_Branco", "Atlantic/Azores", "America/Costa_Rica", "America/Tijuana", "America/Sitka", "Pacific/Gambier", "Pacific/Honolulu", "Pacific/Midway"}
	EventReminders    = []string{"START", "5_MIN", "15_MIN", "30_MIN", "1_HOUR", "2_HOUR", "6_HOUR", "1_DAY", "2_DAY", "5_DAY", "1_WEEK", "2_WEEK", "1_MONTH"}
	EventRecurrencies = []string{"daily", "weekly", "monthly", "yearly"}
)

// eventDay is the SQL of the calendar day of an event's date-time column
// in the event's own time zone.
func eventDay(column string) string {
	return `(` + ident(column) + ` AT TIME ZONE "time_zone")::date`
}

// eventStatusSQL reads an event's stored status as of today (the SQL of
// today's date given), by finance.EventStatusAsOf: concluded and cancelled
// events keep theirs, and so do events without a date, a recurring series
// counting as one (its occurrences are not late because its first one is
// past); an event d days past its day (eventDay of initial_date) is late
// for d 1-5, five_days_late for 6-30, thirty_days_late from 31; one not
// past keeps its status, a late one going back to scheduled.
// TestEventStatusSQL holds it to the finance rule.
func eventStatusSQL(today string) string {
	day := `CASE WHEN "recurrency" IS NULL THEN ` + eventDay("initial_date") + ` END`
	late := `(` + today + ` - ` + day + `)`
	return strings.Join([]string{
		`CASE WHEN "status" IN ('concluded', 'cancelled') OR ` + day + ` IS NULL THEN "status"`,
		`WHEN ` + late + ` > 30 THEN 'thirty_days_late'`,
		`WHEN ` + late + ` > 5 THEN 'five_days_late'`,
		`WHEN ` + late + ` > 0 THEN 'late'`,
		`WHEN "status" IN ('late', 'five_days_late', 'thirty_days_late') THEN 'scheduled'`,
		`ELSE "status" END`,
	}, " ")
}

// eventColumn is a column of an event written under the spec's body key,
// `filter[name]` (`filter[name][]` for arrays); the plain name is accepted
// too.
func eventColumn(name string, t Type) Column {
	key := "filter[" + name + "]"
	if t.IsArray() {
		key += "[]"
	}
	return Column{Name: name, Type: t, Filterable: true, Writable: true, BodyName: key, PlainName: true}
}

func eventRef(name, resource string) Column {
	c := eventColumn(name, Int)
	c.References = resource
	return c
}

func eventEnum(name string, t Type, values []string) Column {
	c := eventColumn(name, t)
	c.Enum = values
	return c
}

func createOnly(c Column) Column { c.CreateOnly = true; return c }

// local makes an event's date-time a reading of the event's time_zone,
// in and out (Column.Local).
func local(c Column) Column { c.Local = true; return c }

// notNull marks the columns NOT NULL in the table that a body may leave
// out but not set to null: booleans, arrays, the time zone.
func notNull(cols []Column) []Column {
	for i, c := range cols {
		if c.Writable && (c.Type == Bool || c.Type.IsArray() || c.Name == "time_zone") {
			cols[i].NotNull = true
		}
	}
	return cols
}

// eventColumns are every field of the spec's event table, with the
// extensions google_id, last_feedback_id, created_at and updated_at.
func eventColumns() []Column {
	guest := required(eventRef("guest", Users))
	guest.Type, guest.BodyName = IntArray, "filter[guest][]"
	guestGroup := required(eventRef("guest_group", UserGroups))
	guestGroup.Type, guestGroup.BodyName = IntArray, "filter[guest_group][]"
	tag := eventRef("tag", Tags)
	tag.Type, tag.BodyName = IntArray, "filter[tag][]"
	status := required(eventEnum("status", String, EventStatuses))
	status.Stored, status.Expr = true, eventStatusSQL("{today}")
	return notNull(columns([]Column{
		{Name: "id", Type: Int, Filterable: true},
		eventRef("father_id", Events),
		eventRef("recurrence_id", Events),
		createOnly(required(eventRef("calendar_id", Calendars))),
		required(eventColumn("title", String)),
		required(eventEnum("type", String, EventTypes)),
		status,
		guest,
		guestGroup,
		required(eventEnum("guest_access", String, EventGuestAccess)),
		tag,
		local(required(eventColumn("initial_date", DateTime))),
		local(eventColumn("final_date", DateTime)),
		eventEnum("time_zone", String, EventTimeZones),
		createOnly(eventRef("created_by", Users)),
		eventRef("building_id", Buildings),
		eventRef("deal_id", Deals),
		eventRef("contract_id", Contracts),
		eventRef("person_id", Persons),
		eventColumn("invite_person", Bool),
		eventColumn("endless", Bool),
		eventColumn("all_day", Bool),
		eventColumn("description", String),
		eventColumn("address", String),
		eventEnum("reminder", TextArray, EventReminders),
		eventColumn("private", Bool),
		eventEnum("recurrency", String, EventRecurrencies),
		eventColumn("google_id", String),
		// kept by the feedbacks' hook (include[lastFeedback])
		{Name: "last_feedback_id", Type: Int, Filterable: true},
	}, timestampColumns()))
}

func eventsResource() *Resource {
	return &Resource{
		Name: Events, Table: "events", CustomFields: true,
		TimeZone:  "time_zone",
		Columns:   eventColumns(),
		Relations: eventRelations(),
		Filters:   eventFilters(),
		Hooks: Hooks{Before: []Hook{
			DatesInOrder("initial_date", "final_date"),
			eventDefaults,
			notItsOwn("father_id"),
			notItsOwn("recurrence_id"),
		}},
	}
}

// eventRelations are the spec's event includes.
func eventRelations() []Relation {
	one := func(name, resource, key string) Relation {
		return Relation{Name: name, Kind: BelongsTo, Resource: resource, Key: key}
	}
	many := func(name, resource, key, where string) Relation {
		return Relation{Name: name, Kind: HasMany, Resource: resource, Key: key, Where: where}
	}
	return []Relation{
		{Name: "guests", Kind: InArray, Resource: Users, Key: "guest"},
		{Name: "guestGroups", Kind: InArray, Resource: UserGroups, Key: "guest_group"},
		{Name: "tags", Kind: InArray, Resource: Tags, Key: "tag"},
		one("creator", Users, "created_by"),
		one("calendar", Calendars, "calendar_id"),
		one("person", Persons, "person_id"),
		one("building", Buildings, "building_id"),
		one("deal", Deals, "deal_id"),
		one("parent", Events, "father_id"),
		many("childs", Events, "father_id", ""),
		one("arisingFrom", Events, "recurrence_id"),
		many("recurrences", Events, "recurrence_id", ""),
		many("cancelled", Events, "recurrence_id", `"status" = 'cancelled'`),
		many("files", EventFiles, "event_id", ""),
		one("lastFeedback", EventFeedbacks, "last_feedback_id"),
		one("contract", Contracts, "contract_id"),
	}
}

// calendarsResource is /calendars: the calendars events are kept in.
func calendarsResource() *Resource {
	return &Resource{
		Name: Calendars, Table: "calendars", CustomFields: true,
		Columns: columns([]Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "name", Type: String, Filterable: true, Writable: true, Required: true},
		}, timestampColumns()),
		Relations: []Relation{{Name: "events", Kind: HasMany, Resource: Events, Key: "calendar_id"}},
	}
}

// eventChild declares a sub-resource of an event (/events/{event}/...).
func eventChild(name, table string, cols []Column, rels ...Relation) *Resource {
	return &Resource{
		Name: name, Table: table,
		Parent: &Parent{Resource: Events, Key: "event_id"},
		Columns: columns([]Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "event_id", Type: Int, Filterable: true},
		}, cols, timestampColumns()),
		Relations: append([]Relation{{Name: "event", Kind: BelongsTo, Resource: Events, Key: "event_id"}}, rels...),
	}
}

func eventFilesResource() *Resource {
	var k contractColumnKit
	return eventChild(EventFiles, "event_files", []Column{
		required(k.w("name", String)), required(k.w("url", String)), k.w("content_type", String),
	})
}

// eventFeedbacksResource is /events/{event}/feedbacks: what happened at the
// event, by the acting user (user_id, set by the hook).
func eventFeedbacksResource() *Resource {
	var k contractColumnKit
	res := eventChild(EventFeedbacks, "event_feedbacks", []Column{
		{Name: "user_id", Type: Int, Filterable: true},
		required(k.w("feedback", String)),
	}, Relation{Name: "user", Kind: BelongsTo, Resource: Users, Key: "user_id"})
	res.Hooks = Hooks{Before: []Hook{feedbackAuthor}, After: []Hook{keepLastFeedback}}
	return res
}
