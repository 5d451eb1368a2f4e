package receipt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/propfin/propfin/api/signedlink"
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

// MinSecretLen is the shortest secret NewSigner accepts, in bytes.
const MinSecretLen = signedlink.MinSecretLen

// Token layout, before base64url encoding (without padding; see package
// signedlink):
//
//	[0]      version (signedlink.Version)
//	[1]      kind: 1 invoice, 2 transaction
//	[2:10]   company id, big-endian
//	[10:18]  record id, big-endian
//	[18:26]  expiry, Unix seconds, big-endian
//	[26:58]  HMAC-SHA256(secret, macContext || bytes 0 to 25)
const bodyLen = 16

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
	scheme = signedlink.Scheme{
		Name:    "receipt",
		Context: macContext,
		BodyLen: bodyLen,
		Kinds:   2,
		Invalid: ErrInvalidToken,
		Expired: ErrExpiredToken,
	}
	kindCodes = map[string]byte{KindInvoice: 1, KindTransaction: 2}
	kindNames = map[byte]string{1: KindInvoice, 2: KindTransaction}
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
	link *signedlink.Signer
}

// NewSigner returns a Signer for secret, which must be at least
// MinSecretLen bytes (random, kept out of the repository). The secret is
// copied.
func NewSigner(secret []byte) (*Signer, error) {
	link, err := signedlink.New(scheme, secret)
	if err != nil {
		return nil, err
	}
	return &Signer{link: link}, nil
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
	var body [bodyLen]byte
	binary.BigEndian.PutUint64(body[0:8], uint64(companyID))
	binary.BigEndian.PutUint64(body[8:16], uint64(id))
	return s.link.Sign(code, body[:], expires)
}

// Verify returns the record a token names. A malformed, tampered or
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
	}, nil
}
