package storage

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Code classifies an error for the caller; the API maps each code to one
// HTTP status in one place.
type Code string

// Error codes.
const (
	Invalid         Code = "invalid"           // the input breaks a rule; Problems say which
	NotFound        Code = "not_found"         // no such record for this company
	Conflict        Code = "conflict"          // the write clashes with existing data
	Unauthenticated Code = "unauthenticated"   // no company could be identified
	Unavailable     Code = "unavailable"       // a dependency is down; retrying may help
	Retryable       Code = "retryable"         // deadlock or serialization failure
	Internal        Code = "internal"          // everything else; details stay in the log
	TooManyRequests Code = "too_many_requests" // the rate limit is exhausted
	TooLarge        Code = "too_large"         // the request body is over its limit
	NotAllowed      Code = "not_allowed"       // the route exists, the method does not
	OperatorOnly    Code = "operator_only"     // an operator route without the admin credential
	Forbidden       Code = "forbidden"         // refused whoever asks (a cross-origin write to an operator route)
)

// Problem is one thing wrong with the input, named by the parameter or body
// field it concerns.
type Problem struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// Error is the one coded error of propfin. Message is safe to show to the
// caller; Err, when set, is the internal cause and is only logged.
type Error struct {
	Code     Code
	Message  string
	Problems []Problem
	Err      error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf builds an Error with a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// InvalidInput is the validation error listing every problem found.
func InvalidInput(problems []Problem) *Error {
	return &Error{Code: Invalid, Message: "The given data was invalid.", Problems: problems}
}

func recordNotFound(id int64) *Error {
	return Errorf(NotFound, "Record %d not found.", id)
}

// ErrorCode returns the code of err, Internal when it carries none.
func ErrorCode(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Internal
}

// translate turns driver errors into coded errors, once, at the storage
// boundary: no rows is not found, a unique or foreign-key violation is a
// conflict named by its constraint, a deadlock or serialization failure is
// retryable. what names the record for messages ("building_types 12").
func translate(err error, what string) error {
	if err == nil {
		return nil
	}
	var coded *Error
	if errors.As(err, &coded) {
		return err
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return &Error{Code: NotFound, Message: what + " not found.", Err: err}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return &Error{Code: Unavailable, Message: "The request was cancelled.", Err: err}
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "23505":
			return &Error{Code: Conflict, Message: "A record with the same values already exists (" + pgErr.ConstraintName + ").", Err: err}
		case "23503":
			return &Error{Code: Conflict, Message: "The record is referenced by or refers to another record (" + pgErr.ConstraintName + ").", Err: err}
		case "22001", "22003", "22007", "22008", "22021", "22P02", "22P05":
			// input is checked before any SQL; this is the backstop for a
			// value the database still cannot hold (too long, out of range)
			field := pgErr.ColumnName
			if field == "" {
				field = "body"
			}
			return &Error{Code: Invalid, Message: "The given data was invalid.", Problems: []Problem{{Field: field, Message: "has a value the database cannot store"}}, Err: err}
		case "40001", "40P01":
			return &Error{Code: Retryable, Message: "The database asked to retry the request.", Err: err}
		}
	}
	return &Error{Code: Internal, Message: "Internal error.", Err: fmt.Errorf("%s: %w", what, err)}
}
