package cnab

import (
	"fmt"
	"time"
)

// Date is a calendar date without time of day or zone, as the CNAB
// layouts print it. Its JSON form is "YYYY-MM-DD".
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// DateOf returns the calendar date of t in t's location.
func DateOf(t time.Time) Date {
	y, m, d := t.Date()
	return Date{y, m, d}
}

// ParseDate parses "YYYY-MM-DD".
func ParseDate(s string) (Date, error) {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return Date{}, fmt.Errorf("date %q: want YYYY-MM-DD", s)
	}
	return DateOf(t), nil
}

// IsZero reports whether d is the zero Date (no date).
func (d Date) IsZero() bool { return d == Date{} }

// Time returns d at midnight UTC.
func (d Date) Time() time.Time { return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, time.UTC) }

func (d Date) String() string {
	if d.IsZero() {
		return ""
	}
	return fmt.Sprintf("%04d-%02d-%02d", d.Year, int(d.Month), d.Day)
}

// valid reports whether d is a real date within the years a CNAB file can
// carry (two- or four-digit years).
func (d Date) valid() bool {
	return d.Year >= 2000 && d.Year <= 2099 && d.Month >= 1 && d.Month <= 12 && d.Day >= 1 && d.Day <= daysIn(d.Year, d.Month)
}

func daysIn(year int, m time.Month) int {
	switch m {
	case time.February:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case time.April, time.June, time.September, time.November:
		return 30
	}
	return 31
}

// next returns the day after d.
func (d Date) next() Date {
	switch {
	case d.Day < daysIn(d.Year, d.Month):
		d.Day++
	case d.Month < time.December:
		d.Day, d.Month = 1, d.Month+1
	default:
		d.Day, d.Month, d.Year = 1, time.January, d.Year+1
	}
	return d
}

// Before reports whether d is before e.
func (d Date) Before(e Date) bool {
	if d.Year != e.Year {
		return d.Year < e.Year
	}
	if d.Month != e.Month {
		return d.Month < e.Month
	}
	return d.Day < e.Day
}

// MarshalJSON writes "YYYY-MM-DD", or null for the zero Date.
func (d Date) MarshalJSON() ([]byte, error) {
	if d.IsZero() {
		return []byte("null"), nil
	}
	return []byte(`"` + d.String() + `"`), nil
}

// UnmarshalJSON reads "YYYY-MM-DD"; null and "" give the zero Date.
func (d *Date) UnmarshalJSON(b []byte) error {
	s := string(b)
	if s == "null" || s == `""` {
		*d = Date{}
		return nil
	}
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return fmt.Errorf("date %s: want a string YYYY-MM-DD", s)
	}
	v, err := ParseDate(s[1 : len(s)-1])
	if err != nil {
		return err
	}
	*d = v
	return nil
}
