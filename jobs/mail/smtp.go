package mail

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Security is how a connection to the server is encrypted.
type Security int

const (
	// StartTLS: a plain connection upgraded with STARTTLS before anything
	// is sent (smtp://, port 587 by default). Required, except to a
	// loopback address, where it is used when the server offers it (a
	// relay on the same machine, the dev server).
	StartTLS Security = iota + 1
	// ImplicitTLS: TLS from the first byte (smtps://, port 465 by default).
	ImplicitTLS
)

// Config says how to reach the server.
type Config struct {
	Host     string // the host name, which the certificate must name
	Port     string
	Security Security
	Username string // "": no authentication
	Password string
	// TLS is the TLS configuration (nil: the system's roots, the host
	// name); tests give their own roots.
	TLS *tls.Config
	// Timeout bounds the dial and each command and reply (default 30 s).
	Timeout time.Duration
}

// DefaultTimeout bounds a dial, a command and its reply.
const DefaultTimeout = 30 * time.Second

// ParseURL reads PROPFIN_SMTP_URL: smtp://user:pass@host:587 (STARTTLS) or
// smtps://user:pass@host:465 (implicit TLS). The user and password are
// optional and URL-escaped (%40 for an @ in a user name); nothing else
// (a path, a query) is accepted.
func ParseURL(raw string) (Config, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return Config{}, fmt.Errorf("not a URL: %w", err)
	}
	var cfg Config
	switch u.Scheme {
	case "smtp":
		cfg.Security, cfg.Port = StartTLS, "587"
	case "smtps":
		cfg.Security, cfg.Port = ImplicitTLS, "465"
	default:
		return Config{}, fmt.Errorf("scheme %q: want smtp:// (STARTTLS) or smtps:// (implicit TLS)", u.Scheme)
	}
	cfg.Host = u.Hostname()
	if cfg.Host == "" {
		return Config{}, errors.New("no host: want smtp://user:pass@host:587")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return Config{}, fmt.Errorf("port %q: want 1 to 65535", p)
		}
		cfg.Port = p
	}
	if strings.Trim(u.Path, "/") != "" || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return Config{}, errors.New("a path, query or fragment is not read: want smtp://user:pass@host:587")
	}
	if u.User != nil {
		cfg.Username = u.User.Username()
		cfg.Password, _ = u.User.Password()
	}
	return cfg, nil
}

// Addr is host:port.
func (c Config) Addr() string { return net.JoinHostPort(c.Host, c.Port) }

// String is the server without its password, for logs.
func (c Config) String() string {
	scheme := "smtp"
	if c.Security == ImplicitTLS {
		scheme = "smtps"
	}
	user := ""
	if c.Username != "" {
		user = url.User(c.Username).String() + "@"
	}
	return scheme + "://" + user + c.Addr()
}

// loopback reports whether the host is this machine.
func (c Config) loopback() bool {
	if c.Host == "localhost" {
		return true
	}
	ip := net.ParseIP(c.Host)
	return ip != nil && ip.IsLoopback()
}

func (c Config) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultTimeout
}

func (c Config) tlsConfig() *tls.Config {
	t := &tls.Config{MinVersion: tls.VersionTLS12}
	if c.TLS != nil {
		t = c.TLS.Clone()
	}
	if t.ServerName == "" {
		t.ServerName = c.Host
	}
	return t
}

// Conn is one connection to the server, carrying one message after
// another. It is not safe for concurrent use.
type Conn struct {
	c      *smtp.Client
	broken bool
}

// Dial connects, encrypts (STARTTLS or TLS) and authenticates.
func Dial(ctx context.Context, cfg Config) (*Conn, error) {
	c, err := dial(ctx, cfg, cfg.Security == StartTLS && !cfg.loopback())
	if err != nil {
		return nil, err
	}
	if cfg.Security == StartTLS && cfg.loopback() {
		if ok, _ := c.Extension("STARTTLS"); ok { // offered: used
			c.Close()
			if c, err = dial(ctx, cfg, true); err != nil {
				return nil, err
			}
		}
	}
	if cfg.Username != "" {
		if _, secure := c.TLSConnectionState(); !secure && !cfg.loopback() {
			c.Close()
			return nil, fmt.Errorf("smtp %s: credentials are not sent over a connection without TLS", cfg.Addr())
		}
		if err := c.Auth(sasl.NewPlainClient("", cfg.Username, cfg.Password)); err != nil {
			c.Close()
			return nil, fmt.Errorf("smtp %s: authenticate as %s: %w", cfg.Addr(), cfg.Username, err)
		}
	}
	return &Conn{c: c}, nil
}

// dial opens the connection, with STARTTLS when startTLS.
func dial(ctx context.Context, cfg Config, startTLS bool) (*smtp.Client, error) {
	d := &net.Dialer{Timeout: cfg.timeout()}
	var conn net.Conn
	var err error
	if cfg.Security == ImplicitTLS {
		conn, err = (&tls.Dialer{NetDialer: d, Config: cfg.tlsConfig()}).DialContext(ctx, "tcp", cfg.Addr())
	} else {
		conn, err = d.DialContext(ctx, "tcp", cfg.Addr())
	}
	if err != nil {
		return nil, fmt.Errorf("smtp %s: connect: %w", cfg.Addr(), err)
	}
	var c *smtp.Client
	if startTLS {
		if c, err = smtp.NewClientStartTLS(conn, cfg.tlsConfig()); err != nil {
			return nil, fmt.Errorf("smtp %s: STARTTLS: %w", cfg.Addr(), err)
		}
	} else {
		c = smtp.NewClient(conn)
	}
	c.CommandTimeout, c.SubmissionTimeout = cfg.timeout(), cfg.timeout()
	if err := c.Hello(localName()); err != nil {
		c.Close()
		return nil, fmt.Errorf("smtp %s: hello: %w", cfg.Addr(), err)
	}
	return c, nil
}

// localName is the name the client greets with.
func localName() string {
	return "propfin.localhost"
}

// SendError is a message the server did not take, or may have.
type SendError struct {
	Err error
	// Code is the server's reply code when it refused (0 when the
	// connection failed instead).
	Code int
	// Maybe: the whole message was written and the connection broke
	// before the server's reply; it may have been taken.
	Maybe bool
}

func (e *SendError) Error() string { return e.Err.Error() }
func (e *SendError) Unwrap() error { return e.Err }

// Permanent reports whether the server refused for good (a 5xx reply):
// sending the same again would be refused again.
func (e *SendError) Permanent() bool { return e.Code >= 500 }

// Send hands one message from the envelope sender from to the recipient
// to. A failure is a *SendError; after one the connection may be broken
// (Broken), and a new one is needed.
func (c *Conn) Send(from, to string, msg []byte) error {
	if c.broken {
		return &SendError{Err: errors.New("smtp: the connection is broken")}
	}
	var opts *smtp.MailOptions
	if !isASCII(from) || !isASCII(to) {
		opts = &smtp.MailOptions{UTF8: true}
	}
	if err := c.c.Mail(from, opts); err != nil {
		return c.failed("MAIL FROM", err, false)
	}
	if err := c.c.Rcpt(to, nil); err != nil {
		return c.failed("RCPT TO <"+to+">", err, false)
	}
	w, err := c.c.Data()
	if err != nil {
		return c.failed("DATA", err, false)
	}
	if _, err := w.Write(msg); err != nil {
		c.broken = true
		return &SendError{Err: fmt.Errorf("smtp: write the message: %w", err)}
	}
	if err := w.Close(); err != nil {
		return c.failed("end of the message", err, true)
	}
	return nil
}

// failed makes the error of a step: a reply of the server's is a refusal
// (the transaction is reset for the next message); anything else breaks
// the connection, and after the whole message it may have gone.
func (c *Conn) failed(step string, err error, written bool) error {
	var refusal *smtp.SMTPError
	if errors.As(err, &refusal) {
		if c.c.Reset() != nil {
			c.broken = true
		}
		return &SendError{Err: fmt.Errorf("smtp %s: %d %s", step, refusal.Code, refusal.Message), Code: refusal.Code}
	}
	c.broken = true
	return &SendError{Err: fmt.Errorf("smtp %s: %w", step, err), Maybe: written}
}

// Broken reports whether the connection can carry no more messages.
func (c *Conn) Broken() bool { return c.broken }

// Close says QUIT when the connection is whole, and closes it.
func (c *Conn) Close() error {
	if !c.broken {
		if err := c.c.Quit(); err == nil {
			return nil
		}
	}
	return c.c.Close()
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
