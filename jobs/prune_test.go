package jobs

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// pruneSeed writes rows for the prune tests in one company.
type pruneSeed struct {
	t       *testing.T
	p       *platform
	company int64
}

func (s pruneSeed) id(sql string, args ...any) int64 {
	s.t.Helper()
	var id int64
	if err := s.p.pool.QueryRow(context.Background(), sql, append([]any{s.company}, args...)...).Scan(&id); err != nil {
		s.t.Fatalf("%s: %v", sql, err)
	}
	return id
}

// event writes an event labelled label, age old, with a delivery to
// endpoint of each status, made age old too (or at the delivery's own
// age, status "delivered@2 days").
func (s pruneSeed) event(label, age string, endpoints []int64, deliveries ...[2]string) {
	s.t.Helper()
	ev := s.id(`INSERT INTO webhook_events (company_id, type, data, created_at)
		VALUES ($1, 'invoice.paid', json_build_object('label', $2::text), now() - $3::interval) RETURNING id`, label, age)
	for i, d := range deliveries {
		s.id(`INSERT INTO webhook_deliveries (company_id, endpoint_id, event_id, status, created_at)
			VALUES ($1, $2, $3, $4, now() - $5::interval) RETURNING id`, endpoints[i%len(endpoints)], ev, d[0], d[1])
	}
}

// job writes a job of kind in state, finished age ago at generation.
func (s pruneSeed) job(state, age string, generation int, key string) int64 {
	s.t.Helper()
	return s.id(`INSERT INTO jobs (company_id, kind, queue, state, submitted_by, created_at, finished_at, generation, unique_key)
		VALUES ($1, 'invoices:generate', 'critical', $2, 'test', now() - $3::interval, now() - $3::interval, $4, nullif($5, ''))
		RETURNING id`, state, age, generation, key)
}

func (s pruneSeed) jobFailed(label, age string, job int64, generation int) {
	s.t.Helper()
	s.id(`INSERT INTO operator_alerts (company_id, kind, job_id, generation, job_kind, message, raised_at)
		VALUES ($1, 'job_failed', $2, $3, 'invoices:generate', $4, now() - $5::interval) RETURNING id`, job, generation, label, age)
}

func (s pruneSeed) runMissing(label, age, date string) {
	s.t.Helper()
	s.id(`INSERT INTO operator_alerts (company_id, kind, schedule, run_date, job_kind, run_key, message, raised_at, sent_at)
		VALUES ($1, 'run_missing', 'invoices-generate', $2::date, 'invoices:generate', $2, $3, now() - $4::interval, now())
		RETURNING id`, date, label, age)
}

// labels lists what is left of a company: its events' labels and their
// deliveries' statuses, and its alerts' messages.
func (s pruneSeed) labels() (events, alerts []string) {
	s.t.Helper()
	ctx := context.Background()
	err := s.p.pool.QueryRow(ctx, `SELECT coalesce(array_agg(ev.data->>'label' || ':' ||
			coalesce((SELECT string_agg(d.status, ',' ORDER BY d.id) FROM webhook_deliveries d
				WHERE d.company_id = ev.company_id AND d.event_id = ev.id), '') ORDER BY ev.id), '{}')
		FROM webhook_events ev WHERE ev.company_id = $1`, s.company).Scan(&events)
	if err == nil {
		err = s.p.pool.QueryRow(ctx, `SELECT coalesce(array_agg(message ORDER BY id), '{}') FROM operator_alerts
			WHERE company_id = $1`, s.company).Scan(&alerts)
	}
	if err != nil {
		s.t.Fatal(err)
	}
	return events, alerts
}

// TestPruneDeletesOldWebhookEventsAndClosedAlerts: jobs:prune deletes the
// company's webhook events older than the retention with their
// deliveries, keeping those with a delivery pending, retrying or recent
// (a resend), and its alerts older than the retention that no longer
// hold, keeping the open ones (a failed job pruned in the same run
// included); another company's rows all stay; the result counts them.
func TestPruneDeletesOldWebhookEventsAndClosedAlerts(t *testing.T) {
	t.Parallel()
	p := startPlatform(t, nil)
	seeds := map[int64]pruneSeed{}
	for _, company := range []int64{p.companyA, p.companyB} {
		s := pruneSeed{t: t, p: p, company: company}
		seeds[company] = s
		// inactive: the prune's own job.succeeded is not kept nor delivered
		hooks := []int64{
			s.id(`INSERT INTO webhook_endpoints (company_id, url, secret, active) VALUES ($1, 'https://example.com/a', 'whsec_x', false) RETURNING id`),
			s.id(`INSERT INTO webhook_endpoints (company_id, url, secret, active) VALUES ($1, 'https://example.com/b', 'whsec_x', false) RETURNING id`),
		}
		s.event("old delivered", "40 days", hooks, [2]string{"delivered", "40 days"})
		s.event("old failed and delivered", "40 days", hooks, [2]string{"failed", "40 days"}, [2]string{"delivered", "40 days"})
		s.event("old undelivered", "40 days", hooks)
		s.event("old pending", "40 days", hooks, [2]string{"delivered", "40 days"}, [2]string{"pending", "40 days"})
		s.event("old retrying", "40 days", hooks, [2]string{"retrying", "39 days"})
		s.event("old resent", "40 days", hooks, [2]string{"failed", "40 days"}, [2]string{"delivered", "2 days"})
		s.event("recent", "10 days", hooks, [2]string{"delivered", "10 days"})

		s.jobFailed("old, its job still failed", "40 days", s.job("failed", "40 days", 0, ""), 0)
		s.jobFailed("old, its job retried and succeeded", "40 days", s.job("succeeded", "1 day", 1, ""), 0)
		s.jobFailed("old, its job gone", "40 days", -1, 0)
		s.jobFailed("recent, its job gone", "10 days", -2, 0)
		s.job("succeeded", "39 days", 0, "2026-10-01")
		s.runMissing("old, its night run since", "40 days", "2026-10-01")
		s.runMissing("old, its night never run", "40 days", "2026-10-02")
	}

	job := p.submit(t, KindJobsPrune, DatePayload{Date: "2026-11-24"})
	done := p.wait(t, job.ID, storage.JobSucceeded, storage.JobFailed)
	res := decodeResult[map[string]any](t, done)
	want := map[string]float64{"events_deleted": 3, "deliveries_deleted": 3, "alerts_deleted": 3, "deleted": 2}
	for k, n := range want {
		if res[k] != n {
			t.Errorf("%s: %v, want %v (state %s, result %v)", k, res[k], n, done.State, res)
		}
	}
	if _, ok := res["events_before"].(string); !ok {
		t.Errorf("events_before: %v, want the cutoff", res["events_before"])
	}

	kept := []string{"old pending:delivered,pending", "old retrying:retrying", "old resent:failed,delivered", "recent:delivered"}
	openAlerts := []string{"old, its job still failed", "recent, its job gone", "old, its night never run"}
	events, alerts := seeds[p.companyA].labels()
	if !slices.Equal(events, kept) {
		t.Errorf("A's events left %q, want %q", events, kept)
	}
	if !slices.Equal(alerts, openAlerts) {
		t.Errorf("A's alerts left %q, want %q", alerts, openAlerts)
	}
	events, alerts = seeds[p.companyB].labels()
	if len(events) != 7 || len(alerts) != 6 {
		t.Errorf("B's rows were pruned: events %q, alerts %q", events, alerts)
	}
	var orphans int
	if err := p.pool.QueryRow(context.Background(), `SELECT count(*) FROM webhook_deliveries d WHERE NOT EXISTS (
		SELECT 1 FROM webhook_events ev WHERE ev.company_id = d.company_id AND ev.id = d.event_id)`).Scan(&orphans); err != nil || orphans != 0 {
		t.Errorf("%d deliveries without their event (%v)", orphans, err)
	}
}

// TestReadPruneDue: the look before the prunes tells, for each of the
// four, whether the company has a row older than its cutoff (another
// company's rows never count), so that a company with nothing old is
// pruned with one statement.
func TestReadPruneDue(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := newPlatform(t, nil, false)
	now := time.Now()
	cutoff, webhookCutoff := now.Add(-DefaultRetention), now.Add(-DefaultWebhookRetention)
	a, b := pruneSeed{t: t, p: p, company: p.companyA}, pruneSeed{t: t, p: p, company: p.companyB}
	due := func(want storage.PruneDue, when string) {
		t.Helper()
		got, err := storage.ReadPruneDue(ctx, p.pool, a.company, cutoff, webhookCutoff)
		if err != nil || got != want {
			t.Errorf("%s: %+v (%v), want %+v", when, got, err, want)
		}
	}
	// recent rows, and another company's old ones
	a.event("recent", "1 day", nil)
	a.job("succeeded", "1 day", 1, "")
	a.job("running", "40 days", 1, "") // not finished: never pruned
	a.runMissing("recent", "1 day", "2026-01-01")
	a.id(`INSERT INTO idempotency_keys (company_id, key, request_hash) VALUES ($1, 'recent', '\x00') RETURNING 1`)
	b.event("old", "40 days", nil)
	b.job("succeeded", "40 days", 1, "")
	b.runMissing("old", "40 days", "2026-01-02")
	b.id(`INSERT INTO idempotency_keys (company_id, key, request_hash, created_at) VALUES ($1, 'old', '\x00', now() - interval '40 days') RETURNING 1`)
	due(storage.PruneDue{}, "nothing old")
	if d := (storage.PruneDue{}); d.Any() {
		t.Error("nothing due says Any")
	}
	a.runMissing("old", "40 days", "2026-01-03")
	due(storage.PruneDue{Alerts: true}, "an old alert")
	a.job("failed", "40 days", 1, "")
	due(storage.PruneDue{Alerts: true, Jobs: true}, "and an old job")
	a.id(`INSERT INTO idempotency_keys (company_id, key, request_hash, created_at) VALUES ($1, 'old', '\x00', now() - interval '40 days') RETURNING 1`)
	due(storage.PruneDue{Alerts: true, Jobs: true, Keys: true}, "and an old key")
	a.event("old", "40 days", nil)
	due(storage.PruneDue{Alerts: true, Jobs: true, Keys: true, Events: true}, "and an old event")
}

// TestNightlyDateBoundInTheCompanysZone: a nightly kind's date may be
// tomorrow in the company's time zone, not after it, whatever UTC's date:
// Pacific/Kiritimati (UTC+14) is a day ahead of UTC from 10:00 UTC, and
// Pacific/Pago_Pago (UTC−11) a day behind until 11:00 UTC, so at any hour
// one of them has a tomorrow that is not UTC's. The refusal names the
// date it compares with.
func TestNightlyDateBoundInTheCompanysZone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := newPlatform(t, nil, false)
	zones := map[int64]string{p.companyA: "Pacific/Kiritimati", p.companyB: "Pacific/Pago_Pago"}
	for company, zone := range zones {
		if _, err := p.pool.Exec(ctx, `UPDATE companies SET time_zone = $2 WHERE id = $1`, company, zone); err != nil {
			t.Fatal(err)
		}
	}
	kinds := []string{KindContractsTransfer, KindFinanceOverdue, KindContractsReadjust, KindJobsPrune, KindInvoicesGenerate}
	for company, zone := range zones {
		today, err := storage.CompanyToday(ctx, p.pool, company)
		if err != nil {
			t.Fatal(err)
		}
		tomorrow := today.AddDays(1)
		for _, kind := range kinds {
			_, _, err := p.kinds.Submit(ctx, p.pool, company, Submission{Kind: kind,
				Payload: mustJSON(DatePayload{Date: tomorrow.String()}), SubmittedBy: "test"})
			if err != nil {
				t.Errorf("%s, %s for tomorrow %s: %v", zone, kind, tomorrow, err)
			}
			_, _, err = p.kinds.Submit(ctx, p.pool, company, Submission{Kind: kind,
				Payload: mustJSON(DatePayload{Date: tomorrow.AddDays(1).String()}), SubmittedBy: "test"})
			want := "payload.date: must not be after tomorrow, " + tomorrow.String() + ", in the company's time zone"
			var e *finance.Error
			if !errors.As(err, &e) || e.Code != finance.Invalid || len(e.Problems) != 1 ||
				e.Problems[0].Field+": "+e.Problems[0].Message != want {
				t.Errorf("%s, %s for %s: %v, want %q", zone, kind, tomorrow.AddDays(1), err, want)
			}
		}
	}
}
