package receipt

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"time"
)

// Kinds of record a link can name.
const (
	KindInvoice     = "invoice"
	KindTransaction = "transaction"
)

// DefaultLifetime is how long a link is valid unless the caller decides
// otherwise: 60 days. An invoice's link goes out with the invoice, usually
// days to a few weeks before it is due, and the payer may still need it a
// month after the due date (late payment) or to keep the receipt. Past
// that the page, which shows the payer's name and CPF/CNPJ, should no
// longer be open to whoever the link was forwarded to; a new link is one
// receiptLink call away.
const DefaultLifetime = 60 * 24 * time.Hour

// MinSecretLen is the shortest secret NewSigner accepts, in bytes: the
// output size of SHA-256, so the key is never the weak part of the MAC.
const MinSecretLen = 32

// Token layout, before base64url encoding (without padding):
//
//	[0]      version (tokenVersion)
//	[1]      kind: 1 invoice, 2 transaction
//	[2:10]   company id, big-endian
//	[10:18]  record id, big-endian
//	[18:26]  expiry, Unix seconds, big-endian
//	[26:58]  HMAC-SHA256(secret, macContext || bytes 0 to 25)
const (
	tokenVersion = 1
	payloadLen   = 26
	tokenLen     = payloadLen + sha256.Size
)

// macContext separates these MACs from any other use of the same secret.
const macContext = "propfin receipt link\x00"

var (
	// ErrInvalidToken is matched by the error of a token that is malformed,
	// of an unknown version or kind, or not signed by this secret.
	ErrInvalidToken = errors.New("invalid receipt token")
	// ErrExpiredToken is matched by the error of a genuine token past its
	// expiry.
	ErrExpiredToken = errors.New("expired receipt token")
)

var (
	encoding     = base64.RawURLEncoding.Strict()
	tokenTextLen = encoding.EncodedLen(tokenLen)
	kindCodes    = map[string]byte{KindInvoice: 1, KindTransaction: 2}
	kindNames    = map[byte]string{1: KindInvoice, 2: KindTransaction}
)

// Ref is what a verified token names: a record of a company.
type Ref struct {
	Kind      string // KindInvoice or KindTransaction
	CompanyID int64
	ID        int64
}

// Signer signs and verifies receipt links with one secret. It is safe for
// concurrent use.
type Signer struct {
	secret []byte
}

// NewSigner returns a Signer for secret, which must be at least
// MinSecretLen bytes (random, kept out of the repository). The secret is
// copied.
func NewSigner(secret []byte) (*Signer, error) {
	if len(secret) < MinSecretLen {
		return nil, fmt.Errorf("receipt signer: secret is %d bytes, want at least %d", len(secret), MinSecretLen)
	}
	return &Signer{secret: append([]byte(nil), secret...)}, nil
}

// Sign returns the URL-safe token of record id of the company, of the
// given kind, valid until expires (to the second, rounded down). A kind
// other than KindInvoice or KindTransaction is a programming error and
// panics.
func (s *Signer) Sign(kind string, companyID, id int64, expires time.Time) string {
	code, ok := kindCodes[kind]
	if !ok {
		panic(fmt.Sprintf("receipt: Sign with unknown kind %q", kind))
	}
	var b [tokenLen]byte
	b[0] = tokenVersion
	b[1] = code
	binary.BigEndian.PutUint64(b[2:10], uint64(companyID))
	binary.BigEndian.PutUint64(b[10:18], uint64(id))
	binary.BigEndian.PutUint64(b[18:26], uint64(expires.Unix()))
	copy(b[payloadLen:], s.mac(b[:payloadLen]))
	return encoding.EncodeToString(b[:])
}

// Verify returns the record a token names. A malformed, tampered or
// foreign token is an error matching ErrInvalidToken; a genuine token
// whose expiry is not after now matches ErrExpiredToken. The MAC is
// compared in constant time and checked before anything else in the
// token is trusted.
func (s *Signer) Verify(token string, now time.Time) (Ref, error) {
	if len(token) != tokenTextLen {
		return Ref{}, fmt.Errorf("receipt token has %d characters, want %d: %w", len(token), tokenTextLen, ErrInvalidToken)
	}
	b, err := encoding.DecodeString(token)
	if err != nil || len(b) != tokenLen {
		return Ref{}, fmt.Errorf("receipt token is not base64url: %w", ErrInvalidToken)
	}
	if !hmac.Equal(b[payloadLen:], s.mac(b[:payloadLen])) {
		return Ref{}, fmt.Errorf("receipt token signature does not match: %w", ErrInvalidToken)
	}
	return decodePayload(b[:payloadLen], now)
}

// decodePayload reads an authenticated payload.
func decodePayload(p []byte, now time.Time) (Ref, error) {
	if p[0] != tokenVersion {
		return Ref{}, fmt.Errorf("receipt token version %d, want %d: %w", p[0], tokenVersion, ErrInvalidToken)
	}
	kind, ok := kindNames[p[1]]
	if !ok {
		return Ref{}, fmt.Errorf("receipt token kind %d is unknown: %w", p[1], ErrInvalidToken)
	}
	expires := time.Unix(int64(binary.BigEndian.Uint64(p[18:26])), 0)
	if !now.Before(expires) {
		return Ref{}, fmt.Errorf("receipt token expired at %s: %w", expires.UTC().Format(time.RFC3339), ErrExpiredToken)
	}
	return Ref{
		Kind:      kind,
		CompanyID: int64(binary.BigEndian.Uint64(p[2:10])),
		ID:        int64(binary.BigEndian.Uint64(p[10:18])),
	}, nil
}

func (s *Signer) mac(payload []byte) []byte {
	m := hmac.New(sha256.New, s.secret)
	m.Write([]byte(macContext))
	m.Write(payload)
	return m.Sum(nil)
}
