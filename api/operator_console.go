package api

import (
	"log/slog"
	"net/http"
	"strings"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/propfin/propfin/api/openapi"
	"github.com/propfin/propfin/finance"
)

// MonitoringPath is where the queue dashboard is mounted: build it with
// this as its root path (asynqmon.Options.RootPath).
const MonitoringPath = "/monitoring"

// operatorRealm is the realm a browser shows when it asks for the admin
// credential.
const operatorRealm = `Basic realm="propfin operators"`

// operatorMethods are the methods the dashboard's routes answer; the
// dashboard itself decides which of them each of its paths allows.
var operatorMethods = []string{
	http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete,
}

// operatorConsole is the console of the people running propfin: the queue
// dashboard and the metrics, behind the admin credential (its routes are
// in routes.go).
type operatorConsole struct {
	tokens      []tokenHash  // the admin tokens' SHA-256, with their labels
	monitoring  http.Handler // the dashboard, or nil
	metrics     http.Handler // /metrics, or nil
	crossOrigin *http.CrossOriginProtection
}

// newOperatorConsole returns the operator console of cfg, or nil when
// there is no admin token: then its routes are off and answer 404 like
// unknown routes.
// A PROPFIN_ADMIN_TOKEN that does not parse panics: the command checks it
// first (ParseAdminTokens).
func newOperatorConsole(cfg Config) *operatorConsole {
	tokens, err := ParseAdminTokens(cfg.AdminToken)
	if err != nil {
		panic("api: PROPFIN_ADMIN_TOKEN: " + err.Error())
	}
	if len(tokens) == 0 {
		return nil
	}
	c := &operatorConsole{
		tokens:      hashTokens(tokens),
		monitoring:  cfg.Monitoring,
		crossOrigin: http.NewCrossOriginProtection(),
	}
	if cfg.ServeMetrics && cfg.Metrics != nil {
		c.metrics = promhttp.HandlerFor(cfg.Metrics, promhttp.HandlerOpts{
			ErrorLog: slog.NewLogLogger(cfg.Logger.Handler(), slog.LevelError),
		})
	}
	return c
}

// toMonitoringSlash is GET /monitoring: a 301 to /monitoring/, its query
// kept.
func toMonitoringSlash(w http.ResponseWriter, r *http.Request) {
	u := *r.URL
	u.Path = MonitoringPath + "/"
	http.Redirect(w, r, u.RequestURI(), http.StatusMovedPermanently)
}

var metricsOp = operation{
	access:  byOperator,
	tag:     "operators",
	summary: "Metrics, in the Prometheus text format",
	description: "The series of docs/operations.md. Not served here when `PROPFIN_METRICS_ADDR` puts them on a " +
		"listener of their own.",
	responses: map[int]*openapi.Response{http.StatusOK: {Description: "The metrics.",
		Content: map[string]*openapi.MediaType{"text/plain": {Schema: openapi.String()}}}},
}

var monitoringRedirectOp = operation{
	access:      byOperator,
	tag:         "operators",
	summary:     "Redirect to the queue dashboard",
	description: "A 301 to `/monitoring/`, once the credential is checked.",
	responses:   map[int]*openapi.Response{http.StatusMovedPermanently: {Description: "To `/monitoring/`."}},
}

var dashboardOp = operation{
	access:  byOperator,
	tag:     "operators",
	summary: "The queue dashboard",
	description: "The asynq dashboard's pages, scripts and its own JSON calls, under `/monitoring/` (`{path}` is " +
		"everything after it, slashes included). It decides what each of its paths answers.",
	pathParams: map[string]*openapi.Parameter{"path": {Description: "Any path under `/monitoring/`.", Schema: openapi.String()}},
	responses:  map[int]*openapi.Response{http.StatusOK: {Description: "What the dashboard serves."}},
}

// operator puts an operator route behind the admin credential:
// `Authorization: Bearer <token>`, or basic auth with the token as password
// (any user name), compared in constant time. A missing or wrong credential
// is a 401 that makes a browser ask for it, and counts against the client
// address's failure limit like a bad API key, so the token cannot be
// guessed; an address over that limit gets 429 whatever it presents. A
// cross-origin write is refused (403), since a browser sends remembered
// basic-auth credentials with any site's form. The handler writes its own
// content types: the API's JSON default is removed before it runs.
func (s *Server) operator(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := s.console.crossOrigin.Check(r); err != nil {
			writeError(w, r, finance.Errorf(Forbidden, "Cross-origin requests are not allowed here."))
			return
		}
		if _, err := authorization(r); err != nil {
			writeError(w, r, err)
			return
		}
		addr := clientAddr(r)
		if wait, blocked := s.failures.blockedFor(addr); blocked {
			writeTooMany(w, r, wait)
			return
		}
		label, ok := s.console.admits(r)
		if !ok && s.isCompanyKey(r) {
			writeError(w, r, finance.Errorf(Forbidden, "This route is for operators: it takes the admin token, "+
				"not a company's API key."))
			return
		}
		if !ok {
			s.refuse(w, r, addr, finance.Errorf(OperatorOnly, "Operator credential required."))
			return
		}
		w.Header().Del("Content-Type")
		next.ServeHTTP(w, r.WithContext(withOperator(r.Context(), label)))
	})
}

// isCompanyKey says whether r's bearer token is a company's valid API key:
// an operator route refuses it with 403 (the wrong kind of credential), not
// with the 401 of a failed authentication, which it does not count.
func (s *Server) isCompanyKey(r *http.Request) bool {
	key, ok := bearerToken(r.Header.Get("Authorization"))
	if !ok || !strings.HasPrefix(key, "pf_") {
		return false
	}
	_, err := s.auth.resolve(r.Context(), key)
	return err == nil
}

// admits says whether r carries an admin token, and its label.
func (o *operatorConsole) admits(r *http.Request) (string, bool) {
	token, ok := adminCredential(r)
	if !ok {
		return "", false
	}
	return match(o.tokens, token)
}

// adminCredential is the token r presents: the basic-auth password, or
// the bearer token.
func adminCredential(r *http.Request) (string, bool) {
	if _, password, ok := r.BasicAuth(); ok {
		return password, password != ""
	}
	return bearerToken(r.Header.Get("Authorization"))
}
