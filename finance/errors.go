package finance

import (
	"errors"
	"fmt"
)

// Code classifies an error for the caller; the API maps each code to one
// HTTP status in one place.
type Code string

// Error codes every layer returns. The codes only HTTP has (a rate limit,
// a body too large, a method not allowed, ...) are the API's.
const (
	Invalid         Code = "invalid"         // the input breaks a rule; Problems say which
	NotFound        Code = "not_found"       // no such record for this company
	Conflict        Code = "conflict"        // the write clashes with existing data
	Unauthenticated Code = "unauthenticated" // no company could be identified
	Unavailable     Code = "unavailable"     // a dependency is down; retrying may help
	Retryable       Code = "retryable"       // deadlock or serialization failure
	Internal        Code = "internal"        // everything else; details stay in the log
)

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

// ErrorCode returns the code of err, Internal when it carries none.
func ErrorCode(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Internal
}

// AsInvalid is the coded error of a rule's Problems, the one place a
// finance problem becomes a coded one: invalid input listing each, its
// field renamed by field (kept as the rule names it when field is nil).
// ok is false when err carries no Problems.
func AsInvalid(err error, field func(string) string) (e *Error, ok bool) {
	var ps Problems
	if !errors.As(err, &ps) {
		return nil, false
	}
	problems := make([]Problem, len(ps))
	for i, p := range ps {
		if field != nil {
			p.Field = field(p.Field)
		}
		problems[i] = p
	}
	return InvalidInput(problems), true
}

// Count writes n with its noun, singular for one: "1 job", "2 jobs", "0
// jobs", for the messages of errors and answers.
func Count[N ~int | ~int64](n N, one, many string) string {
	if n == 1 || n == -1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
