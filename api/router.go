package api

import (
	"net/http"

	"github.com/julienschmidt/httprouter"
)

// unmatched is the route of a request no registered route served: an
// unknown path, a method the path does not have, a CORS preflight.
const unmatched = "unmatched"

// router is httprouter's router whose registration methods label each
// handler with the pattern it is registered under, so the request log and
// the metrics name the route (`/buildings/types/:id`), never the raw path,
// and the labels come from the one route table without any handler
// knowing. Handle, Handler, HandlerFunc and the per-method shortcuts are
// shadowed here; ServeFiles is not (the API serves no files from disk).
type router struct {
	*httprouter.Router
}

func newRouter() router {
	return router{httprouter.New()}
}

// Handle registers h for method and pattern.
func (rt router) Handle(method, pattern string, h httprouter.Handle) {
	rt.Router.Handle(method, pattern, func(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
		setRoute(r, pattern)
		h(w, r, ps)
	})
}

// Handler registers h for method and pattern.
func (rt router) Handler(method, pattern string, h http.Handler) {
	rt.Router.Handler(method, pattern, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		setRoute(r, pattern)
		h.ServeHTTP(w, r)
	}))
}

// HandlerFunc registers h for method and pattern.
func (rt router) HandlerFunc(method, pattern string, h http.HandlerFunc) {
	rt.Handler(method, pattern, h)
}

// GET registers h for GET and pattern.
func (rt router) GET(pattern string, h httprouter.Handle) { rt.Handle(http.MethodGet, pattern, h) }

// HEAD registers h for HEAD and pattern.
func (rt router) HEAD(pattern string, h httprouter.Handle) { rt.Handle(http.MethodHead, pattern, h) }

// OPTIONS registers h for OPTIONS and pattern.
func (rt router) OPTIONS(pattern string, h httprouter.Handle) {
	rt.Handle(http.MethodOptions, pattern, h)
}

// POST registers h for POST and pattern.
func (rt router) POST(pattern string, h httprouter.Handle) { rt.Handle(http.MethodPost, pattern, h) }

// PUT registers h for PUT and pattern.
func (rt router) PUT(pattern string, h httprouter.Handle) { rt.Handle(http.MethodPut, pattern, h) }

// PATCH registers h for PATCH and pattern.
func (rt router) PATCH(pattern string, h httprouter.Handle) { rt.Handle(http.MethodPatch, pattern, h) }

// DELETE registers h for DELETE and pattern.
func (rt router) DELETE(pattern string, h httprouter.Handle) {
	rt.Handle(http.MethodDelete, pattern, h)
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
