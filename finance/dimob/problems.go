package dimob

import (
	"fmt"
	"strings"
)

// Severity tells a blocking problem, which keeps the file from being
// written, from a warning, which is written as it is (or altered, as the
// message says) but deserves a look.
type Severity string

const (
	Blocking Severity = "blocking"
	Warning  Severity = "warning"
)

// Problem is one thing wrong with a declaration, named so that it can be
// found and fixed: the record (declarant, rentals[i], sales[i], counted
// from 0 in the input), the contract and owner of that record (a sale's
// owner is its seller), and the input field (owner.tax_id,
// property.municipality, months[2].rent; months count from 0, January).
type Problem struct {
	Severity Severity `json:"severity"`
	Record   string   `json:"record"`
	Contract string   `json:"contract,omitempty"`
	Owner    string   `json:"owner,omitempty"`
	Field    string   `json:"field"`
	Message  string   `json:"message"`
}

func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(string(p.Severity) + ": " + p.Record)
	switch {
	case p.Contract != "" && p.Owner != "":
		fmt.Fprintf(&b, " (contract %s, owner %s)", p.Contract, p.Owner)
	case p.Contract != "":
		fmt.Fprintf(&b, " (contract %s)", p.Contract)
	case p.Owner != "":
		fmt.Fprintf(&b, " (owner %s)", p.Owner)
	}
	b.WriteString(": " + p.Field + ": " + p.Message)
	return b.String()
}

// Problems is every problem Check found in a declaration, in the order of
// the input: the declarant's first, then each rental's, then each sale's.
// Write returns it as its error when one of them blocks.
type Problems []Problem

func (ps Problems) Error() string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.String()
	}
	return "dimob: " + strings.Join(parts, "; ")
}

// Blocks reports whether one of the problems keeps the file from being
// written.
func (ps Problems) Blocks() bool {
	for _, p := range ps {
		if p.Severity == Blocking {
			return true
		}
	}
	return false
}

// Only returns the problems of one severity.
func (ps Problems) Only(s Severity) Problems {
	var out Problems
	for _, p := range ps {
		if p.Severity == s {
			out = append(out, p)
		}
	}
	return out
}

// at is where the problems of one record go.
type at struct {
	ps       *Problems
	record   string
	contract string
	owner    string
}

func (a at) add(s Severity, field, format string, args ...any) {
	*a.ps = append(*a.ps, Problem{
		Severity: s, Record: a.record, Contract: a.contract, Owner: a.owner,
		Field: field, Message: fmt.Sprintf(format, args...),
	})
}

func (a at) block(field, format string, args ...any) { a.add(Blocking, field, format, args...) }

func (a at) warn(field, format string, args ...any) { a.add(Warning, field, format, args...) }
