package cnab

import (
	"errors"
	"fmt"
	"slices"
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

// ProblemLog collects the problems found while one title (or payment, or
// the remittance itself) is checked and written, until the writer takes
// them with Take. It is what a remittance writer built on this package's
// rules (cnab/pagamento) reports through.
type ProblemLog struct {
	// Index is the Title of the problems recorded: the item's index in
	// the stream, or HeaderIndex.
	Index int

	problems Problems
	errs     int
}

// Fail records an error: input cannot be written.
func (l *ProblemLog) Fail(input, msg string) { l.add(input, msg, SeverityError) }

// Warn records a warning: input is written altered.
func (l *ProblemLog) Warn(input, msg string) { l.add(input, msg, SeverityWarning) }

// add records a problem once: a value written in several records (the
// beneficiary's code in the file header, the batch header and every
// segment) reports the same problem from each, and one line says it.
func (l *ProblemLog) add(input, msg string, sev Severity) {
	p := Problem{Title: l.Index, Field: input, Message: msg, Severity: sev}
	if slices.Contains(l.problems, p) {
		return
	}
	l.problems = append(l.problems, p)
	if sev == SeverityError {
		l.errs++
	}
}

// Failed reports whether an error was recorded since the last Take.
func (l *ProblemLog) Failed() bool { return l.errs > 0 }

// Take hands the warnings to warn, which may be nil, and returns the
// errors as Problems, or nil when there are none. The log is then empty.
func (l *ProblemLog) Take(warn func(Problem)) error {
	var errs Problems
	for _, p := range l.problems {
		if p.Severity == SeverityWarning {
			if warn != nil {
				warn(p)
			}
			continue
		}
		errs = append(errs, p)
	}
	l.problems = l.problems[:0]
	l.errs = 0
	if errs != nil {
		return errs
	}
	return nil
}
