package storage

import "slices"

// eventFilters are the special filters of /events, each meaning as
// docs/api.md's "Calendar events" says.
func eventFilters() []SpecialFilter {
	return slices.Concat(eventLists(), eventPeopleFilters(), eventStateFilters(), eventDateFilters())
}

// eventLists are the In-filters on an event's own columns.
func eventLists() []SpecialFilter {
	statusIn := SpecialFilter{Name: "statusIn", Elem: String, Enum: EventStatuses, Condition: func(f *FilterSQL) string {
		return "(" + eventStatusSQL(f.Today()) + ") = any(" + f.Value() + ")"
	}}
	statusNotIn := SpecialFilter{Name: "statusNotIn", Elem: String, Enum: EventStatuses, Condition: func(f *FilterSQL) string {
		return "NOT ((" + eventStatusSQL(f.Today()) + ") = any(" + f.Value() + "))"
	}}
	return []SpecialFilter{
		EnumIn("typeIn", "type", EventTypes),
		statusIn,
		statusNotIn,
		EnumIn("recurrencyIn", "recurrency", EventRecurrencies),
		ColumnIn("calendarIn", "calendar_id", Int),
		ColumnIn("creatorIn", "created_by", Int),
		ColumnIn("buildingIn", "building_id", Int),
		ColumnIn("dealIn", "deal_id", Int),
		ColumnIn("personIn", "person_id", Int),
		ColumnCompare("googleId", "google_id", "=", String),
		// descendants of those events through father_id, at any depth (the
		// events themselves excluded)
		{Name: "descendant", Elem: Int, Condition: func(f *FilterSQL) string {
			c := f.Company()
			return `"id" IN (WITH RECURSIVE tree(id) AS (SELECT id FROM events WHERE company_id = ` + c +
				` AND father_id = any(` + f.Value() + `) UNION SELECT e.id FROM events e JOIN tree ON e.father_id = tree.id` +
				` WHERE e.company_id = ` + c + `) SELECT id FROM tree)`
		}},
	}
}

// eventPeopleFilters look at who an event involves: its guests, guest
// groups, creator and calendar.
func eventPeopleFilters() []SpecialFilter {
	return []SpecialFilter{
		ArrayOverlap("guestsIn", "guest"),
		ArrayOverlap("userIn", "guest"),
		ArrayOverlap("responsibleGroupIn", "guest_group"),
		// the creator, or a guest with full access (who may edit it)
		{Name: "responsibleIn", Elem: Int, Condition: func(f *FilterSQL) string {
			v := f.Value()
			return `"created_by" = any(` + v + `) OR ("guest_access" = 'full' AND "guest" && ` + v + `)`
		}},
		// the user created it, is a guest, or it is not private
		Scalar("accessible", Int, nil, func(f *FilterSQL) string {
			v := f.Value()
			return `NOT "private" OR "created_by" = ` + v + ` OR ` + eventGuest(f, v)
		}),
		// the calendars, plus the events of other calendars the caller is
		// a guest of
		{Name: "calendarOrInvitedIn", Elem: Int, Condition: func(f *FilterSQL) string {
			return `"calendar_id" = any(` + f.Value() + `) OR ` + eventGuest(f, f.User())
		}},
	}
}

// eventGuest is the condition "the user is a guest of the event": listed
// in its guest, or a member of a user group listed in its guest_group.
func eventGuest(f *FilterSQL, user string) string {
	return `(` + user + ` = any("guest") OR EXISTS (SELECT 1 FROM user_group_users m WHERE m.company_id = ` +
		f.Company() + ` AND m.user_id = ` + user + ` AND m.group_id = any("guest_group")))`
}

// eventStateFilters look at an event's status, recurrence and reminders.
func eventStateFilters() []SpecialFilter {
	return []SpecialFilter{
		Predicate("isLate", func(f *FilterSQL) string {
			return "(" + eventStatusSQL(f.Today()) + ") IN ('late', 'five_days_late', 'thirty_days_late')"
		}),
		Predicate("isCancelled", func(*FilterSQL) string { return `"status" = 'cancelled'` }),
		Predicate("notCancelled", func(*FilterSQL) string { return `"status" <> 'cancelled'` }),
		Predicate("active", func(*FilterSQL) string { return `"status" NOT IN ('cancelled', 'concluded')` }),
		Predicate("isNotRecurrence", func(*FilterSQL) string { return `"recurrence_id" IS NULL` }),
		Predicate("nonRecurring", func(*FilterSQL) string { return `"recurrency" IS NULL` }),
		// a reminder ahead of the start (anything but START)
		Predicate("hasReminder", func(*FilterSQL) string {
			return `cardinality(array_remove("reminder", 'START')) > 0`
		}),
		Predicate("hasAnyReminder", func(*FilterSQL) string { return `cardinality("reminder") > 0` }),
	}
}

// eventDateFilters look at an event's days: two dates each, in either
// order, both included, compared with the event's days in its time zone.
func eventDateFilters() []SpecialFilter {
	occursIn := func(recurrency string) func(f *FilterSQL, low, high string) string {
		return func(_ *FilterSQL, low, high string) string {
			cond := eventOccursBetween(low, high)
			if recurrency != "" {
				cond = `"recurrency" = '` + recurrency + `' AND ` + cond
			}
			return cond
		}
	}
	return []SpecialFilter{
		InRange("createdBetween", Date, func(_ *FilterSQL, low, high string) string {
			return `("created_at" AT TIME ZONE "time_zone")::date BETWEEN ` + low + ` AND ` + high
		}),
		InRange("dateMinMax", Date, func(_ *FilterSQL, low, high string) string {
			return eventDay("initial_date") + ` BETWEEN ` + low + ` AND ` + high
		}),
		InRange("scheduledBetween", Date, func(_ *FilterSQL, low, high string) string {
			return `"status" NOT IN ('cancelled', 'concluded') AND ` + eventOccursBetween(low, high)
		}),
		InRange("occurrenceBetween", Date, occursIn("")),
		InRange("dayBetween", Date, occursIn("daily")),
		InRange("weekBetween", Date, occursIn("weekly")),
		InRange("monthBetween", Date, occursIn("monthly")),
		InRange("yearBetween", Date, occursIn("yearly")),
	}
}

// eventOccursBetween is the condition "the event happens some day between
// low and high" (dates, low not after high). An event without recurrency
// happens on the days from its initial date to its final date (or its
// initial date alone). A recurring one happens on its initial day and
// every day, week, month or year after it, up to its final day unless it
// is endless (no final date: endless too); monthly on the initial day's
// number, or the month's last day when the month is shorter (the 31st is
// the 30th in April, the 28th or 29th in February), yearly likewise (29
// February is the 28th in other years). It is arithmetic on the dates:
// the first occurrence on or after the range's start (or the initial
// day), compared with the range's end (or the final day), with no row
// generated per occurrence.
func eventOccursBetween(low, high string) string {
	start := eventDay("initial_date")
	until := `CASE WHEN NOT "endless" THEN ` + eventDay("final_date") + ` END`
	// s.d0: the first day; w.a, w.b: the days of the range the series
	// covers; months and years are counted from the first day
	months := func(d string) string {
		return `(date_part('year', ` + d + `) * 12 + date_part('month', ` + d + `))::int`
	}
	nth := func(unit, k string) string {
		return `(s.d0 + make_interval(` + unit + ` => ` + k + `))::date`
	}
	next := func(unit, k string) string {
		return `CASE WHEN ` + nth(unit, k) + ` >= w.a THEN ` + nth(unit, k) + ` ELSE ` + nth(unit, k+` + 1`) + ` END <= w.b`
	}
	monthK := `(` + months("w.a") + ` - ` + months("s.d0") + `)`
	yearK := `(date_part('year', w.a) - date_part('year', s.d0))::int`
	return `EXISTS (SELECT 1 FROM (SELECT ` + start + ` AS d0, ` + until + ` AS e) s,` +
		` LATERAL (SELECT greatest(` + low + `, s.d0) AS a, least(` + high + `, coalesce(s.e, ` + high + `)) AS b) w WHERE CASE "recurrency"` +
		` WHEN 'daily' THEN w.a <= w.b` +
		` WHEN 'weekly' THEN w.a + (7 - (w.a - s.d0) % 7) % 7 <= w.b` +
		` WHEN 'monthly' THEN ` + next("months", monthK) +
		` WHEN 'yearly' THEN ` + next("years", yearK) +
		` ELSE s.d0 <= ` + high + ` AND coalesce(` + eventDay("final_date") + `, s.d0) >= ` + low + ` END)`
}
