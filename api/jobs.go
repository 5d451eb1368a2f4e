package api

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"hash"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/propfin/propfin/api/openapi"
	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/jobs"
	"github.com/propfin/propfin/storage"
)

// The job API (docs/jobs.md): jobs are read through the jobs resource with
// the query language; these handlers start, cancel and retry them.

// submitJob records a job for the caller's company and answers 202 with
// the job and its Location. An Idempotency-Key header makes the request
// repeatable: the same key with the same body returns the first job; with
// another body it is refused (422). body is the request body as read, for
// that comparison.
func (s *Server) submitJob(w http.ResponseWriter, r *http.Request, sub jobs.Submission, body []byte) {
	digest := requestDigest(r)
	digest.Write(body) //nolint:errcheck // a hash takes every write
	s.submitDigested(w, r, sub, digest)
}

// submitDigested is submitJob for a request whose digest is written.
func (s *Server) submitDigested(w http.ResponseWriter, r *http.Request, sub jobs.Submission, digest hash.Hash) {
	job, _, ok := s.recordJob(w, r, sub, digest)
	if ok {
		s.writeJob(w, r, http.StatusAccepted, "Accepted.", job.ID)
	}
}

// requestDigest starts the hash an Idempotency-Key is checked against: the
// method and path, then what the caller writes (the body, or what stands
// for it), so that a body read as it arrives need not be kept for it.
func requestDigest(r *http.Request) hash.Hash {
	h := sha256.New()
	io.WriteString(h, r.Method+" "+r.URL.Path+"\n") //nolint:errcheck // a hash takes every write
	return h
}

// recordJob submits the job as submitJob does, digest holding the request
// as the Idempotency-Key compares it, and returns the job with what was
// found instead of a new one; on an error it has answered, and ok is
// false.
func (s *Server) recordJob(w http.ResponseWriter, r *http.Request, sub jobs.Submission, digest hash.Hash) (job storage.Job, found storage.Found, ok bool) {
	if !prepareSubmission(w, r, &sub, digest) {
		return storage.Job{}, storage.FoundNothing, false
	}
	job, found, err := s.jobs.Submit(r.Context(), s.store.Pool(), principalOf(r.Context()).CompanyID, sub)
	if err != nil {
		writeError(w, r, err)
		return storage.Job{}, storage.FoundNothing, false
	}
	return job, found, true
}

// prepareSubmission completes a submission from the request: who submits
// it, and its Idempotency-Key with digest, the request as the key
// compares it. A malformed header is answered (422) and ok is false.
func prepareSubmission(w http.ResponseWriter, r *http.Request, sub *jobs.Submission, digest hash.Hash) (ok bool) {
	p := principalOf(r.Context())
	sub.SubmittedBy = "api_key:" + strconv.FormatInt(p.KeyID, 10)
	sub.UserID = p.UserID
	key, err := headerKey(r)
	if err != nil {
		writeError(w, r, err)
		return false
	}
	if key != "" {
		sub.IdempotencyKey, sub.RequestHash = key, digest.Sum(nil)
	}
	return true
}

// writeJob answers with the job as GET /jobs/{id} shows it.
func (s *Server) writeJob(w http.ResponseWriter, r *http.Request, status int, message string, id int64) {
	s.writeWarnedJob(w, r, status, message, id, nil)
}

// writeWarnedJob is writeJob with the submission's warnings after the job,
// as a resource write answers its own ("warnings"): what the submission
// did that its caller may not expect (a run ahead of its night).
func (s *Server) writeWarnedJob(w http.ResponseWriter, r *http.Request, status int, message string, id int64, warnings []finance.Problem) {
	rec, err := s.store.Get(r.Context(), s.jobsResource(), storage.Company(principalOf(r.Context()).CompanyID), id, storage.GetQuery{})
	if err != nil {
		writeError(w, r, err)
		return
	}
	w.Header().Set("Location", "/jobs/"+strconv.FormatInt(id, 10))
	writeRaw(w, status, writeEnvelope(status, message, rec, warnings))
}

func (s *Server) jobsResource() *storage.Resource {
	return s.store.Registry().MustResource(storage.Jobs)
}

// jobReads are the reads of the job API, through the declared resource
// (the operations are by hand). Jobs are read on the primary even when
// there is a replica: a client polls the job it has just submitted, and a
// replica that lags would answer 404 for it.
func (s *Server) jobReads() (resourceHandlers, resourceDoc) {
	h := resourceHandlers{store: s.store, reads: s.store, res: s.jobsResource(), path: "/jobs"}
	return h, resourceDoc{reg: s.store.Registry(), res: h.res, path: "/jobs"}
}

// startJob is POST /jobs: {"kind": ..., "payload": {...}} for the kinds
// clients may start themselves; any other kind is a 422. The body is read
// like any other: JSON declared, one object, no key given twice. A run of
// the payload's unique key recorded before is answered with 200 and a
// message saying so; "rerun": true asks for a new run of it (docs/jobs.md,
// "Once per key").
func (s *Server) startJob(w http.ResponseWriter, r *http.Request) {
	obj, problems, err := readObject(w, r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	var kind string
	var rerun bool
	for _, key := range sortedKeys(obj) {
		switch key {
		case "kind":
			if json.Unmarshal(obj[key], &kind) != nil || kind == "" {
				problems = append(problems, finance.Problem{Field: "kind", Message: "must be the name of a kind of job"})
			}
		case "rerun":
			if json.Unmarshal(obj[key], &rerun) != nil {
				problems = append(problems, finance.Problem{Field: "rerun", Message: "must be true or false"})
			}
		case "payload":
		default:
			problems = append(problems, finance.Problem{Field: key, Message: "unknown field"})
		}
	}
	if _, given := obj["kind"]; !given {
		problems = append(problems, finance.Problem{Field: "kind", Message: "is required"})
	}
	if len(problems) > 0 {
		writeError(w, r, finance.InvalidInput(problems))
		return
	}
	// the request as the Idempotency-Key compares it: kind, payload, and
	// rerun when given
	compared := map[string]json.RawMessage{"kind": obj["kind"], "payload": obj["payload"]}
	if given, ok := obj["rerun"]; ok {
		compared["rerun"] = given
	}
	body, _ := json.Marshal(compared)
	digest := requestDigest(r)
	digest.Write(body) //nolint:errcheck // a hash takes every write
	job, found, ok := s.recordJob(w, r, jobs.Submission{Kind: kind, Payload: obj["payload"], DirectOnly: true, Rerun: rerun}, digest)
	if !ok {
		return
	}
	if found != storage.FoundSameKey {
		warnings, err := s.schedules.AheadOfNight(r.Context(), s.store.Pool(), principalOf(r.Context()).CompanyID, kind, obj["payload"])
		if err != nil {
			writeError(w, r, err)
			return
		}
		s.writeWarnedJob(w, r, http.StatusAccepted, "Accepted.", job.ID, warnings)
		return
	}
	k, _ := s.jobs.Kind(kind)
	s.writeJob(w, r, http.StatusOK, existingRunMessage(job, rerun, k.Rerun), job.ID)
}

// existingRunMessage says that the job answered is a run recorded before
// and that nothing was started: the run of the payload's key (with how to
// run it again), or, to a rerun, the run of the key not finished yet.
func existingRunMessage(job storage.Job, rerun, rerunnable bool) string {
	id := strconv.FormatInt(job.ID, 10)
	switch {
	case rerun && job.Finished():
		return "Job " + id + ", a run of this payload asked at the same time, is " + job.State + "; nothing else was started."
	case rerun:
		return "Job " + id + ", a run of this payload, is " + job.State + "; nothing was started: a run again starts only once it has finished."
	case rerunnable && job.Finished():
		return "Job " + id + " is the run of this payload, " + job.State + "; nothing was started. Send \"rerun\": true to run it again."
	default:
		return "Job " + id + " is the run of this payload, " + job.State + "; nothing was started."
	}
}

// cancelJobOp describes POST /jobs/{id}/cancel.
func cancelJobOp() operation {
	return changeJobOp("Cancel a job",
		"A job not finished yet ends `canceled` (a running one stops at its next chunk): 200 with the job. "+
			"A finished job is a 409.")
}

// cancelJob is POST /jobs/{id}/cancel: a job not yet finished ends
// canceled (a running one stops at its next chunk); a finished one is 409.
func (s *Server) cancelJob(w http.ResponseWriter, r *http.Request) {
	s.changeJob(w, r, "Canceled.", storage.CancelJob)
}

// retryJobOp describes POST /jobs/{id}/retry.
func retryJobOp() operation {
	return changeJobOp("Retry a failed job",
		"A `failed` job runs again from the start: 202 with the job, `pending` again. Any other state is a 409.")
}

// retryJob is POST /jobs/{id}/retry: a failed job runs again from the
// start; any other is 409.
func (s *Server) retryJob(w http.ResponseWriter, r *http.Request) {
	s.changeJob(w, r, "Retrying.", storage.RetryJob)
}

func (s *Server) changeJob(w http.ResponseWriter, r *http.Request, message string,
	change func(ctx context.Context, q storage.DBTX, companyID, id int64) (storage.Job, error)) {
	id, ok := pathID(w, r)
	if !ok {
		return
	}
	job, err := change(r.Context(), s.store.Pool(), principalOf(r.Context()).CompanyID, id)
	if err != nil {
		writeError(w, r, err)
		return
	}
	status := http.StatusOK
	if job.State == storage.JobPending {
		status = http.StatusAccepted
	}
	s.writeJob(w, r, status, message, job.ID)
}

// jobAccepted is the answer of an operation that starts a job: 202, the
// job, and its Location.
func jobAccepted() *openapi.Response {
	r := jsonAnswer("The job was recorded (or, with the same `Idempotency-Key` and body, found): poll its Location.",
		envelope(openapi.Ref(storage.Jobs), true))
	r.Headers = map[string]*openapi.Header{"Location": headerRef("Location")}
	return r
}

// warnedJobAccepted is jobAccepted with the submission's warnings: a run
// of a nightly kind submitted before its night is that night's run.
func warnedJobAccepted() *openapi.Response {
	r := jobAccepted()
	r.Content["application/json"].Schema.Properties["warnings"] = openapi.Array(openapi.Ref("Problem")).WithDescription(
		"What the submission did that its caller may not expect; the job was recorded all the same: a run of a nightly " +
			"kind for a date whose scheduled run has not fired yet is that night's run (docs/jobs.md, \"A run ahead of " +
			"its night\"). Absent when there is none.")
	return r
}

// idempotencyKey is the header that makes a job-starting request
// repeatable.
func idempotencyKey() *openapi.Parameter {
	maxLen := maxIdempotencyKey
	return &openapi.Parameter{Name: "Idempotency-Key", In: "header", Description: "Makes the request repeatable: " +
		"the same key with the same body returns the first job; with another body it is a 422. Printable ASCII, 1 to 255 characters.",
		Schema: &openapi.Schema{Type: "string", MinLength: openapi.Int(1), MaxLength: &maxLen}}
}

// startJobOp describes POST /jobs with one body shape per kind clients
// may start, the payload read from the kind's payload type.
func (s *Server) startJobOp() operation {
	var shapes []*openapi.Schema
	var names []string
	for _, name := range s.jobs.Names() {
		k, _ := s.jobs.Kind(name)
		if !k.Direct {
			continue
		}
		payload, err := reflector.SchemaOf(k.Payload)
		if err != nil {
			panic("api: the payload of job kind " + name + ": " + err.Error())
		}
		names = append(names, "`"+name+"`")
		fields := map[string]*openapi.Schema{"kind": {Const: name}, "payload": payload}
		if k.Rerun {
			fields["rerun"] = &openapi.Schema{Type: "boolean", Description: "Run the payload's key again: a new job, " +
				"once the key's runs have finished."}
		}
		shapes = append(shapes, openapi.Object(fields, "kind"))
	}
	return operation{
		tag:     "jobs",
		summary: "Start a job",
		description: "Records a job of a kind clients may start (" + strings.Join(names, ", ") + ") with its payload " +
			"(docs/jobs.md): a payload that does not fit the kind, or names a record the company does not have, is a 422 " +
			"naming `payload.field`. A kind whose work may happen once per key (a company's run of a date) answers a run " +
			"already recorded for the key with 200 and that job, its `message` saying so; `\"rerun\": true` runs the key " +
			"again as a new job (202) once its runs have finished (while one has not, 200 with it).",
		params: []*openapi.Parameter{idempotencyKey()},
		body:   jsonBody("The kind and its payload.", true, &openapi.Schema{OneOf: shapes}),
		responses: answers(map[int]*openapi.Response{
			http.StatusAccepted: warnedJobAccepted(),
			http.StatusOK: jsonAnswer("A run of the payload's key recorded before; nothing was started (`message` says why).",
				envelope(openapi.Ref(storage.Jobs), true)),
		}, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType, http.StatusUnprocessableEntity),
	}
}

// changeJobOp describes the cancel and retry of a job.
func changeJobOp(summary, description string) operation {
	job := envelope(openapi.Ref(storage.Jobs), true)
	return operation{
		tag: "jobs", summary: summary, description: description,
		responses: answers(map[int]*openapi.Response{
			http.StatusOK:       jsonAnswer("The job, changed.", job),
			http.StatusAccepted: jsonAnswer("The job, pending again.", job),
		}, http.StatusNotFound, http.StatusConflict),
	}
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
