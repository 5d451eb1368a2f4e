package retorno

import (
	"errors"
	"fmt"
	"time"
)

// ErrRefused is wrapped by the error NewReader returns for a file it will
// not read: not a return file, a bank or layout not read here, or not the
// bank or layout the caller asked for.
var ErrRefused = errors.New("retorno: file refused")

// ErrUnreadable is wrapped by every *LineError.
var ErrUnreadable = errors.New("retorno: unreadable line")

// LineError is a line of the file that could not be read. Reading can go
// on after it: Next returns the events of the following lines, unless
// Fatal is set.
type LineError struct {
	Line   int    // 1 for the first line
	Record string // the record or segment, "segment T", "detail", ...
	Field  string // the field in the bank's document, when one is at fault
	Value  string // the field's characters as read
	Reason string
	// Fatal means the reader cannot go on (a line too long to read, an
	// I/O error); Next returns io.EOF after it.
	Fatal bool
}

func (e *LineError) Error() string {
	msg := fmt.Sprintf("line %d", e.Line)
	if e.Record != "" {
		msg += ": " + e.Record
	}
	if e.Field != "" {
		msg += fmt.Sprintf(": %s %q", e.Field, e.Value)
	}
	return msg + ": " + e.Reason
}

// Unwrap lets errors.Is(err, ErrUnreadable) match.
func (e *LineError) Unwrap() error { return ErrUnreadable }

// fieldProblem is a field that could not be read; the reader adds the line.
type fieldProblem struct {
	field, value, reason string
}

func (p *fieldProblem) Error() string { return p.field + ": " + p.reason }

func fieldErr(f *field, raw, reason string) error {
	return &fieldProblem{field: f.name, value: raw, reason: reason}
}

func refused(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrRefused, fmt.Sprintf(format, args...))
}

func timeMonth(m int) time.Month { return time.Month(m) }
