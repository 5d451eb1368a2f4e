package storage_test

import (
	"context"
	"testing"
	"time"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// TestEventStatusSQL: the status an event reads as of today (its column's
// expression, and isLate's) is finance.EventStatusAsOf, for every stored
// status and for days around each boundary, its day taken in its own time
// zone; a recurring series, like an event without a date, keeps its
// status.
func TestEventStatusSQL(t *testing.T) {
	t.Parallel()
	pool := storagetest.NewDB(t)
	ctx := context.Background()
	today := finance.NewDate(2024, time.March, 15)
	sql := `SELECT ` + storage.EventStatusSQL("$4::date") + ` FROM (VALUES ($1::text, $2::text, $3::timestamptz, 'America/Manaus'::text))
		AS t("status", "recurrency", "initial_date", "time_zone")`
	manaus, err := time.LoadLocation("America/Manaus")
	if err != nil {
		t.Fatal(err)
	}
	for _, status := range storage.EventStatuses {
		for _, days := range []int{-40, -31, -30, -29, -6, -5, -4, -1, 0, 1, 7} {
			date := today.AddDays(days)
			// 23:30 in Manaus is the next day in UTC: the event's day is Manaus'
			at := time.Date(date.Year(), date.Month(), date.Day(), 23, 30, 0, 0, manaus)
			want := finance.EventStatusAsOf(finance.EventStatus(status), date, today)
			var got string
			if err := pool.QueryRow(ctx, sql, status, nil, at, today.String()).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("%s, %d days from today: %s, want %s", status, days, got, want)
			}
			if err := pool.QueryRow(ctx, sql, status, "weekly", at, today.String()).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if want := finance.EventStatusAsOf(finance.EventStatus(status), finance.Date{}, today); got != string(want) {
				t.Errorf("weekly %s, %d days from today: %s, want %s", status, days, got, want)
			}
		}
	}
}
