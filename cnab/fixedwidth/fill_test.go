package fixedwidth

import (
	"strings"
	"testing"
	"time"
)

// values is a writer state for the tests: the values the fields read and
// the problems reported.
type values struct {
	n        int64
	str      string
	date     Date
	problems []string
}

func (v *values) Fail(input, msg string) { v.problems = append(v.problems, "error "+input+": "+msg) }
func (v *values) Warn(input, msg string) { v.problems = append(v.problems, "warning "+input+": "+msg) }

func n(v *values) int64    { return v.n }
func str(v *values) string { return v.str }
func day(v *values) Date   { return v.date }

func TestFill(t *testing.T) {
	t.Parallel()
	date := Date{2024, time.March, 7}
	tests := []struct {
		name    string
		f       Field[*values]
		v       values
		want    string
		problem string
	}{
		{"blank", NewBlank[*values](1, 3, "b"), values{}, "   ", ""},
		{"zero", NewZero[*values](1, 3, "z"), values{}, "000", ""},
		{"lit", NewLit[*values](1, 3, "l", "AB1"), values{}, "AB1", ""},
		{"num", NewNum(1, 5, "n", "amount", n), values{n: 42}, "00042", ""},
		{"num of zero", NewNum(1, 3, "n", "amount", n), values{}, "000", ""},
		{"num exactly wide", NewNum(1, 3, "n", "amount", n), values{n: 999}, "999", ""},
		{"num too large", NewNum(1, 3, "Valor", "amount", n), values{n: 1000}, "000", "error amount: too large for Valor (3 digits)"},
		{"num negative", NewNum(1, 3, "n", "amount", n), values{n: -1}, "000", "error amount: must not be negative"},
		{"unused num of zero", Unused(NewNum(1, 3, "n", "amount", n)), values{}, "   ", ""},
		{"unused num", Unused(NewNum(1, 3, "n", "amount", n)), values{n: 7}, "007", ""},
		{"digits", NewDigits(1, 5, "d", "agency", str), values{str: "123"}, "00123", ""},
		{"digits with leading zeros beyond the width", NewDigits(1, 3, "d", "agency", str), values{str: "000123"}, "123", ""},
		{"digits too long", NewDigits(1, 3, "Agência", "agency", str), values{str: "0012345"}, "000", "error agency: has 7 digits, Agência holds 3"},
		{"digits too long, significant", significant(NewDigits(1, 3, "Agência", "agency", str)), values{str: "0012345"}, "000", "error agency: has 5 digits, Agência holds 3"},
		{"digits not digits", NewDigits(1, 4, "d", "agency", str), values{str: "12a"}, "0000", "error agency: must contain digits only"},
		{"text", NewText(1, 6, "t", "name", str), values{str: "João"}, "JOAO  ", ""},
		{"text truncated", NewText(1, 3, "Nome", "name", str), values{str: "Maria"}, "MAR", "warning name: truncated to 3 characters for Nome"},
		{"text replaced", NewText(1, 3, "t", "name", str), values{str: "a_b"}, "A B", "warning name: characters the bank does not accept were replaced by spaces"},
		{"raw", NewRaw(1, 8, "k", "pix_key", str), values{str: "a@b.c"}, "a@b.c   ", ""},
		{"raw too long", NewRaw(1, 3, "Chave", "pix_key", str), values{str: "abcd"}, "   ", "error pix_key: longer than the 3 characters of Chave"},
		{"raw not printable", NewRaw(1, 3, "k", "pix_key", str), values{str: "a\tb"}, "   ", "error pix_key: must be printable ASCII"},
		{"date6", NewDate(Date6, 1, 6, "d", "due", day), values{date: date}, "070324", ""},
		{"date8", NewDate(Date8, 1, 8, "d", "due", day), values{date: date}, "07032024", ""},
		{"dateYMD", NewDate(DateYMD, 1, 8, "d", "due", day), values{date: date}, "20240307", ""},
		{"no date", NewDate(Date8, 1, 8, "d", "due", day), values{}, "00000000", ""},
		{"no dateYMD", NewDate(DateYMD, 1, 8, "d", "due", day), values{}, "00000000", ""},
		{"unused no date", Unused(NewDate(Date6, 1, 6, "d", "due", day)), values{}, "      ", ""},
		{"unused dateYMD stays zeros", Unused(NewDate(DateYMD, 1, 8, "d", "due", day)), values{}, "00000000", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			line := []byte(strings.Repeat("x", tt.f.End+1))
			v := tt.v
			FillAll(line, []Field[*values]{tt.f}, &v)
			if got := string(line[tt.f.Start-1 : tt.f.End]); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if line[tt.f.End] != 'x' {
				t.Errorf("wrote past the field: %q", line)
			}
			if got := strings.Join(v.problems, "; "); got != tt.problem {
				t.Errorf("problems %q, want %q", got, tt.problem)
			}
		})
	}
}

func significant(f Field[*values]) Field[*values] {
	f.CountSignificant = true
	return f
}

// TestTemplateAndFill checks that a template holds the constant fields,
// that Fill writes only the others, and that both give what FillAll does.
func TestTemplateAndFill(t *testing.T) {
	t.Parallel()
	fs := Concat(
		[]Field[*values]{NewLit[*values](1, 2, "tipo", "01"), NewBlank[*values](3, 4, "brancos")},
		[]Field[*values]{NewNum(5, 8, "valor", "amount", n), NewZero[*values](9, 10, "zeros"), NewText(11, 14, "nome", "name", str)},
	)
	line, dynamic := Template(fs, 14, "detail")
	if string(line) != "01      00    " {
		t.Errorf("template %q", line)
	}
	if len(dynamic) != 2 || dynamic[0] != 2 || dynamic[1] != 4 {
		t.Errorf("dynamic %v, want [2 4]", dynamic)
	}
	v := values{n: 12, str: "ana"}
	Fill(line, fs, dynamic, &v)
	all := make([]byte, 14)
	FillAll(all, fs, &v)
	if string(line) != "01  001200ANA " || string(all) != string(line) {
		t.Errorf("Fill %q, FillAll %q, want %q", line, all, "01  001200ANA ")
	}
}

func TestTemplateFieldOutside(t *testing.T) {
	t.Parallel()
	defer func() {
		if recover() == nil {
			t.Error("no panic for a field past the record's end")
		}
	}()
	Template([]Field[*values]{NewBlank[*values](1, 11, "long")}, 10, "header")
}

func TestKindString(t *testing.T) {
	t.Parallel()
	if Const.String() != "const" || DateYMD.String() != "dateYMD" {
		t.Errorf("got %s, %s", Const, DateYMD)
	}
}
