package mail_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"math/big"
	"mime"
	"mime/multipart"
	"net"
	netmail "net/mail"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"github.com/propfin/propfin/jobs/mail"
	"github.com/propfin/propfin/jobs/mail/mailbox"
)

var sample = mail.Message{
	From:    mail.Address{Name: "Imobiliária Horizonte", Address: "cobranca@horizonte.example"},
	To:      mail.Address{Name: "José da Silva", Address: "jose@example.com"},
	ReplyTo: &mail.Address{Address: "financeiro@horizonte.example"},
	Subject: "Lembrete: fatura 12 de R$ 1.500,00 vence em 5 dias",
	Text:    "Olá, José.\nA sua fatura vence em 20/11/2026.\n" + strings.Repeat("linha longa ", 20) + "\nFim = ok",
	HTML:    "<p>Olá, José.</p><p>A sua fatura vence em <b>20/11/2026</b>.</p>",
	Date:    time.Date(2026, 11, 15, 9, 0, 0, 0, time.UTC),
}

// TestMessageParses: what Bytes writes reads back with net/mail and
// mime/multipart as it was given: the headers decoded, the two parts in
// order, each line of 76 characters at most.
func TestMessageParses(t *testing.T) {
	t.Parallel()
	raw, err := sample.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(raw), "\r\n") {
		if len(line) > 998 || strings.Contains(line, "\n") {
			t.Errorf("line %d is not a line of a message: %q", i, line)
		}
	}
	msg, err := netmail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	if err != nil || subject != sample.Subject {
		t.Errorf("subject %q (%v), want %q", subject, err, sample.Subject)
	}
	for name, want := range map[string]string{"From": sample.From.String(), "To": sample.To.String(), "Reply-To": "<financeiro@horizonte.example>"} {
		got, err := msg.Header.AddressList(name)
		if err != nil || len(got) != 1 || got[0].String() != want {
			t.Errorf("%s: %v (%v), want %s", name, got, err, want)
		}
	}
	if got, _ := msg.Header.AddressList("From"); len(got) == 1 && got[0].Name != "Imobiliária Horizonte" {
		t.Errorf("From name %q", got[0].Name)
	}
	if d, err := msg.Header.Date(); err != nil || !d.Equal(sample.Date) {
		t.Errorf("Date %v (%v)", d, err)
	}
	if id := msg.Header.Get("Message-Id"); !strings.HasSuffix(id, "@horizonte.example>") {
		t.Errorf("Message-Id %q", id)
	}
	typ, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil || typ != "multipart/alternative" {
		t.Fatalf("Content-Type %q", msg.Header.Get("Content-Type"))
	}
	mr := multipart.NewReader(msg.Body, params["boundary"])
	var got []string
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(p)
		got = append(got, p.Header.Get("Content-Type")+"|"+strings.ReplaceAll(string(body), "\r\n", "\n"))
	}
	want := []string{"text/plain; charset=utf-8|" + sample.Text, "text/html; charset=utf-8|" + sample.HTML}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("parts\n%q\nwant\n%q", got, want)
	}
}

// TestMessageRefusesLineBreaks: a header value with a line break (a
// header injected through a payer's name) is refused.
func TestMessageRefusesLineBreaks(t *testing.T) {
	t.Parallel()
	for _, m := range []mail.Message{
		{From: sample.From, To: sample.To, Subject: "Oi\r\nBcc: x@example.com"},
		{From: sample.From, To: mail.Address{Name: "A\nB", Address: "a@example.com"}},
		{From: sample.From},
	} {
		if _, err := m.Bytes(); err == nil {
			t.Errorf("%+v: written, want refused", m)
		}
	}
}

func TestParseURL(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		url, want string // want: Addr, security, user, password; "" for an error
	}{
		{"smtp://user:p%40ss@mail.example.com:587", "mail.example.com:587 1 user p@ss"},
		{"smtp://mail.example.com", "mail.example.com:587 1  "},
		{"smtps://a%40b.com:x@mail.example.com", "mail.example.com:465 2 a@b.com x"},
		{"smtps://[::1]:2465", "[::1]:2465 2  "},
		{"http://mail.example.com", ""},
		{"smtp://", ""},
		{"smtp://mail.example.com:0", ""},
		{"smtp://mail.example.com/path", ""},
		{"smtp://mail.example.com?tls=off", ""},
	} {
		cfg, err := mail.ParseURL(c.url)
		got := ""
		if err == nil {
			got = strings.Join([]string{cfg.Addr(), string(rune('0' + cfg.Security)), cfg.Username, cfg.Password}, " ")
		}
		if got != c.want {
			t.Errorf("%s: %q (%v), want %q", c.url, got, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "p@ss") {
			t.Errorf("%s: the error shows the password", c.url)
		}
	}
	cfg, _ := mail.ParseURL("smtp://user:secret@mail.example.com:587")
	if strings.Contains(cfg.String(), "secret") {
		t.Errorf("String() %q shows the password", cfg.String())
	}
}

// testTLS is a certificate for 127.0.0.1 and the client configuration
// that trusts it.
func testTLS(t *testing.T) (server, client *tls.Config) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	roots := x509.NewCertPool()
	roots.AddCert(cert)
	return &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}},
		&tls.Config{RootCAs: roots}
}

func configOf(t *testing.T, box *mailbox.Server, sec mail.Security, client *tls.Config) mail.Config {
	t.Helper()
	host, port, _ := net.SplitHostPort(box.Addr())
	return mail.Config{Host: host, Port: port, Security: sec, TLS: client, Timeout: 5 * time.Second}
}

// TestSendOverTLS: STARTTLS when the server offers it, implicit TLS with
// smtps, plain to a loopback server that offers no TLS; one connection
// carries several messages.
func TestSendOverTLS(t *testing.T) {
	t.Parallel()
	serverTLS, clientTLS := testTLS(t)
	for _, c := range []struct {
		name    string
		opts    mailbox.Options
		sec     mail.Security
		wantTLS bool
	}{
		{"starttls", mailbox.Options{TLS: serverTLS}, mail.StartTLS, true},
		{"implicit", mailbox.Options{TLS: serverTLS, ImplicitTLS: true}, mail.ImplicitTLS, true},
		{"plain loopback", mailbox.Options{}, mail.StartTLS, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			box, err := mailbox.Listen("127.0.0.1:0", c.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer box.Close()
			conn, err := mail.Dial(context.Background(), configOf(t, box, c.sec, clientTLS))
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := sample.Bytes()
			for range 3 {
				if err := conn.Send(sample.From.Address, sample.To.Address, raw); err != nil {
					t.Fatal(err)
				}
			}
			if err := conn.Close(); err != nil {
				t.Error(err)
			}
			msgs := box.Messages()
			if len(msgs) != 3 || msgs[0].TLS != c.wantTLS || !bytes.Equal(msgs[2].Raw, raw) || msgs[0].Subject != sample.Subject {
				t.Errorf("%d messages, TLS %v: want 3 as sent, TLS %v", len(msgs), len(msgs) > 0 && msgs[0].TLS, c.wantTLS)
			}
		})
	}
}

// TestRefusals: a 5xx is permanent, a 4xx is not, neither may have gone,
// and the connection carries the next message.
func TestRefusals(t *testing.T) {
	t.Parallel()
	box, err := mailbox.Listen("127.0.0.1:0", mailbox.Options{Refuse: func(_, to string) error {
		switch to {
		case "gone@example.com":
			return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "no such user"}
		case "full@example.com":
			return &smtp.SMTPError{Code: 452, EnhancedCode: smtp.EnhancedCode{4, 2, 2}, Message: "mailbox full"}
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer box.Close()
	conn, err := mail.Dial(context.Background(), configOf(t, box, mail.StartTLS, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	raw, _ := sample.Bytes()
	for _, c := range []struct {
		to        string
		permanent bool
	}{{"gone@example.com", true}, {"full@example.com", false}} {
		err := conn.Send(sample.From.Address, c.to, raw)
		var se *mail.SendError
		if !errors.As(err, &se) || se.Permanent() != c.permanent || se.Maybe || conn.Broken() {
			t.Errorf("%s: %v, want a refusal permanent %v, not maybe, the connection whole", c.to, err, c.permanent)
		}
	}
	if err := conn.Send(sample.From.Address, "ok@example.com", raw); err != nil || len(box.Messages()) != 1 {
		t.Errorf("the next message: %v, %d kept", err, len(box.Messages()))
	}
}

// TestBrokenAfterTheMessageMayHaveGone: a connection that breaks once the
// whole message is written, before the server's reply, is a send that
// may have gone (Maybe): the caller must not send it again.
func TestBrokenAfterTheMessageMayHaveGone(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		r := bufio.NewReader(c)
		io.WriteString(c, "220 test ESMTP\r\n") //nolint:errcheck
		data := false
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			switch {
			case data && line == ".\r\n":
				return // the message is in; the connection breaks before the 250
			case data:
			case strings.HasPrefix(line, "EHLO"):
				io.WriteString(c, "250 test\r\n") //nolint:errcheck
			case strings.HasPrefix(line, "DATA"):
				data = true
				io.WriteString(c, "354 go on\r\n") //nolint:errcheck
			default:
				io.WriteString(c, "250 ok\r\n") //nolint:errcheck
			}
		}
	}()
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	conn, err := mail.Dial(context.Background(), mail.Config{Host: host, Port: port, Security: mail.StartTLS, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	raw, _ := sample.Bytes()
	err = conn.Send(sample.From.Address, sample.To.Address, raw)
	var se *mail.SendError
	if !errors.As(err, &se) || !se.Maybe || !conn.Broken() {
		t.Errorf("%v: want a send that may have gone, the connection broken", err)
	}
}
