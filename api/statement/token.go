package statement

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"time"
)

// Kinds of document a link can name.
const (
	KindOwnerStatement = "owner_statement"
	KindIncomeReport   = "income_report"
)

// DefaultLifetime is how long a link is valid unless the caller decides
// otherwise: 120 days. A statement's link goes out when the month is
// closed and the owner may look it up again at the next closings; an
// income report's goes out in February and is needed until the income
// tax return is due at the end of May. Past that, a link forwarded
// further should no longer show the owner's name, tax id and income; a
// new one is one call away, and the PDF can be kept.
const DefaultLifetime = 120 * 24 * time.Hour

// MinSecretLen is the shortest secret NewSigner accepts, in bytes.
const MinSecretLen = 32

// Token layout, before base64url encoding (without padding):
//
//	[0]      version (tokenVersion)
//	[1]      kind: 1 owner statement, 2 income report
//	[2:10]   company id, big-endian
//	[10:18]  the statement's id, or the income report's owner id, big-endian
//	[18:20]  the income report's year (0 for a statement), big-endian
//	[20:28]  expiry, Unix seconds, big-endian
//	[28:60]  HMAC-SHA256(secret, macContext || bytes 0 to 27)
const (
	tokenVersion = 1
	payloadLen   = 28
	tokenLen     = payloadLen + sha256.Size
)

// macContext separates these MACs from any other use of the same secret
// (the receipt links among them: a receipt token never opens a statement).
const macContext = "propfin statement link\x00"

var (
	// ErrInvalidToken is matched by the error of a token that is malformed,
	// of an unknown version or kind, or not signed by this secret.
	ErrInvalidToken = errors.New("invalid statement token")
	// ErrExpiredToken is matched by the error of a genuine token past its
	// expiry.
	ErrExpiredToken = errors.New("expired statement token")
)

var (
	encoding     = base64.RawURLEncoding.Strict()
	tokenTextLen = encoding.EncodedLen(tokenLen)
	kindCodes    = map[string]byte{KindOwnerStatement: 1, KindIncomeReport: 2}
	kindNames    = map[byte]string{1: KindOwnerStatement, 2: KindIncomeReport}
)

// Ref is what a verified token names: a company's statement (ID is the
// statement's id) or an owner's income report of a year (ID is the
// owner's id).
type Ref struct {
	Kind      string // KindOwnerStatement or KindIncomeReport
	CompanyID int64
	ID        int64
	Year      int // the income report's year; 0 for a statement
}

// Signer signs and verifies the links. It is safe for concurrent use.
type Signer struct {
	secret []byte
}

// NewSigner returns a Signer for secret, at least MinSecretLen bytes
// (random, kept out of the repository). The secret is copied.
func NewSigner(secret []byte) (*Signer, error) {
	if len(secret) < MinSecretLen {
		return nil, fmt.Errorf("statement signer: secret is %d bytes, want at least %d", len(secret), MinSecretLen)
	}
	return &Signer{secret: append([]byte(nil), secret...)}, nil
}

// SignStatement returns the URL-safe token of statement id of the
// company, valid until expires (to the second, rounded down).
func (s *Signer) SignStatement(companyID, statementID int64, expires time.Time) string {
	return s.sign(Ref{Kind: KindOwnerStatement, CompanyID: companyID, ID: statementID}, expires)
}

// SignIncomeReport returns the token of the income report of the owner
// in year (1 to 9999; another year is a programming error and panics).
func (s *Signer) SignIncomeReport(companyID, ownerID int64, year int, expires time.Time) string {
	if year < 1 || year > 9999 {
		panic(fmt.Sprintf("statement: SignIncomeReport with year %d", year))
	}
	return s.sign(Ref{Kind: KindIncomeReport, CompanyID: companyID, ID: ownerID, Year: year}, expires)
}

func (s *Signer) sign(ref Ref, expires time.Time) string {
	var b [tokenLen]byte
	b[0] = tokenVersion
	b[1] = kindCodes[ref.Kind]
	binary.BigEndian.PutUint64(b[2:10], uint64(ref.CompanyID))
	binary.BigEndian.PutUint64(b[10:18], uint64(ref.ID))
	binary.BigEndian.PutUint16(b[18:20], uint16(ref.Year))
	binary.BigEndian.PutUint64(b[20:28], uint64(expires.Unix()))
	copy(b[payloadLen:], s.mac(b[:payloadLen]))
	return encoding.EncodeToString(b[:])
}

// Verify returns the document a token names. A malformed, tampered or
// foreign token is an error matching ErrInvalidToken; a genuine token
// whose expiry is not after now matches ErrExpiredToken. The MAC is
// compared in constant time and checked before anything else in the
// token is trusted.
func (s *Signer) Verify(token string, now time.Time) (Ref, error) {
	if len(token) != tokenTextLen {
		return Ref{}, fmt.Errorf("statement token has %d characters, want %d: %w", len(token), tokenTextLen, ErrInvalidToken)
	}
	b, err := encoding.DecodeString(token)
	if err != nil || len(b) != tokenLen {
		return Ref{}, fmt.Errorf("statement token is not base64url: %w", ErrInvalidToken)
	}
	if !hmac.Equal(b[payloadLen:], s.mac(b[:payloadLen])) {
		return Ref{}, fmt.Errorf("statement token signature does not match: %w", ErrInvalidToken)
	}
	return decodePayload(b[:payloadLen], now)
}

// decodePayload reads an authenticated payload.
func decodePayload(p []byte, now time.Time) (Ref, error) {
	if p[0] != tokenVersion {
		return Ref{}, fmt.Errorf("statement token version %d, want %d: %w", p[0], tokenVersion, ErrInvalidToken)
	}
	kind, ok := kindNames[p[1]]
	if !ok {
		return Ref{}, fmt.Errorf("statement token kind %d is unknown: %w", p[1], ErrInvalidToken)
	}
	year := int(binary.BigEndian.Uint16(p[18:20]))
	if (kind == KindIncomeReport) != (year != 0) {
		return Ref{}, fmt.Errorf("statement token of kind %s with year %d: %w", kind, year, ErrInvalidToken)
	}
	expires := time.Unix(int64(binary.BigEndian.Uint64(p[20:28])), 0)
	if !now.Before(expires) {
		return Ref{}, fmt.Errorf("statement token expired at %s: %w", expires.UTC().Format(time.RFC3339), ErrExpiredToken)
	}
	return Ref{
		Kind:      kind,
		CompanyID: int64(binary.BigEndian.Uint64(p[2:10])),
		ID:        int64(binary.BigEndian.Uint64(p[10:18])),
		Year:      year,
	}, nil
}

func (s *Signer) mac(payload []byte) []byte {
	m := hmac.New(sha256.New, s.secret)
	m.Write([]byte(macContext))
	m.Write(payload)
	return m.Sum(nil)
}
