package main

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/jobs"
	"github.com/propfin/propfin/jobs/mail"
	"github.com/propfin/propfin/storage"
)

// TestDevMailPage: `propfin dev`'s mail takes a reminder sent through its
// configuration, prints a line for it, and shows it at /dev/mail (the
// list, the message with its PIX code, its HTML in a sandbox) beside the
// API, which still answers everything else.
func TestDevMailPage(t *testing.T) {
	t.Parallel()
	cfg := config{ReceiptSecret: strings.Repeat("s", 32), PublicURL: "http://127.0.0.1:8080"}
	var console syncBuffer
	d, err := startDevMail(cfg, "http://127.0.0.1:8080", &console, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer d.close()
	const pixCode = "00020126330014br.gov.bcb.pix0111529982247255204000053039865406100.005802BR5905Teste6009SAO PAULO6304ABCD"
	due := finance.MustDate("2026-11-20")
	msg, err := d.reminders.Composer.Compose(jobs.ReminderNotice{
		DueReminder: storage.DueReminder{ReminderKey: storage.ReminderKey{InvoiceID: 7}, Number: "7", Status: "unpaid",
			PayerName: "Ana", CompanyName: devCompany, PixCode: pixCode,
			Invoice: finance.Invoice{Description: "Aluguel", Total: decimal.RequireFromString("1500"), DueDate: due}},
		CompanyID: 1, Date: due, To: mail.Address{Name: "Ana", Address: "ana@example.com"},
		Settlement: finance.Settlement{Total: decimal.RequireFromString("1500")}})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := mail.Dial(context.Background(), d.reminders.SMTP)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := msg.Bytes()
	if err := conn.Send(msg.From.Address, msg.To.Address, raw); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	if !strings.Contains(console.String(), "Mail #1 to ana@example.com: Fatura 7 de R$ 1.500,00 vence hoje (20/11/2026) (http://127.0.0.1:8080/dev/mail/1)") {
		t.Errorf("console: %q", console.String())
	}

	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "api "+r.URL.Path) }) //nolint:errcheck
	srv := httptest.NewServer(d.handler(api))
	defer srv.Close()
	for _, c := range []struct {
		path, want, header string
		status             int
	}{
		{"/dev/mail", "Fatura 7 de R$ 1.500,00 vence hoje", "", http.StatusOK},
		{"/dev/mail/1", pixCode, "", http.StatusOK},
		{"/dev/mail/1/html", pixCode, "sandbox", http.StatusOK},
		{"/dev/mail/1/raw", "Content-Type: multipart/alternative", "", http.StatusOK},
		{"/dev/mail/2", "no such message", "", http.StatusNotFound},
		{"/dev/mailbox", "api /dev/mailbox", "", http.StatusOK},
		{"/invoices", "api /invoices", "", http.StatusOK},
	} {
		res, err := http.Get(srv.URL + c.path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != c.status || !strings.Contains(string(body), c.want) ||
			!strings.Contains(res.Header.Get("Content-Security-Policy"), c.header) {
			t.Errorf("GET %s: %d %q (CSP %q), want %d with %q", c.path, res.StatusCode, body, res.Header.Get("Content-Security-Policy"), c.status, c.want)
		}
	}
}

// TestDevBaseURL: links name the listener's address, localhost for one
// of every interface.
func TestDevBaseURL(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]string{"127.0.0.1:8080": "http://127.0.0.1:8080", "0.0.0.0:9000": "http://localhost:9000",
		"[::]:9000": "http://localhost:9000"} {
		a, _ := net.ResolveTCPAddr("tcp", addr)
		if got := devBaseURL(a); got != want {
			t.Errorf("%s: %s, want %s", addr, got, want)
		}
	}
}
