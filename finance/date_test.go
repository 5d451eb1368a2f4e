package finance

import (
	"encoding/json"
	"testing"
	"time"
)

func TestDateMatchesTimePackage(t *testing.T) {
	t.Parallel()
	// Every day from 1899 to 2101 converts like time.Time does.
	for tm := time.Date(1899, 1, 1, 0, 0, 0, 0, time.UTC); tm.Year() < 2102; tm = tm.AddDate(0, 0, 1) {
		d := DateOf(tm)
		y, m, dd := d.Date()
		if y != tm.Year() || m != tm.Month() || dd != tm.Day() || d.Weekday() != tm.Weekday() || !d.Time().Equal(tm) {
			t.Fatalf("%s: got %d-%d-%d %s", tm.Format(time.DateOnly), y, m, dd, d.Weekday())
		}
		if next := d.AddDays(1); next.Time() != tm.AddDate(0, 0, 1) {
			t.Fatalf("%s + 1 day = %s", d, next)
		}
	}
}

func TestAddMonthsClampsToMonthEnd(t *testing.T) {
	t.Parallel()
	tests := []struct {
		from   string
		months int
		want   string
	}{
		{"2024-01-31", 1, "2024-02-29"}, // leap year
		{"2023-01-31", 1, "2023-02-28"}, // common year
		{"1900-01-31", 1, "1900-02-28"}, // divisible by 100: common
		{"2000-01-31", 1, "2000-02-29"}, // divisible by 400: leap
		{"2024-02-29", 12, "2025-02-28"},
		{"2024-02-29", 48, "2028-02-29"},
		{"2024-03-31", 1, "2024-04-30"},
		{"2024-12-31", 2, "2025-02-28"},
		{"2024-03-31", -1, "2024-02-29"},
		{"2024-01-15", -13, "2022-12-15"},
	}
	for _, tt := range tests {
		if got := MustDate(tt.from).AddMonths(tt.months).String(); got != tt.want {
			t.Errorf("%s + %d months = %s, want %s", tt.from, tt.months, got, tt.want)
		}
	}
}

func TestParseDateRejects(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "2024-02-30", "2023-02-29", "2024-13-01", "2024-00-10", "2024-1-01", "24-01-01", "2024/01/01", "2024-01-01T00:00:00Z", "0000-01-01", "+024-01-01", "2024-+1-01", "2024-01-+1"} {
		if d, err := ParseDate(s); err == nil {
			t.Errorf("ParseDate(%q) = %s, want an error", s, d)
		}
	}
}

func TestDateJSON(t *testing.T) {
	t.Parallel()
	var v struct {
		A Date `json:"a"`
		B Date `json:"b"`
		C Date `json:"c"`
	}
	if err := json.Unmarshal([]byte(`{"a":"2024-02-29","b":null,"c":""}`), &v); err != nil {
		t.Fatal(err)
	}
	if v.A != MustDate("2024-02-29") || !v.B.IsZero() || !v.C.IsZero() {
		t.Fatalf("got %+v", v)
	}
	b, _ := json.Marshal(v)
	if string(b) != `{"a":"2024-02-29","b":null,"c":null}` {
		t.Fatalf("marshal: %s", b)
	}
	if err := json.Unmarshal([]byte(`{"a":20240229}`), &v); err == nil {
		t.Fatal("a number was accepted as a date")
	}
}

func TestMonth(t *testing.T) {
	t.Parallel()
	m := MonthOf(MustDate("2024-02-10"))
	if m.String() != "2024-02" || m.Days() != 29 || m.Last() != MustDate("2024-02-29") || m.Add(11).String() != "2025-01" {
		t.Fatalf("month %s: days %d last %s +11 %s", m, m.Days(), m.Last(), m.Add(11))
	}
	if got, err := ParseMonth("2023-02"); err != nil || got.Days() != 28 {
		t.Fatalf("ParseMonth(2023-02) = %s, %v", got, err)
	}
}

func FuzzParseDate(f *testing.F) {
	for _, s := range []string{"2024-02-29", "2023-02-29", "9999-12-31", "0001-01-01", "abcd-ef-gh", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDate(s)
		if err != nil {
			return
		}
		if d.String() != s {
			t.Fatalf("ParseDate(%q) round-trips to %q", s, d.String())
		}
		if _, perr := time.Parse(time.DateOnly, s); perr != nil {
			t.Fatalf("ParseDate accepted %q that time.Parse rejects: %v", s, perr)
		}
	})
}

func TestDateScanValue(t *testing.T) {
	t.Parallel()
	want := MustDate("2024-02-29")
	for _, src := range []any{time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC), "2024-02-29", []byte("2024-02-29"), "2024-02-29 13:45:00"} {
		var d Date
		if err := d.Scan(src); err != nil || d != want {
			t.Errorf("Scan(%v) = %s, %v", src, d, err)
		}
	}
	d := want
	if err := d.Scan(nil); err != nil || !d.IsZero() {
		t.Errorf("Scan(nil) = %s, %v", d, err)
	}
	for _, src := range []any{42, "2024-02-30", []byte("soon")} {
		if err := d.Scan(src); err == nil {
			t.Errorf("Scan(%v) accepted", src)
		}
	}
	if v, err := want.Value(); err != nil || v != want.Time() {
		t.Errorf("Value() = %v, %v", v, err)
	}
	if v, err := (Date{}).Value(); err != nil || v != nil {
		t.Errorf("zero Value() = %v, %v", v, err)
	}
}

func TestEnumsValid(t *testing.T) {
	t.Parallel()
	valid := []interface{ Valid() bool }{
		ContractRent, ActiveReserved, StatusOnNotice, Payment3Months, Daily, ModalityDueDate, BillingPost, IPCFIPE,
		TransferFixedDayOrNext, ItemModeService, CalculatePercentage, PercentFirstCommission, DiscountFixed,
		InvoiceContract, InvoiceUncollectible, EventThirtyDaysLate,
	}
	for _, v := range valid {
		if !v.Valid() {
			t.Errorf("%v is not valid", v)
		}
	}
	invalid := []interface{ Valid() bool }{
		ContractType("lease"), ContractActive(""), ContractStatus("open"), PaymentStatus("late"), Recurrency("weekly"),
		Modality("week"), BillingTiming("mid"), Indicator("IGP-DI"), TransferMode("auto"), ItemMode("fee"),
		CalculateMode("ratio"), PercentageMode("sale_value"), DiscountMode("half"), InvoiceType("bill"),
		InvoiceStatus("late"), EventStatus(""),
	}
	for _, v := range invalid {
		if v.Valid() {
			t.Errorf("%v is valid", v)
		}
	}
}
