package webhook_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/propfin/propfin/jobs/webhook"
)

// TestSignatureVerifiedByReference: the headers SetHeaders writes are
// accepted by the Standard Webhooks reference library, with either secret
// of a rotation's overlap, and refused with another secret or a changed
// body.
func TestSignatureVerifiedByReference(t *testing.T) {
	t.Parallel()
	current, previous, other := webhook.NewSecret(), webhook.NewSecret(), webhook.NewSecret()
	body := []byte(`{"id":7,"type":"invoice.paid","data":{"id":3,"total":1234.50}}`)
	h := http.Header{}
	if err := webhook.SetHeaders(h, "7", time.Now(), body, current, previous); err != nil {
		t.Fatal(err)
	}
	if sigs := strings.Fields(h.Get(webhook.HeaderSignature)); len(sigs) != 2 || !strings.HasPrefix(sigs[0], "v1,") {
		t.Fatalf("signatures %q, want two v1 ones", h.Get(webhook.HeaderSignature))
	}
	for name, secret := range map[string]string{"current": current, "previous": previous} {
		wh, err := standardwebhooks.NewWebhook(secret)
		if err != nil {
			t.Fatal(err)
		}
		if err := wh.Verify(body, h); err != nil {
			t.Errorf("the %s secret: %v", name, err)
		}
	}
	wh, _ := standardwebhooks.NewWebhook(other)
	if err := wh.Verify(body, h); err == nil {
		t.Error("another secret verifies the signature")
	}
	wh, _ = standardwebhooks.NewWebhook(current)
	if err := wh.Verify(append(body, ' '), h); err == nil {
		t.Error("a changed body verifies")
	}
}

// TestSecrets: a generated secret is whsec_ and 32 bytes; CheckSecret
// takes 24 to 64 bytes of base64 after the prefix and nothing else.
func TestSecrets(t *testing.T) {
	t.Parallel()
	if s := webhook.NewSecret(); webhook.CheckSecret(s) != "" || !strings.HasPrefix(s, "whsec_") || s == webhook.NewSecret() {
		t.Errorf("a new secret %q: %q", s, webhook.CheckSecret(s))
	}
	for secret, ok := range map[string]bool{
		"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw":       true,  // 24 bytes
		"whsec_" + strings.Repeat("QUFB", 21) + "QQ==": true,  // 64 bytes
		"whsec_" + strings.Repeat("QUFB", 22):          false, // 66 bytes
		"whsec_QUFBQUFB":                               false, // 6 bytes
		"MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw":             false, // no prefix
		"whsec_not base64!":                            false,
	} {
		if got := webhook.CheckSecret(secret) == ""; got != ok {
			t.Errorf("CheckSecret(%q) accepts: %v, want %v", secret, got, ok)
		}
	}
}

// TestCheckURL: https to public addresses only, unless the policy allows
// loopback (then plain http to loopback too) or private networks.
func TestCheckURL(t *testing.T) {
	t.Parallel()
	strict, dev, private := webhook.Policy{}, webhook.Policy{AllowLoopback: true}, webhook.Policy{AllowPrivate: true}
	cases := []struct {
		p    webhook.Policy
		url  string
		want string // a part of the refusal; "" when taken
	}{
		{strict, "https://93.184.216.34/hooks", ""},
		{strict, "https://[2606:2800:220:1:248:1893:25c8:1946]/h", ""},
		{strict, "http://93.184.216.34/hooks", "https"},
		{strict, "ftp://93.184.216.34/x", "https"},
		{strict, "https://10.1.2.3/x", "private"},
		{strict, "https://172.20.0.1/x", "private"},
		{strict, "https://192.168.0.10/x", "private"},
		{strict, "https://100.64.0.1/x", "private"},
		{strict, "https://[fd00::1]/x", "private"},
		{strict, "https://169.254.169.254/latest/meta-data", "link-local"},
		{strict, "https://[fe80::1]/x", "link-local"},
		{strict, "https://[::ffff:127.0.0.1]/x", "loopback"},
		{strict, "https://127.0.0.1:8443/x", "loopback"},
		{strict, "https://localhost/x", "loopback"},
		{strict, "https://0.0.0.0/x", "unspecified"},
		{strict, "https://224.0.0.1/x", "multicast"},
		{strict, "https://user:pw@93.184.216.34/x", "user name"},
		{strict, "/relative", "absolute"},
		{strict, "https://93.184.216.34/x#frag", "fragment"},
		{dev, "http://127.0.0.1:8080/x", ""},
		{dev, "http://localhost:8080/x", ""},
		{dev, "https://10.1.2.3/x", "private"},
		{dev, "http://93.184.216.34/x", "https"},
		{private, "https://10.1.2.3/x", ""},
		{private, "https://169.254.169.254/x", ""},
		{private, "http://10.1.2.3/x", "https"},
		{private, "https://127.0.0.1/x", "loopback"},
		// A name that never resolves (RFC 6761): https is taken and checked
		// at the dial, plain http is never shown to be loopback.
		{strict, "https://hooks.propfin.invalid/x", ""},
		{strict, "http://hooks.propfin.invalid/x", "https"},
		{dev, "http://hooks.propfin.invalid/x", "https"},
		{private, "http://hooks.propfin.invalid/x", "https"},
	}
	for _, c := range cases {
		got := c.p.CheckURL(context.Background(), c.url)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%+v %s: %q, want %q", c.p, c.url, got, c.want)
		}
	}
}

// TestDialRefused: the client checks the address it dials, whatever the
// URL was checked against before: an https endpoint named localhost (a
// name resolving to loopback, as a rebound name does) is never reached
// under a policy without loopback, nor is plain http; under the dev
// policy the same server is reached.
func TestDialRefused(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { hits.Add(1) }))
	defer srv.Close()
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { hits.Add(1) }))
	defer plain.Close()
	named := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	secret := webhook.NewSecret()
	strict := webhook.NewClient(webhook.Policy{}, time.Second)
	for _, u := range []string{named, srv.URL, plain.URL} {
		resp := strict.Post(context.Background(), webhook.Request{URL: u, ID: "1", Body: []byte(`{}`), Secrets: []string{secret}})
		if !errors.Is(resp.Err, webhook.ErrRefused) || resp.Delivered() {
			t.Errorf("%s: %+v, want refused", u, resp)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the servers got %d requests under the strict policy", n)
	}
	dev := webhook.NewClient(webhook.Policy{AllowLoopback: true}, time.Second)
	if resp := dev.Post(context.Background(), webhook.Request{URL: plain.URL, ID: "1", Body: []byte(`{}`), Secrets: []string{secret}}); !resp.Delivered() {
		t.Errorf("dev policy, plain http to loopback: %+v", resp)
	}
}

// TestRedirectNotFollowed: a 3xx is an answer (not delivered), and its
// target is not asked; an answer's body is kept to its first kilobyte.
func TestRedirectNotFollowed(t *testing.T) {
	t.Parallel()
	var target atomic.Int64
	to := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { target.Add(1) }))
	defer to.Close()
	from := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/big" {
			w.WriteHeader(http.StatusInternalServerError)
			w.Write([]byte(strings.Repeat("x", 5000))) //nolint:errcheck // a test server
			return
		}
		http.Redirect(w, r, to.URL, http.StatusTemporaryRedirect)
	}))
	defer from.Close()
	c := webhook.NewClient(webhook.Policy{AllowLoopback: true}, time.Second)
	resp := c.Post(context.Background(), webhook.Request{URL: from.URL, ID: "1", Body: []byte(`{}`), Secrets: []string{webhook.NewSecret()}})
	if resp.Delivered() || resp.Status != http.StatusTemporaryRedirect || target.Load() != 0 {
		t.Errorf("redirect: %+v, target asked %d times", resp, target.Load())
	}
	resp = c.Post(context.Background(), webhook.Request{URL: from.URL + "/big", ID: "1", Body: []byte(`{}`), Secrets: []string{webhook.NewSecret()}})
	if resp.Status != 500 || len(resp.Body) != webhook.MaxResponse || resp.Err == nil {
		t.Errorf("a 500 with a large body: status %d, %d bytes kept, err %v", resp.Status, len(resp.Body), resp.Err)
	}
}
