package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// Timeout bounds a delivery: connecting, sending, and the answer's
// headers and first kilobyte.
const Timeout = 10 * time.Second

// MaxResponse is how much of an answer's body is kept.
const MaxResponse = 1024

// Client posts deliveries under a Policy: every connection is checked at
// dial time, on the address it is about to reach (a net.Dialer's Control,
// after the name was resolved, so that a name that resolves to a refused
// address, now or after a rebinding, is never reached), no proxy from the
// environment is used (it would be checked instead of the endpoint), and
// redirects are not followed (a 3xx is an answer, not a delivery). Plain
// http goes through a transport of its own whose dial takes loopback
// addresses alone, and only when the policy allows them.
type Client struct {
	policy       Policy
	https, plain *http.Client
}

// NewClient makes the client of a worker; timeout 0 is Timeout.
func NewClient(p Policy, timeout time.Duration) *Client {
	if timeout <= 0 {
		timeout = Timeout
	}
	plain := p
	plain.AllowPrivate = false
	return &Client{policy: p, https: newHTTPClient(p.control, p.Resolver, timeout),
		plain: newHTTPClient(plain.controlLoopback, p.Resolver, timeout)}
}

func newHTTPClient(control func(string, string, syscall.RawConn) error, r *net.Resolver, timeout time.Duration) *http.Client {
	dialer := &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second, Resolver: r, Control: control}
	transport := &http.Transport{
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          256,
		MaxIdleConnsPerHost:   16,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   timeout,
		ResponseHeaderTimeout: timeout,
		ExpectContinueTimeout: time.Second,
	}
	return &http.Client{
		Transport:     transport,
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// control refuses a connection to an address the policy refuses.
func (p Policy) control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: %q is not an address", ErrRefused, address)
	}
	return p.CheckAddr(ap.Addr())
}

// controlLoopback is the dial check of plain http: a loopback address,
// when the policy allows them, and nothing else.
func (p Policy) controlLoopback(network, address string, c syscall.RawConn) error {
	if err := p.control(network, address, c); err != nil {
		return err
	}
	if ap, _ := netip.ParseAddrPort(address); !ap.Addr().Unmap().IsLoopback() {
		return fmt.Errorf("%w: plain http reaches loopback addresses alone, not %s", ErrRefused, ap.Addr())
	}
	return nil
}

// Request is one delivery to post.
type Request struct {
	URL     string
	ID      string // the event's id: webhook-id
	Body    []byte
	Secrets []string // the current secret, then the previous one during a rotation's overlap
	// At is when it is signed (webhook-timestamp); zero is now.
	At time.Time
}

// Response is what an attempt got: the status (0 when no answer came),
// the first MaxResponse bytes of the body, how long it took, and the
// error when no answer came or the answer was not a 2xx.
type Response struct {
	Status   int
	Body     string
	Duration time.Duration
	Err      error
}

// Delivered says whether the endpoint took the delivery: a 2xx.
func (r Response) Delivered() bool { return r.Err == nil && r.Status >= 200 && r.Status < 300 }

// Post makes one attempt: the signed POST of the body as JSON.
func (c *Client) Post(ctx context.Context, r Request) Response {
	at := r.At
	if at.IsZero() {
		at = time.Now()
	}
	start := time.Now()
	resp, err := c.post(ctx, r, at)
	resp.Duration = time.Since(start)
	if err != nil {
		resp.Err = err
	}
	return resp
}

func (c *Client) post(ctx context.Context, r Request, at time.Time) (Response, error) {
	if _, msg := parseURL(r.URL); msg != "" {
		return Response{}, fmt.Errorf("%w: the URL %s", ErrRefused, msg)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.URL, bytes.NewReader(r.Body))
	if err != nil {
		return Response{}, err
	}
	client := c.https
	if req.URL.Scheme == "http" {
		if !c.policy.AllowLoopback {
			return Response{}, fmt.Errorf("%w: plain http is for loopback addresses, when allowed", ErrRefused)
		}
		client = c.plain
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "propfin-webhooks/1")
	if err := SetHeaders(req.Header, r.ID, at, r.Body, r.Secrets...); err != nil {
		return Response{}, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return Response{}, describe(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, MaxResponse))
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) //nolint:errcheck // drained for the connection's reuse
	out := Response{Status: resp.StatusCode, Body: string(body)}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return out, fmt.Errorf("the endpoint answered %d", resp.StatusCode)
	}
	return out, nil
}

// describe words a failed request for the delivery's error: the refusal,
// the timeout, or the network's words.
func describe(err error) error {
	var netErr net.Error
	switch {
	case errors.Is(err, ErrRefused):
		return err
	case errors.As(err, &netErr) && netErr.Timeout():
		return fmt.Errorf("no answer within %s: %w", Timeout, err)
	}
	return err
}
