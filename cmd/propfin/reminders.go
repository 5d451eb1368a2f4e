package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/propfin/propfin/api"
	"github.com/propfin/propfin/jobs"
	"github.com/propfin/propfin/jobs/mail"
)

// The billing reminders' configuration (README, "Configuration"):
// PROPFIN_SMTP_URL, the mail server; PROPFIN_SMTP_FROM, the sender; the
// receipt link settings, which the messages' links are made with.

// devMailFrom is the sender of `propfin dev`'s reminders when
// PROPFIN_SMTP_FROM is not set.
const devMailFrom = "cobranca@propfin.localhost"

// checkMailConfig refuses a mail server URL that does not read, and a
// sender that is not an address (or missing, when the server's user name
// is not one).
func checkMailConfig(cfg config) error {
	if cfg.SMTPURL != "" {
		if _, err := mail.ParseURL(cfg.SMTPURL); err != nil {
			return fmt.Errorf("PROPFIN_SMTP_URL: %w", err) // the error never holds the password
		}
	}
	if cfg.SMTPFrom != "" {
		if _, err := mail.ParseAddress(cfg.SMTPFrom); err != nil {
			return fmt.Errorf("PROPFIN_SMTP_FROM=%q: want an address, such as cobranca@example.com or \"Cobrança <cobranca@example.com>\"", cfg.SMTPFrom)
		}
	}
	return nil
}

// senderOf is the reminders' sender: PROPFIN_SMTP_FROM, else the server's
// user name when it is an address, else fallback ("" for none: an error).
func senderOf(cfg config, server mail.Config, fallback string) (mail.Address, error) {
	from := cfg.SMTPFrom
	if from == "" && strings.Contains(server.Username, "@") {
		from = server.Username
	}
	if from == "" {
		from = fallback
	}
	if from == "" {
		return mail.Address{}, errors.New("PROPFIN_SMTP_FROM must be set with PROPFIN_SMTP_URL: the address the reminders are sent from")
	}
	addr, err := mail.ParseAddress(from)
	if err != nil {
		return mail.Address{}, fmt.Errorf("reminder sender %q: %w", from, err)
	}
	return *addr, nil
}

// remindersConfig is what invoices:remind sends with through server, from
// the sender of cfg (or fallback); the log says what the messages lack.
func remindersConfig(cfg config, server mail.Config, fallback string, log *slog.Logger) (*jobs.RemindersConfig, error) {
	from, err := senderOf(cfg, server, fallback)
	if err != nil {
		return nil, err
	}
	composer, err := api.NewReminderComposer(api.ReminderMailConfig{From: from, ReceiptSecret: []byte(cfg.ReceiptSecret),
		PublicURL: cfg.PublicURL, ReceiptLifetime: cfg.ReceiptLifetime})
	if err != nil {
		return nil, err
	}
	if !composer.Links() {
		log.Warn("PROPFIN_RECEIPT_SECRET or PROPFIN_PUBLIC_URL is not set: the billing reminders carry no link to the receipt page")
	}
	log.Info("billing reminders", "smtp", server.String(), "from", from.String())
	return &jobs.RemindersConfig{SMTP: server, Composer: composer, Connections: cfg.SMTPConnections}, nil
}

// workerReminders is the worker's reminders configuration: nil without
// PROPFIN_SMTP_URL (runs of companies whose reminders are on then fail,
// saying so).
func workerReminders(cfg config, log *slog.Logger) (*jobs.RemindersConfig, error) {
	if cfg.SMTPURL == "" {
		log.Info("PROPFIN_SMTP_URL is not set: this worker sends no billing reminders")
		return nil, nil
	}
	server, err := mail.ParseURL(cfg.SMTPURL)
	if err != nil {
		return nil, fmt.Errorf("PROPFIN_SMTP_URL: %w", err)
	}
	return remindersConfig(cfg, server, "", log)
}

// mailProbeTimeout bounds the worker's look at its mail server at start.
const mailProbeTimeout = 30 * time.Second

// probeMail connects to the mail server once, as a reminders run would
// (TLS, authentication), and says in the log whether it answered: a
// server that cannot be reached, or refuses the credentials, is then told
// at the worker's start, not at the first reminders run. It starts the
// worker all the same (the server may come back before that run).
func probeMail(ctx context.Context, server mail.Config, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(ctx, mailProbeTimeout)
	defer cancel()
	c, err := mail.Dial(ctx, server)
	if err != nil {
		if !errors.Is(ctx.Err(), context.Canceled) { // not the worker stopping meanwhile
			log.Warn("PROPFIN_SMTP_URL: the mail server did not take a connection at start; the billing reminders fail until it does",
				"smtp", server.String(), "err", err)
		}
		return
	}
	_ = c.Close()
	log.Info("the mail server answers", "smtp", server.String())
}
