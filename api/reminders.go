package api

import (
	"fmt"
	"strings"
	"time"

	"github.com/propfin/propfin/api/receipt"
	"github.com/propfin/propfin/api/reminder"
	"github.com/propfin/propfin/jobs"
	"github.com/propfin/propfin/jobs/mail"
)

// The billing reminders' messages (docs/jobs.md, "invoices:remind"): the
// worker's invoices:remind composes each through the composer built here,
// which links the receipt page exactly as GET /invoices/{id}/receiptLink
// does (the same secret, base URL and lifetime). The reminders sent are
// listed by the read-only /financial/reminders (routes.go).

// ReminderMailConfig configures the reminders' messages.
type ReminderMailConfig struct {
	// From is the sender's address (PROPFIN_SMTP_FROM); its display name
	// is the company's reminders_sender_name when set, else From's own,
	// else the company's name (Sender).
	From mail.Address
	// ReceiptSecret, PublicURL and ReceiptLifetime are the API's receipt
	// link settings (Config's): without a secret or a public URL the
	// messages carry no link.
	ReceiptSecret   []byte
	PublicURL       string
	ReceiptLifetime time.Duration
	// Now is the clock of the links' lifetime and the messages' date
	// (nil: time.Now).
	Now func() time.Time
}

// ReminderComposer writes the reminders' messages; it implements
// jobs.ReminderComposer.
type ReminderComposer struct {
	cfg   ReminderMailConfig
	links *receiptLinks
}

// NewReminderComposer checks the configuration: a sender address, and a
// receipt secret long enough when one is given.
func NewReminderComposer(cfg ReminderMailConfig) (*ReminderComposer, error) {
	if _, err := mail.ParseAddress(cfg.From.Address); err != nil || strings.ContainsAny(cfg.From.Address, "<>") {
		return nil, fmt.Errorf("reminder sender %q: not an e-mail address", cfg.From.Address)
	}
	links, err := newReceiptLinks(cfg.ReceiptSecret, cfg.PublicURL, cfg.ReceiptLifetime)
	if err != nil {
		return nil, err
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &ReminderComposer{cfg: cfg, links: links}, nil
}

// Links reports whether the messages carry a link to the receipt page.
func (c *ReminderComposer) Links() bool { return c.links.signer != nil && c.links.publicURL != "" }

// Compose implements jobs.ReminderComposer.
func (c *ReminderComposer) Compose(n jobs.ReminderNotice) (mail.Message, error) {
	now := c.cfg.Now()
	s := n.Settlement
	from := c.Sender(n.CompanyName, n.SenderName)
	notice := reminder.Notice{
		Company: signer(n.CompanyName, n.SenderName), Business: n.BusinessName, Payer: n.PayerName, Number: n.Number,
		Description: n.Invoice.Description, DueDate: n.Invoice.DueDate.Time(), Date: n.Date.Time(),
		Total: n.Invoice.Total, DaysLate: s.DaysLate, LateFee: s.LateFee, Interest: s.Interest, Discount: s.Discount,
		Due: s.Total, PartiallyPaid: n.Status == "partially_paid", Balance: s.Invoice, PixCode: n.PixCode, Digitable: n.Digitable,
		StaleMeans: n.StaleMeans,
	}
	if c.Links() {
		notice.Link, notice.LinkExpires = c.links.sign(c.links.publicURL, receipt.KindInvoice, n.CompanyID, n.InvoiceID, now)
	}
	text, html, err := notice.Bodies()
	if err != nil {
		return mail.Message{}, err
	}
	to := n.To
	to.Name = oneLine(to.Name)
	msg := mail.Message{From: from, To: to, Subject: oneLine(notice.Subject()), Text: text, HTML: html, Date: inZone(now, n.TimeZone)}
	if n.ReplyTo != "" {
		msg.ReplyTo = &mail.Address{Address: n.ReplyTo}
	}
	return msg, nil
}

// inZone is t in the IANA time zone named (the company's, so that a
// message's Date header reads the clock its recipients and the body's
// dates go by); t as it is when the name is empty or unknown.
func inZone(t time.Time, zone string) time.Time {
	if zone == "" {
		return t
	}
	loc, err := time.LoadLocation(zone)
	if err != nil {
		return t
	}
	return t.In(loc)
}

// Sender is the From of a company's reminders: the configured address,
// with the company's reminders_sender_name as the display name when it
// has one (senderName, "" for none), else the configured display name,
// else the company's name.
func (c *ReminderComposer) Sender(companyName, senderName string) mail.Address {
	from := c.cfg.From
	switch {
	case strings.TrimSpace(senderName) != "":
		from.Name = oneLine(senderName)
	case from.Name == "":
		from.Name = oneLine(companyName)
	}
	return from
}

// signer is the name that signs a reminder: the company's
// reminders_sender_name when it has one, else the company's name.
func signer(companyName, senderName string) string {
	if strings.TrimSpace(senderName) != "" {
		return oneLine(senderName)
	}
	return companyName
}

// oneLine keeps a header's text on one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
