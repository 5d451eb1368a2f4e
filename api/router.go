package api

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/julienschmidt/httprouter"
)

// unmatched is the route of a request no registered route served: an
// unknown path, a method the path does not have, a CORS preflight.
const unmatched = "unmatched"

// router collects the route table (method, pattern, handler) and builds
// httprouter's router from it. Each handler is labelled with the pattern it
// is registered under, so the request log and the metrics name the route
// (`/buildings/types/:id`), never the raw path.
//
// httprouter cannot hold a static segment beside a parameter at the same
// place (`/buildings/types` beside `/buildings/:id`), nor two parameters of
// different names there (`/invoices/:id` beside `/invoices/:invoice_id/pixCode`).
// build resolves both once, from the table: where patterns meet so, they
// are registered as one pattern with a parameter at that place, and its
// handler dispatches to the pattern whose static names the path carries
// (static names first, left to right), else to the one with the parameter,
// handing it its own parameter names. No handler knows about it.
type router struct {
	entries []routeEntry
	// guard puts a handler behind the credential of its access (nil: as
	// it is, for tests of the routing alone).
	guard func(access, http.Handler) http.Handler

	// NotFound, MethodNotAllowed, GlobalOPTIONS and PanicHandler are
	// httprouter's, set on the router build makes.
	NotFound         http.Handler
	MethodNotAllowed http.Handler
	GlobalOPTIONS    http.Handler
	PanicHandler     func(http.ResponseWriter, *http.Request, any)
}

// routeEntry is one line of the route table.
type routeEntry struct {
	method, pattern string
	op              operation
	handler         http.Handler
	segments        []string // the pattern split at /
}

func newRouter(guard func(access, http.Handler) http.Handler) *router { return &router{guard: guard} }

// Handle registers h for method and pattern, described by op in the
// OpenAPI document: a route cannot be registered without its description
// (checkTable refuses an operation without summary or description), and
// h is put behind the credential op.access names. A keyed operation's
// Idempotency-Key is declared and read here (keyedRoute).
func (rt *router) Handle(method, pattern string, op operation, h http.Handler) {
	if op.keyed {
		op.params = append(slices.Clone(op.params), keyedParam())
		h = keyedRoute(h)
	}
	if rt.guard != nil {
		h = rt.guard(op.access, h)
	}
	rt.entries = append(rt.entries, routeEntry{method: method, pattern: pattern, op: op, handler: h,
		segments: strings.Split(strings.TrimPrefix(pattern, "/"), "/")})
}

// HandleFunc is Handle for a handler function.
func (rt *router) HandleFunc(method, pattern string, op operation, h http.HandlerFunc) {
	rt.Handle(method, pattern, op, h)
}

func isParam(seg string) bool { return strings.HasPrefix(seg, ":") }

// normalize computes, for every entry, the pattern httprouter is given:
// position by position, among the entries that agree so far, a place where
// any of them has a parameter becomes a parameter for all of them, named
// after its position (`:p2`) unless they all name it alike.
func normalize(entries []routeEntry) [][]string {
	norm := make([][]string, len(entries))
	for i, e := range entries {
		norm[i] = slices.Clone(e.segments)
	}
	for pos := 0; ; pos++ {
		groups := map[string][]int{}
		longer := false
		for i, e := range entries {
			if len(e.segments) <= pos {
				continue
			}
			longer = true
			key := strings.Join(norm[i][:pos], "/")
			groups[key] = append(groups[key], i)
		}
		if !longer {
			return norm
		}
		for _, members := range groups {
			var names []string
			statics := false
			for _, i := range members {
				seg := entries[i].segments[pos]
				switch {
				case isParam(seg):
					if !slices.Contains(names, seg) {
						names = append(names, seg)
					}
				case !strings.HasPrefix(seg, "*"):
					statics = true
				}
			}
			if len(names) == 0 || (len(names) == 1 && !statics) {
				continue
			}
			for _, i := range members {
				if !strings.HasPrefix(entries[i].segments[pos], "*") {
					norm[i][pos] = ":p" + strconv.Itoa(pos)
				}
			}
		}
	}
}

// build makes httprouter's router of the table.
func (rt *router) build() *httprouter.Router {
	hr := httprouter.New()
	// JSON everywhere: a path that is not exactly a route is a JSON 404,
	// never a body-less redirect.
	hr.RedirectTrailingSlash = false
	hr.RedirectFixedPath = false
	hr.NotFound, hr.PanicHandler = rt.NotFound, rt.PanicHandler
	// httprouter's Allow lists every method registered at the place, and a
	// merged pattern registers them all: the table says what the path has.
	hr.MethodNotAllowed = rt.withAllow(rt.MethodNotAllowed, func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, http.StatusText(http.StatusMethodNotAllowed), http.StatusMethodNotAllowed)
	})
	hr.GlobalOPTIONS = rt.withAllow(rt.GlobalOPTIONS, func(http.ResponseWriter, *http.Request) {})

	norm := normalize(rt.entries)
	groups := map[string][]int{}
	var order []string
	for i := range rt.entries {
		p := "/" + strings.Join(norm[i], "/")
		if _, seen := groups[p]; !seen {
			order = append(order, p)
		}
		groups[p] = append(groups[p], i)
	}
	for _, p := range order {
		members := groups[p]
		merged := false
		for _, i := range members {
			merged = merged || rt.entries[i].pattern != p
		}
		if !merged {
			for _, i := range members {
				e := rt.entries[i]
				hr.Handler(e.method, e.pattern, labelled(e.pattern, e.handler))
			}
			continue
		}
		d := &dispatcher{norm: norm[members[0]], notAllowed: hr.MethodNotAllowed}
		for _, i := range members {
			d.entries = append(d.entries, rt.entries[i])
		}
		slices.SortStableFunc(d.entries, func(a, b routeEntry) int { return specificity(a.segments, b.segments) })
		for _, m := range dispatchedMethods {
			hr.Handler(m, p, d.forMethod(m))
		}
	}
	return hr
}

// withAllow serves h (orElse when h is nil) with the Allow header of the
// request's path (allowed); a path that no pattern matches is a 404.
func (rt *router) withAllow(h http.Handler, orElse http.HandlerFunc) http.Handler {
	if h == nil {
		h = orElse
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		methods := rt.allowed(r.URL.Path)
		if len(methods) == 0 {
			w.Header().Del("Allow") // httprouter's
			rt.notFound(w, r)
			return
		}
		w.Header().Set("Allow", strings.Join(methods, ", "))
		h.ServeHTTP(w, r)
	})
}

func (rt *router) notFound(w http.ResponseWriter, r *http.Request) {
	if rt.NotFound == nil {
		http.NotFound(w, r)
		return
	}
	rt.NotFound.ServeHTTP(w, r)
}

// allowed lists, sorted, the methods the table serves path with: those of
// every pattern that matches it, HEAD beside GET (headAsGet serves it) and
// OPTIONS (the preflight); none when no pattern matches.
func (rt *router) allowed(path string) []string {
	parts := strings.Split(strings.TrimPrefix(path, "/"), "/")
	var methods []string
	for _, e := range rt.entries {
		if !matches(e.segments, parts) {
			continue
		}
		methods = append(methods, e.method)
		if e.method == http.MethodGet {
			methods = append(methods, http.MethodHead)
		}
	}
	if len(methods) == 0 {
		return nil
	}
	methods = append(methods, http.MethodOptions)
	slices.Sort(methods)
	return slices.Compact(methods)
}

// matches says whether a path, split at /, is one of a pattern's: the same
// static names, a non-empty segment for each parameter, anything for a
// catch-all.
func matches(segments, parts []string) bool {
	for i, seg := range segments {
		switch {
		case strings.HasPrefix(seg, "*"):
			return i < len(parts)
		case i >= len(parts):
			return false
		case isParam(seg):
			if parts[i] == "" {
				return false
			}
		case parts[i] != seg:
			return false
		}
	}
	return len(parts) == len(segments)
}

// dispatchedMethods are the methods a merged pattern answers itself, so
// that it can tell 404 from 405 by the patterns it stands for.
var dispatchedMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// specificity orders patterns of one merged group: at the first place they
// differ, a static name comes before a parameter.
func specificity(a, b []string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		pa, pb := isParam(a[i]), isParam(b[i])
		if pa != pb {
			if pb {
				return -1
			}
			return 1
		}
	}
	return 0
}

// dispatcher serves the patterns merged into one httprouter pattern.
type dispatcher struct {
	norm       []string
	entries    []routeEntry // most specific first
	notAllowed http.Handler // the router's, with its Allow
}

// match says whether e's static names are the path's, and gives e's own
// parameters.
func (d *dispatcher) match(e routeEntry, ps httprouter.Params) (httprouter.Params, bool) {
	var own httprouter.Params
	for i, seg := range e.segments {
		got := seg
		if isParam(d.norm[i]) {
			got = ps.ByName(d.norm[i][1:])
		}
		switch {
		case isParam(seg):
			own = append(own, httprouter.Param{Key: seg[1:], Value: got})
		case strings.HasPrefix(seg, "*"):
			own = append(own, httprouter.Param{Key: seg[1:], Value: ps.ByName(seg[1:])})
		case got != seg:
			return nil, false
		}
	}
	return own, true
}

func (d *dispatcher) forMethod(method string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ps := httprouter.ParamsFromContext(r.Context())
		var fallback *routeEntry // GET serves HEAD when no HEAD is declared
		var fallbackParams httprouter.Params
		for i, e := range d.entries {
			own, ok := d.match(e, ps)
			if !ok {
				continue
			}
			if e.method == method {
				serve(w, r, e, own)
				return
			}
			if method == http.MethodHead && e.method == http.MethodGet && fallback == nil {
				fallback, fallbackParams = &d.entries[i], own
			}
		}
		if fallback != nil {
			serve(w, r, *fallback, fallbackParams)
			return
		}
		d.notAllowed.ServeHTTP(w, r) // a 404 when no pattern matches (withAllow)
	})
}

func serve(w http.ResponseWriter, r *http.Request, e routeEntry, ps httprouter.Params) {
	r = r.WithContext(context.WithValue(r.Context(), httprouter.ParamsKey, ps))
	labelled(e.pattern, e.handler).ServeHTTP(w, r)
}

// labelled records pattern as the route of the request before h runs.
func labelled(pattern string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		setRoute(r, pattern)
		h.ServeHTTP(w, r)
	})
}

// checkTable refuses a route table with the same method and pattern
// twice, or a route whose operation is not described.
func (rt *router) checkTable() error {
	seen := map[string]bool{}
	for _, e := range rt.entries {
		k := e.method + " " + e.pattern
		if seen[k] {
			return fmt.Errorf("route %s registered twice", k)
		}
		seen[k] = true
		if e.op.summary == "" || e.op.description == "" {
			return fmt.Errorf("route %s has no summary or description: describe its operation where it is registered (docs/api.md, \"OpenAPI\")", k)
		}
	}
	return nil
}

// setRoute records the pattern that serves r in the request state.
func setRoute(r *http.Request, pattern string) {
	if st, ok := r.Context().Value(requestStateKey{}).(*requestState); ok {
		st.route = pattern
	}
}

// routeOf returns the pattern that served the request, or unmatched.
func routeOf(st *requestState) string {
	if st == nil || st.route == "" {
		return unmatched
	}
	return st.route
}
