package api

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/propfin/propfin/api/openapi"
	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/jobs"
	"github.com/propfin/propfin/jobs/webhook"
	"github.com/propfin/propfin/storage"
)

// Config wires a Server.
type Config struct {
	Store *storage.Store
	// Replica, when set, is a pool on a replica of Store's database: the
	// lists and gets of resources and the reports read from it (they may
	// lag the primary by the replication delay); writes, jobs and
	// everything else stay on Store's pool.
	Replica *pgxpool.Pool
	Redis   redis.UniversalClient
	// Jobs is the registry of job kinds the API may submit.
	Jobs *jobs.Registry
	// Schedules are the schedules in force (jobs.ApplyEnv of
	// jobs.DefaultSchedules; nil: the defaults), which the operators'
	// schedules routes show and run.
	Schedules []jobs.Schedule
	// RateLimit is the number of requests per minute one API key may make.
	RateLimit int
	// AuthFailureLimit is the number of requests without a valid key one
	// client address may make per minute (default 60).
	AuthFailureLimit int
	// AuthCacheTTL is how long a resolved API key is remembered in memory;
	// a revoked key stops working at the latest after this long.
	AuthCacheTTL time.Duration
	// RequestTimeout bounds one request (default 30s).
	RequestTimeout time.Duration
	Logger         *slog.Logger

	// AdminToken is the operators' credential for the operator routes (the
	// dashboard and /metrics); empty turns them off: they answer 404.
	AdminToken string
	// Monitoring is the queue dashboard, served at MonitoringPath/ and under
	// it behind AdminToken (build it with MonitoringPath as its root); nil: none.
	Monitoring http.Handler
	// Metrics receives the HTTP request metrics; nil: no metrics.
	Metrics *prometheus.Registry
	// ServeMetrics serves Metrics at /metrics behind AdminToken; leave it
	// off when they are served elsewhere (a listener on a private network).
	ServeMetrics bool

	// ReceiptSecret signs the links to the public receipt page and to the
	// owner statements' pages, each under its own context (at least
	// receipt.MinSecretLen bytes; New panics on a shorter one). Empty turns
	// the links off: receiptLink and the statements' link answer 503 and
	// every link is a 404 page.
	ReceiptSecret []byte
	// PublicURL is the scheme and host receipt links start with
	// (https://pay.example.com); empty takes the request's Host.
	PublicURL string
	// ReceiptLifetime is how long a receipt link works
	// (receipt.DefaultLifetime when zero).
	ReceiptLifetime time.Duration
	// Webhooks is where webhook endpoints may be (checked when one is
	// written; the worker checks again at every dial).
	Webhooks webhook.Policy
}

// Server serves the API.
type Server struct {
	store    *storage.Store
	reads    *storage.Store // lists, gets and reports: store, or store on the replica
	redis    redis.UniversalClient
	jobs     *jobs.Registry
	auth     *authenticator
	limiter  *rateLimiter
	failures *failureLimiter
	log      *slog.Logger
	routes   []route
	timeout  time.Duration

	metrics    *httpMetrics
	console    *operatorConsole // nil: the operator routes are off
	schedules  *jobs.Scheduler  // the schedules in force, for the operator routes (never run here)
	receipts   *receiptLinks
	statements *statementLinks
	webhooks   webhook.Policy
}

// New returns a Server for cfg.
func New(cfg Config) *Server {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.AuthCacheTTL == 0 {
		cfg.AuthCacheTTL = 30 * time.Second
	}
	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = 30 * time.Second
	}
	if cfg.Jobs == nil {
		cfg.Jobs = defaultKinds()
	}
	receipts, err := newReceiptLinks(cfg.ReceiptSecret, cfg.PublicURL, cfg.ReceiptLifetime)
	if err != nil {
		panic("api: " + err.Error())
	}
	statements, err := newStatementLinks(cfg.ReceiptSecret)
	if err != nil {
		panic("api: " + err.Error())
	}
	if cfg.Schedules == nil {
		cfg.Schedules = jobs.DefaultSchedules()
	}
	schedules, err := jobs.NewScheduler(jobs.SchedulerConfig{Kinds: cfg.Jobs, Schedules: cfg.Schedules, Logger: cfg.Logger})
	if err != nil {
		panic("api: schedules: " + err.Error())
	}
	reads := cfg.Store
	if cfg.Replica != nil {
		reads = cfg.Store.WithReplica(cfg.Replica)
	}
	return &Server{
		receipts:   receipts,
		statements: statements,
		webhooks:   cfg.Webhooks,
		store:      cfg.Store,
		reads:      reads,
		redis:      cfg.Redis,
		jobs:       cfg.Jobs,
		auth:       newAuthenticator(cfg.Store.Pool(), cfg.AuthCacheTTL),
		limiter:    newRateLimiter(cfg.Redis, cfg.RateLimit, cfg.Logger),
		failures:   newFailureLimiter(cfg.Redis, cfg.AuthFailureLimit, cfg.Logger),
		log:        cfg.Logger,
		routes:     resourceRoutes,
		timeout:    cfg.RequestTimeout,

		metrics:   newHTTPMetrics(cfg.Metrics),
		console:   newOperatorConsole(cfg),
		schedules: schedules,
	}
}

// defaultKinds is the registry of every kind with default settings: the
// API only checks payloads against it.
func defaultKinds() *jobs.Registry {
	reg, err := jobs.Kinds(jobs.KindsConfig{})
	if err != nil {
		panic("api: invalid job kinds: " + err.Error())
	}
	return reg
}

// readyTimeout bounds the checks of /readyz.
const readyTimeout = 2 * time.Second

// parentParam is the parameter of a sub-resource's path
// (`/financial/contracts/:contract/vehicles`: "contract"), "" when the
// path has none.
func parentParam(path string) string {
	for _, seg := range strings.Split(path, "/") {
		if name, ok := strings.CutPrefix(seg, ":"); ok {
			return name
		}
	}
	return ""
}

// Handler returns the whole API: every route in one place.
func (s *Server) Handler() http.Handler {
	router := s.routeTable()
	router.GlobalOPTIONS = http.HandlerFunc(preflight)
	router.NotFound = http.HandlerFunc(notFound)
	router.MethodNotAllowed = http.HandlerFunc(methodNotAllowed)
	router.PanicHandler = s.panicked
	if err := router.checkTable(); err != nil {
		panic("api: " + err.Error())
	}
	return s.logRequests(responseHeaders(requestLimits(withTimeout(s.timeout, headAsGet(router.build())))))
}

// guard puts a route's handler behind the credential of its access.
func (s *Server) guard(a access, h http.Handler) http.Handler {
	switch a {
	case public:
		return h
	case byOperator:
		if s.console == nil {
			panic("api: an operator route is registered while the operator routes are off (no admin token)")
		}
		return s.operator(h)
	}
	return s.authed(h)
}

// authed puts a handler behind authentication and the rate limit.
func (s *Server) authed(h http.Handler) http.Handler {
	return s.authenticate(s.limiter.middleware(h))
}

func notFound(w http.ResponseWriter, r *http.Request) {
	writeError(w, r, finance.Errorf(finance.NotFound, "The route %s could not be found.", r.URL.Path))
}

// methodNotAllowed answers a method the path does not have (the router has
// set Allow).
func methodNotAllowed(w http.ResponseWriter, r *http.Request) {
	writeError(w, r, finance.Errorf(NotAllowed, "The %s method is not supported for this route.", r.Method))
}

func (s *Server) panicked(w http.ResponseWriter, r *http.Request, v any) {
	s.log.ErrorContext(r.Context(), "panic serving request", "method", r.Method, "path", r.URL.Path, "panic", v)
	writeError(w, r, finance.Errorf(finance.Internal, "panic"))
}

var healthzOp = operation{
	access:      public,
	tag:         "health",
	summary:     "Liveness",
	description: "200 while the process serves; it checks nothing else.",
	responses: answers(map[int]*openapi.Response{http.StatusOK: jsonAnswer("The process serves.",
		openapi.Object(map[string]*openapi.Schema{"return": {Const: true}, "status": openapi.Integer(),
			"message": openapi.String()}, "return", "status", "message"))}),
}

func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	writeRaw(w, http.StatusOK, []byte(`{"return":true,"status":200,"message":"ok"}`))
}

// readyz answers 200 when PostgreSQL accepts a new session and answers on
// it (storage.Ready), its schema is not behind the binary's migrations
// (storage.SchemaStatus) and Redis answers, 503 otherwise.
var readyzOp = operation{
	access:  public,
	tag:     "health",
	summary: "Readiness",
	description: "200 when PostgreSQL accepts a new session and answers on it, its schema has every migration of this " +
		"binary applied, and Redis answers, each within 2 s; otherwise 503 naming `postgres`, `schema` (its message " +
		"names the migrations not applied) and/or `redis` in `errors`. A schema ahead of the binary (migrations it " +
		"does not know: a rollback of the binary) is ready.",
	responses: answers(map[int]*openapi.Response{http.StatusOK: jsonAnswer("Ready.",
		openapi.Object(map[string]*openapi.Schema{"return": {Const: true}, "status": openapi.Integer(),
			"message": openapi.String()}, "return", "status", "message"))}, http.StatusServiceUnavailable),
}

func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
	defer cancel()
	r = r.WithContext(ctx)
	var problems []finance.Problem
	if err := storage.Ready(r.Context(), s.store.Pool()); err != nil {
		s.log.WarnContext(r.Context(), "readyz: postgres", "err", err)
		problems = append(problems, finance.Problem{Field: "postgres", Message: "does not answer"})
	}
	if len(problems) == 0 {
		if schema, err := storage.SchemaStatus(r.Context(), s.store.Pool()); err != nil {
			s.log.WarnContext(r.Context(), "readyz: schema", "err", err)
			problems = append(problems, finance.Problem{Field: "postgres", Message: "does not answer"})
		} else if schema.Behind() {
			s.log.WarnContext(r.Context(), "readyz: the database's schema is behind this binary", "schema", schema.String())
			problems = append(problems, finance.Problem{Field: "schema", Message: schema.String()})
		}
	}
	if err := s.redis.Ping(r.Context()).Err(); err != nil {
		s.log.WarnContext(r.Context(), "readyz: redis", "err", err)
		problems = append(problems, finance.Problem{Field: "redis", Message: "does not answer"})
	}
	if len(problems) > 0 {
		writeError(w, r, &finance.Error{Code: finance.Unavailable, Message: "Not ready.", Problems: problems})
		return
	}
	writeRaw(w, http.StatusOK, []byte(`{"return":true,"status":200,"message":"ready"}`))
}
