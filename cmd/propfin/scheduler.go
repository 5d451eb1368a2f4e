package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/jobs"
	"github.com/propfin/propfin/storage"
)

// runScheduler is `propfin scheduler`: it fires the cron schedules, one
// job per company and date; `--list` prints the schedules and their next
// runs and exits.
func runScheduler(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	fs := flag.NewFlagSet("scheduler", flag.ContinueOnError)
	fs.SetOutput(stderr)
	list := fs.Bool("list", false, "print each schedule and its next runs, then exit")
	zone := fs.String("zone", jobs.DefaultTimeZone, "time zone of the times --list prints")
	count := fs.Int("next", 3, "how many next runs --list prints")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *count < 1 {
		return fmt.Errorf("--next %d: want 1 or more", *count)
	}
	kinds, err := cfg.kinds(nil)
	if err != nil {
		return err
	}
	if *list {
		sched, err := newScheduler(nil, kinds, cfg, slog.New(slog.DiscardHandler))
		if err != nil {
			return err
		}
		return listSchedules(stdout, sched, *zone, *count)
	}
	if cfg.DatabaseURL == "" {
		return errors.New("DATABASE_URL must be set (or use `propfin dev`)")
	}
	log := newLogger(cfg.LogFormat, stderr)
	defer logStopped(log, "scheduler")
	pool, err := storage.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return fmt.Errorf("DATABASE_URL: %w", err)
	}
	defer pool.Close()
	sched, err := newScheduler(pool, kinds, cfg, log)
	if err != nil {
		return err
	}
	waitSchema(ctx, pool, log)
	if ctx.Err() != nil {
		return nil
	}
	log.Info("scheduler started", "schedules", len(sched.Schedules()))
	return sched.Run(ctx)
}

func newScheduler(pool *pgxpool.Pool, kinds *jobs.Registry, cfg config, log *slog.Logger) (*jobs.Scheduler, error) {
	missingAfter := cfg.RunMissingAfter
	if missingAfter == 0 {
		missingAfter = -1 // PROPFIN_RUN_MISSING_AFTER=0s: no alert
	}
	return jobs.NewScheduler(jobs.SchedulerConfig{Pool: pool, Kinds: kinds, MissingAfter: missingAfter,
		Schedules: cfg.Schedules, SendAlert: cfg.alertSender(), Logger: log.With("component", "scheduler")})
}

// listSchedules prints one block per schedule: its name, spec, kind, the
// variable that overrides it, and its next runs in zone.
func listSchedules(w io.Writer, sched *jobs.Scheduler, zone string, n int) error {
	loc, err := time.LoadLocation(zone)
	if err != nil {
		return fmt.Errorf("--zone %q: %w", zone, err)
	}
	now := time.Now()
	for _, s := range sched.Schedules() {
		fmt.Fprintf(w, "%s\t%s\t%s\t(%s)\n", s.Name, s.Spec, s.Kind, s.EnvName())
		for _, t := range sched.Next(s.Name, loc, now, n) {
			fmt.Fprintf(w, "\tnext\t%s\n", t.Format("2006-01-02 15:04:05 MST"))
		}
	}
	return nil
}
