// Package mail writes e-mail messages (MIME: UTF-8 headers, a plain text
// and an HTML alternative, both quoted-printable) and sends them over SMTP
// to the server of PROPFIN_SMTP_URL (smtp:// with STARTTLS, smtps:// with
// implicit TLS), one connection carrying many messages. Its errors say
// whether the server took the message, refused it, or may have taken it:
// what a sender that must never send twice needs to know.
package mail

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"net/textproto"
	"strings"
	"time"
)

// Address is an address with its display name (net/mail's).
type Address = mail.Address

// ParseAddress reads one address (net/mail's rules).
func ParseAddress(s string) (*Address, error) { return mail.ParseAddress(s) }

// Message is one e-mail to one recipient.
type Message struct {
	From    mail.Address
	To      mail.Address
	ReplyTo *mail.Address // nil: none
	Subject string
	Text    string // the plain text part
	HTML    string // the HTML part; "" for a text-only message
	Date    time.Time
	// MessageID is the Message-ID without its angle brackets; "" makes
	// one at the From address's domain.
	MessageID string
}

// Bytes writes the message as sent: CRLF line ends, headers encoded as
// RFC 2047 words where they are not ASCII, and a multipart/alternative
// body (plain text first, then HTML) in quoted-printable UTF-8.
func (m Message) Bytes() ([]byte, error) {
	if err := m.check(); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	h := m.headers()
	body := multipart.NewWriter(&buf)
	if m.HTML != "" {
		h.Set("Content-Type", "multipart/alternative; boundary="+body.Boundary())
	} else {
		h.Set("Content-Type", "text/plain; charset=utf-8")
		h.Set("Content-Transfer-Encoding", "quoted-printable")
	}
	writeHeaders(&buf, h)
	if m.HTML == "" {
		if err := writeQP(&buf, m.Text); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	}
	for _, part := range []struct{ typ, content string }{{"text/plain", m.Text}, {"text/html", m.HTML}} {
		w, err := body.CreatePart(textproto.MIMEHeader{
			"Content-Type":              {part.typ + "; charset=utf-8"},
			"Content-Transfer-Encoding": {"quoted-printable"},
		})
		if err != nil {
			return nil, fmt.Errorf("mail: %s part: %w", part.typ, err)
		}
		if err := writeQP(w, part.content); err != nil {
			return nil, err
		}
	}
	if err := body.Close(); err != nil {
		return nil, fmt.Errorf("mail: close the body: %w", err)
	}
	return buf.Bytes(), nil
}

// check refuses what would make a header of more than one line.
func (m Message) check() error {
	for name, v := range map[string]string{"from": m.From.Address, "to": m.To.Address, "subject": m.Subject,
		"from name": m.From.Name, "to name": m.To.Name, "message id": m.MessageID} {
		if strings.ContainsAny(v, "\r\n") {
			return fmt.Errorf("mail: the %s holds a line break", name)
		}
	}
	if m.From.Address == "" || m.To.Address == "" {
		return errors.New("mail: a message needs a from and a to address")
	}
	return nil
}

func (m Message) headers() textproto.MIMEHeader {
	date := m.Date
	if date.IsZero() {
		date = time.Now()
	}
	id := m.MessageID
	if id == "" {
		id = NewMessageID(m.From.Address)
	}
	h := textproto.MIMEHeader{}
	h.Set("From", m.From.String())
	h.Set("To", m.To.String())
	if m.ReplyTo != nil {
		h.Set("Reply-To", m.ReplyTo.String())
	}
	h.Set("Subject", mime.QEncoding.Encode("utf-8", m.Subject))
	h.Set("Date", date.Format(time.RFC1123Z))
	h.Set("Message-Id", "<"+id+">")
	h.Set("Mime-Version", "1.0")
	return h
}

// headerOrder is the order the headers are written in.
var headerOrder = []string{"From", "To", "Reply-To", "Subject", "Date", "Message-Id", "Mime-Version",
	"Content-Type", "Content-Transfer-Encoding"}

func writeHeaders(buf *bytes.Buffer, h textproto.MIMEHeader) {
	for _, name := range headerOrder {
		if v := h.Get(name); v != "" {
			fmt.Fprintf(buf, "%s: %s\r\n", name, v)
		}
	}
	buf.WriteString("\r\n")
}

// writeQP writes text quoted-printable, its line ends as CRLF.
func writeQP(w interface{ Write([]byte) (int, error) }, text string) error {
	qp := quotedprintable.NewWriter(w)
	text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\n", "\r\n")
	if _, err := qp.Write([]byte(text)); err != nil {
		return fmt.Errorf("mail: encode the body: %w", err)
	}
	if err := qp.Close(); err != nil {
		return fmt.Errorf("mail: encode the body: %w", err)
	}
	return nil
}

// NewMessageID makes a unique Message-ID (without angle brackets) at the
// domain of addr.
func NewMessageID(addr string) string {
	_, domain, ok := strings.Cut(addr, "@")
	if !ok || domain == "" {
		domain = "localhost"
	}
	b := make([]byte, 12)
	rand.Read(b) //nolint:errcheck // crypto/rand never fails on supported platforms
	return hex.EncodeToString(b) + "@" + domain
}
