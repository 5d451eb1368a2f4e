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
	"github.com/propfin/propfin/jobs"
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

	// ReceiptSecret signs the links to the public receipt page (at least
	// receipt.MinSecretLen bytes; New panics on a shorter one). Empty turns
	// the links off: receiptLink answers 503 and every link a 404 page.
	ReceiptSecret []byte
	// PublicURL is the scheme and host receipt links start with
	// (https://pay.example.com); empty takes the request's Host.
	PublicURL string
	// ReceiptLifetime is how long a receipt link works
	// (receipt.DefaultLifetime when zero).
	ReceiptLifetime time.Duration
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

	metrics  *httpMetrics
	ops      *opsRoutes // nil: the operator routes are off
	receipts *receiptLinks
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
	reads := cfg.Store
	if cfg.Replica != nil {
		reads = cfg.Store.WithReplica(cfg.Replica)
	}
	return &Server{
		receipts: receipts,
		store:    cfg.Store,
		reads:    reads,
		redis:    cfg.Redis,
		jobs:     cfg.Jobs,
		auth:     newAuthenticator(cfg.Store.Pool(), cfg.AuthCacheTTL),
		limiter:  newRateLimiter(cfg.Redis, cfg.RateLimit, cfg.Logger),
		failures: newFailureLimiter(cfg.Redis, cfg.AuthFailureLimit, cfg.Logger),
		log:      cfg.Logger,
		routes:   resourceRoutes,
		timeout:  cfg.RequestTimeout,

		metrics: newHTTPMetrics(cfg.Metrics),
		ops:     newOpsRoutes(cfg),
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

// route mounts the CRUD operations of a declared resource on a path.
type route struct {
	path     string
	resource string
}

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

// resourceRoutes maps each CRUD path of the API to its declared resource.
var resourceRoutes = []route{
	{"/buildings/types", storage.BuildingTypes},
	{"/buildings/categories", storage.BuildingCategories},
	{"/buildings/constructors", storage.Constructors},
	// extension resources (docs/api.md)
	{"/buildings", storage.Buildings},
	{"/buildings/:building/owners", storage.BuildingOwners},
	{"/persons", storage.Persons},
	{"/financial/businesses", storage.Businesses},
	{"/financial/accounts", storage.Accounts},
	{"/financial/plans", storage.Plans},
	{"/financial/billings", storage.Billings},
	{"/tags", storage.Tags},
	// the ledger
	{"/financial/transactionItems", storage.TransactionItems},
	{"/transactions", storage.Transactions},
	{"/transactions/:transaction/files", storage.TransactionFiles},
	// spec 001
	{"/invoices", storage.Invoices},
	{"/invoices/:invoice/files", storage.InvoiceFiles},
	{"/invoices/:invoice/messages", storage.InvoiceMessages},
	{"/invoices/:invoice/history", storage.InvoiceHistory},
	{"/financial/contracts", storage.Contracts},
	{"/financial/contracts/:contract/vehicles", storage.ContractVehicles},
	{"/financial/contracts/:contract/occupants", storage.ContractOccupants},
	{"/financial/contracts/:contract/items", storage.ContractItems},
	// extensions (docs/api.md, "Contracts")
	{"/financial/contracts/:contract/files", storage.ContractFiles},
	{"/financial/contracts/:contract/inspects", storage.ContractInspections},
	{"/financial/contracts/:contract/insurances", storage.ContractInsurances},
	// readjustment (docs/api.md, "Readjustment"): read-only
	{"/financial/indices", storage.PriceIndices},
	{"/financial/contracts/:contract/readjustments", storage.ContractReadjustments},
	// collection batches (docs/api.md, "Batches"); their operations are mountBatches'
	{"/financial/ticketBatch", storage.TicketBatches},
	// payment batches (docs/api.md, "Payment batches"), likewise
	{"/financial/paymentBatch", storage.PaymentBatches},
	// the owners' statements (docs/api.md, "Owner statements"): read-only; the link is mountStatements'
	{"/financial/ownerStatements", storage.OwnerStatements},
	// spec 000
	{"/condominiums", storage.Condominiums},
	{"/users/teams", storage.Teams},
	{"/users/teams/:team/users", storage.TeamUsers},
	{"/users/groups", storage.UserGroups},
	// extensions (docs/api.md, "Condominiums", "Users, user teams and user groups")
	{"/condominiums/:condominium/units", storage.CondominiumUnits},
	{"/condominiums/:condominium/related", storage.CondominiumRelated},
	{"/condominiums/details", storage.CondominiumDetails},
	{"/locations/countries", storage.Countries},
	{"/locations/cities", storage.Cities},
	{"/locations/districts", storage.Districts},
	{"/users", storage.Users},
	{"/users/groups/:group/users", storage.UserGroupUsers},
	{"/users/groups/:group/permissions", storage.UserGroupPermissions},
	{"/users/groups/:group/buildings", storage.UserGroupBuildings},
	{"/users/groups/:group/persons", storage.UserGroupPersons},
	// spec 000: calendar events (docs/api.md, "Calendar events")
	{"/events", storage.Events},
	{"/events/:event/files", storage.EventFiles},
	{"/events/:event/feedbacks", storage.EventFeedbacks},
	{"/calendars", storage.Calendars},
	// deals, funnels and steps; the conversion reports are mountDealReports'
	{"/funnels", storage.Funnels},
	{"/funnels/:funnel/steps", storage.FunnelSteps},
	{"/deals", storage.Deals},
}

// deleteRoutes are resources whose records are written through another
// resource and read through its includes, with a DELETE of their own
// (`DELETE /condominiums/groups/{id}`, spec 000).
var deleteRoutes = []route{
	{"/condominiums/groups", storage.CondominiumGroups},
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

// routeTable registers every route with its operation (docs/api.md,
// "OpenAPI").
func (s *Server) routeTable() *router {
	router := newRouter(s.guard)
	router.HandleFunc(http.MethodGet, "/healthz", healthzOp, s.healthz)
	router.HandleFunc(http.MethodHead, "/healthz", healthzOp, s.healthz)
	router.HandleFunc(http.MethodGet, "/readyz", readyzOp, s.readyz)
	reg := s.store.Registry()
	for _, rt := range s.routes {
		res := reg.MustResource(rt.resource)
		h := resourceHandlers{store: s.store, reads: s.reads, res: res, path: rt.path, parentParam: parentParam(rt.path)}
		if (h.parentParam != "") != (res.Parent != nil) {
			panic("api: " + rt.path + ": a sub-resource's path, and only its path, names its parent's parameter")
		}
		doc := resourceDoc{reg: reg, res: res, path: rt.path}
		router.HandleFunc(http.MethodGet, rt.path, doc.list(), h.list)
		router.HandleFunc(http.MethodPost, rt.path, doc.create(), h.create)
		router.HandleFunc(http.MethodGet, rt.path+"/:id", doc.get(), h.get)
		router.HandleFunc(http.MethodPut, rt.path+"/:id", doc.update(), h.update)
		router.HandleFunc(http.MethodDelete, rt.path+"/:id", doc.delete(), h.delete)
	}
	for _, rt := range deleteRoutes {
		h := resourceHandlers{store: s.store, reads: s.reads, res: reg.MustResource(rt.resource), path: rt.path}
		router.HandleFunc(http.MethodDelete, rt.path+"/:id", resourceDoc{reg: reg, res: h.res, path: rt.path}.delete(), h.delete)
	}
	s.mountJobs(router)
	s.mountMoneyOperations(router)
	s.mountBatches(router)
	s.mountStatements(router)
	s.mountDealReports(router)
	s.mountOperatorRoutes(router)
	s.mountReference(router)
	return router
}

// guard puts a route's handler behind the credential of its access.
func (s *Server) guard(a access, h http.Handler) http.Handler {
	switch a {
	case public:
		return h
	case byOperator:
		if s.ops == nil {
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
	writeError(w, r, storage.Errorf(storage.NotFound, "The route %s could not be found.", r.URL.Path))
}

// methodNotAllowed answers a method the path does not have (the router has
// set Allow).
func methodNotAllowed(w http.ResponseWriter, r *http.Request) {
	writeError(w, r, storage.Errorf(storage.NotAllowed, "The %s method is not supported for this route.", r.Method))
}

func (s *Server) panicked(w http.ResponseWriter, r *http.Request, v any) {
	s.log.ErrorContext(r.Context(), "panic serving request", "method", r.Method, "path", r.URL.Path, "panic", v)
	writeError(w, r, storage.Errorf(storage.Internal, "panic"))
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
// it (storage.Ready) and Redis answers, 503 otherwise.
var readyzOp = operation{
	access:  public,
	tag:     "health",
	summary: "Readiness",
	description: "200 when PostgreSQL accepts a new session and answers on it and Redis answers, each within 2 s; " +
		"otherwise 503 naming `postgres` and/or `redis` in `errors`.",
	responses: answers(map[int]*openapi.Response{http.StatusOK: jsonAnswer("Ready.",
		openapi.Object(map[string]*openapi.Schema{"return": {Const: true}, "status": openapi.Integer(),
			"message": openapi.String()}, "return", "status", "message"))}, http.StatusServiceUnavailable),
}

func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
	defer cancel()
	r = r.WithContext(ctx)
	var problems []storage.Problem
	if err := storage.Ready(r.Context(), s.store.Pool()); err != nil {
		s.log.WarnContext(r.Context(), "readyz: postgres", "err", err)
		problems = append(problems, storage.Problem{Field: "postgres", Message: "does not answer"})
	}
	if err := s.redis.Ping(r.Context()).Err(); err != nil {
		s.log.WarnContext(r.Context(), "readyz: redis", "err", err)
		problems = append(problems, storage.Problem{Field: "redis", Message: "does not answer"})
	}
	if len(problems) > 0 {
		writeError(w, r, &storage.Error{Code: storage.Unavailable, Message: "Not ready.", Problems: problems})
		return
	}
	writeRaw(w, http.StatusOK, []byte(`{"return":true,"status":200,"message":"ready"}`))
}
