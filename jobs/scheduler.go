package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/robfig/cron/v3"

	"github.com/propfin/propfin/lograte"
	"github.com/propfin/propfin/storage"
)

// DefaultTimeZone is the time zone of a company that names none.
const DefaultTimeZone = "America/Sao_Paulo"

// Schedule runs a kind on a cron schedule, once per company and date,
// at the schedule's times in each company's time zone.
type Schedule struct {
	Name string // e.g. "jobs-prune"; PROPFIN_SCHEDULE_JOBS_PRUNE overrides Spec
	Spec string // standard cron (5 fields) or a descriptor such as @daily
	Kind string // a kind whose payload is a DatePayload, unless Payload says
	// Payload makes the payload of a firing on date (YYYY-MM-DD, the
	// company's); nil: DatePayload{date}. owners:statements takes the month
	// before the date's (a MonthPayload).
	Payload func(date string) any
}

// DefaultSchedules are the schedules of a scheduler process.
func DefaultSchedules() []Schedule {
	return []Schedule{
		{Name: "invoices-generate", Spec: "0 2 * * *", Kind: KindInvoicesGenerate},
		{Name: "jobs-prune", Spec: "30 3 * * *", Kind: KindJobsPrune},
		{Name: "contracts-transfer", Spec: "0 6 * * *", Kind: KindContractsTransfer},
		// before the night's invoice generation, so that new invoices bill the new rent
		{Name: "contracts-readjust", Spec: "0 1 * * *", Kind: KindContractsReadjust},
		{Name: "finance-overdue", Spec: "5 0 * * *", Kind: KindFinanceOverdue},
		// on the 1st, after the night's transfers, for the month before
		{Name: "owners-statements", Spec: "0 7 1 * *", Kind: KindOwnersStatements, Payload: monthBefore},
		// in the morning, when payers read their mail, after the night's runs
		{Name: "invoices-remind", Spec: "0 8 * * *", Kind: KindInvoicesRemind},
	}
}

// EnvName is the variable that overrides the schedule's spec ("off"
// turns it off).
func (s Schedule) EnvName() string {
	return "PROPFIN_SCHEDULE_" + strings.ToUpper(strings.ReplaceAll(s.Name, "-", "_"))
}

// ApplyEnv returns the schedules with their specs overridden from the
// environment (env is os.Environ's form), without those turned off
// ("off", in any case). A PROPFIN_SCHEDULE_ variable that names no
// schedule is an error: a misspelt name would otherwise leave a schedule
// as it was without a word.
func ApplyEnv(schedules []Schedule, env []string) ([]Schedule, error) {
	given := map[string]string{}
	for _, kv := range env {
		if name, value, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(name, "PROPFIN_SCHEDULE_") {
			given[name] = strings.TrimSpace(value)
		}
	}
	out := make([]Schedule, 0, len(schedules))
	for _, s := range schedules {
		if v, ok := given[s.EnvName()]; ok {
			delete(given, s.EnvName())
			if v != "" {
				s.Spec = v
			}
		}
		if !strings.EqualFold(s.Spec, "off") {
			out = append(out, s)
		}
	}
	for name := range given {
		return nil, fmt.Errorf("%s names no schedule (the schedules: %s)", name, scheduleVars(schedules))
	}
	return out, nil
}

func scheduleVars(schedules []Schedule) string {
	names := make([]string, len(schedules))
	for i, s := range schedules {
		names[i] = s.EnvName()
	}
	return strings.Join(names, ", ")
}

// parsedSchedule is a schedule with its cron parsed.
type parsedSchedule struct {
	Schedule
	cron cron.Schedule
	kind *Kind
}

// SchedulerConfig wires a Scheduler.
type SchedulerConfig struct {
	Pool      *pgxpool.Pool
	Kinds     *Registry
	Schedules []Schedule
	// LookBack is how far back a starting scheduler makes up runs it
	// missed (default 24h); a run done already is not done again.
	LookBack time.Duration
	// MissingAfter is how long after its firing a company's run may stay
	// unfinished (none recorded, or not done) before it raises an operator
	// alert (default DefaultMissingAfter; negative: never).
	MissingAfter time.Duration
	// SendAlert delivers the operator alerts not delivered yet (the
	// operator webhook); nil: they wait in operator_alerts, sent_at null.
	SendAlert storage.AlertSender
	Logger    *slog.Logger
}

// DefaultMissingAfter is how long after its time a scheduled run may
// stay unfinished before it raises an alert.
const DefaultMissingAfter = 3 * time.Hour

// alertEvery is how often the scheduler looks for missing runs and
// delivers alerts.
const alertEvery = time.Minute

// Scheduler submits the scheduled jobs. Each firing fans out one job per
// company in one statement, keyed by company, kind and date, so that two
// schedulers at once, or one restarted, never make the same run twice.
type Scheduler struct {
	cfg       SchedulerConfig
	schedules []parsedSchedule
	zones     map[string]*time.Location
	badZones  map[string]bool // warned about once
	log       *slog.Logger
	retryLog  *lograte.Limiter // "will try again", once per retryLogEvery
}

// retryLogEvery is the most often the scheduler logs that it cannot
// fire (it tries each second); the line says how many it left out.
const retryLogEvery = 10 * time.Second

// NewScheduler checks the schedules: each spec parses and names a known
// kind (whose payload must read a DatePayload, or what the schedule's
// Payload makes; it is checked at each firing).
func NewScheduler(cfg SchedulerConfig) (*Scheduler, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.LookBack <= 0 {
		cfg.LookBack = 24 * time.Hour
	}
	if cfg.MissingAfter == 0 {
		cfg.MissingAfter = DefaultMissingAfter
	}
	s := &Scheduler{cfg: cfg, zones: map[string]*time.Location{}, badZones: map[string]bool{}, log: cfg.Logger,
		retryLog: lograte.New(retryLogEvery)}
	for _, sch := range cfg.Schedules {
		parsed, err := parseSpec(sch.Spec)
		if err != nil {
			return nil, fmt.Errorf("schedule %s (%s=%q): %w", sch.Name, sch.EnvName(), sch.Spec, err)
		}
		kind, ok := cfg.Kinds.Kind(sch.Kind)
		if !ok {
			return nil, fmt.Errorf("schedule %s: no kind %q", sch.Name, sch.Kind)
		}
		s.schedules = append(s.schedules, parsedSchedule{Schedule: sch, cron: parsed, kind: kind})
	}
	return s, nil
}

// parseSpec reads a cron spec. A time zone in it (CRON_TZ=, TZ=) is
// refused, since every company runs in its own; so is a spec that never
// fires (30 February).
func parseSpec(spec string) (cron.Schedule, error) {
	if strings.Contains(spec, "TZ=") {
		return nil, fmt.Errorf("a schedule runs in each company's time zone; the spec cannot name one")
	}
	parsed, err := cron.ParseStandard(spec)
	if err != nil {
		return nil, err
	}
	if parsed.Next(time.Now()).IsZero() {
		return nil, fmt.Errorf("the spec never fires")
	}
	return parsed, nil
}

// Next lists the next n times a schedule fires in loc, after from.
func (s *Scheduler) Next(name string, loc *time.Location, from time.Time, n int) []time.Time {
	for _, sch := range s.schedules {
		if sch.Name != name {
			continue
		}
		var out []time.Time
		t := from.In(loc)
		for range n {
			t = sch.cron.Next(t)
			if t.IsZero() {
				break
			}
			out = append(out, t)
		}
		return out
	}
	return nil
}

// Schedules lists the schedules in force.
func (s *Scheduler) Schedules() []Schedule {
	out := make([]Schedule, len(s.schedules))
	for i, sch := range s.schedules {
		out[i] = sch.Schedule
	}
	return out
}

// maxWait is the longest the scheduler sleeps, so that companies in a new
// time zone are seen.
const maxWait = 30 * time.Second

// Run fires the schedules until ctx ends. It starts by making up the runs
// of the look-back window.
func (s *Scheduler) Run(ctx context.Context) error {
	last := time.Now().Add(-s.cfg.LookBack)
	var alerted time.Time
	for ctx.Err() == nil {
		now := time.Now()
		if err := s.Fire(ctx, last, now); err != nil {
			if ok, n := s.retryLog.Allow("database"); ok && ctx.Err() == nil {
				s.log.Warn("scheduler: will try again", "err", err, "suppressed", n, "per", retryLogEvery.String())
			}
			sleep(ctx, time.Second)
			continue // last stays: the runs are made up once the database answers
		}
		last = now
		if now.Sub(alerted) >= alertEvery {
			s.alert(ctx, now)
			alerted = now
		}
		sleep(ctx, s.untilNext(now))
	}
	return nil
}

// alert raises the alerts of the runs missing at their set time, and
// hands the alerts not delivered to the sender, when there is one.
func (s *Scheduler) alert(ctx context.Context, now time.Time) {
	if s.cfg.MissingAfter > 0 {
		n, err := s.RaiseMissing(ctx, s.cfg.Pool, now, s.cfg.MissingAfter)
		if err != nil {
			s.log.Warn("scheduler: missing runs not checked", "err", err)
		} else if n > 0 {
			s.log.Warn("scheduler: runs missing at their set time; operator alerts raised", "alerts", n)
		}
	}
	if s.cfg.SendAlert != nil {
		sent, err := storage.SendAlerts(ctx, s.cfg.Pool, s.cfg.SendAlert, 100)
		if sent > 0 {
			s.log.Info("scheduler: operator alerts delivered", "alerts", sent)
		}
		if err != nil {
			s.log.Warn("scheduler: alerts not delivered; they are tried again", "err", err)
		}
	}
}

// Fire submits the runs whose times fall in (from, to], in every time
// zone companies are in: one job per company, kind and date.
func (s *Scheduler) Fire(ctx context.Context, from, to time.Time) error {
	zones, err := storage.CompanyTimeZones(ctx, s.cfg.Pool)
	if err != nil {
		return err
	}
	for _, zone := range zones {
		loc, err := s.location(zone)
		if err != nil {
			if !s.badZones[zone] {
				s.badZones[zone] = true
				s.log.Warn("scheduler: company time zone unknown; its companies run on the default zone's times", "zone", zone, "err", err)
			}
			loc, _ = s.location(DefaultTimeZone)
		}
		for _, sch := range s.schedules {
			for _, date := range firingDates(sch.cron, loc, from, to) {
				if err := s.submit(ctx, sch, zone, date); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// firingDates lists the distinct local dates on which c fires in (from,
// to]. The schedule is read on loc's wall clock, so that a firing time in
// a daylight-saving gap (02:30 on the night clocks jump from 02:00 to
// 03:00) still fires, just after the gap; a time the clocks pass twice is
// one date, and dates are what runs are keyed by.
func firingDates(c cron.Schedule, loc *time.Location, from, to time.Time) []string {
	var dates []string
	seen := map[string]bool{}
	for t := c.Next(wallClock(from, loc)); !t.IsZero(); t = c.Next(t) {
		at := time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), 0, loc)
		if at.After(to) {
			break
		}
		if d := t.Format(time.DateOnly); !seen[d] {
			seen[d] = true
			dates = append(dates, d)
		}
	}
	return dates
}

// wallClock is t as loc's clock shows it, written as a UTC time: a clock
// with no gaps for cron to step through.
func wallClock(t time.Time, loc *time.Location) time.Time {
	l := t.In(loc)
	return time.Date(l.Year(), l.Month(), l.Day(), l.Hour(), l.Minute(), l.Second(), 0, time.UTC)
}

func (s *Scheduler) submit(ctx context.Context, sch parsedSchedule, zone, date string) error {
	var payload any = DatePayload{Date: date}
	if sch.Payload != nil {
		payload = sch.Payload(date)
	}
	prepared, key, err := sch.kind.prepare(mustJSON(payload))
	if err != nil {
		return fmt.Errorf("schedule %s: %w", sch.Name, err)
	}
	sub, err := storage.SubmitForZone(ctx, s.cfg.Pool, zone, storage.NewJob{
		Kind: sch.kind.Name, Queue: sch.kind.Queue, Payload: prepared, UniqueKey: key,
		SubmittedBy: "scheduler:" + sch.Name,
	}, ScheduledListed)
	if err != nil {
		return fmt.Errorf("schedule %s: %w", sch.Name, err)
	}
	if sub.Count > 0 {
		companies, ids := make([]int64, len(sub.First)), make([]int64, len(sub.First))
		for i, ref := range sub.First {
			companies[i], ids[i] = ref.CompanyID, ref.ID
		}
		s.log.Info("scheduled", "schedule", sch.Name, "kind", sch.kind.Name, "zone", zone, "date", date,
			"jobs", sub.Count, "companies", companies, "job_ids", ids, "more", sub.Count-int64(len(sub.First)))
	}
	return nil
}

// ScheduledListed is how many of the jobs a firing submitted its
// "scheduled" log line names (the first by company id, each company with
// its job), so that a night of thousands of companies writes a line of a
// bounded size; "jobs" gives how many in all and "more" those not named.
const ScheduledListed = 20

// untilNext is the wait until the next firing in any zone in use, at
// most maxWait.
func (s *Scheduler) untilNext(now time.Time) time.Duration {
	wait := maxWait
	for _, loc := range s.zones {
		for _, sch := range s.schedules {
			if next := sch.cron.Next(now.In(loc)); !next.IsZero() {
				wait = min(wait, next.Sub(now))
			}
		}
	}
	return max(wait, 10*time.Millisecond)
}

func (s *Scheduler) location(zone string) (*time.Location, error) {
	if loc, ok := s.zones[zone]; ok {
		return loc, nil
	}
	loc, err := time.LoadLocation(zone)
	if err != nil {
		return nil, err
	}
	s.zones[zone] = loc
	return loc, nil
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
