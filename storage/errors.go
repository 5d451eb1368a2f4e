package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/propfin/propfin/finance"
)

func recordNotFound(id int64) *finance.Error {
	return finance.Errorf(finance.NotFound, "Record %d not found.", id)
}

// translate turns driver errors into coded errors, once, at the storage
// boundary: no rows is not found, a unique or foreign-key violation is a
// conflict (naming the field when its constraint maps to one), a NOT NULL
// or CHECK violation is invalid input, a database that cannot be reached
// is unavailable, a deadlock or serialization failure is retryable. what
// names the record for messages ("building_types 12"). Constraint names
// stay in Err (the log), never in the message.
func translate(err error, what string) error {
	return translateFor(err, nil, what)
}

// translateFor is translate for a write to res: a constraint of res's table
// that can be traced to one of its declared columns names that field.
func translateFor(err error, res *Resource, what string) error {
	if err == nil {
		return nil
	}
	var coded *finance.Error
	if errors.As(err, &coded) {
		return err
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return &finance.Error{Code: finance.NotFound, Message: what + " not found.", Err: err}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return &finance.Error{Code: finance.Unavailable, Message: "The request was cancelled.", Err: err}
	}
	if connectionLost(err) {
		return &finance.Error{Code: finance.Unavailable, Message: "The database is unavailable; retry shortly.", Err: fmt.Errorf("%s: %w", what, err)}
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		if e := translatePg(err, pgErr, res); e != nil {
			return e
		}
	}
	return &finance.Error{Code: finance.Internal, Message: "Internal error.", Err: fmt.Errorf("%s: %w", what, err)}
}

// closedPool is the text of the error a closed pgxpool answers with (a
// sentinel of its pool library, which this package does not import).
const closedPool = "closed pool"

// connectionLost reports whether err says the database could not be
// reached or dropped the connection: a failed connect, a network error, a
// connection closed under the statement or before it was sent, a pool
// already closed, or PostgreSQL's own connection codes (class 08, the
// shutdowns 57P01-57P03, too many connections 53300). These are outages,
// not bugs: the request may succeed once the database is back.
func connectionLost(err error) bool {
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	var pgErr *pgconn.PgError
	switch {
	case errors.As(err, &connectErr), errors.As(err, &netErr), pgconn.SafeToRetry(err),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), strings.HasSuffix(err.Error(), closedPool):
		return true
	case errors.As(err, &pgErr):
		return strings.HasPrefix(pgErr.Code, "08") || slices.Contains([]string{"57P01", "57P02", "57P03", "53300"}, pgErr.Code)
	}
	return false
}

// translatePg codes the SQLSTATEs a client can cause; nil for the others.
func translatePg(err error, pgErr *pgconn.PgError, res *Resource) *finance.Error {
	switch pgErr.Code {
	case "23502": // not_null_violation
		return invalidField(err, orBody(pgErr.ColumnName), "is required and cannot be null")
	case "23514": // check_violation
		field := pgErr.ColumnName
		if field == "" {
			field = constraintField(res, pgErr.TableName, pgErr.ConstraintName)
		}
		return invalidField(err, orBody(field), "has a value that is not allowed")
	case "23505": // unique_violation
		return conflict(err, "A record with the same values already exists.",
			constraintField(res, pgErr.TableName, pgErr.ConstraintName), "is already taken")
	case "23503": // foreign_key_violation
		return conflict(err, "The record is referenced by or refers to another record.",
			constraintField(res, pgErr.TableName, pgErr.ConstraintName), "refers to a record that does not exist")
	case "22001", "22003", "22007", "22008", "22021", "22P02", "22P05":
		// input is checked before any SQL; this is the backstop for a
		// value the database still cannot hold (too long, out of range)
		return invalidField(err, orBody(pgErr.ColumnName), "has a value the database cannot store")
	case "40001", "40P01":
		return &finance.Error{Code: finance.Retryable, Message: "The database asked to retry the request.", Err: err}
	}
	return nil
}

func invalidField(err error, field, message string) *finance.Error {
	e := finance.InvalidInput([]finance.Problem{{Field: field, Message: message}})
	e.Err = err
	return e
}

// conflict is a 409 whose problem names field when the constraint maps to
// one; the constraint itself stays in Err.
func conflict(err error, message, field, problem string) *finance.Error {
	e := &finance.Error{Code: finance.Conflict, Message: message, Err: err}
	if field != "" {
		e.Problems = []finance.Problem{{Field: field, Message: problem}}
	}
	return e
}

func orBody(field string) string {
	if field == "" {
		return "body"
	}
	return field
}

// constraintField names the declared column of res that a constraint of
// res's table is about, derived from the constraint's name: PostgreSQL's
// default names (<table>_<column>_check, _key and _fkey, composite keys
// led by company_id) and ours (<table>_<column without _id>_fk). It is ""
// when no single declared column can be derived.
func constraintField(res *Resource, table, constraint string) string {
	if res == nil || table != res.Table {
		return ""
	}
	rest, ok := strings.CutPrefix(constraint, table+"_")
	if !ok {
		return ""
	}
	for _, suffix := range []string{"_check", "_fkey", "_fk", "_key"} {
		if s, found := strings.CutSuffix(rest, suffix); found {
			rest = s
			break
		}
	}
	rest = strings.TrimPrefix(rest, "company_id_")
	for _, name := range []string{rest, rest + "_id"} {
		if c, ok := res.Column(name); ok {
			return c.Key()
		}
	}
	return ""
}
