package storage

import (
	"context"
	"fmt"
	"net/mail"
	"slices"

	"github.com/propfin/propfin/finance"
)

// A company's billing reminder settings (companies.reminders_enabled,
// reminder_days and reminders_reply_to; docs/api.md, "/financial/settings"):
// what the nightly invoices:remind run reads.

// DefaultReminderDays are the rules a company has until it sets its own:
// five days before the due date, on the day, three and ten days after.
var DefaultReminderDays = []int{-5, 0, 3, 10}

// The bounds of a rule and of a company's list of them.
const (
	MinReminderDay   = -60
	MaxReminderDay   = 180
	MaxReminderRules = 10
)

// ReminderSettings are a company's reminder settings, with the names GET
// and PUT /financial/settings give them.
type ReminderSettings struct {
	// Enabled turns the company's reminders on; off by default.
	Enabled bool `json:"reminders_enabled"`
	// Days are the rules, days relative to the due date, in order.
	Days []int `json:"reminders_days"`
	// ReplyTo is where the payers' replies go (nil: the sender).
	ReplyTo *string `json:"reminders_reply_to"`
}

// ReminderSettingsChange is a change of the settings: a nil field is left
// as it is; ReplyTo is changed when SetReplyTo (to nil: none).
type ReminderSettingsChange struct {
	Enabled    *bool
	Days       []int
	SetReplyTo bool
	ReplyTo    *string
}

// CheckReminderDays says what is wrong with a list of rules: one to
// MaxReminderRules distinct days, each from MinReminderDay to
// MaxReminderDay. The problems name the field reminders_days.
func CheckReminderDays(days []int) []finance.Problem {
	problem := func(format string, args ...any) []finance.Problem {
		return []finance.Problem{{Field: "reminders_days", Message: fmt.Sprintf(format, args...)}}
	}
	switch {
	case len(days) == 0:
		return problem("must name at least one day")
	case len(days) > MaxReminderRules:
		return problem("names %d days; at most %d", len(days), MaxReminderRules)
	}
	for i, d := range days {
		if d < MinReminderDay || d > MaxReminderDay {
			return problem("%d (element %d) must be between %d and %d (days from the due date)", d, i, MinReminderDay, MaxReminderDay)
		}
		if slices.Index(days, d) < i {
			return problem("%d is given more than once", d)
		}
	}
	return nil
}

// CheckReplyTo says what is wrong with a reply-to address: a bare e-mail
// address (no display name), as mail.ParseAddress reads one. The problems
// name the field reminders_reply_to.
func CheckReplyTo(addr string) []finance.Problem {
	a, err := mail.ParseAddress(addr)
	if err != nil || a.Name != "" || a.Address != addr || len(addr) > 254 {
		return []finance.Problem{{Field: "reminders_reply_to", Message: "must be an e-mail address, such as cobranca@example.com, or null"}}
	}
	return nil
}

// ReminderSettingsOf reads a company's reminder settings.
func ReminderSettingsOf(ctx context.Context, q DBTX, companyID int64) (ReminderSettings, error) {
	var s ReminderSettings
	err := q.QueryRow(ctx, `SELECT reminders_enabled, reminder_days, reminders_reply_to FROM companies WHERE id = $1`,
		companyID).Scan(&s.Enabled, &s.Days, &s.ReplyTo)
	if err != nil {
		return s, translate(err, "company")
	}
	return s, nil
}

// check says what is wrong with the change's days and address.
func (c ReminderSettingsChange) check() []finance.Problem {
	var problems []finance.Problem
	if c.Days != nil {
		problems = append(problems, CheckReminderDays(c.Days)...)
	}
	if c.SetReplyTo && c.ReplyTo != nil {
		problems = append(problems, CheckReplyTo(*c.ReplyTo)...)
	}
	return problems
}

// days are the change's days in order, as they are stored (nil: kept).
func (c ReminderSettingsChange) days() []int {
	if c.Days == nil {
		return nil
	}
	return slices.Sorted(slices.Values(c.Days))
}
