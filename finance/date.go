package finance

import (
	"database/sql/driver"
	"fmt"
	"strconv"
	"time"
)

// Date is a calendar date with no time of day and no time zone, the
// meaning of every "date" field of the API. The zero Date means "not set".
// Dates compare with ==, Before, After and Compare.
type Date struct {
	// n packs year<<9 | month<<5 | day, which orders like the dates;
	// 0 is the zero Date.
	n int32
}

// epochShift turns days since 1970-01-01 into days since 0000-03-01.
const epochShift = 719468

func pack(y, m, d int) Date { return Date{n: int32(y<<9 | m<<5 | d)} }

// NewDate returns the date y-m-d. Out-of-range days and months are
// normalised as time.Date does (2024-02-30 is 2024-03-01).
func NewDate(y int, m time.Month, d int) Date {
	if m < 1 || m > 12 || d < 1 || d > 28 && d > daysIn(y, m) {
		t := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
		y, m, d = t.Date()
	}
	return pack(y, int(m), d)
}

// DateOf returns the calendar date of t in t's location.
func DateOf(t time.Time) Date {
	y, m, d := t.Date()
	return NewDate(y, m, d)
}

// ParseDate reads a date written YYYY-MM-DD.
func ParseDate(s string) (Date, error) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' || !digits(s[0:4]) || !digits(s[5:7]) || !digits(s[8:10]) {
		return Date{}, fmt.Errorf("date %q: want YYYY-MM-DD", s)
	}
	y, err1 := strconv.Atoi(s[0:4])
	m, err2 := strconv.Atoi(s[5:7])
	d, err3 := strconv.Atoi(s[8:10])
	if err1 != nil || err2 != nil || err3 != nil || y < 1 || m < 1 || m > 12 || d < 1 || d > daysIn(y, time.Month(m)) {
		return Date{}, fmt.Errorf("date %q: not a calendar date", s)
	}
	return NewDate(y, time.Month(m), d), nil
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// MustDate is ParseDate for constants known to be valid; it panics otherwise.
func MustDate(s string) Date {
	d, err := ParseDate(s)
	if err != nil {
		panic(err)
	}
	return d
}

// IsZero reports whether the date is not set.
func (d Date) IsZero() bool { return d.n == 0 }

// Date returns the year, month and day.
func (d Date) Date() (year int, month time.Month, day int) {
	return int(d.n >> 9), time.Month(d.n >> 5 & 15), int(d.n & 31)
}

// Year returns the year.
func (d Date) Year() int { return int(d.n >> 9) }

// Month returns the month of the year.
func (d Date) Month() time.Month { return time.Month(d.n >> 5 & 15) }

// Day returns the day of the month.
func (d Date) Day() int { return int(d.n & 31) }

// days returns the number of days since 1970-01-01.
func (d Date) days() int {
	y, m, dd := d.Date()
	return daysFromCivil(y, int(m), dd)
}

func fromDays(n int) Date {
	y, m, d := civilFromDays(n)
	return pack(y, m, d)
}

// Weekday returns the day of the week.
func (d Date) Weekday() time.Weekday {
	// 1970-01-01 was a Thursday.
	w := (d.days() + 4) % 7
	if w < 0 {
		w += 7
	}
	return time.Weekday(w)
}

// AddDays returns the date n days later (earlier when n is negative).
func (d Date) AddDays(n int) Date {
	if day := d.Day() + n; day >= 1 && day <= 28 {
		return Date{n: d.n + int32(n)} // same month
	}
	return fromDays(d.days() + n)
}

// AddMonths returns the same day n months later, clamped to the last day
// of the target month: 2024-01-31 plus one month is 2024-02-29.
func (d Date) AddMonths(n int) Date {
	return dayInMonth(MonthOf(d).Add(n), d.Day())
}

// DaysUntil returns the number of days from d to e (negative when e is
// before d).
func (d Date) DaysUntil(e Date) int {
	if d.n>>5 == e.n>>5 { // same month
		return int(e.n - d.n)
	}
	return e.days() - d.days()
}

// Before reports whether d is before e.
func (d Date) Before(e Date) bool { return d.n < e.n }

// After reports whether d is after e.
func (d Date) After(e Date) bool { return d.n > e.n }

// Compare returns -1, 0 or +1 as d is before, equal to or after e.
func (d Date) Compare(e Date) int {
	switch {
	case d.n < e.n:
		return -1
	case d.n > e.n:
		return 1
	}
	return 0
}

// Time returns midnight UTC of the date.
func (d Date) Time() time.Time {
	y, m, dd := d.Date()
	return time.Date(y, m, dd, 0, 0, 0, 0, time.UTC)
}

// String writes the date as YYYY-MM-DD, or "" for the zero Date.
func (d Date) String() string {
	if d.IsZero() {
		return ""
	}
	var b [10]byte
	return string(d.appendTo(b[:0]))
}

func (d Date) appendTo(b []byte) []byte {
	y, m, dd := d.Date()
	b = append(b, byte('0'+y/1000%10), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10), '-')
	b = append(b, byte('0'+int(m)/10), byte('0'+int(m)%10), '-')
	return append(b, byte('0'+dd/10), byte('0'+dd%10))
}

// appendBR writes the date as DD/MM/YYYY, the Brazilian way.
func (d Date) appendBR(b []byte) []byte {
	y, m, dd := d.Date()
	b = append(b, byte('0'+dd/10), byte('0'+dd%10), '/')
	b = append(b, byte('0'+int(m)/10), byte('0'+int(m)%10), '/')
	return append(b, byte('0'+y/1000%10), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10))
}

// MarshalJSON writes "YYYY-MM-DD", or null for the zero Date.
func (d Date) MarshalJSON() ([]byte, error) {
	if d.IsZero() {
		return []byte("null"), nil
	}
	b := make([]byte, 0, 12)
	b = append(b, '"')
	b = d.appendTo(b)
	return append(b, '"'), nil
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

// Month is a calendar month (year and month), the unit of competence and
// of price-index series. The zero Month is January of year 0.
type Month int32

// NewMonth returns the month m of year y.
func NewMonth(y int, m time.Month) Month { return Month(y*12 + int(m) - 1) }

// MonthOf returns the month of d.
func MonthOf(d Date) Month { return NewMonth(d.Year(), d.Month()) }

// ParseMonth reads YYYY-MM.
func ParseMonth(s string) (Month, error) {
	d, err := ParseDate(s + "-01")
	if err != nil {
		return 0, fmt.Errorf("month %q: want YYYY-MM", s)
	}
	return MonthOf(d), nil
}

// Year returns the year.
func (m Month) Year() int { return int(m) / 12 }

// Month returns the month of the year.
func (m Month) Month() time.Month { return time.Month(int(m)%12 + 1) }

// Add returns the month n months later.
func (m Month) Add(n int) Month { return m + Month(n) }

// First returns the first day of the month.
func (m Month) First() Date { return NewDate(m.Year(), m.Month(), 1) }

// Last returns the last day of the month.
func (m Month) Last() Date { return NewDate(m.Year(), m.Month(), m.Days()) }

// Days returns the number of days in the month.
func (m Month) Days() int { return daysIn(m.Year(), m.Month()) }

// String writes YYYY-MM.
func (m Month) String() string { return m.First().String()[:7] }

// dayInMonth returns day d of month m, clamped to the month's last day.
func dayInMonth(m Month, d int) Date {
	if n := m.Days(); d > n {
		d = n
	}
	return pack(m.Year(), int(m.Month()), d)
}

func daysIn(y int, m time.Month) int {
	switch m {
	case time.February:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case time.April, time.June, time.September, time.November:
		return 30
	}
	return 31
}

// daysFromCivil and civilFromDays convert between y-m-d and days since
// 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's algorithms).
func daysFromCivil(y, m, d int) int {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 {
		era = (y - 399) / 400
	}
	yoe := y - era*400
	mp := m + 9
	if m > 2 {
		mp = m - 3
	}
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - epochShift
}

func civilFromDays(z int) (y, m, d int) {
	z += epochShift
	era := z / 146097
	if z < 0 {
		era = (z - 146096) / 146097
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	if mp < 10 {
		m = mp + 3
	} else {
		m = mp - 9
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}

// MarshalText writes YYYY-MM.
func (m Month) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText reads YYYY-MM.
func (m *Month) UnmarshalText(b []byte) error {
	v, err := ParseMonth(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// Scan reads a date column (database/sql.Scanner): a time.Time, a
// "YYYY-MM-DD" string or bytes, or NULL for the zero Date.
func (d *Date) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*d = Date{}
	case time.Time:
		*d = DateOf(v)
	case string:
		return d.scanText(v)
	case []byte:
		return d.scanText(string(v))
	default:
		return fmt.Errorf("scan date: cannot read %T", src)
	}
	return nil
}

func (d *Date) scanText(s string) error {
	if len(s) > 10 { // a timestamp: keep its date
		s = s[:10]
	}
	v, err := ParseDate(s)
	if err != nil {
		return fmt.Errorf("scan date: %w", err)
	}
	*d = v
	return nil
}

// Value writes the date for a date column (database/sql/driver.Valuer):
// midnight UTC of the date, or NULL for the zero Date.
func (d Date) Value() (driver.Value, error) {
	if d.IsZero() {
		return nil, nil
	}
	return d.Time(), nil
}
