package storage

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
)

// The companies' API keys as operators issue, list and revoke them
// (docs/operations.md, "Companies and API keys"). The list never holds a
// secret, nor its hash: a key is told apart by its id and its prefix. A
// revocation is announced on KeysChannel in its transaction, so that every
// API process forgets the key at once rather than after its cache's TTL.

// OperatorAPIKeys is the resource name of every company's API keys, as
// operators list them.
const OperatorAPIKeys = "operator_api_keys"

// KeysChannel is the PostgreSQL notification channel a revoked key is
// announced on, as "<company id>:<key id>".
const KeysChannel = "propfin_api_keys"

// maxKeyLabel bounds a key's label, in characters.
const maxKeyLabel = 100

// operatorAPIKeysResource is the api_keys table read across companies
// (shared, read-only), without secret_hash.
func operatorAPIKeysResource() *Resource {
	return &Resource{
		Name: OperatorAPIKeys, Table: "api_keys", ReadOnly: true, Shared: true,
		Columns: []Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "company_id", Type: Int, Filterable: true},
			{Name: "user_id", Type: Int, Filterable: true},
			{Name: "name", Type: String, Filterable: true},
			{Name: "prefix", Type: String, Filterable: true},
			{Name: "created_at", Type: DateTime, Filterable: true},
			{Name: "last_used_at", Type: DateTime, Filterable: true},
			{Name: "revoked_at", Type: DateTime, Filterable: true},
		},
		Filters: []SpecialFilter{ColumnIn("companyIn", "company_id", Int)},
	}
}

// APIKey is a key as operators see it: never its secret.
type APIKey struct {
	ID         int64
	CompanyID  int64
	UserID     int64
	Name       string
	Prefix     *string
	CreatedAt  time.Time
	LastUsedAt *time.Time
	RevokedAt  *time.Time
}

// CheckKeyLabel says what is wrong with a key's label, "" when nothing.
func CheckKeyLabel(label string) string {
	if strings.TrimSpace(label) == "" || len([]rune(label)) > maxKeyLabel || strings.ContainsFunc(label, unicode.IsControl) {
		return fmt.Sprintf("must be 1 to %d characters of text", maxKeyLabel)
	}
	return ""
}

// IssueAPIKey issues a key for company (which must exist: NotFound
// otherwise) in tx, for its first user (made when it has none).
func IssueAPIKey(ctx context.Context, tx pgx.Tx, companyID int64, label string) (NewAPIKey, error) {
	if msg := CheckKeyLabel(label); msg != "" {
		return NewAPIKey{}, finance.InvalidInput([]finance.Problem{{Field: "name", Message: msg}})
	}
	if _, err := lockCompany(ctx, tx, companyID); err != nil {
		return NewAPIKey{}, err
	}
	var userID int64
	err := tx.QueryRow(ctx, `SELECT id FROM users WHERE company_id = $1 ORDER BY id LIMIT 1`, companyID).Scan(&userID)
	if errors.Is(err, pgx.ErrNoRows) {
		err = tx.QueryRow(ctx, `INSERT INTO users (company_id, name) VALUES ($1, 'Administrator') RETURNING id`,
			companyID).Scan(&userID)
	}
	if err != nil {
		return NewAPIKey{}, translate(err, fmt.Sprintf("first user of company %d", companyID))
	}
	return CreateAPIKey(ctx, tx, companyID, userID, strings.TrimSpace(label))
}

const apiKeyColumns = `id, company_id, user_id, name, prefix, created_at, last_used_at, revoked_at`

// GetAPIKey is key id of company; NotFound when the company has none.
func GetAPIKey(ctx context.Context, q DBTX, companyID, id int64) (APIKey, error) {
	rows, err := q.Query(ctx, `SELECT `+apiKeyColumns+` FROM api_keys WHERE company_id = $1 AND id = $2`, companyID, id)
	if err != nil {
		return APIKey{}, translate(err, "api key")
	}
	k, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByPos[APIKey])
	if errors.Is(err, pgx.ErrNoRows) {
		return k, finance.Errorf(finance.NotFound, "Company %d has no API key %d.", companyID, id)
	}
	return k, translate(err, "api key")
}

// ListAPIKeys lists the keys of company (0: every company's) by company
// and id.
func ListAPIKeys(ctx context.Context, q DBTX, companyID int64) ([]APIKey, error) {
	rows, err := q.Query(ctx, `SELECT `+apiKeyColumns+` FROM api_keys
		WHERE $1 = 0 OR company_id = $1 ORDER BY company_id, id`, companyID)
	if err != nil {
		return nil, translate(err, "api keys")
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[APIKey])
	return out, translate(err, "api keys")
}

// RevokeAPIKey revokes key id of company in tx and announces it on
// KeysChannel (heard at the commit). A key revoked already is answered as
// it is, with revoked false: nothing changed.
func RevokeAPIKey(ctx context.Context, tx pgx.Tx, companyID, id int64) (k APIKey, revoked bool, err error) {
	tag, err := tx.Exec(ctx, `UPDATE api_keys SET revoked_at = now()
		WHERE company_id = $1 AND id = $2 AND revoked_at IS NULL`, companyID, id)
	if err != nil {
		return k, false, translate(err, "revoke api key")
	}
	if revoked = tag.RowsAffected() == 1; revoked {
		if _, err := tx.Exec(ctx, `SELECT pg_notify($1, $2)`, KeysChannel, RevokedKeyNote(companyID, id)); err != nil {
			return k, false, translate(err, "announce revoked api key")
		}
	}
	k, err = GetAPIKey(ctx, tx, companyID, id)
	return k, revoked, err
}

// RevokedKeyNote is the notification of a revoked key.
func RevokedKeyNote(companyID, id int64) string {
	return strconv.FormatInt(companyID, 10) + ":" + strconv.FormatInt(id, 10)
}

// ParseRevokedKeyNote reads a notification of KeysChannel.
func ParseRevokedKeyNote(note string) (companyID, id int64, ok bool) {
	c, k, found := strings.Cut(note, ":")
	if !found {
		return 0, 0, false
	}
	companyID, err1 := strconv.ParseInt(c, 10, 64)
	id, err2 := strconv.ParseInt(k, 10, 64)
	return companyID, id, err1 == nil && err2 == nil
}

// KeyCompany is the company of key id (key ids are unique across
// companies); NotFound when no company has it.
func KeyCompany(ctx context.Context, q DBTX, id int64) (int64, error) {
	var company int64
	err := q.QueryRow(ctx, `SELECT company_id FROM api_keys WHERE id = $1`, id).Scan(&company)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, finance.Errorf(finance.NotFound, "No API key has the id %d.", id)
	}
	return company, translate(err, fmt.Sprintf("company of api key %d", id))
}

// KeySelection is the audit log's selection of a key's issue (with its
// label) or revocation.
func KeySelection(companyID, id int64, label string) string {
	s := fmt.Sprintf("company=%d key=%d", companyID, id)
	if label != "" {
		s += " name=" + strconv.Quote(label)
	}
	return s
}
