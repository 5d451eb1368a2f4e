package storage

import (
	"context"
	"fmt"
	"net/mail"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/propfin/propfin/finance"
)

// A company's billing reminder settings (companies.reminders_enabled,
// reminder_days, reminders_reply_to and reminders_sender_name; docs/api.md,
// "/financial/settings"): what the nightly invoices:remind run reads.

// DefaultReminderDays are the rules a company has until it sets its own:
// five days before the due date, on the day, three and ten days after.
var DefaultReminderDays = []int{-5, 0, 3, 10}

// The bounds of a rule and of a company's list of them.
const (
	MinReminderDay   = -60
	MaxReminderDay   = 180
	MaxReminderRules = 10
	// MaxSenderName is the longest reminders_sender_name, in characters.
	MaxSenderName = 100
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
	// SenderName is the name the reminders are sent by and signed with
	// (nil: the company's name).
	SenderName *string `json:"reminders_sender_name"`
}

// ReminderSettingsChange is a change of the settings: a nil field is left
// as it is; ReplyTo is changed when SetReplyTo (to nil: none), SenderName
// when SetSenderName (to nil: the company's name).
type ReminderSettingsChange struct {
	Enabled       *bool
	Days          []int
	SetReplyTo    bool
	ReplyTo       *string
	SetSenderName bool
	SenderName    *string
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

// CheckSenderName says what is wrong with a reminders_sender_name: it is
// the display name of a mail header and the message's signature, so one
// line of 1 to MaxSenderName characters, not blank, without a line break
// or any other control character. The problems name the field
// reminders_sender_name.
func CheckSenderName(name string) []finance.Problem {
	problem := func(format string, args ...any) []finance.Problem {
		return []finance.Problem{{Field: "reminders_sender_name", Message: fmt.Sprintf(format, args...)}}
	}
	switch n := utf8.RuneCountInString(name); {
	case strings.TrimSpace(name) == "":
		return problem("must be a name of 1 to %d characters, or null for the company's name", MaxSenderName)
	case n > MaxSenderName:
		return problem("has %d characters; at most %d", n, MaxSenderName)
	}
	if i := strings.IndexFunc(name, breaksLine); i >= 0 {
		r, _ := utf8.DecodeRuneInString(name[i:])
		return problem("must be one line: it holds %U, a line break or control character, which the reminders' From header cannot carry", r)
	}
	return nil
}

// breaksLine reports a character a header's display name cannot carry: a
// control character (CR and LF among them) or a line or paragraph
// separator.
func breaksLine(r rune) bool {
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029'
}

// ReminderSettingsOf reads a company's reminder settings.
func ReminderSettingsOf(ctx context.Context, q DBTX, companyID int64) (ReminderSettings, error) {
	var s ReminderSettings
	err := q.QueryRow(ctx, `SELECT reminders_enabled, reminder_days, reminders_reply_to, reminders_sender_name
		FROM companies WHERE id = $1`, companyID).Scan(&s.Enabled, &s.Days, &s.ReplyTo, &s.SenderName)
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
	if c.SetSenderName && c.SenderName != nil {
		problems = append(problems, CheckSenderName(*c.SenderName)...)
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
