package main

import (
	"context"
	"log/slog"
	"net"
	"strings"
	"testing"

	"github.com/propfin/propfin/jobs/mail"
	"github.com/propfin/propfin/jobs/mail/mailbox"
)

// TestProbeMail: the worker's look at its mail server at start logs a
// warning naming PROPFIN_SMTP_URL when nothing listens, and that the server
// answers when one does (a real SMTP server in process).
func TestProbeMail(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	box, err := mailbox.Listen("127.0.0.1:0", mailbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer box.Close()
	for _, c := range []struct {
		name, addr, want string
	}{
		{"nothing listening", closed, `level=WARN msg="PROPFIN_SMTP_URL: the mail server did not take a connection at start`},
		{"a server", box.Addr(), `level=INFO msg="the mail server answers"`},
	} {
		host, port, _ := net.SplitHostPort(c.addr)
		var out syncBuffer
		probeMail(context.Background(), mail.Config{Host: host, Port: port, Security: mail.StartTLS},
			slog.New(slog.NewTextHandler(&out, nil)))
		if !strings.Contains(out.String(), c.want) {
			t.Errorf("%s: log %q, want %q", c.name, out.String(), c.want)
		}
	}
}
