package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/api/openapi"
	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// The companies and their API keys, as operators make and set them
// (docs/operations.md, "Companies and API keys"): a company is created
// explicitly with the settings only operators set (time zone, invoice lead
// days), listed and changed; a key is issued for a company named by id,
// listed without its secret, and revoked at once. Every write is one
// transaction with its row of the audit log, like the job actions.

func (s *Server) operatorCompaniesResource() *storage.Resource {
	return s.store.Registry().MustResource(storage.OperatorCompanies)
}

func (s *Server) operatorKeysResource() *storage.Resource {
	return s.store.Registry().MustResource(storage.OperatorAPIKeys)
}

func operatorCompaniesListOp(reg *storage.Registry, res *storage.Resource) operation {
	op := resourceDoc{reg: reg, res: res, path: "/operator/companies"}.list()
	op.access, op.tag = byOperator, "operators"
	op.summary = "List the companies"
	op.description = "Every company with what operators set on it (`time_zone`, `invoice_lead_days`), with the query " +
		"language: `filter[name]` (`%` patterns), `filter[time_zone]`, `filter[idIn][]`, `sort`, `page`."
	return op
}

func operatorKeysListOp(reg *storage.Registry, res *storage.Resource) operation {
	op := resourceDoc{reg: reg, res: res, path: "/operator/keys"}.list()
	op.access, op.tag = byOperator, "operators"
	op.summary = "List every company's API keys, without their secrets"
	op.description = "Each key's `id`, `company_id`, `name` (its label), `prefix` (the key up to its secret's first 8 " +
		"hex digits; null for keys issued before it was kept), `created_at`, `last_used_at` (written at most once a " +
		"minute per key) and `revoked_at`, with the query language: `filter[company_id]`, `filter[revoked_at|empty]` " +
		"for the keys in force, `filter[prefix]`. Never the secret or its hash."
	return op
}

// operatorCompaniesList is GET /operator/companies.
func (s *Server) operatorCompaniesList(w http.ResponseWriter, r *http.Request) {
	s.operatorList(w, r, s.operatorCompaniesResource())
}

// operatorKeysList is GET /operator/keys.
func (s *Server) operatorKeysList(w http.ResponseWriter, r *http.Request) {
	s.operatorList(w, r, s.operatorKeysResource())
}

// operatorList lists a shared resource with the query language.
func (s *Server) operatorList(w http.ResponseWriter, r *http.Request, res *storage.Resource) {
	q, err := parseList(s.store.Registry(), res, r.URL.RawQuery)
	if err != nil {
		writeError(w, r, err)
		return
	}
	page, err := s.store.List(r.Context(), res, storage.Scope{}, q)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writePage(w, newPageLinks(r.URL.Path, r.URL.RawQuery), q, page)
}

// operatorRecords reads the records of res a filter query selects, as the
// operators' lists show them.
func (s *Server) operatorRecords(ctx context.Context, res *storage.Resource, query string) ([]*storage.Record, error) {
	q, err := parseList(s.store.Registry(), res, query+"&perPage=100")
	if err != nil {
		return nil, err
	}
	page, err := s.store.List(ctx, res, storage.Scope{}, q)
	if err != nil {
		return nil, err
	}
	return page.Records, nil
}

// operatorCompanyRecord is company id as GET /operator/companies lists it.
func (s *Server) operatorCompanyRecord(ctx context.Context, id int64) (*storage.Record, error) {
	recs, err := s.operatorRecords(ctx, s.operatorCompaniesResource(), "filter[id]="+strconv.FormatInt(id, 10))
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, finance.Errorf(finance.NotFound, "No company has the id %d.", id)
	}
	return recs[0], nil
}

func operatorCompanyOp() operation {
	return operation{
		access: byOperator, tag: "operators", summary: "One company, with its API keys",
		description: "The company as `GET /operator/companies` lists it, and its keys as `GET /operator/keys` lists " +
			"them (never their secrets).",
		responses: answers(map[int]*openapi.Response{http.StatusOK: jsonAnswer("The company.", envelope(openapi.Object(
			map[string]*openapi.Schema{"company": openapi.Ref(storage.OperatorCompanies),
				"keys": openapi.Array(openapi.Ref(storage.OperatorAPIKeys))}, "company", "keys"), false))},
			http.StatusNotFound),
	}
}

// operatorCompany is GET /operator/companies/{id}.
func (s *Server) operatorCompany(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r)
	if !ok {
		return
	}
	rec, err := s.operatorCompanyRecord(r.Context(), id)
	if err != nil {
		writeError(w, r, err)
		return
	}
	keys, err := s.companyKeys(r.Context(), id)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, dataEnvelope{Return: true, Status: http.StatusOK,
		Data: map[string]any{"company": rec, "keys": keys}})
}

// companyKeys are the keys of company id as GET /operator/keys lists them,
// every one (a page of 100 at a time).
func (s *Server) companyKeys(ctx context.Context, id int64) ([]*storage.Record, error) {
	res := s.operatorKeysResource()
	out := []*storage.Record{}
	for page := 1; ; page++ {
		recs, err := s.operatorRecords(ctx, res, fmt.Sprintf("filter[company_id]=%d&sort=id&page=%d", id, page))
		if err != nil {
			return nil, err
		}
		out = append(out, recs...)
		if len(recs) < 100 {
			return out, nil
		}
	}
}

// companyFields are the body's fields of a company, with their schemas.
func companyFields() map[string]*openapi.Schema {
	return map[string]*openapi.Schema{
		"name": openapi.String().WithDescription("The company's name; another company's, even but for case, accents " +
			"and spaces, is a 409."),
		"time_zone": openapi.String().WithDescription("A zone of the tz database (`America/Sao_Paulo`, " +
			"`America/Manaus`): the company's dates, its nightly runs' times. Default America/Sao_Paulo."),
		"invoice_lead_days": (&openapi.Schema{Type: "integer", Minimum: json.Number(strconv.Itoa(storage.MinInvoiceLeadDays)),
			Maximum: json.Number(strconv.Itoa(storage.MaxInvoiceLeadDays))}).WithDescription("How many days before its due date " +
			"the nightly run bills an invoice. Default 30."),
		"reason": (&openapi.Schema{Type: "string", MaxLength: openapi.Int(maxOperatorReason)}).WithDescription(
			"Why; recorded in the audit log."),
	}
}

// companyAnswer is the answer of a company's write.
func companyAnswer() *openapi.Schema {
	return envelope(openapi.Object(map[string]*openapi.Schema{"company": openapi.Ref(storage.OperatorCompanies),
		"changed": (&openapi.Schema{Type: "object", AdditionalProperties: openapi.Array(openapi.Any())}).
			WithDescription("Each field changed: its value before and after."), "audit_id": openapi.Nullable(openapi.Integer())},
		"company", "changed", "audit_id"), true)
}

func postCompanyOp() operation {
	return operation{
		access: byOperator, tag: "operators", summary: "Create a company",
		description: "Makes a company, with its first user (`Administrator`, whom its keys belong to), its time zone " +
			"and invoice lead days; `name` and `reason` are required. One transaction with the audit row " +
			"(`companies.create`). Its API keys are issued with `POST /operator/companies/{id}/keys`.",
		body: jsonBody("The company.", true, openapi.Object(companyFields(), "name", "reason")),
		responses: answers(map[int]*openapi.Response{http.StatusCreated: jsonAnswer("The company made.", companyAnswer())},
			http.StatusConflict, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType, http.StatusUnprocessableEntity),
	}
}

func putCompanyOp() operation {
	return operation{
		access: byOperator, tag: "operators", summary: "Change a company's name, time zone or invoice lead days",
		description: "Changes the fields given (`reason` is required) and answers the company with `changed`, each " +
			"field changed with its value before and after (`{\"time_zone\": [\"America/Sao_Paulo\", " +
			"\"America/Manaus\"]}`). One transaction with the audit row (`companies.update`); nothing changed, no row. " +
			"A new time zone moves the company's nightly runs to that zone's times from the next one.",
		body: jsonBody("What to change.", true, openapi.Object(companyFields(), "reason")),
		responses: answers(map[int]*openapi.Response{http.StatusOK: jsonAnswer("The company.", companyAnswer())},
			http.StatusNotFound, http.StatusConflict, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType,
			http.StatusUnprocessableEntity),
	}
}

// companyRequest is the body of a company's create or update.
type companyRequest struct {
	storage.CompanySettings
	Reason string
}

// readCompanyRequest reads {name, time_zone, invoice_lead_days, reason};
// every problem is named.
func readCompanyRequest(w http.ResponseWriter, r *http.Request) (companyRequest, error) {
	var req companyRequest
	obj, problems, err := readObject(w, r)
	if err != nil {
		return req, err
	}
	for _, key := range sortedKeys(obj) {
		raw := obj[key]
		var bad string
		switch key {
		case "name":
			bad = decodeString(raw, &req.Name)
		case "time_zone":
			bad = decodeString(raw, &req.TimeZone)
		case "invoice_lead_days":
			var n int
			if json.Unmarshal(raw, &n) != nil {
				bad = fmt.Sprintf("must be a whole number of days from %d to %d", storage.MinInvoiceLeadDays, storage.MaxInvoiceLeadDays)
			} else {
				req.InvoiceLeadDays = &n
			}
		case "reason":
			if json.Unmarshal(raw, &req.Reason) != nil {
				bad = "must be a string"
			}
		default:
			bad = "unknown field"
		}
		if bad != "" {
			problems = append(problems, finance.Problem{Field: key, Message: bad})
		}
	}
	if msg := checkReason(&req.Reason); msg != "" {
		problems = append(problems, finance.Problem{Field: "reason", Message: msg})
	}
	if len(problems) > 0 {
		return req, finance.InvalidInput(problems)
	}
	return req, nil
}

// decodeString reads a JSON string of text into *dst.
func decodeString(raw json.RawMessage, dst **string) string {
	var s string
	if json.Unmarshal(raw, &s) != nil || !validText(s) {
		return "must be a string"
	}
	*dst = &s
	return ""
}

// checkReason trims an operator write's reason and says what is wrong
// with it, "" when nothing.
func checkReason(reason *string) string {
	*reason = strings.TrimSpace(*reason)
	if *reason == "" || len(*reason) > maxOperatorReason || !validText(*reason) {
		return "is required: 1 to 500 bytes of text saying why"
	}
	return ""
}

// postCompany is POST /operator/companies.
func (s *Server) postCompany(w http.ResponseWriter, r *http.Request) {
	req, err := readCompanyRequest(w, r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	ctx := r.Context()
	var c storage.CompanyRecord
	var auditID int64
	err = pgx.BeginFunc(ctx, s.store.Pool(), func(tx pgx.Tx) error {
		var err error
		if c, err = storage.CreateCompany(ctx, tx, req.CompanySettings); err != nil {
			return err
		}
		auditID, err = storage.RecordAudit(ctx, tx, storage.AuditEntry{Operator: operatorOf(ctx), Action: "companies.create",
			Reason: req.Reason, Count: 1, Selection: storage.CompanyCreatedSelection(c)})
		return err
	})
	if err != nil {
		writeError(w, r, err)
		return
	}
	s.writeCompany(w, r, http.StatusCreated, fmt.Sprintf("Company %d created.", c.ID), c.ID, map[string][2]any{}, &auditID)
}

// putCompany is PUT /operator/companies/{id}.
func (s *Server) putCompany(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r)
	if !ok {
		return
	}
	req, err := readCompanyRequest(w, r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	ctx := r.Context()
	var changed map[string][2]any
	var auditID *int64
	err = pgx.BeginFunc(ctx, s.store.Pool(), func(tx pgx.Tx) error {
		before, after, err := storage.UpdateCompany(ctx, tx, id, req.CompanySettings)
		if err != nil {
			return err
		}
		if changed = storage.CompanyChanges(before, after); len(changed) == 0 {
			return nil
		}
		a, err := storage.RecordAudit(ctx, tx, storage.AuditEntry{Operator: operatorOf(ctx), Action: "companies.update",
			Reason: req.Reason, Count: 1, Selection: storage.CompanyChangeSelection(id, changed)})
		auditID = &a
		return err
	})
	if err != nil {
		writeError(w, r, err)
		return
	}
	msg := fmt.Sprintf("Company %d updated.", id)
	if len(changed) == 0 {
		msg = fmt.Sprintf("Company %d has these settings already; nothing was changed.", id)
	}
	s.writeCompany(w, r, http.StatusOK, msg, id, changed, auditID)
}

// writeCompany answers a company's write with the company as listed.
func (s *Server) writeCompany(w http.ResponseWriter, r *http.Request, status int, msg string, id int64,
	changed map[string][2]any, auditID *int64) {
	rec, err := s.operatorCompanyRecord(r.Context(), id)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, status, dataEnvelope{Return: true, Status: status, Message: msg,
		Data: map[string]any{"company": rec, "changed": changed, "audit_id": auditID}})
}

func postKeyOp() operation {
	return operation{
		access: byOperator, tag: "operators", summary: "Issue an API key for a company",
		description: "Issues a key for the company's first user; `name` (the key's label, default `operator`) and " +
			"`reason` are taken. The answer holds `key`, the only time it is shown: the database keeps its hash. One " +
			"transaction with the audit row (`keys.create`). A company that does not exist is a 404.",
		body: jsonBody("The key's label and why.", true, openapi.Object(map[string]*openapi.Schema{
			"name": openapi.String(),
			"reason": (&openapi.Schema{Type: "string", MaxLength: openapi.Int(maxOperatorReason)}).WithDescription(
				"Why; recorded in the audit log."),
		}, "reason")),
		responses: answers(map[int]*openapi.Response{http.StatusCreated: jsonAnswer("The key, shown once.", envelope(
			openapi.Object(map[string]*openapi.Schema{"key": openapi.String(), "api_key": openapi.Ref(storage.OperatorAPIKeys),
				"audit_id": openapi.Integer()}, "key", "api_key", "audit_id"), true))},
			http.StatusNotFound, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType, http.StatusUnprocessableEntity),
	}
}

// keyRequest is the body of a key's issue or revocation.
type keyRequest struct {
	Name   string
	Reason string
}

func readKeyRequest(w http.ResponseWriter, r *http.Request, withName bool) (keyRequest, error) {
	req := keyRequest{Name: "operator"}
	obj, problems, err := readObject(w, r)
	if err != nil {
		return req, err
	}
	for _, key := range sortedKeys(obj) {
		var bad string
		switch {
		case key == "name" && withName:
			if json.Unmarshal(obj[key], &req.Name) != nil || !validText(req.Name) {
				bad = "must be a string"
			} else {
				bad = storage.CheckKeyLabel(req.Name)
			}
		case key == "reason":
			if json.Unmarshal(obj[key], &req.Reason) != nil {
				bad = "must be a string"
			}
		default:
			bad = "unknown field"
		}
		if bad != "" {
			problems = append(problems, finance.Problem{Field: key, Message: bad})
		}
	}
	if msg := checkReason(&req.Reason); msg != "" {
		problems = append(problems, finance.Problem{Field: "reason", Message: msg})
	}
	if len(problems) > 0 {
		return req, finance.InvalidInput(problems)
	}
	return req, nil
}

// postKey is POST /operator/companies/{id}/keys.
func (s *Server) postKey(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r)
	if !ok {
		return
	}
	req, err := readKeyRequest(w, r, true)
	if err != nil {
		writeError(w, r, err)
		return
	}
	ctx := r.Context()
	var key storage.NewAPIKey
	var auditID int64
	err = pgx.BeginFunc(ctx, s.store.Pool(), func(tx pgx.Tx) error {
		var err error
		if key, err = storage.IssueAPIKey(ctx, tx, id, req.Name); err != nil {
			return err
		}
		auditID, err = storage.RecordAudit(ctx, tx, storage.AuditEntry{Operator: operatorOf(ctx), Action: "keys.create",
			Reason: req.Reason, Count: 1, Selection: storage.KeySelection(id, key.KeyID, strings.TrimSpace(req.Name))})
		return err
	})
	if err != nil {
		writeError(w, r, err)
		return
	}
	rec, err := s.operatorKeyRecord(ctx, key.KeyID)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, dataEnvelope{Return: true, Status: http.StatusCreated,
		Message: fmt.Sprintf("Key %d issued for company %d; it is shown this once.", key.KeyID, id),
		Data:    map[string]any{"key": key.Key, "api_key": rec, "audit_id": auditID}})
}

// operatorKeyRecord is key id as GET /operator/keys lists it.
func (s *Server) operatorKeyRecord(ctx context.Context, id int64) (*storage.Record, error) {
	company, err := storage.KeyCompany(ctx, s.store.Pool(), id)
	if err != nil {
		return nil, err
	}
	recs, err := s.operatorRecords(ctx, s.operatorKeysResource(),
		fmt.Sprintf("filter[company_id]=%d&filter[id]=%d", company, id))
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, finance.Errorf(finance.NotFound, "No API key has the id %d.", id)
	}
	return recs[0], nil
}

func revokeKeyOp() operation {
	return operation{
		access: byOperator, tag: "operators", summary: "Revoke an API key",
		description: "Revokes the key: from the commit, every API process answers it 401 (each is told through " +
			"PostgreSQL and forgets it; one that was not listening then forgets it within `PROPFIN_AUTH_CACHE_TTL`). " +
			"`reason` is required; one transaction with the audit row (`keys.revoke`). A key revoked already is " +
			"answered as it is, with `revoked` false and no audit row.",
		body: jsonBody("Why.", true, openapi.Object(map[string]*openapi.Schema{
			"reason": (&openapi.Schema{Type: "string", MaxLength: openapi.Int(maxOperatorReason)}),
		}, "reason")),
		responses: answers(map[int]*openapi.Response{http.StatusOK: jsonAnswer("The key.", envelope(
			openapi.Object(map[string]*openapi.Schema{"api_key": openapi.Ref(storage.OperatorAPIKeys),
				"revoked": openapi.Boolean(), "audit_id": openapi.Nullable(openapi.Integer())},
				"api_key", "revoked", "audit_id"), true))},
			http.StatusNotFound, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType, http.StatusUnprocessableEntity),
	}
}

// revokeKey is POST /operator/keys/{id}/revoke.
func (s *Server) revokeKey(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r)
	if !ok {
		return
	}
	req, err := readKeyRequest(w, r, false)
	if err != nil {
		writeError(w, r, err)
		return
	}
	ctx := r.Context()
	company, err := storage.KeyCompany(ctx, s.store.Pool(), id)
	if err != nil {
		writeError(w, r, err)
		return
	}
	var revoked bool
	var auditID *int64
	err = pgx.BeginFunc(ctx, s.store.Pool(), func(tx pgx.Tx) error {
		var err error
		if _, revoked, err = storage.RevokeAPIKey(ctx, tx, company, id); err != nil || !revoked {
			return err
		}
		a, err := storage.RecordAudit(ctx, tx, storage.AuditEntry{Operator: operatorOf(ctx), Action: "keys.revoke",
			Reason: req.Reason, Count: 1, Selection: storage.KeySelection(company, id, "")})
		auditID = &a
		return err
	})
	if err != nil {
		writeError(w, r, err)
		return
	}
	s.auth.forget(company, id) // this process at once; the others on the notification
	rec, err := s.operatorKeyRecord(ctx, id)
	if err != nil {
		writeError(w, r, err)
		return
	}
	msg := fmt.Sprintf("Key %d of company %d revoked.", id, company)
	if !revoked {
		msg = fmt.Sprintf("Key %d of company %d was revoked already; nothing was changed.", id, company)
	}
	writeJSON(w, http.StatusOK, dataEnvelope{Return: true, Status: http.StatusOK, Message: msg,
		Data: map[string]any{"api_key": rec, "revoked": revoked, "audit_id": auditID}})
}
