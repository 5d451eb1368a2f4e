package receipt

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/propfin/propfin/api/signedlink"
	"github.com/propfin/propfin/api/statement"
)

var (
	testNow     = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	testExpires = testNow.Add(DefaultLifetime)
)

func testSigner(t testing.TB) *Signer {
	t.Helper()
	s, err := NewSigner(testSecret)
	if err != nil {
		t.Fatalf("NewSigner: %v", err)
	}
	return s
}

func TestNewSigner(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		secret  []byte
		wantErr bool
	}{
		{"nil", nil, true},
		{"31 bytes", make([]byte, 31), true},
		{"32 bytes", make([]byte, 32), false},
		{"64 bytes", make([]byte, 64), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := NewSigner(tt.secret)
			if (err != nil) != tt.wantErr {
				t.Fatalf("NewSigner(%d bytes) error = %v, want error %v", len(tt.secret), err, tt.wantErr)
			}
		})
	}
}

func TestSignVerify(t *testing.T) {
	t.Parallel()
	s := testSigner(t)
	tests := []Ref{
		{KindInvoice, 1, 1},
		{KindTransaction, 42, 987654321},
		{KindInvoice, math.MaxInt64, math.MaxInt64},
		{KindTransaction, 0, 0},
	}
	for _, want := range tests {
		token := s.Sign(want.Kind, want.CompanyID, want.ID, testExpires)
		if strings.ContainsAny(token, "+/=") {
			t.Errorf("token %q is not base64url without padding", token)
		}
		got, err := s.Verify(token, testNow)
		if err != nil || got != want {
			t.Errorf("Verify(Sign(%+v)) = %+v, %v; want the same ref", want, got, err)
		}
	}
}

func TestSignPanicsOnUnknownKind(t *testing.T) {
	t.Parallel()
	defer func() {
		if recover() == nil {
			t.Error("Sign with kind \"contract\" did not panic")
		}
	}()
	testSigner(t).Sign("contract", 1, 1, testExpires)
}

// forge builds a token with arbitrary payload bytes, correctly MACed with
// testSecret, to reach the checks after the MAC. It lays the token out by
// hand, so it also pins the format.
func forge(version, kind byte, expires time.Time) string {
	var b [58]byte
	b[0], b[1] = version, kind
	binary.BigEndian.PutUint64(b[2:10], 7)
	binary.BigEndian.PutUint64(b[10:18], 9)
	binary.BigEndian.PutUint64(b[18:26], uint64(expires.Unix()))
	m := hmac.New(sha256.New, testSecret)
	m.Write([]byte(macContext))
	m.Write(b[:26])
	copy(b[26:], m.Sum(nil))
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// flip changes the character at i to another base64url character.
func flip(token string, i int) string {
	c := byte('A')
	if token[i] == 'A' {
		c = 'B'
	}
	return token[:i] + string(c) + token[i+1:]
}

// nonCanonical sets one of the unused low bits of the last character, so
// the token decodes, leniently, to the same bytes.
func nonCanonical(token string) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	last := strings.IndexByte(alphabet, token[len(token)-1])
	return token[:len(token)-1] + string(alphabet[last^1])
}

func TestVerifyRefuses(t *testing.T) {
	t.Parallel()
	s := testSigner(t)
	other, err := NewSigner([]byte(strings.Repeat("x", 32)))
	if err != nil {
		t.Fatal(err)
	}
	ss, err := statement.NewSigner(testSecret)
	if err != nil {
		t.Fatal(err)
	}
	good := s.Sign(KindInvoice, 7, 9, testExpires)
	raw, _ := base64.RawURLEncoding.DecodeString(good)
	tests := []struct {
		name  string
		token string
		now   time.Time
		want  error
	}{
		{"empty", "", testNow, ErrInvalidToken},
		{"truncated", good[:len(good)-1], testNow, ErrInvalidToken},
		{"extended", good + "A", testNow, ErrInvalidToken},
		{"padded", base64.URLEncoding.EncodeToString(raw), testNow, ErrInvalidToken},
		{"standard alphabet", strings.Repeat("+", len(good)), testNow, ErrInvalidToken},
		{"not base64", strings.Repeat("*", len(good)), testNow, ErrInvalidToken},
		{"tampered id", flip(good, 15), testNow, ErrInvalidToken},
		{"tampered expiry", flip(good, 30), testNow, ErrInvalidToken},
		{"tampered mac", flip(good, 50), testNow, ErrInvalidToken},
		{"tampered version", flip(good, 0), testNow, ErrInvalidToken},
		{"non-canonical last character", nonCanonical(good), testNow, ErrInvalidToken},
		{"other secret", other.Sign(KindInvoice, 7, 9, testExpires), testNow, ErrInvalidToken},
		{"a statement token, same secret", ss.SignStatement(7, 9, testExpires), testNow, ErrInvalidToken},
		{"unknown version, signed", forge(2, 1, testExpires), testNow, ErrInvalidToken},
		{"unknown kind, signed", forge(signedlink.Version, 3, testExpires), testNow, ErrInvalidToken},
		{"at expiry", good, testExpires, ErrExpiredToken},
		{"after expiry", good, testExpires.Add(time.Hour), ErrExpiredToken},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ref, err := s.Verify(tt.token, tt.now)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Verify(%q) = %+v, %v; want %v", tt.token, ref, err, tt.want)
			}
		})
	}
}

func TestVerifyJustBeforeExpiry(t *testing.T) {
	t.Parallel()
	s := testSigner(t)
	token := s.Sign(KindInvoice, 7, 9, testExpires)
	if _, err := s.Verify(token, testExpires.Add(-time.Second)); err != nil {
		t.Fatalf("Verify one second before expiry: %v", err)
	}
}

// FuzzVerify checks that Verify never panics and accepts no token but the
// ones the signer made.
func FuzzVerify(f *testing.F) {
	s := testSigner(f)
	signed := map[string]Ref{}
	for _, r := range []Ref{{KindInvoice, 1, 2}, {KindTransaction, 3, 4}, {KindInvoice, -1, math.MinInt64}} {
		tok := s.Sign(r.Kind, r.CompanyID, r.ID, testExpires)
		signed[tok] = r
		f.Add(tok)
		f.Add(flip(tok, 5))
		f.Add(tok[:40])
	}
	f.Add("")
	f.Add(forge(9, 9, testExpires))
	f.Fuzz(func(t *testing.T, token string) {
		ref, err := s.Verify(token, testNow)
		if err != nil {
			if !errors.Is(err, ErrInvalidToken) && !errors.Is(err, ErrExpiredToken) {
				t.Fatalf("Verify(%q) error %v matches neither sentinel", token, err)
			}
			return
		}
		want, ok := signed[token]
		if !ok || ref != want {
			t.Fatalf("Verify accepted %q as %+v; signed tokens: %v", token, ref, signed)
		}
	})
}

// TestTokenFormat pins tokens made before the layout moved to package
// signedlink: links already sent out must still verify, to the same ref.
func TestTokenFormat(t *testing.T) {
	t.Parallel()
	s := testSigner(t)
	expires := time.Date(2027, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		token string
		want  Ref
	}{
		{"AQEAAAAAAAAABwAAAAAAAAAJAAAAAGs4aSVdD5VMOk5xnuA-clV7RpDIM3ZqBVpItqaUwEA2YJKU8g", Ref{KindInvoice, 7, 9}},
		{"AQIAAAEAAAAAAAAAAAAHW80VAAAAAGs4aSUdXTgjFqlnqWxVXOMc025Q-AYuMaPWUgPIC8-pwTfSug", Ref{KindTransaction, 1 << 40, 123456789}},
	}
	for _, tt := range tests {
		if got := s.Sign(tt.want.Kind, tt.want.CompanyID, tt.want.ID, expires); got != tt.token {
			t.Errorf("Sign(%+v) = %q, want %q", tt.want, got, tt.token)
		}
		if got, err := s.Verify(tt.token, expires.Add(-time.Second)); err != nil || got != tt.want {
			t.Errorf("Verify(%q) = %+v, %v; want %+v", tt.token, got, err, tt.want)
		}
	}
}
