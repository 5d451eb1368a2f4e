package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/api/openapi"
	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/jobs"
	"github.com/propfin/propfin/storage"
)

// The batch operations (docs/api.md, "Batches"): for each kind of batch,
// besides its CRUD routes, adding, removing and reverting members, the
// remittance file, the members' list and the upload of a bank's return
// file. The kinds are package jobs's; each is mounted under its path.

// changeMembers is POST {batch}/{id}/addInvoices (removeInvoices,
// revertInvoices) with {"invoices": [ids]}: a body that is not that is a
// 422 and changes nothing; otherwise 200 with the batch as it is after,
// the ids changed (with what the kind says of each) and the ids refused
// with their reasons. 409 when the batch's state does not allow the
// operation; 404 for another company's batch.
func (s *Server) changeMembers(k *jobs.BatchKind, op storage.MemberOp) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, ok := pathID(w, r)
		if !ok {
			return
		}
		ids, problems, err := readMemberIDs(w, r, k.Type.Members)
		if err != nil {
			writeError(w, r, err)
			return
		}
		p := principalOf(r.Context())
		sc := storage.Scope{CompanyID: p.CompanyID, UserID: p.UserID}
		if len(problems) > 0 {
			// the operation checked on the ids that can be read, rolled back:
			// its own refusal (the batch's account, its business) in the
			// same 422 as the body's
			err := s.checkWrite(r.Context(), func(ctx context.Context, tx pgx.Tx) (operationAnswer, error) {
				_, err := jobs.ChangeBatchMembers(ctx, tx, k, sc, id, op, ids)
				return operationAnswer{}, err
			})
			writeError(w, r, withBodyProblems(err, problems))
			return
		}
		ans, err := jobs.ChangeBatchMembers(r.Context(), s.store.Pool(), k, sc, id, op, ids)
		if err != nil {
			writeError(w, r, err)
			return
		}
		rec, err := s.store.Get(r.Context(), s.store.Registry().MustResource(k.Type.Resource), sc, id, storage.GetQuery{})
		if err != nil {
			writeError(w, r, err)
			return
		}
		writeRaw(w, http.StatusOK, memberAnswerEnvelope(k, op, len(ids), ans, rec))
	}
}

// memberAnswerEnvelope is {"return":true,"status":200,"message":"2 of 3
// invoices added.","data":{"batch":{...},"added":[...],"refused":[...]}}.
func memberAnswerEnvelope(k *jobs.BatchKind, op storage.MemberOp, asked int, ans storage.MemberAnswer, rec *storage.Record) []byte {
	done, refused := ans.Done, ans.Refused
	if done == nil {
		done = []map[string]any{}
	}
	if refused == nil {
		refused = []storage.Refusal{}
	}
	doneJSON, _ := json.Marshal(done)       // ids, numbers and texts: cannot fail
	refusedJSON, _ := json.Marshal(refused) // idem
	message, _ := json.Marshal(fmt.Sprintf("%d of %d %s %s.", len(ans.Done), asked, k.Type.Members, op.Past()))
	b := make([]byte, 0, 256+len(doneJSON)+len(refusedJSON))
	b = append(b, `{"return":true,"status":200,"message":`...)
	b = append(b, message...)
	b = append(b, `,"data":{"batch":`...)
	b = rec.AppendJSON(b)
	b = append(b, `,"`...)
	b = append(b, op.Past()...)
	b = append(b, `":`...)
	b = append(b, doneJSON...)
	b = append(b, `,"refused":`...)
	b = append(b, refusedJSON...)
	return append(b, "}}"...)
}

// readMemberIDs reads the body {"<members>": [ids]}: one key, a list of 1
// to storage.MaxMembersPerCall positive integer ids, none twice. Every
// problem is named (invoices, invoices.3, an unknown key), beside the ids
// that could be read (never nil: an operation checked on them changes no
// more than they name). err is a body that is no JSON object.
func readMemberIDs(w http.ResponseWriter, r *http.Request, key string) (ids []int64, problems []finance.Problem, err error) {
	obj, problems, err := readObject(w, r)
	if err != nil {
		return nil, nil, err
	}
	for _, k := range sortedKeys(obj) {
		if k != key {
			problems = append(problems, finance.Problem{Field: k, Message: "unknown field"})
		}
	}
	raw, given := obj[key]
	if !given {
		return []int64{}, append(problems, finance.Problem{Field: key, Message: "is required"}), nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil || list == nil {
		return []int64{}, append(problems, finance.Problem{Field: key, Message: "must be an array of ids"}), nil
	}
	switch {
	case len(list) == 0:
		problems = append(problems, finance.Problem{Field: key, Message: "must hold at least one id"})
	case len(list) > storage.MaxMembersPerCall:
		problems = append(problems, finance.Problem{Field: key,
			Message: fmt.Sprintf("holds %d ids; at most %d", len(list), storage.MaxMembersPerCall)})
	}
	ids = make([]int64, 0, len(list))
	seen := make(map[int64]bool, len(list))
	for i, el := range list {
		field := key + "." + strconv.Itoa(i)
		id, err := strconv.ParseInt(string(bytes.TrimSpace(el)), 10, 64)
		switch {
		case err != nil || id < 1:
			problems = append(problems, finance.Problem{Field: field, Message: "must be a positive integer id"})
		case seen[id]:
			problems = append(problems, finance.Problem{Field: field, Message: fmt.Sprintf("id %d is given twice", id)})
		default:
			seen[id] = true
			ids = append(ids, id)
		}
	}
	if len(ids) > storage.MaxMembersPerCall {
		ids = ids[:0] // too many to check one by one: the batch's own problems only
	}
	return ids, problems, nil
}

// downloadBatchFile is GET {batch}/{id}/downloadBatchFile: the stored
// remittance (200, the bytes as the bank takes them, as an attachment
// named by the file) once written; before, the first call submits the
// batch:file job (202 with it), and calls while it runs answer the same
// job. A batch without members is a 422, unless its account has titles to
// drop or payments to cancel: its file asks for them alone.
func (s *Server) downloadBatchFile(k *jobs.BatchKind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, ok := pathID(w, r)
		if !ok {
			return
		}
		companyID := principalOf(r.Context()).CompanyID
		b, err := storage.GetBatch(r.Context(), s.store.Pool(), k.Type, companyID, id)
		if err != nil {
			writeError(w, r, err)
			return
		}
		if b.FileID == 0 {
			if err := jobs.CheckSomethingToSend(r.Context(), s.store.Pool(), k, b); err != nil {
				writeError(w, r, err)
				return
			}
			s.submitJob(w, r, jobs.NewBatchFile(k.Type, id), nil)
			return
		}
		f, err := storage.ReadBatchFile(r.Context(), s.store.Pool(), companyID, b.FileID, true)
		if err != nil {
			writeError(w, r, err)
			return
		}
		h := w.Header()
		h.Set("Content-Type", "application/octet-stream")
		h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": f.Name}))
		h.Set("Content-Length", strconv.FormatInt(f.Size, 10))
		w.WriteHeader(http.StatusOK)
		// the bytes are decompressed on their way out: a file cut short
		// (its client gone, or stored wrong) ends the response short of
		// its Content-Length, which its client sees
		if _, err := f.WriteTo(w); err != nil && r.Context().Err() == nil {
			loggerOf(r.Context()).ErrorContext(r.Context(), "batch file not sent whole", "file", f.ID, "error", err)
		}
	}
}

// listMembers is GET {batch}/{id}/invoices: the members' resource
// (invoices) with the query language, limited to the batch's; 404 for
// another company's batch.
func (s *Server) listMembers(k *jobs.BatchKind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, ok := pathID(w, r)
		if !ok {
			return
		}
		p := principalOf(r.Context())
		if _, err := storage.GetBatch(r.Context(), s.store.Pool(), k.Type, p.CompanyID, id); err != nil {
			writeError(w, r, err)
			return
		}
		res := s.store.Registry().MustResource(k.Type.MemberResource)
		q, err := parseList(s.store.Registry(), res, r.URL.RawQuery)
		if err != nil {
			writeError(w, r, err)
			return
		}
		f, _ := res.Filter(k.Type.MemberFilter)
		q.Special = append(q.Special, storage.SpecialCondition{Filter: f, Values: []any{id}})
		page, err := s.store.List(r.Context(), res, storage.Scope{CompanyID: p.CompanyID, UserID: p.UserID}, q)
		if err != nil {
			writeError(w, r, err)
			return
		}
		writePage(w, newPageLinks(r.URL.Path, r.URL.RawQuery), q, page)
	}
}

// uploadReturnFile is POST {batch}/returnFile: the bank's return file as
// the raw body, or as the field file of a multipart/form-data body, and
// optionally account_id (a query parameter or a form field), the account
// whose titles its numbers are. A file that is not a return file read here
// is a 422 naming file; otherwise it is stored once per content and read
// by a batch:return job: 202 with the job (the same file uploaded again
// answers the job of the first upload).
func (s *Server) uploadReturnFile(k *jobs.BatchKind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		up, err := readReturnUpload(w, r)
		if err != nil {
			writeError(w, r, err)
			return
		}
		companyID := principalOf(r.Context()).CompanyID
		var acc *storage.BankAccount
		if up.accountID != 0 {
			// an account not of the company is named by the store's
			// reference check below (422)
			acc, err = storage.ReadBankAccount(r.Context(), s.store.Pool(), companyID, up.accountID)
			if err != nil && finance.ErrorCode(err) != finance.NotFound {
				writeError(w, r, err)
				return
			}
			if err != nil {
				acc = nil
			}
		}
		accountID, err := jobs.CheckReturnUpload(r.Context(), s.store.Pool(), companyID, k, up.content, acc)
		if err != nil {
			writeError(w, r, err)
			return
		}
		if up.accountID != 0 {
			accountID = up.accountID // an account not of the company: SaveReturnFile's 422
		}
		f, _, err := storage.SaveReturnFile(r.Context(), s.store.Pool(), k.Type, companyID, up.name, accountID, up.content)
		if err != nil {
			writeError(w, r, err)
			return
		}
		digest := requestDigest(r)
		io.WriteString(digest, up.account+"\n") //nolint:errcheck // a hash takes every write
		digest.Write(up.content)                //nolint:errcheck // a hash takes every write
		s.submitDigested(w, r, jobs.NewBatchReturn(k.Type, f.ID), digest)
	}
}

// batchDoc describes the operations of one kind of batch (docs/api.md,
// "Batches").
type batchDoc struct {
	reg  *storage.Registry
	kind *jobs.BatchKind
	path string
}

func (d batchDoc) tag() string { return strings.TrimPrefix(d.path, "/") }

// batchDocOf describes the operations of br's kind; a kind whose members'
// resource lacks the filter it names panics, before anything is served.
func (s *Server) batchDocOf(br batchRoute) batchDoc {
	k := br.kind
	if _, ok := s.store.Registry().MustResource(k.Type.MemberResource).Filter(k.Type.MemberFilter); !ok {
		panic("api: " + br.path + ": " + k.Type.MemberResource + " has no filter " + k.Type.MemberFilter)
	}
	return batchDoc{reg: s.store.Registry(), kind: k, path: br.path}
}

// add, remove and revert describe the three changes of members.
func (d batchDoc) add() operation { return d.change("Add", "added to") }
func (d batchDoc) remove() operation {
	return d.change("Remove", "removed from (before its file is written)")
}
func (d batchDoc) revert() operation {
	return d.change("Revert", "taken back from (after its file is written)")
}

// change describes add, remove and revert of members.
func (d batchDoc) change(verb, what string) operation {
	members := d.kind.Type.Members
	return operation{
		tag:     d.tag(),
		summary: verb + " " + members + " of a batch",
		description: "The body `{\"" + members + "\": [ids]}` names the " + members + " " + what + " the batch. 200 with the batch " +
			"as it is after, the ids changed and the ids refused with their reasons (docs/api.md, \"Batches\"); a malformed " +
			"body is a 422 and changes nothing; 409 when the batch's state does not allow it; 404 for a batch of another company.",
		body: jsonBody("The ids.", true, openapi.Object(map[string]*openapi.Schema{
			members: openapi.Array(openapi.Integer())}, members)),
		responses: answers(map[int]*openapi.Response{http.StatusOK: jsonAnswer("The batch and what was done to each id.",
			envelope(&openapi.Schema{Type: "object"}, true))},
			http.StatusNotFound, http.StatusConflict, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType,
			http.StatusUnprocessableEntity),
	}
}

// download describes downloadBatchFile.
func (d batchDoc) download() operation {
	return operation{
		tag:     d.tag(),
		summary: "The batch's remittance file (.REM)",
		description: "Once written, the stored file as the bank takes it (200, an attachment named by the file). Before, " +
			"the first call starts the `batch:file` job and answers 202 with it; calls while it runs answer the same job. " +
			"A batch without members is a 422, unless its account has members of other batches reverted since their file: " +
			"its file then carries the requests to drop or cancel them alone.",
		responses: answers(map[int]*openapi.Response{
			http.StatusOK: {Description: "The file.", Content: map[string]*openapi.MediaType{
				"application/octet-stream": {Schema: openapi.String()}}},
			http.StatusAccepted: jobAccepted(),
		}, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity),
	}
}

// members describes the list of a batch's members.
func (d batchDoc) members() operation {
	res := d.reg.MustResource(d.kind.Type.MemberResource)
	return operation{
		tag:     d.tag(),
		summary: "List the " + d.kind.Type.Members + " of a batch",
		description: "The " + d.kind.Type.Members + " of the batch with the query language of their own list " +
			"(docs/api.md, \"Query language\"); 404 for a batch of another company.",
		params: listParams(d.reg, res),
		responses: answers(map[int]*openapi.Response{http.StatusOK: jsonAnswer("A page of records.", pageOf(res))},
			http.StatusNotFound, http.StatusUnprocessableEntity),
	}
}

// returnFile describes the upload of a bank's return file.
func (d batchDoc) returnFile() operation {
	file := openapi.String()
	file.Format = "binary"
	return operation{
		tag:     d.tag(),
		summary: "Upload a bank's return file",
		description: "The return file as the raw body, or as the field `file` of a multipart form (with an optional " +
			"`account_id`, also accepted as a query parameter). A file that is not a return file read here is a 422 " +
			"naming `file`; otherwise it is stored once per content and read by a `batch:return` job: 202 with the job " +
			"(the same file uploaded again answers the job of the first upload).",
		params: []*openapi.Parameter{queryParam("account_id", "The account whose titles the file's numbers are.",
			openapi.Integer())},
		body: &openapi.RequestBody{Description: "The return file.", Required: true, Content: map[string]*openapi.MediaType{
			"application/octet-stream": {Schema: file},
			"multipart/form-data": {Schema: openapi.Object(map[string]*openapi.Schema{
				"file": file, "account_id": openapi.String()}, "file")},
		}},
		responses: answers(map[int]*openapi.Response{http.StatusAccepted: jobAccepted()},
			http.StatusNotFound, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType,
			http.StatusUnprocessableEntity),
	}
}
