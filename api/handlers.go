package api

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/julienschmidt/httprouter"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// resourceHandlers serve list, get, create, update and delete for one
// declared resource.
type resourceHandlers struct {
	store *storage.Store
	// reads is the store list and get read from: store itself, or store
	// on a replica of its database.
	reads *storage.Store
	res   *storage.Resource
	path  string
	// parentParam names the path parameter holding the parent's id, for a
	// sub-resource mounted under its parent ("" otherwise).
	parentParam string
}

// scope is whom and where the request acts for: the caller's company and
// user, and the parent of the path for a sub-resource. A parent id that
// is not a positive integer names no record: 404.
func (h resourceHandlers) scope(w http.ResponseWriter, r *http.Request) (storage.Scope, bool) {
	p := principalOf(r.Context())
	sc := storage.Scope{CompanyID: p.CompanyID, UserID: p.UserID}
	if h.parentParam == "" {
		return sc, true
	}
	raw := httprouter.ParamsFromContext(r.Context()).ByName(h.parentParam)
	id, ok := recordID(raw)
	if !ok {
		writeError(w, r, finance.Errorf(finance.NotFound, "Record %q not found.", raw))
		return sc, false
	}
	sc.Parent = id
	return sc, true
}

func (h resourceHandlers) list(w http.ResponseWriter, r *http.Request) {
	sc, ok := h.scope(w, r)
	if !ok {
		return
	}
	q, err := parseList(h.store.Registry(), h.res, r.URL.RawQuery)
	if err != nil {
		writeError(w, r, err)
		return
	}
	page, err := h.reads.List(r.Context(), h.res, sc, q)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writePage(w, newPageLinks(r.URL.Path, r.URL.RawQuery), q, page)
}

func (h resourceHandlers) get(w http.ResponseWriter, r *http.Request) {
	sc, ok := h.scope(w, r)
	if !ok {
		return
	}
	id, ok := pathID(w, r)
	if !ok {
		return
	}
	q, err := parseGet(h.store.Registry(), h.res, r.URL.RawQuery)
	if err != nil {
		writeError(w, r, err)
		return
	}
	rec, err := h.reads.Get(r.Context(), h.res, sc, id, q)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeRaw(w, http.StatusOK, recordEnvelope(http.StatusOK, "", rec))
}

func (h resourceHandlers) create(w http.ResponseWriter, r *http.Request) {
	sc, ok := h.scope(w, r)
	if !ok {
		return
	}
	write, ok := h.readWrite(w, r, sc, 0)
	if !ok {
		return
	}
	rec, err := h.store.Create(r.Context(), h.res, sc, write)
	if err != nil {
		writeError(w, r, err)
		return
	}
	setLocation(w, r, rec)
	writeRaw(w, http.StatusCreated, writeEnvelope(http.StatusCreated, "Created.", rec, h.res.WarningsOf(write, rec)))
}

// setLocation names the path of a record a POST to its collection
// created: the collection's path, then the record's id.
func setLocation(w http.ResponseWriter, r *http.Request, rec *storage.Record) {
	if id, ok := rec.ID(); ok {
		w.Header().Set("Location", strings.TrimSuffix(r.URL.Path, "/")+"/"+strconv.FormatInt(id, 10))
	}
}

func (h resourceHandlers) update(w http.ResponseWriter, r *http.Request) {
	sc, ok := h.scope(w, r)
	if !ok {
		return
	}
	id, ok := pathID(w, r)
	if !ok {
		return
	}
	write, ok := h.readWrite(w, r, sc, id)
	if !ok {
		return
	}
	rec, err := h.store.Update(r.Context(), h.res, sc, id, write)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeRaw(w, http.StatusOK, writeEnvelope(http.StatusOK, "Updated.", rec, h.res.WarningsOf(write, rec)))
}

func (h resourceHandlers) delete(w http.ResponseWriter, r *http.Request) {
	sc, ok := h.scope(w, r)
	if !ok {
		return
	}
	id, ok := pathID(w, r)
	if !ok {
		return
	}
	opts, err := parseDeleteOptions(h.res, r.URL.RawQuery)
	if err != nil {
		writeError(w, r, err)
		return
	}
	if err := h.store.DeleteWith(r.Context(), h.res, sc, id, opts); err != nil {
		writeError(w, r, err)
		return
	}
	writeRaw(w, http.StatusOK, []byte(`{"return":true,"status":200,"message":"Deleted."}`))
}

// readWrite reads the body of a create (id 0) or of an update of record
// id. A body with problems (unknown fields, values of the wrong type,
// required fields missing) is still checked on what it gives, the write's
// checks and hooks run and rolled back (storage.CheckCreate, CheckUpdate),
// so that one 422 names every problem (withBodyProblems).
func (h resourceHandlers) readWrite(w http.ResponseWriter, r *http.Request, sc storage.Scope, id int64) (storage.Write, bool) {
	if err := h.res.CheckWritable(); err != nil {
		writeError(w, r, err)
		return storage.Write{}, false
	}
	obj, duplicates, err := readObject(w, r)
	if err == nil {
		var write storage.Write
		write, err = parseWrite(h.store.Registry(), h.res, obj, id == 0)
		if err = withProblems(err, duplicates); err == nil {
			return write, true
		}
		if problems := invalidProblems(err); problems != nil {
			err = withBodyProblems(h.checkWrite(r, sc, id, write), problems)
		}
	}
	writeError(w, r, err)
	return storage.Write{}, false
}

// checkWrite runs the checks of a create (id 0) or an update without
// writing (readWrite).
func (h resourceHandlers) checkWrite(r *http.Request, sc storage.Scope, id int64, write storage.Write) error {
	if id == 0 {
		return h.store.CheckCreate(r.Context(), h.res, sc, write)
	}
	return h.store.CheckUpdate(r.Context(), h.res, sc, id, write)
}

// pathID reads the {id} of the route; anything but a positive integer
// names no record.
func pathID(w http.ResponseWriter, r *http.Request) (int64, bool) {
	return pathParamID(w, r, "id")
}

// pathParamID reads the record id the route's parameter name holds.
func pathParamID(w http.ResponseWriter, r *http.Request, name string) (int64, bool) {
	raw := httprouter.ParamsFromContext(r.Context()).ByName(name)
	id, ok := recordID(raw)
	if !ok {
		writeError(w, r, finance.Errorf(finance.NotFound, "Record %q not found.", raw))
		return 0, false
	}
	return id, true
}

// recordID reads a record id as the API writes it: a positive integer in
// decimal digits, without sign or leading zeros. `01` and `+1` name no
// record, so that one record has one path.
func recordID(raw string) (int64, bool) {
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id < 1 || strconv.FormatInt(id, 10) != raw {
		return 0, false
	}
	return id, true
}
