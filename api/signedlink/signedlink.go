// Package signedlink makes and checks signed, expiring links to public
// pages: a short URL-safe token that names one document of one company
// and is valid until an expiry, so the page can be opened without a login
// by whoever holds the link.
//
// A token is, before base64url encoding (without padding, decoded
// strictly):
//
//	[0]                 version (Version)
//	[1]                 kind of document, a code from 1 to Scheme.Kinds
//	[2:2+n]             the body: n = Scheme.BodyLen bytes the caller lays out
//	[2+n:10+n]          expiry, Unix seconds, big-endian
//	[10+n:42+n]         HMAC-SHA256(secret, Scheme.Context || bytes 0 to 9+n)
//
// Each kind of link (receipts, statements) has its own [Scheme], whose
// Context keeps its MACs apart from every other use of the same secret: a
// token of one scheme never verifies under another.
package signedlink

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"time"
)

// Version is the first byte of every token.
const Version = 1

// MinSecretLen is the shortest secret New accepts, in bytes: the output
// size of SHA-256, so the key is never the weak part of the MAC.
const MinSecretLen = 32

// headLen is the version and kind bytes; expiryLen the expiry's.
const (
	headLen   = 2
	expiryLen = 8
)

var encoding = base64.RawURLEncoding.Strict()

// Scheme is one kind of link.
type Scheme struct {
	// Name is what the errors call the token ("receipt": "receipt token
	// has 3 characters, …").
	Name string
	// Context is written into the MAC before the payload; it must differ
	// between schemes and never change once links are out.
	Context string
	// BodyLen is the length of the body, the bytes between the kind and
	// the expiry.
	BodyLen int
	// Kinds is how many kinds of document there are: codes 1 to Kinds are
	// known, any other is refused.
	Kinds byte
	// Check, when not nil, refuses an authenticated body that is
	// inconsistent (its error is wrapped with Invalid); it runs before
	// the expiry is checked.
	Check func(kind byte, body []byte) error
	// Invalid and Expired are the errors a refused token's error matches:
	// Invalid for one that is malformed, of an unknown version or kind, or
	// not signed by the secret; Expired for a genuine one past its expiry.
	Invalid, Expired error
}

func (sc *Scheme) payloadLen() int { return headLen + sc.BodyLen + expiryLen }
func (sc *Scheme) tokenLen() int   { return sc.payloadLen() + sha256.Size }

// TextLen is the length of every token of the scheme, in characters.
func (sc *Scheme) TextLen() int { return encoding.EncodedLen(sc.tokenLen()) }

// Signer signs and verifies the links of one scheme with one secret. It is
// safe for concurrent use.
type Signer struct {
	scheme Scheme
	secret []byte
}

// New returns a Signer of scheme for secret, which must be at least
// MinSecretLen bytes (random, kept out of the repository). The secret is
// copied.
func New(scheme Scheme, secret []byte) (*Signer, error) {
	if len(secret) < MinSecretLen {
		return nil, fmt.Errorf("%s signer: secret is %d bytes, want at least %d", scheme.Name, len(secret), MinSecretLen)
	}
	return &Signer{scheme: scheme, secret: append([]byte(nil), secret...)}, nil
}

// Sign returns the token of kind and body, valid until expires (to the
// second, rounded down). The kind is not checked (the caller maps its
// names to codes); a body of another length than the scheme's is a
// programming error and panics.
func (s *Signer) Sign(kind byte, body []byte, expires time.Time) string {
	if len(body) != s.scheme.BodyLen {
		panic(fmt.Sprintf("signedlink: %s body of %d bytes, want %d", s.scheme.Name, len(body), s.scheme.BodyLen))
	}
	n := s.scheme.payloadLen()
	b := make([]byte, n, s.scheme.tokenLen())
	b[0], b[1] = Version, kind
	copy(b[headLen:], body)
	binary.BigEndian.PutUint64(b[n-expiryLen:], uint64(expires.Unix()))
	return encoding.EncodeToString(append(b, s.mac(b)...))
}

// Verify returns the kind and body a token names. A malformed, tampered or
// foreign token, or one the scheme's Check refuses, is an error matching
// the scheme's Invalid; a genuine token whose expiry is not after now
// matches Expired. The MAC is compared in constant time and checked before
// anything else in the token is trusted.
func (s *Signer) Verify(token string, now time.Time) (kind byte, body []byte, err error) {
	sc := &s.scheme
	if len(token) != sc.TextLen() {
		return 0, nil, fmt.Errorf("%s token has %d characters, want %d: %w", sc.Name, len(token), sc.TextLen(), sc.Invalid)
	}
	b, err := encoding.DecodeString(token)
	if err != nil || len(b) != sc.tokenLen() {
		return 0, nil, fmt.Errorf("%s token is not base64url: %w", sc.Name, sc.Invalid)
	}
	n := sc.payloadLen()
	if !hmac.Equal(b[n:], s.mac(b[:n])) {
		return 0, nil, fmt.Errorf("%s token signature does not match: %w", sc.Name, sc.Invalid)
	}
	return s.decode(b[:n], now)
}

// decode reads an authenticated payload.
func (s *Signer) decode(p []byte, now time.Time) (kind byte, body []byte, err error) {
	sc := &s.scheme
	if p[0] != Version {
		return 0, nil, fmt.Errorf("%s token version %d, want %d: %w", sc.Name, p[0], Version, sc.Invalid)
	}
	kind, body = p[1], p[headLen:len(p)-expiryLen]
	if kind < 1 || kind > sc.Kinds {
		return 0, nil, fmt.Errorf("%s token kind %d is unknown: %w", sc.Name, kind, sc.Invalid)
	}
	if sc.Check != nil {
		if err := sc.Check(kind, body); err != nil {
			return 0, nil, fmt.Errorf("%s token %w: %w", sc.Name, err, sc.Invalid)
		}
	}
	expires := time.Unix(int64(binary.BigEndian.Uint64(p[len(p)-expiryLen:])), 0)
	if !now.Before(expires) {
		return 0, nil, fmt.Errorf("%s token expired at %s: %w", sc.Name, expires.UTC().Format(time.RFC3339), sc.Expired)
	}
	return kind, body, nil
}

func (s *Signer) mac(payload []byte) []byte {
	m := hmac.New(sha256.New, s.secret)
	m.Write([]byte(s.scheme.Context))
	m.Write(payload)
	return m.Sum(nil)
}
