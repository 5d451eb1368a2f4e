package storage

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/finance"
)

// Principal is who a request acts for: the company every query is scoped
// to, the user the API key belongs to, and the key itself.
type Principal struct {
	CompanyID int64
	UserID    int64
	KeyID     int64
}

// keyPrefix starts every API key; the company id follows, so that the key
// is looked up by (company_id, hash) like every other row.
const keyPrefix = "pf_"

// NewAPIKey holds a freshly issued key. Key is shown once and never stored.
type NewAPIKey struct {
	Principal
	Key string
}

// EnsureCompany returns the id of the company named name, creating it (and
// its first user) when it does not exist.
func EnsureCompany(ctx context.Context, pool *pgxpool.Pool, name string) (companyID, userID int64, err error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return 0, 0, finance.Errorf(finance.Invalid, "company name is empty")
	}
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `INSERT INTO companies (name) VALUES ($1)
			ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name RETURNING id`, name).Scan(&companyID); err != nil {
			return fmt.Errorf("upsert company: %w", err)
		}
		err := tx.QueryRow(ctx, `SELECT id FROM users WHERE company_id = $1 ORDER BY id LIMIT 1`, companyID).Scan(&userID)
		if err == pgx.ErrNoRows {
			err = tx.QueryRow(ctx, `INSERT INTO users (company_id, name) VALUES ($1, $2) RETURNING id`,
				companyID, "Administrator").Scan(&userID)
		}
		if err != nil {
			return fmt.Errorf("first user: %w", err)
		}
		return nil
	})
	if err != nil {
		return 0, 0, translate(err, "company "+name)
	}
	return companyID, userID, nil
}

// CreateAPIKey issues a key for a user of a company and stores its hash
// and its prefix (the key up to its secret's first 8 hex digits).
func CreateAPIKey(ctx context.Context, q DBTX, companyID, userID int64, name string) (NewAPIKey, error) {
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return NewAPIKey{}, fmt.Errorf("generate key: %w", err)
	}
	secretHex := hex.EncodeToString(secret)
	hash := sha256.Sum256([]byte(secretHex))
	key := keyPrefix + strconv.FormatInt(companyID, 10) + "_" + secretHex
	var keyID int64
	err := q.QueryRow(ctx, `INSERT INTO api_keys (company_id, user_id, name, secret_hash, prefix)
		VALUES ($1, $2, $3, $4, $5) RETURNING id`, companyID, userID, name, hash[:], KeyPrefixOf(key)).Scan(&keyID)
	if err != nil {
		return NewAPIKey{}, translate(err, "api key")
	}
	return NewAPIKey{
		Principal: Principal{CompanyID: companyID, UserID: userID, KeyID: keyID},
		Key:       key,
	}, nil
}

// keyPrefixHex is how many hex digits of the secret a key's prefix keeps.
const keyPrefixHex = 8

// KeyPrefixOf is what is kept of a key to tell it apart (pf_3_1a2b3c4d):
// its company and the first 8 hex digits of its secret; "" for what is
// not a key.
func KeyPrefixOf(key string) string {
	if _, _, ok := ParseAPIKey(key); !ok {
		return ""
	}
	return key[:len(key)-64+keyPrefixHex]
}

// ParseAPIKey splits a key into its company id and the hash of its secret.
func ParseAPIKey(key string) (companyID int64, hash [32]byte, ok bool) {
	rest, found := strings.CutPrefix(key, keyPrefix)
	if !found {
		return 0, hash, false
	}
	company, secret, found := strings.Cut(rest, "_")
	if !found || len(secret) != 64 {
		return 0, hash, false
	}
	companyID, err := strconv.ParseInt(company, 10, 64)
	if err != nil || companyID <= 0 || strconv.FormatInt(companyID, 10) != company {
		return 0, hash, false // the id is written as issued: no sign, no leading zeros
	}
	return companyID, sha256.Sum256([]byte(secret)), true
}

// LookupAPIKey resolves a key to its principal; an unknown, malformed or
// revoked key is Unauthenticated. It records the key's use (last_used_at)
// when the one recorded is a minute old or more, so that a key in use
// costs a write a minute at most.
func LookupAPIKey(ctx context.Context, pool *pgxpool.Pool, key string) (Principal, error) {
	companyID, hash, ok := ParseAPIKey(key)
	if !ok {
		return Principal{}, finance.Errorf(finance.Unauthenticated, "malformed API key")
	}
	p := Principal{CompanyID: companyID}
	err := pool.QueryRow(ctx, `WITH k AS (
			SELECT id, user_id, last_used_at FROM api_keys
			WHERE company_id = $1 AND secret_hash = $2 AND revoked_at IS NULL),
		used AS (
			UPDATE api_keys a SET last_used_at = now() FROM k
			WHERE a.company_id = $1 AND a.id = k.id
			  AND (k.last_used_at IS NULL OR k.last_used_at < now() - interval '1 minute'))
		SELECT id, user_id FROM k`, companyID, hash[:]).Scan(&p.KeyID, &p.UserID)
	if err == pgx.ErrNoRows {
		return Principal{}, finance.Errorf(finance.Unauthenticated, "unknown API key")
	}
	if err != nil {
		return Principal{}, translate(err, "api key")
	}
	return p, nil
}

// CompanyName is the company's name.
func CompanyName(ctx context.Context, q DBTX, companyID int64) (string, error) {
	var name string
	err := q.QueryRow(ctx, `SELECT name FROM companies WHERE id = $1`, companyID).Scan(&name)
	return name, translate(err, fmt.Sprintf("name of company %d", companyID))
}

// CompanyToday is today's date in the company's time zone.
func CompanyToday(ctx context.Context, q DBTX, companyID int64) (finance.Date, error) {
	var today finance.Date
	err := q.QueryRow(ctx, `SELECT (now() AT TIME ZONE coalesce(time_zone, 'America/Sao_Paulo'))::date
		FROM companies WHERE id = $1`, companyID).Scan(&today)
	return today, translate(err, fmt.Sprintf("today of company %d", companyID))
}

// CompanyNow is the wall-clock time in the company's time zone (its
// fields are the local ones; the location is UTC).
func CompanyNow(ctx context.Context, q DBTX, companyID int64) (time.Time, error) {
	var now time.Time
	err := q.QueryRow(ctx, `SELECT now() AT TIME ZONE coalesce(time_zone, 'America/Sao_Paulo')
		FROM companies WHERE id = $1`, companyID).Scan(&now)
	return now, translate(err, fmt.Sprintf("now of company %d", companyID))
}

// companyToday is today's date in the company's time zone.
func companyToday(ctx context.Context, tx pgx.Tx, companyID int64) (time.Time, error) {
	var today time.Time
	err := tx.QueryRow(ctx, `SELECT (now() AT TIME ZONE coalesce(time_zone, 'America/Sao_Paulo'))::date
		FROM companies WHERE id = $1`, companyID).Scan(&today)
	if err != nil {
		return today, fmt.Errorf("today of company %d: %w", companyID, err)
	}
	return today, nil
}
