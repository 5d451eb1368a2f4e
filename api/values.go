package api

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/propfin/propfin/storage"
)

var decimalText = regexp.MustCompile(`^-?[0-9]{1,20}(\.[0-9]{1,10})?$`)

// parseText converts the text form of a value to the Go value of a column
// type; filters use it for every value and bodies for values sent as JSON
// strings. A non-empty message says why the text is refused.
func parseText(t storage.Type, s string) (any, string) {
	switch t {
	case storage.Int:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, "must be an integer"
		}
		return n, ""
	case storage.Bool:
		b, ok := parseBool(s)
		if !ok {
			return nil, "must be true or false"
		}
		return b, ""
	case storage.Date:
		d, err := time.Parse(time.DateOnly, s)
		if err != nil || d.Year() < 1 {
			return nil, "must be a date YYYY-MM-DD (years 0001 to 9999)"
		}
		return d, ""
	case storage.DateTime:
		return parseDateTime(s, false)
	case storage.Month:
		d, err := time.Parse("2006-01", s)
		if err != nil || d.Year() < 1 {
			return nil, "must be a year and month YYYY-MM (years 0001 to 9999)"
		}
		return d, ""
	case storage.Decimal:
		if !decimalText.MatchString(s) {
			return nil, "must be a decimal number like 1234.56"
		}
		return s, ""
	case storage.IntArray: // one element, as a filter value
		return parseText(storage.Int, s)
	case storage.TextArray:
		return parseText(storage.String, s)
	case storage.JSONText:
		if msg := checkText(s); msg != "" {
			return nil, msg
		}
		if !json.Valid([]byte(s)) {
			return nil, "must be a string holding valid JSON"
		}
		if msg := escapeProblem([]byte(s)); msg != "" {
			return nil, msg
		}
		return s, ""
	}
	if msg := checkText(s); msg != "" {
		return nil, msg
	}
	return s, ""
}

// parseColumnText converts the text form of a value of col: its text as
// the column's Normalize rewrites it, then read by the column's type.
func parseColumnText(col storage.Column, s string) (any, string) {
	s = col.NormalizeText(s)
	if col.Type == storage.DateTime {
		return parseDateTime(s, col.Local)
	}
	return parseText(col.Type, s)
}

// parseDateTime reads a date-time: RFC 3339 with its offset or Z, that
// instant (in UTC); YYYY-MM-DD HH:MM:SS (the spec's form), taken as UTC,
// or for a local column (storage.Column.Local) as a reading of the row's
// time zone; or a date alone, midnight in the row's or the company's
// zone. A reading without its zone is a storage.WallTime, which storage
// places in the zone. Whole seconds only, since that is all a date-time
// is written back with; years 0001 to 9999 (in UTC for an instant).
func parseDateTime(s string, local bool) (any, string) {
	problem := "must be a date-time YYYY-MM-DD HH:MM:SS in UTC, or with its offset (whole seconds, years 0001 to 9999)"
	if local {
		problem = "must be a date-time YYYY-MM-DD HH:MM:SS in the record's time zone, or with its offset (whole seconds, years 0001 to 9999)"
	}
	for _, layout := range []string{time.DateTime, time.RFC3339, time.DateOnly} {
		d, err := time.Parse(layout, s)
		if err != nil {
			continue
		}
		if d = d.UTC(); d.Nanosecond() != 0 || d.Year() < 1 || d.Year() > 9999 {
			return nil, problem
		}
		if layout == time.DateOnly || layout == time.DateTime && local {
			return storage.WallTime{Clock: d}, ""
		}
		return d, ""
	}
	return nil, problem
}

// checkText refuses text PostgreSQL cannot store: NUL characters and
// invalid UTF-8.
func checkText(s string) string {
	if !utf8.ValidString(s) {
		return "must be valid UTF-8 text"
	}
	if strings.IndexByte(s, 0) >= 0 {
		return "must not contain NUL characters"
	}
	return ""
}

func parseBool(s string) (bool, bool) {
	switch strings.ToLower(s) {
	case "true", "1":
		return true, true
	case "false", "0":
		return false, true
	}
	return false, false
}
