package api

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/julienschmidt/httprouter"
)

// specRoutes is every path shape of both spec documents, with the
// extension paths of the areas whose endpoints are not shown (buildings,
// users, deals), and the routes of our own (jobs, health, operators).
var specRoutes = []struct{ method, pattern string }{
	// spec 000
	{"GET", "/buildings/types"}, {"POST", "/buildings/types"},
	{"GET", "/buildings/types/:id"}, {"PUT", "/buildings/types/:id"}, {"DELETE", "/buildings/types/:id"},
	{"GET", "/buildings/categories"}, {"POST", "/buildings/categories"},
	{"GET", "/buildings/categories/:id"}, {"PUT", "/buildings/categories/:id"}, {"DELETE", "/buildings/categories/:id"},
	{"GET", "/condominiums"}, {"POST", "/condominiums"},
	{"GET", "/condominiums/:id"}, {"PUT", "/condominiums/:id"}, {"DELETE", "/condominiums/:id"},
	{"DELETE", "/condominiums/groups/:id"},
	{"GET", "/buildings/constructors"}, {"POST", "/buildings/constructors"},
	{"GET", "/buildings/constructors/:id"}, {"PUT", "/buildings/constructors/:id"}, {"DELETE", "/buildings/constructors/:id"},
	{"GET", "/users/teams"}, {"POST", "/users/teams"},
	{"GET", "/users/teams/:id"}, {"PUT", "/users/teams/:id"}, {"DELETE", "/users/teams/:id"},
	{"GET", "/users/groups"}, {"POST", "/users/groups"},
	{"GET", "/users/groups/:id"}, {"PUT", "/users/groups/:id"}, {"DELETE", "/users/groups/:id"},
	{"GET", "/events"}, {"POST", "/events"},
	{"GET", "/events/:id"}, {"PUT", "/events/:id"}, {"DELETE", "/events/:id"},
	{"GET", "/deals/conversion/funnel"}, {"GET", "/deals/conversion/step-deals"},
	// spec 001
	{"GET", "/invoices"}, {"POST", "/invoices"},
	{"GET", "/invoices/:id"}, {"PUT", "/invoices/:id"}, {"DELETE", "/invoices/:id"},
	{"GET", "/invoices/:invoice_id/receiptLink"}, {"POST", "/invoices/:invoice_id/pixCode"},
	{"GET", "/transactions"}, {"POST", "/transactions"},
	{"GET", "/transactions/:id"}, {"PUT", "/transactions/:id"}, {"DELETE", "/transactions/:id"},
	{"GET", "/transactions/:id/receiptLink"}, {"POST", "/transactions/:id/void"},
	{"GET", "/financial/transactionItems"}, {"POST", "/financial/transactionItems"},
	{"GET", "/financial/transactionItems/:id"}, {"PUT", "/financial/transactionItems/:id"}, {"DELETE", "/financial/transactionItems/:id"},
	{"GET", "/financial/contracts"}, {"POST", "/financial/contracts"},
	{"GET", "/financial/contracts/:id"}, {"PUT", "/financial/contracts/:id"}, {"DELETE", "/financial/contracts/:id"},
	{"POST", "/financial/contracts/:id/invoicesCreate"},
	{"GET", "/financial/contracts/:contract/vehicles"}, {"POST", "/financial/contracts/:contract/vehicles"},
	{"GET", "/financial/contracts/:contract/vehicles/:vehicle"}, {"PUT", "/financial/contracts/:contract/vehicles/:vehicle"},
	{"DELETE", "/financial/contracts/:contract/vehicles/:vehicle"},
	{"GET", "/financial/contracts/:contract/occupants"}, {"POST", "/financial/contracts/:contract/occupants"},
	{"GET", "/financial/contracts/:contract/occupants/:id"}, {"PUT", "/financial/contracts/:contract/occupants/:id"},
	{"DELETE", "/financial/contracts/:contract/occupants/:id"},
	{"GET", "/financial/contracts/:contract/items"}, {"POST", "/financial/contracts/:contract/items"},
	{"GET", "/financial/contracts/:contract/items/:id"}, {"PUT", "/financial/contracts/:contract/items/:id"},
	{"DELETE", "/financial/contracts/:contract/items/:id"},
	{"POST", "/financial/ticketBatch"}, {"POST", "/financial/ticketBatch/:id/addInvoices"},
	{"POST", "/financial/ticketBatch/:id/removeInvoices"}, {"POST", "/financial/ticketBatch/:id/revertInvoices"},
	{"GET", "/financial/ticketBatch/:id/downloadBatchFile"}, {"GET", "/financial/ticketBatch/:id/invoices"},
	{"POST", "/financial/paymentBatch"}, {"POST", "/financial/paymentBatch/:id/addTransactions"},
	{"POST", "/financial/paymentBatch/:id/removeTransactions"}, {"POST", "/financial/paymentBatch/:id/revertTransactions"},
	{"GET", "/financial/paymentBatch/:id/downloadBatchFile"}, {"GET", "/financial/paymentBatch/:id/transactions"},
	// extension paths beside the spec's static names
	{"GET", "/financial/contracts/:contract/files"}, {"POST", "/financial/contracts/:contract/files"},
	{"GET", "/financial/contracts/:contract/files/:id"}, {"PUT", "/financial/contracts/:contract/files/:id"},
	{"DELETE", "/financial/contracts/:contract/files/:id"},
	{"GET", "/financial/contracts/:contract/inspects"}, {"POST", "/financial/contracts/:contract/inspects"},
	{"GET", "/financial/contracts/:contract/inspects/:id"}, {"PUT", "/financial/contracts/:contract/inspects/:id"},
	{"DELETE", "/financial/contracts/:contract/inspects/:id"},
	{"GET", "/financial/contracts/:contract/insurances"}, {"POST", "/financial/contracts/:contract/insurances"},
	{"GET", "/financial/contracts/:contract/insurances/:id"}, {"PUT", "/financial/contracts/:contract/insurances/:id"},
	{"DELETE", "/financial/contracts/:contract/insurances/:id"},
	{"GET", "/buildings"}, {"POST", "/buildings"},
	{"GET", "/buildings/:id"}, {"PUT", "/buildings/:id"}, {"DELETE", "/buildings/:id"},
	{"GET", "/buildings/:building/owners"}, {"POST", "/buildings/:building/owners"},
	{"GET", "/buildings/:building/owners/:id"}, {"PUT", "/buildings/:building/owners/:id"},
	{"DELETE", "/buildings/:building/owners/:id"},
	{"GET", "/users"}, {"POST", "/users"}, {"GET", "/users/:id"}, {"PUT", "/users/:id"}, {"DELETE", "/users/:id"},
	{"GET", "/users/teams/:team/users"}, {"POST", "/users/teams/:team/users"},
	{"GET", "/users/teams/:team/users/:id"}, {"PUT", "/users/teams/:team/users/:id"}, {"DELETE", "/users/teams/:team/users/:id"},
	{"GET", "/users/groups/:group/users"}, {"POST", "/users/groups/:group/users"},
	{"GET", "/users/groups/:group/users/:id"}, {"PUT", "/users/groups/:group/users/:id"}, {"DELETE", "/users/groups/:group/users/:id"},
	{"GET", "/users/groups/:group/permissions"}, {"POST", "/users/groups/:group/permissions"},
	{"GET", "/users/groups/:group/permissions/:id"}, {"PUT", "/users/groups/:group/permissions/:id"},
	{"DELETE", "/users/groups/:group/permissions/:id"},
	{"GET", "/users/groups/:group/buildings"}, {"POST", "/users/groups/:group/buildings"},
	{"GET", "/users/groups/:group/buildings/:id"}, {"PUT", "/users/groups/:group/buildings/:id"},
	{"DELETE", "/users/groups/:group/buildings/:id"},
	{"GET", "/users/groups/:group/persons"}, {"POST", "/users/groups/:group/persons"},
	{"GET", "/users/groups/:group/persons/:id"}, {"PUT", "/users/groups/:group/persons/:id"},
	{"DELETE", "/users/groups/:group/persons/:id"},
	{"GET", "/condominiums/:condominium/units"}, {"POST", "/condominiums/:condominium/units"},
	{"GET", "/condominiums/:condominium/units/:id"}, {"PUT", "/condominiums/:condominium/units/:id"},
	{"DELETE", "/condominiums/:condominium/units/:id"},
	{"GET", "/condominiums/:condominium/related"}, {"POST", "/condominiums/:condominium/related"},
	{"GET", "/condominiums/:condominium/related/:id"}, {"PUT", "/condominiums/:condominium/related/:id"},
	{"DELETE", "/condominiums/:condominium/related/:id"},
	{"GET", "/condominiums/details"}, {"POST", "/condominiums/details"},
	{"GET", "/condominiums/details/:id"}, {"PUT", "/condominiums/details/:id"}, {"DELETE", "/condominiums/details/:id"},
	{"GET", "/locations/countries"}, {"POST", "/locations/countries"},
	{"GET", "/locations/countries/:id"}, {"PUT", "/locations/countries/:id"}, {"DELETE", "/locations/countries/:id"},
	{"GET", "/locations/cities"}, {"POST", "/locations/cities"},
	{"GET", "/locations/cities/:id"}, {"PUT", "/locations/cities/:id"}, {"DELETE", "/locations/cities/:id"},
	{"GET", "/locations/districts"}, {"POST", "/locations/districts"},
	{"GET", "/locations/districts/:id"}, {"PUT", "/locations/districts/:id"}, {"DELETE", "/locations/districts/:id"},
	{"GET", "/deals"}, {"POST", "/deals"}, {"GET", "/deals/:id"}, {"PUT", "/deals/:id"}, {"DELETE", "/deals/:id"},
	{"GET", "/funnels"}, {"POST", "/funnels"}, {"GET", "/funnels/:id"}, {"PUT", "/funnels/:id"}, {"DELETE", "/funnels/:id"},
	{"GET", "/funnels/:funnel/steps"}, {"POST", "/funnels/:funnel/steps"},
	{"GET", "/funnels/:funnel/steps/:id"}, {"PUT", "/funnels/:funnel/steps/:id"}, {"DELETE", "/funnels/:funnel/steps/:id"},
	{"GET", "/calendars"}, {"POST", "/calendars"},
	{"GET", "/calendars/:id"}, {"PUT", "/calendars/:id"}, {"DELETE", "/calendars/:id"},
	{"GET", "/events/:event/files"}, {"POST", "/events/:event/files"},
	{"GET", "/events/:event/files/:id"}, {"PUT", "/events/:event/files/:id"}, {"DELETE", "/events/:event/files/:id"},
	{"GET", "/events/:event/feedbacks"}, {"POST", "/events/:event/feedbacks"},
	{"GET", "/events/:event/feedbacks/:id"}, {"PUT", "/events/:event/feedbacks/:id"}, {"DELETE", "/events/:event/feedbacks/:id"},
	// ours
	{"GET", "/healthz"}, {"HEAD", "/healthz"}, {"GET", "/readyz"},
	{"GET", "/jobs"}, {"POST", "/jobs"}, {"GET", "/jobs/:id"}, {"POST", "/jobs/:id/cancel"}, {"POST", "/jobs/:id/retry"},
	{"POST", "/pix/validate"}, {"GET", "/metrics"}, {"GET", "/monitoring"}, {"GET", "/monitoring/*path"},
}

// reached is what a stub handler saw.
type reached struct {
	pattern string
	params  httprouter.Params
}

// walkRouter registers every spec route with a stub that records what it
// saw, and builds the router.
func walkRouter(t *testing.T) (http.Handler, *reached) {
	t.Helper()
	rt := newRouter(nil)
	got := &reached{}
	for _, r := range specRoutes {
		pattern := r.pattern
		rt.Handle(r.method, pattern, stubOp, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			*got = reached{pattern: pattern, params: httprouter.ParamsFromContext(req.Context())}
			w.WriteHeader(http.StatusTeapot)
		}))
	}
	rt.NotFound = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNotFound) })
	rt.MethodNotAllowed = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusMethodNotAllowed) })
	if err := rt.checkTable(); err != nil {
		t.Fatal(err)
	}
	return rt.build(), got // build panics, as httprouter would, on a table it cannot hold
}

// concrete fills a pattern's parameters with values of their own.
func concrete(pattern string) (string, httprouter.Params) {
	var ps httprouter.Params
	segs := strings.Split(pattern, "/")
	for i, s := range segs {
		if strings.HasPrefix(s, ":") || strings.HasPrefix(s, "*") {
			v := "v" + s[1:] + "7"
			ps = append(ps, httprouter.Param{Key: s[1:], Value: v})
			if s[0] == '*' {
				ps[len(ps)-1].Value = "/" + v
			}
			segs[i] = v
		}
	}
	return strings.Join(segs, "/"), ps
}

func TestRouteWalk(t *testing.T) {
	t.Parallel()
	h, got := walkRouter(t)
	for _, r := range specRoutes {
		path, want := concrete(r.pattern)
		*got = reached{}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(r.method, path, nil))
		if rec.Code != http.StatusTeapot || got.pattern != r.pattern {
			t.Errorf("%s %s: status %d, reached %q, want %q", r.method, path, rec.Code, got.pattern, r.pattern)
			continue
		}
		if !slices.Equal(got.params, want) {
			t.Errorf("%s %s: params %v, want %v", r.method, path, got.params, want)
		}
	}
}

// TestRouteStaticFirst: where a static name and a parameter meet, the
// static name wins; any other value is the parameter; what no pattern
// matches is 404, and a method the matching patterns lack is 405.
func TestRouteStaticFirst(t *testing.T) {
	t.Parallel()
	h, got := walkRouter(t)
	cases := []struct {
		method, path string
		status       int
		pattern      string
		params       string
	}{
		{"GET", "/buildings/types", 418, "/buildings/types", ""},
		{"GET", "/buildings/types/3", 418, "/buildings/types/:id", "id=3"},
		{"GET", "/buildings/3", 418, "/buildings/:id", "id=3"},
		{"GET", "/buildings/3/owners", 418, "/buildings/:building/owners", "building=3"},
		{"GET", "/buildings/types/owners", 418, "/buildings/types/:id", "id=owners"},
		{"DELETE", "/condominiums/groups/9", 418, "/condominiums/groups/:id", "id=9"},
		{"DELETE", "/condominiums/groups", 418, "/condominiums/:id", "id=groups"},
		{"DELETE", "/condominiums/9", 418, "/condominiums/:id", "id=9"},
		{"GET", "/users/teams", 418, "/users/teams", ""},
		{"GET", "/users/5", 418, "/users/:id", "id=5"},
		{"GET", "/users/teams/5/users", 418, "/users/teams/:team/users", "team=5"},
		{"DELETE", "/users/groups/5/users/6", 418, "/users/groups/:group/users/:id", "group=5,id=6"},
		{"GET", "/users/groups/5", 418, "/users/groups/:id", "id=5"},
		{"GET", "/condominiums/3/units", 418, "/condominiums/:condominium/units", "condominium=3"},
		{"DELETE", "/condominiums/groups/units", 418, "/condominiums/groups/:id", "id=units"},
		{"GET", "/deals/conversion/funnel", 418, "/deals/conversion/funnel", ""},
		{"GET", "/deals/12", 418, "/deals/:id", "id=12"},
		{"GET", "/deals/conversion/step-deals", 418, "/deals/conversion/step-deals", ""},
		{"GET", "/deals/conversion", 418, "/deals/:id", "id=conversion"},
		{"PUT", "/deals/conversion", 418, "/deals/:id", "id=conversion"},
		{"POST", "/deals/conversion/funnel", 405, "", ""},
		{"GET", "/events/3/files/4", 418, "/events/:event/files/:id", "event=3,id=4"},
		{"DELETE", "/events/3", 418, "/events/:id", "id=3"},
		{"GET", "/funnels/2/steps", 418, "/funnels/:funnel/steps", "funnel=2"},
		{"POST", "/invoices/4/pixCode", 418, "/invoices/:invoice_id/pixCode", "invoice_id=4"},
		{"GET", "/invoices/4", 418, "/invoices/:id", "id=4"},
		{"GET", "/financial/contracts/2/vehicles/8", 418, "/financial/contracts/:contract/vehicles/:vehicle", "contract=2,vehicle=8"},
		{"HEAD", "/buildings/types/3", 418, "/buildings/types/:id", "id=3"},
		{"GET", "/condominiums/groups/9", 405, "", ""},
		{"GET", "/condominiums/5/7", 404, "", ""},
		{"GET", "/deals/conversion/other", 404, "", ""},
		{"PATCH", "/buildings/types/3", 405, "", ""},
		{"POST", "/users/5", 405, "", ""},
	}
	for _, c := range cases {
		*got = reached{}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(c.method, c.path, nil))
		var params []string
		for _, p := range got.params {
			params = append(params, p.Key+"="+p.Value)
		}
		if rec.Code != c.status || got.pattern != c.pattern || strings.Join(params, ",") != c.params {
			t.Errorf("%s %s: %d %q %v, want %d %q %s", c.method, c.path, rec.Code, got.pattern, params, c.status, c.pattern, c.params)
		}
	}
}

func TestRouteTableRefusesDuplicates(t *testing.T) {
	t.Parallel()
	rt := newRouter(nil)
	rt.Handle("GET", "/a/:id", stubOp, http.NotFoundHandler())
	rt.Handle("GET", "/a/:id", stubOp, http.NotFoundHandler())
	if rt.checkTable() == nil {
		t.Fatal("duplicate route accepted")
	}
}

// TestRouteTableRefusesUndescribed: a route registered without the
// summary or the description of its operation is refused.
func TestRouteTableRefusesUndescribed(t *testing.T) {
	t.Parallel()
	for _, op := range []operation{{}, {summary: "A summary"}, {description: "A description."}} {
		rt := newRouter(nil)
		rt.Handle("POST", "/financial/ticketBatch", op, http.NotFoundHandler())
		err := rt.checkTable()
		if err == nil || !strings.Contains(err.Error(), "POST /financial/ticketBatch") {
			t.Errorf("operation %+v: %v, want a refusal naming the route", op, err)
		}
	}
}

// stubOp describes the stub routes of these tests.
var stubOp = operation{summary: "A stub", description: "A route of the routing tests."}

// TestOwnerRoutesServed: the real server serves every route of the
// building owners, PUT included.
func TestOwnerRoutesServed(t *testing.T) {
	t.Parallel()
	e := setup(t)
	building := e.create(t, "/buildings", map[string]any{"title": "Um"})
	person := e.create(t, "/persons", map[string]any{"name": "Ana"})
	owners := "/buildings/" + strconv.FormatInt(building, 10) + "/owners"
	owner := e.create(t, owners, map[string]any{"person_id": person, "percentage": "10"})
	one := owners + "/" + strconv.FormatInt(owner, 10)
	cases := []struct {
		method, path string
		body         any
		status       int
	}{
		{http.MethodGet, owners, nil, http.StatusOK},
		{http.MethodGet, one, nil, http.StatusOK},
		{http.MethodPut, one, map[string]any{"percentage": "20"}, http.StatusOK},
		{http.MethodDelete, one, nil, http.StatusOK},
	}
	for _, c := range cases {
		if r := e.do(t, c.method, c.path, e.keyA, c.body); r.status != c.status {
			t.Errorf("%s %s: %d %s, want %d", c.method, c.path, r.status, r.raw, c.status)
		}
	}
}

// TestRouteAllow: the Allow of a 405 and of OPTIONS lists the methods the
// path itself is served with (HEAD beside GET, and OPTIONS), not those of
// the other patterns registered at the same place (`/invoices/:id` beside
// `/invoices/:invoice_id/pixCode`); a path that no pattern matches is a
// 404 whatever the method.
func TestRouteAllow(t *testing.T) {
	t.Parallel()
	h, _ := walkRouter(t)
	const item = "DELETE, GET, HEAD, OPTIONS, PUT"
	cases := []struct {
		method, path string
		status       int
		allow        string
	}{
		{"PATCH", "/invoices/4", 405, item},
		{"POST", "/invoices/4", 405, item},
		{"TRACE", "/invoices/4", 405, item},
		{"OPTIONS", "/invoices/4", 200, item},
		{"GET", "/invoices/4/pixCode", 405, "OPTIONS, POST"},
		{"OPTIONS", "/invoices/4/pixCode", 200, "OPTIONS, POST"},
		{"PATCH", "/buildings/types/3", 405, item},
		{"OPTIONS", "/buildings/3", 200, item},
		{"TRACE", "/financial/contracts/2", 405, item},
		{"OPTIONS", "/financial/ticketBatch/2/addInvoices", 200, "OPTIONS, POST"},
		{"PATCH", "/jobs/3", 405, "GET, HEAD, OPTIONS"},
		{"TRACE", "/healthz", 405, "GET, HEAD, OPTIONS"},
		{"OPTIONS", "/monitoring/queues", 200, "GET, HEAD, OPTIONS"},
		{"OPTIONS", "/invoices", 200, "GET, HEAD, OPTIONS, POST"},
		{"TRACE", "/deals/x/funnel", 404, ""},
		{"OPTIONS", "/deals/x/funnel", 404, ""},
		{"PATCH", "/condominiums/5/7", 404, ""},
	}
	for _, c := range cases {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(c.method, c.path, nil))
		if rec.Code != c.status || rec.Header().Get("Allow") != c.allow {
			t.Errorf("%s %s: %d Allow %q, want %d %q", c.method, c.path, rec.Code, rec.Header().Get("Allow"), c.status, c.allow)
		}
	}
}
