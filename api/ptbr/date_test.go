package ptbr

import (
	"testing"
	"time"
)

func date(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

func TestDate(t *testing.T) {
	t.Parallel()
	saoPaulo := time.FixedZone("BRT", -3*3600)
	tests := []struct {
		in   time.Time
		want string
	}{
		{date(2026, 11, 24), "24/11/2026"},
		{date(2027, 1, 5), "05/01/2027"},
		{time.Date(2026, 11, 24, 23, 30, 0, 0, saoPaulo), "24/11/2026"}, // its own location, not UTC
		{time.Time{}, ""},
	}
	for _, tt := range tests {
		if got := Date(tt.in); got != tt.want {
			t.Errorf("Date(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestMonthName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   time.Month
		want string
	}{
		{time.January, "janeiro"},
		{time.March, "março"},
		{time.December, "dezembro"},
		{0, ""},
		{13, ""},
	}
	for _, tt := range tests {
		if got := MonthName(tt.in); got != tt.want {
			t.Errorf("MonthName(%d) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestMonthYear(t *testing.T) {
	t.Parallel()
	saoPaulo := time.FixedZone("BRT", -3*3600)
	tests := []struct {
		in   time.Time
		want string
	}{
		{date(2024, 3, 1), "março de 2024"},
		{date(2023, 12, 31), "dezembro de 2023"},
		{time.Date(2024, 1, 31, 22, 0, 0, 0, saoPaulo), "janeiro de 2024"}, // its own location, not UTC
	}
	for _, tt := range tests {
		if got := MonthYear(tt.in); got != tt.want {
			t.Errorf("MonthYear(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
