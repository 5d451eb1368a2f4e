package cnab

import (
	"errors"
	"fmt"
	"strings"
)

// ErrInvalid is wrapped by every error that reports invalid input: a
// *Problems value matches it with errors.Is.
var ErrInvalid = errors.New("cnab: invalid input")

// ErrIncomplete is returned by Writer.Close when some titles were rejected:
// the bytes written so far must be discarded.
var ErrIncomplete = errors.New("cnab: remittance incomplete, some titles were rejected")

// Severity tells an error, which stops a title from being written, from a
// warning, which is written but altered (a text truncated, a character
// replaced).
type Severity uint8

const (
	// SeverityError: the title (or the remittance) cannot be written.
	SeverityError Severity = iota
	// SeverityWarning: the value was written, altered as the message says.
	SeverityWarning
)

func (s Severity) String() string {
	if s == SeverityWarning {
		return "warning"
	}
	return "error"
}

// MarshalText writes "error" or "warning", the form a job result stores.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// HeaderIndex is the Problem.Title of a problem that concerns the
// remittance itself (bank, beneficiary, sequence) rather than a title.
const HeaderIndex = -1

// Problem is one thing wrong with the input. Title is the index of the
// title in the stream (0 for the first) or HeaderIndex; Field is the input
// field in the JSON spelling of docs/cnab.md (for example "payer.name").
type Problem struct {
	Title    int      `json:"title"`
	Field    string   `json:"field"`
	Message  string   `json:"message"`
	Severity Severity `json:"severity"`
}

func (p Problem) String() string {
	where := "remittance"
	if p.Title != HeaderIndex {
		where = fmt.Sprintf("title %d", p.Title)
	}
	return fmt.Sprintf("%s: %s: %s: %s", p.Severity, where, p.Field, p.Message)
}

// Problems is the error returned for invalid input: every error found, in
// the order of the fields.
type Problems []Problem

func (ps Problems) Error() string {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(p.String())
	}
	return b.String()
}

// Unwrap lets errors.Is(err, ErrInvalid) match.
func (ps Problems) Unwrap() error { return ErrInvalid }
