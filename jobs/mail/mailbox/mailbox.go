// Package mailbox is an SMTP server in process that keeps the messages it
// is given, and a page that shows them: `propfin dev` sends its e-mail
// there, so that a reminder can be read without a mail server, and tests
// send to it to read what went out. It takes any sender and recipient,
// over plain SMTP or STARTTLS when given a certificate, without
// authentication, and keeps the last messages in memory.
package mailbox

import (
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"mime"
	"net"
	"net/mail"
	"sync"
	"time"

	"github.com/emersion/go-smtp"
)

// DefaultKeep is how many messages a box keeps by default; older ones go.
const DefaultKeep = 1000

// maxMessageBytes bounds one message.
const maxMessageBytes = 10 << 20

// Message is one message the server took.
type Message struct {
	ID      int // from 1, in the order taken
	At      time.Time
	From    string   // the envelope sender
	To      []string // the envelope recipients
	Subject string   // decoded
	Raw     []byte   // the message as sent
	TLS     bool     // it came over TLS (STARTTLS or implicit)
}

// Options configure a server.
type Options struct {
	// Keep is how many messages are kept (0: DefaultKeep).
	Keep int
	// TLS, when set, offers STARTTLS with it (and Listen's implicit TLS
	// when ImplicitTLS).
	TLS         *tls.Config
	ImplicitTLS bool
	// Refuse, when set, is asked for each recipient: an error it returns
	// refuses the recipient with that error (an *smtp.SMTPError gives its
	// code), as a server that will not take the message.
	Refuse func(from, to string) error
	// OnMessage is called with each message taken (after it is kept).
	OnMessage func(Message)
}

// Server is the SMTP server and its box of messages.
type Server struct {
	srv  *smtp.Server
	ln   net.Listener
	opts Options

	mu     sync.Mutex
	msgs   []Message
	nextID int
}

// Listen starts a server on addr ("127.0.0.1:0" for any free port).
func Listen(addr string, opts Options) (*Server, error) {
	if opts.Keep <= 0 {
		opts.Keep = DefaultKeep
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("mailbox: listen: %w", err)
	}
	if opts.ImplicitTLS {
		if opts.TLS == nil {
			ln.Close()
			return nil, errors.New("mailbox: implicit TLS needs a TLS configuration")
		}
		ln = tls.NewListener(ln, opts.TLS)
	}
	s := &Server{ln: ln, opts: opts, nextID: 1}
	s.srv = smtp.NewServer(s)
	s.srv.Domain = "localhost"
	s.srv.MaxMessageBytes = maxMessageBytes
	s.srv.MaxRecipients = 50
	s.srv.ReadTimeout, s.srv.WriteTimeout = time.Minute, time.Minute
	s.srv.AllowInsecureAuth = true
	s.srv.EnableSMTPUTF8 = true
	s.srv.ErrorLog = log.New(io.Discard, "", 0)
	if opts.TLS != nil && !opts.ImplicitTLS {
		s.srv.TLSConfig = opts.TLS
	}
	go s.srv.Serve(ln) //nolint:errcheck // ends with Close
	return s, nil
}

// Addr is the address the server listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops the server.
func (s *Server) Close() error { return s.srv.Close() }

// Messages returns the messages kept, oldest first.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.msgs...)
}

// Message returns the message kept with id.
func (s *Server) Message(id int) (Message, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.msgs {
		if m.ID == id {
			return m, true
		}
	}
	return Message{}, false
}

// keep stores a message taken.
func (s *Server) keep(from string, to []string, raw []byte, overTLS bool) Message {
	m := Message{At: time.Now(), From: from, To: to, Raw: raw, Subject: subjectOf(raw), TLS: overTLS}
	s.mu.Lock()
	m.ID = s.nextID
	s.nextID++
	s.msgs = append(s.msgs, m)
	if len(s.msgs) > s.opts.Keep {
		s.msgs = append([]Message(nil), s.msgs[len(s.msgs)-s.opts.Keep:]...)
	}
	s.mu.Unlock()
	if s.opts.OnMessage != nil {
		s.opts.OnMessage(m)
	}
	return m
}

// subjectOf reads the decoded subject of a raw message ("" when it has
// none or does not parse).
func subjectOf(raw []byte) string {
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return ""
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	if err != nil {
		return msg.Header.Get("Subject")
	}
	return subject
}

// NewSession implements smtp.Backend.
func (s *Server) NewSession(c *smtp.Conn) (smtp.Session, error) {
	return &session{box: s, conn: c}, nil
}

// session is one SMTP transaction after another on one connection.
type session struct {
	box  *Server
	conn *smtp.Conn
	from string
	to   []string
}

func (ss *session) Mail(from string, _ *smtp.MailOptions) error {
	ss.from = from
	return nil
}

func (ss *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	if refuse := ss.box.opts.Refuse; refuse != nil {
		if err := refuse(ss.from, to); err != nil {
			return err
		}
	}
	ss.to = append(ss.to, to)
	return nil
}

func (ss *session) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	_, overTLS := ss.conn.TLSConnectionState()
	ss.box.keep(ss.from, ss.to, raw, overTLS)
	return nil
}

func (ss *session) Reset() { ss.from, ss.to = "", nil }

func (ss *session) Logout() error { return nil }
