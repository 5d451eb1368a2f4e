package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/api"
	"github.com/propfin/propfin/jobs"
	"github.com/propfin/propfin/jobs/mail"
	"github.com/propfin/propfin/jobs/mail/mailbox"
	"github.com/propfin/propfin/storage"
)

// devMailPath is where `propfin dev` shows the messages its SMTP server
// took; no other mode serves it.
const devMailPath = "/dev/mail"

// devMail is `propfin dev`'s mail: without PROPFIN_SMTP_URL, an SMTP
// server in process that keeps the messages, shows them at /dev/mail and
// prints a line per message to console; with it, that server (and no
// page). base is where the page is reached (http://host:port).
type devMail struct {
	reminders *jobs.RemindersConfig
	box       *mailbox.Server // nil with PROPFIN_SMTP_URL
}

// startDevMail starts the mail of `propfin dev`.
func startDevMail(cfg config, base string, console io.Writer, log *slog.Logger) (*devMail, error) {
	if cfg.SMTPURL != "" {
		server, err := mail.ParseURL(cfg.SMTPURL)
		if err != nil {
			return nil, fmt.Errorf("PROPFIN_SMTP_URL: %w", err)
		}
		reminders, err := remindersConfig(cfg, server, devMailFrom, log)
		return &devMail{reminders: reminders}, err
	}
	var mu sync.Mutex
	box, err := mailbox.Listen("127.0.0.1:0", mailbox.Options{OnMessage: func(m mailbox.Message) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(console, "Mail #%d to %s: %s (%s%s/%d)\n", m.ID, strings.Join(m.To, ", "), m.Subject, base, devMailPath, m.ID)
	}})
	if err != nil {
		return nil, err
	}
	host, port, _ := net.SplitHostPort(box.Addr())
	server := mail.Config{Host: host, Port: port, Security: mail.StartTLS} // loopback: plain, as the box offers no TLS
	reminders, err := remindersConfig(cfg, server, devMailFrom, log)
	if err != nil {
		box.Close()
		return nil, err
	}
	return &devMail{reminders: reminders, box: box}, nil
}

// handler is h with the mail page beside it, when the server is ours.
func (d *devMail) handler(h http.Handler) http.Handler {
	if d.box == nil {
		return h
	}
	page := d.box.Handler(devMailPath)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == devMailPath || strings.HasPrefix(r.URL.Path, devMailPath+"/") {
			page.ServeHTTP(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// sendsAs says whom the reminders of the company of key are from, and
// how to change it: the name (its reminders_sender_name, else the
// sender's display name, else the company's name) and the address.
func (d *devMail) sendsAs(ctx context.Context, pool *pgxpool.Pool, key string) (string, error) {
	p, err := storage.LookupAPIKey(ctx, pool, key)
	if err != nil {
		return "", err
	}
	company, err := storage.CompanyName(ctx, pool, p.CompanyID)
	if err != nil {
		return "", err
	}
	settings, err := storage.ReminderSettingsOf(ctx, pool, p.CompanyID)
	if err != nil {
		return "", err
	}
	name, why := "", "the company's name"
	if settings.SenderName != nil {
		name, why = *settings.SenderName, "its reminders_sender_name"
	}
	composer, ok := d.reminders.Composer.(*api.ReminderComposer)
	if !ok {
		return "", fmt.Errorf("reminders composer %T", d.reminders.Composer)
	}
	from := composer.Sender(company, name)
	if name == "" && from.Name != company {
		why = "PROPFIN_SMTP_FROM's name"
	}
	return fmt.Sprintf(`%s <%s> (%s; PUT /financial/settings {"reminders_sender_name": "..."} changes it)`,
		from.Name, from.Address, why), nil
}

func (d *devMail) close() {
	if d.box != nil {
		d.box.Close()
	}
}

// devBaseURL is the address the dev server is reached at, for links: the
// listener's, with localhost for an address of every interface.
func devBaseURL(addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return "http://" + addr.String()
	}
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}
