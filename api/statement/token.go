package statement

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/propfin/propfin/api/signedlink"
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
const MinSecretLen = signedlink.MinSecretLen

// Token layout, before base64url encoding (without padding; see package
// signedlink):
//
//	[0]      version (signedlink.Version)
//	[1]      kind: 1 owner statement, 2 income report
//	[2:10]   company id, big-endian
//	[10:18]  the statement's id, or the income report's owner id, big-endian
//	[18:20]  the income report's year (0 for a statement), big-endian
//	[20:28]  expiry, Unix seconds, big-endian
//	[28:60]  HMAC-SHA256(secret, macContext || bytes 0 to 27)
const bodyLen = 18

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
	scheme = signedlink.Scheme{
		Name:    "statement",
		Context: macContext,
		BodyLen: bodyLen,
		Kinds:   2,
		Check:   checkYear,
		Invalid: ErrInvalidToken,
		Expired: ErrExpiredToken,
	}
	kindCodes = map[string]byte{KindOwnerStatement: 1, KindIncomeReport: 2}
	kindNames = map[byte]string{1: KindOwnerStatement, 2: KindIncomeReport}
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
	link *signedlink.Signer
}

// NewSigner returns a Signer for secret, at least MinSecretLen bytes
// (random, kept out of the repository). The secret is copied.
func NewSigner(secret []byte) (*Signer, error) {
	link, err := signedlink.New(scheme, secret)
	if err != nil {
		return nil, err
	}
	return &Signer{link: link}, nil
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
	var body [bodyLen]byte
	binary.BigEndian.PutUint64(body[0:8], uint64(ref.CompanyID))
	binary.BigEndian.PutUint64(body[8:16], uint64(ref.ID))
	binary.BigEndian.PutUint16(body[16:18], uint16(ref.Year))
	return s.link.Sign(kindCodes[ref.Kind], body[:], expires)
}

// Verify returns the document a token names. A malformed, tampered or
// foreign token is an error matching ErrInvalidToken; a genuine token
// whose expiry is not after now matches ErrExpiredToken. The MAC is
// compared in constant time and checked before anything else in the
// token is trusted.
func (s *Signer) Verify(token string, now time.Time) (Ref, error) {
	code, body, err := s.link.Verify(token, now)
	if err != nil {
		return Ref{}, err
	}
	return Ref{
		Kind:      kindNames[code],
		CompanyID: int64(binary.BigEndian.Uint64(body[0:8])),
		ID:        int64(binary.BigEndian.Uint64(body[8:16])),
		Year:      int(binary.BigEndian.Uint16(body[16:18])),
	}, nil
}

// checkYear refuses a statement with a year and an income report without.
func checkYear(code byte, body []byte) error {
	kind, year := kindNames[code], binary.BigEndian.Uint16(body[16:18])
	if (kind == KindIncomeReport) != (year != 0) {
		return fmt.Errorf("of kind %s with year %d", kind, year)
	}
	return nil
}
