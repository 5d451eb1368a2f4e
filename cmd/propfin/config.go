package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/propfin/propfin/api"
	"github.com/propfin/propfin/api/receipt"
	"github.com/propfin/propfin/jobs"
	"github.com/propfin/propfin/jobs/webhook"
	"github.com/propfin/propfin/storage"
)

// config is what the server processes read from the environment.
type config struct {
	DatabaseURL string        // DATABASE_URL
	ReplicaURL  string        // DATABASE_REPLICA_URL: lists and gets read there when set
	RedisURL    string        // REDIS_URL: one server, a cluster or a Sentinel set (jobs/redisurl)
	Addr        string        // PROPFIN_ADDR, else :$PORT, else :8080
	RateLimit   int           // PROPFIN_RATE_LIMIT, requests per minute per API key
	AuthFails   int           // PROPFIN_AUTH_FAILURE_LIMIT, failed authentications per minute per address
	LogFormat   string        // PROPFIN_LOG_FORMAT: json or text
	AuthTTL     time.Duration // PROPFIN_AUTH_CACHE_TTL
	Timeout     time.Duration // PROPFIN_REQUEST_TIMEOUT
	AdminToken  string        // PROPFIN_ADMIN_TOKEN: the operators' credential; unset, no dashboard nor /metrics on the API
	MetricsAddr string        // PROPFIN_METRICS_ADDR: serve /metrics there, without credential, instead of on the API

	ReceiptSecret   string        // PROPFIN_RECEIPT_SECRET: signs the receipt and statement links; unset, none
	PublicURL       string        // PROPFIN_PUBLIC_URL: where clients reach the API (receipt links start with it)
	ReceiptLifetime time.Duration // PROPFIN_RECEIPT_LINK_LIFETIME: how long a receipt link works

	Concurrency      int           // PROPFIN_WORKER_CONCURRENCY: jobs a worker runs at once
	WorkerShutdown   time.Duration // PROPFIN_WORKER_SHUTDOWN_TIMEOUT: how long running jobs may finish after SIGTERM
	JobRetention     time.Duration // PROPFIN_JOB_RETENTION: finished jobs older than this are deleted
	WebhookRetention time.Duration // PROPFIN_WEBHOOK_RETENTION: webhook events older than this are deleted, with their deliveries
	ChunkPause       time.Duration // PROPFIN_JOB_CHUNK_PAUSE: pause between the chunks of a bulk job
	JobQuietAfter    time.Duration // PROPFIN_JOB_QUIET_AFTER: when the relay checks a quiet job's task
	CompanyChunks    int           // PROPFIN_JOB_COMPANY_CHUNKS: heavy chunks one company may have in flight (0: no limit)

	Schedules             []jobs.Schedule // the schedules, with PROPFIN_SCHEDULE_<NAME> applied
	RunMissingAfter       time.Duration   // PROPFIN_RUN_MISSING_AFTER: a scheduled run not finished this long after its time raises an alert (0s: never)
	OperatorWebhookURL    string          // PROPFIN_OPERATOR_WEBHOOK_URL: where the scheduler posts each operator alert; unset, none
	OperatorWebhookSecret string          // PROPFIN_OPERATOR_WEBHOOK_SECRET: the whsec_ secret its posts are signed with

	SMTPURL         string // PROPFIN_SMTP_URL: the mail server the reminders go through; unset, none (dev: its own)
	SMTPFrom        string // PROPFIN_SMTP_FROM: the reminders' sender address
	SMTPConnections int    // PROPFIN_SMTP_CONNECTIONS: connections one reminders run sends over at once

	WebhookAllowLoopback bool // PROPFIN_WEBHOOK_ALLOW_LOOPBACK: endpoints on loopback addresses (and plain http to them)
	WebhookAllowPrivate  bool // PROPFIN_WEBHOOK_ALLOW_PRIVATE: endpoints on private and link-local addresses
	WebhookConcurrency   int  // PROPFIN_WEBHOOK_CONCURRENCY: deliveries a worker makes at once
	EndpointConcurrency  int  // PROPFIN_WEBHOOK_ENDPOINT_CONCURRENCY: deliveries a worker makes at once to one endpoint
}

// webhooks is the configuration of the deliveries and of the endpoints'
// addresses.
func (cfg config) webhooks() jobs.WebhooksConfig {
	return jobs.WebhooksConfig{Policy: cfg.webhookPolicy(), EndpointConcurrency: cfg.EndpointConcurrency}
}

// webhookPolicy is where endpoints may be.
func (cfg config) webhookPolicy() webhook.Policy {
	return webhook.Policy{AllowLoopback: cfg.WebhookAllowLoopback, AllowPrivate: cfg.WebhookAllowPrivate}
}

// kinds is the registry of every kind, with the configuration's settings
// and what invoices:remind sends with (nil: no mail server).
func (cfg config) kinds(reminders *jobs.RemindersConfig) (*jobs.Registry, error) {
	return jobs.Kinds(jobs.KindsConfig{Retention: cfg.JobRetention, WebhookRetention: cfg.WebhookRetention, Webhooks: cfg.webhooks(), Reminders: reminders})
}

// minAdminToken is the shortest admin token accepted: it guards the queues.
const minAdminToken = 16

func loadConfig() (config, error) {
	cfg := config{
		DatabaseURL: os.Getenv("DATABASE_URL"),
		ReplicaURL:  os.Getenv("DATABASE_REPLICA_URL"),
		RedisURL:    os.Getenv("REDIS_URL"),
		Addr:        os.Getenv("PROPFIN_ADDR"),
		RateLimit:   600,
		AuthFails:   60,
		LogFormat:   envOr("PROPFIN_LOG_FORMAT", "json"),
		AuthTTL:     30 * time.Second,
		Timeout:     30 * time.Second,
		AdminToken:  os.Getenv("PROPFIN_ADMIN_TOKEN"),
		MetricsAddr: os.Getenv("PROPFIN_METRICS_ADDR"),

		ReceiptSecret:         os.Getenv("PROPFIN_RECEIPT_SECRET"),
		PublicURL:             os.Getenv("PROPFIN_PUBLIC_URL"),
		ReceiptLifetime:       receipt.DefaultLifetime,
		RunMissingAfter:       jobs.DefaultMissingAfter,
		OperatorWebhookURL:    os.Getenv("PROPFIN_OPERATOR_WEBHOOK_URL"),
		OperatorWebhookSecret: os.Getenv("PROPFIN_OPERATOR_WEBHOOK_SECRET"),
		CompanyChunks:         jobs.DefaultCompanyChunks,

		Concurrency:      runtime.NumCPU(),
		WorkerShutdown:   jobs.DefaultShutdownTimeout,
		JobRetention:     jobs.DefaultRetention,
		WebhookRetention: jobs.DefaultWebhookRetention,
		JobQuietAfter:    2 * time.Minute,

		SMTPURL:         os.Getenv("PROPFIN_SMTP_URL"),
		SMTPFrom:        os.Getenv("PROPFIN_SMTP_FROM"),
		SMTPConnections: jobs.DefaultMailConnections,

		WebhookConcurrency:  jobs.DedicatedQueues[jobs.QueueWebhooks],
		EndpointConcurrency: jobs.DefaultEndpointConcurrency,
	}
	if cfg.Addr == "" {
		cfg.Addr = ":" + envOr("PORT", "8080")
	}
	for _, l := range []struct {
		name string
		dst  *int
		what string
	}{
		{"PROPFIN_RATE_LIMIT", &cfg.RateLimit, "requests per minute"},
		{"PROPFIN_AUTH_FAILURE_LIMIT", &cfg.AuthFails, "requests per minute"},
		{"PROPFIN_WORKER_CONCURRENCY", &cfg.Concurrency, "jobs at once"},
		{"PROPFIN_SMTP_CONNECTIONS", &cfg.SMTPConnections, "connections"},
		{"PROPFIN_WEBHOOK_CONCURRENCY", &cfg.WebhookConcurrency, "deliveries at once"},
		{"PROPFIN_WEBHOOK_ENDPOINT_CONCURRENCY", &cfg.EndpointConcurrency, "deliveries at once"},
	} {
		if v := os.Getenv(l.name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return cfg, fmt.Errorf("%s=%q: want a whole number of %s, 1 or more", l.name, v, l.what)
			}
			*l.dst = n
		}
	}
	if v := os.Getenv("PROPFIN_JOB_COMPANY_CHUNKS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return cfg, fmt.Errorf("PROPFIN_JOB_COMPANY_CHUNKS=%q: want a whole number of chunks, 0 (no limit) or more", v)
		}
		cfg.CompanyChunks = n
	}
	for _, d := range []struct {
		name string
		dst  *time.Duration
		zero bool // 0 is allowed
	}{
		{"PROPFIN_AUTH_CACHE_TTL", &cfg.AuthTTL, false}, {"PROPFIN_REQUEST_TIMEOUT", &cfg.Timeout, false},
		{"PROPFIN_WORKER_SHUTDOWN_TIMEOUT", &cfg.WorkerShutdown, false}, {"PROPFIN_JOB_RETENTION", &cfg.JobRetention, false},
		{"PROPFIN_WEBHOOK_RETENTION", &cfg.WebhookRetention, false},
		{"PROPFIN_JOB_CHUNK_PAUSE", &cfg.ChunkPause, true}, {"PROPFIN_JOB_QUIET_AFTER", &cfg.JobQuietAfter, false},
		{"PROPFIN_RECEIPT_LINK_LIFETIME", &cfg.ReceiptLifetime, false},
		{"PROPFIN_RUN_MISSING_AFTER", &cfg.RunMissingAfter, true},
	} {
		if v := os.Getenv(d.name); v != "" {
			parsed, err := time.ParseDuration(v)
			if err != nil || parsed < 0 || (parsed == 0 && !d.zero) {
				return cfg, fmt.Errorf("%s=%q: want a positive duration such as 30s", d.name, v)
			}
			*d.dst = parsed
		}
	}
	if cfg.JobRetention < jobs.MinRetention {
		return cfg, fmt.Errorf("PROPFIN_JOB_RETENTION=%s: want %s or more: the scheduler reads the runs of the last "+
			"two nights, and would make again those deleted sooner", cfg.JobRetention, jobs.MinRetention)
	}
	for _, b := range []struct {
		name string
		dst  *bool
	}{{"PROPFIN_WEBHOOK_ALLOW_LOOPBACK", &cfg.WebhookAllowLoopback}, {"PROPFIN_WEBHOOK_ALLOW_PRIVATE", &cfg.WebhookAllowPrivate}} {
		if v := os.Getenv(b.name); v != "" {
			on, err := strconv.ParseBool(v)
			if err != nil {
				return cfg, fmt.Errorf("%s=%q: want true or false", b.name, v)
			}
			*b.dst = on
		}
	}
	if err := checkAdminTokens(cfg.AdminToken); err != nil {
		return cfg, err
	}
	if err := checkOperatorWebhook(cfg.OperatorWebhookURL, cfg.OperatorWebhookSecret); err != nil {
		return cfg, err
	}
	schedules, err := jobs.ApplyEnv(jobs.DefaultSchedules(), os.Environ())
	if err != nil {
		return cfg, err
	}
	cfg.Schedules = schedules
	if err := checkReceiptConfig(cfg); err != nil {
		return cfg, err
	}
	if err := checkMailConfig(cfg); err != nil {
		return cfg, err
	}
	if cfg.LogFormat != "json" && cfg.LogFormat != "text" {
		return cfg, fmt.Errorf("PROPFIN_LOG_FORMAT=%q: want json or text", cfg.LogFormat)
	}
	return cfg, nil
}

// parseFlags parses a subcommand's flags: -h prints the usage and
// succeeds, a bad flag has already been reported by the flag package.
func parseFlags(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return errHelpShown
	case err != nil:
		return errReported
	}
	return nil
}

func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}

// newLogger is the process's logger; the Redis client's own lines (a
// failed dial) go through it too, so that a JSON log stays JSON.
func newLogger(format string, w io.Writer) *slog.Logger {
	var log *slog.Logger
	if format == "text" {
		log = slog.New(slog.NewTextHandler(w, nil))
	} else {
		log = slog.New(slog.NewJSONHandler(w, nil))
	}
	redis.SetLogger(redisLog{log.With("library", "go-redis")})
	return log
}

// logStopped is a long-running process's last line: it has stopped (on
// SIGTERM, or after the error it logged).
func logStopped(log *slog.Logger, process string) {
	log.Info("stopped", "process", process)
}

// redisLog is go-redis's logger on slog.
type redisLog struct{ log *slog.Logger }

func (l redisLog) Printf(ctx context.Context, format string, v ...any) {
	l.log.WarnContext(ctx, fmt.Sprintf(format, v...))
}

// checkReceiptConfig refuses a receipt secret too short to sign with and
// a public URL that is not an absolute http(s) URL without a path.
func checkReceiptConfig(cfg config) error {
	if cfg.ReceiptSecret != "" && len(cfg.ReceiptSecret) < receipt.MinSecretLen {
		return fmt.Errorf("PROPFIN_RECEIPT_SECRET: want at least %d characters (openssl rand -hex 32 makes one)", receipt.MinSecretLen)
	}
	if cfg.PublicURL == "" {
		return nil
	}
	u, err := url.Parse(cfg.PublicURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || strings.Trim(u.Path, "/") != "" ||
		u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("PROPFIN_PUBLIC_URL=%q: want the scheme and host clients reach the API at, such as https://api.example.com", cfg.PublicURL)
	}
	return nil
}

// checkAdminTokens checks PROPFIN_ADMIN_TOKEN: one token, or entries
// label:token separated by commas (api.ParseAdminTokens), each token at
// least minAdminToken characters.
func checkAdminTokens(value string) error {
	tokens, err := api.ParseAdminTokens(value)
	if err != nil {
		return fmt.Errorf("PROPFIN_ADMIN_TOKEN: %w", err)
	}
	for _, t := range tokens {
		if len(t.Token) < minAdminToken {
			return fmt.Errorf("PROPFIN_ADMIN_TOKEN: the token labelled %q: want at least %d characters (openssl rand -hex 32 makes one)",
				t.Label, minAdminToken)
		}
	}
	return nil
}

// checkOperatorWebhook refuses an operator webhook without a usable
// secret, or at an address that is not http(s).
func checkOperatorWebhook(addr, secret string) error {
	if addr == "" {
		return nil
	}
	if !strings.HasPrefix(addr, "https://") && !strings.HasPrefix(addr, "http://") {
		return fmt.Errorf("PROPFIN_OPERATOR_WEBHOOK_URL=%q: want an http(s) URL", addr)
	}
	if msg := webhook.CheckSecret(secret); msg != "" {
		return fmt.Errorf("PROPFIN_OPERATOR_WEBHOOK_SECRET %s (the operator webhook is signed with it)", msg)
	}
	return nil
}

// alertSender is the operator webhook's sender, nil when none is set. The
// operator names the address, so it may be on the operator's own network
// (loopback and private addresses are allowed; redirects still are not).
func (cfg config) alertSender() storage.AlertSender {
	if cfg.OperatorWebhookURL == "" {
		return nil
	}
	client := webhook.NewClient(webhook.Policy{AllowLoopback: true, AllowPrivate: true}, 10*time.Second)
	return jobs.OperatorWebhook(client, cfg.OperatorWebhookURL, cfg.OperatorWebhookSecret)
}
