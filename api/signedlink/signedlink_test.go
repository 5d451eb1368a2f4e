package signedlink

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

var (
	errInvalid = errors.New("invalid test token")
	errExpired = errors.New("expired test token")
	errOdd     = errors.New("odd body")

	testSecret  = []byte("0123456789abcdef0123456789abcdef")
	testNow     = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	testExpires = testNow.Add(time.Hour)
	testBody    = []byte{2, 3, 4, 5}
)

// testScheme has a 4-byte body, three kinds, and refuses a body whose first
// byte is odd.
func testScheme(context string) Scheme {
	return Scheme{
		Name:    "test",
		Context: context,
		BodyLen: 4,
		Kinds:   3,
		Check: func(_ byte, body []byte) error {
			if body[0]%2 != 0 {
				return errOdd
			}
			return nil
		},
		Invalid: errInvalid,
		Expired: errExpired,
	}
}

func testSigner(t testing.TB, context string, secret []byte) *Signer {
	t.Helper()
	s, err := New(testScheme(context), secret)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return s
}

// TestNew checks every secret length around MinSecretLen: shorter ones
// are refused with an error naming the scheme.
func TestNew(t *testing.T) {
	t.Parallel()
	for n := 0; n <= 2*MinSecretLen; n++ {
		s, err := New(testScheme("a"), make([]byte, n))
		switch {
		case n < MinSecretLen && (err == nil || !strings.HasPrefix(err.Error(), "test signer: ")):
			t.Errorf("New(%d bytes) = %v, want an error of the test signer", n, err)
		case n >= MinSecretLen && (err != nil || s == nil):
			t.Errorf("New(%d bytes) = %v, %v; want a signer", n, s, err)
		}
	}
}

func TestNewCopiesSecret(t *testing.T) {
	t.Parallel()
	secret := bytes.Clone(testSecret)
	s := testSigner(t, "a", secret)
	token := s.Sign(2, testBody, testExpires)
	secret[0] ^= 1
	if _, _, err := s.Verify(token, testNow); err != nil {
		t.Fatalf("after the caller changed its secret: %v", err)
	}
}

func TestSignVerify(t *testing.T) {
	t.Parallel()
	s := testSigner(t, "a", testSecret)
	tests := []struct {
		kind byte
		body []byte
	}{
		{1, []byte{0, 0, 0, 0}},
		{2, testBody},
		{3, []byte{0xfe, 0xff, 0xff, 0xff}},
	}
	for _, tt := range tests {
		token := s.Sign(tt.kind, tt.body, testExpires)
		if len(token) != s.scheme.TextLen() || strings.ContainsAny(token, "+/=") {
			t.Errorf("token %q: not %d characters of base64url without padding", token, s.scheme.TextLen())
		}
		kind, body, err := s.Verify(token, testNow)
		if err != nil || kind != tt.kind || !bytes.Equal(body, tt.body) {
			t.Errorf("Verify(Sign(%d, %v)) = %d, %v, %v; want the same", tt.kind, tt.body, kind, body, err)
		}
	}
}

// TestLayout checks the bytes of a token against the package's layout.
func TestLayout(t *testing.T) {
	t.Parallel()
	s := testSigner(t, "a", testSecret)
	b, err := base64.RawURLEncoding.DecodeString(s.Sign(2, testBody, testExpires))
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != 2+4+8+32 || b[0] != Version || b[1] != 2 || !bytes.Equal(b[2:6], testBody) ||
		int64(binary.BigEndian.Uint64(b[6:14])) != testExpires.Unix() || !bytes.Equal(b[14:], s.mac(b[:14])) {
		t.Fatalf("token bytes %x do not follow the layout", b)
	}
}

func TestSignPanicsOnBodyLength(t *testing.T) {
	t.Parallel()
	defer func() {
		if recover() == nil {
			t.Error("Sign with a 3-byte body did not panic")
		}
	}()
	testSigner(t, "a", testSecret).Sign(1, []byte{0, 0, 0}, testExpires)
}

// forge builds a token with any version, kind, body and expiry, correctly
// MACed, to reach the checks after the MAC.
func forge(s *Signer, version, kind byte, body []byte, expires time.Time) string {
	b := append([]byte{version, kind}, body...)
	b = binary.BigEndian.AppendUint64(b, uint64(expires.Unix()))
	return base64.RawURLEncoding.EncodeToString(append(b, s.mac(b)...))
}

// tamper flips the low bit of byte i of the token's bytes.
func tamper(token string, i int) string {
	b, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		panic(err)
	}
	b[i] ^= 1
	return base64.RawURLEncoding.EncodeToString(b)
}

// refusal is a token Verify must refuse at now, with an error matching want.
type refusal struct {
	name, token string
	now         time.Time
	want        error
}

func TestVerifyRefuses(t *testing.T) {
	t.Parallel()
	s := testSigner(t, "a", testSecret)
	good := s.Sign(2, testBody, testExpires)
	raw, _ := base64.RawURLEncoding.DecodeString(good)
	tests := []refusal{
		{"empty", "", testNow, errInvalid},
		{"truncated", good[:len(good)-1], testNow, errInvalid},
		{"extended", good + "A", testNow, errInvalid},
		{"padded", base64.URLEncoding.EncodeToString(append(raw, 0)), testNow, errInvalid},
		{"not base64url", strings.Repeat("+", len(good)), testNow, errInvalid},
		{"other secret", testSigner(t, "a", []byte(strings.Repeat("x", 32))).Sign(2, testBody, testExpires), testNow, errInvalid},
		{"other context", testSigner(t, "b", testSecret).Sign(2, testBody, testExpires), testNow, errInvalid},
		{"unknown version", forge(s, 2, 2, testBody, testExpires), testNow, errInvalid},
		{"kind 0", forge(s, Version, 0, testBody, testExpires), testNow, errInvalid},
		{"kind past Kinds", forge(s, Version, 4, testBody, testExpires), testNow, errInvalid},
		{"refused by Check", forge(s, Version, 2, []byte{1, 0, 0, 0}, testExpires), testNow, errOdd},
		{"refused by Check, expired", forge(s, Version, 2, []byte{1, 0, 0, 0}, testNow), testNow, errInvalid},
		{"at expiry", good, testExpires, errExpired},
		{"after expiry", good, testExpires.Add(time.Hour), errExpired},
	}
	for i := range raw {
		tests = append(tests, refusal{fmt.Sprintf("byte %d tampered", i), tamper(good, i), testNow, errInvalid})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			kind, body, err := s.Verify(tt.token, tt.now)
			if !errors.Is(err, tt.want) || body != nil || kind != 0 {
				t.Fatalf("Verify(%q) = %d, %v, %v; want %v and nothing named", tt.token, kind, body, err, tt.want)
			}
			if tt.want == errOdd && !errors.Is(err, errInvalid) {
				t.Fatalf("Verify(%q) = %v; a Check refusal must match Invalid too", tt.token, err)
			}
		})
	}
}

func TestVerifyJustBeforeExpiry(t *testing.T) {
	t.Parallel()
	s := testSigner(t, "a", testSecret)
	if _, _, err := s.Verify(s.Sign(1, testBody, testExpires), testExpires.Add(-time.Second)); err != nil {
		t.Fatalf("Verify one second before expiry: %v", err)
	}
}
