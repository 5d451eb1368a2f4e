package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/julienschmidt/httprouter"

	"github.com/propfin/propfin/api/openapi"
	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/jobs"
	"github.com/propfin/propfin/storage"
)

// The nightly runs at a glance (docs/operations.md, "Nightly runs"): each
// schedule with its spec, zone rule and next runs, and per company its run
// of a date and its last run; a run made by hand for a date, for one or
// every company.

// zoneRule is how every schedule reads its spec.
const zoneRule = "Fires at the spec's times in each company's time zone (companies.time_zone; a zone unknown " +
	"runs on America/Sao_Paulo's times), once per company and local date."

// scheduleCompanyJSON is a company's part of a schedule.
type scheduleCompanyJSON struct {
	CompanyID int64        `json:"company_id"`
	Name      string       `json:"name"`
	TimeZone  string       `json:"time_zone"`
	State     string       `json:"state"`
	JobID     *int64       `json:"job_id"`
	Error     *string      `json:"error"`
	LastRun   *lastRunJSON `json:"last_run"`
	FiresAt   *string      `json:"fires_at"`
}

// lastRunJSON is the latest run of a schedule's kind for a company.
type lastRunJSON struct {
	Key             string  `json:"key"`
	JobID           int64   `json:"job_id"`
	State           string  `json:"state"`
	StartedAt       *string `json:"started_at"`
	FinishedAt      *string `json:"finished_at"`
	DurationSeconds float64 `json:"duration_seconds"`
}

// nextRunJSON is a schedule's next firing in a zone companies are in.
type nextRunJSON struct {
	TimeZone string `json:"time_zone"`
	At       string `json:"at"`
}

type scheduleJSON struct {
	Name      string                `json:"name"`
	Spec      string                `json:"spec"`
	Kind      string                `json:"kind"`
	Override  string                `json:"override"`
	ZoneRule  string                `json:"zone_rule"`
	NextRuns  []nextRunJSON         `json:"next_runs"`
	Date      string                `json:"date"`
	Companies []scheduleCompanyJSON `json:"companies"`
	Missing   []int64               `json:"missing"`
	Failed    []int64               `json:"failed"`
}

func utcText(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := t.UTC().Format(time.DateTime)
	return &s
}

func operatorSchedulesOp() operation {
	run := openapi.Object(map[string]*openapi.Schema{"key": openapi.String(), "job_id": openapi.Integer(),
		"state": openapi.String(), "started_at": openapi.Nullable(openapi.String()),
		"finished_at": openapi.Nullable(openapi.String()), "duration_seconds": openapi.Number()},
		"key", "job_id", "state", "started_at", "finished_at", "duration_seconds")
	company := openapi.Object(map[string]*openapi.Schema{"company_id": openapi.Integer(), "name": openapi.String(),
		"time_zone": openapi.String(), "state": openapi.Enum(jobs.NightSucceeded, jobs.NightFailed, jobs.NightCanceled,
			jobs.NightRunning, jobs.NightMissing, jobs.NightDue, jobs.NightNone),
		"job_id": openapi.Nullable(openapi.Integer()), "error": openapi.Nullable(openapi.String()),
		"last_run": openapi.Nullable(run), "fires_at": openapi.Nullable(openapi.String())},
		"company_id", "name", "time_zone", "state", "job_id", "error", "last_run", "fires_at")
	schedule := openapi.Object(map[string]*openapi.Schema{"name": openapi.String(), "spec": openapi.String(),
		"kind": openapi.String(), "override": openapi.String(), "zone_rule": openapi.String(),
		"next_runs": openapi.Array(openapi.Object(map[string]*openapi.Schema{"time_zone": openapi.String(), "at": openapi.String()}, "time_zone", "at")),
		"date":      openapi.String(), "companies": openapi.Array(company),
		"missing": openapi.Array(openapi.Integer()), "failed": openapi.Array(openapi.Integer())},
		"name", "spec", "kind", "override", "zone_rule", "next_runs", "date", "companies", "missing", "failed")
	return operation{
		access: byOperator, tag: "operators", summary: "The schedules and every company's runs of a date",
		description: "Each schedule in force: its cron spec, the variable that overrides it, the zone rule, its next " +
			"run in each zone companies are in (UTC), and per company the state of its run of `date` (`succeeded`, " +
			"`failed`, `canceled`, `running`, `missing`: fired and no run, `due`: not fired yet, `none`: the schedule " +
			"does not fire that date or the company did not exist then) and its last run (the highest key: its date or " +
			"month, state, times and duration). `missing` and `failed` list the companies whose run of the date is " +
			"missing or failed. `date` is a company's local date, `YYYY-MM-DD`; today in America/Sao_Paulo unless given.",
		params: []*openapi.Parameter{queryParam("date", "The local date, YYYY-MM-DD.", openapi.String())},
		responses: answers(map[int]*openapi.Response{http.StatusOK: jsonAnswer("The schedules.",
			envelope(openapi.Array(schedule), false))}, http.StatusUnprocessableEntity),
	}
}

// operatorDate reads the date parameter of the schedules' routes; today
// in the default zone unless given.
func operatorDate(raw string, now time.Time) (string, error) {
	if raw == "" {
		loc, _ := time.LoadLocation(jobs.DefaultTimeZone)
		return now.In(loc).Format(time.DateOnly), nil
	}
	if _, err := time.Parse(time.DateOnly, raw); err != nil {
		return "", finance.InvalidInput([]finance.Problem{{Field: "date", Message: "must be a date, YYYY-MM-DD"}})
	}
	return raw, nil
}

// operatorSchedules is GET /operator/schedules.
func (s *Server) operatorSchedules(w http.ResponseWriter, r *http.Request) {
	now := time.Now()
	date, err := operatorDate(r.URL.Query().Get("date"), now)
	if err != nil {
		writeError(w, r, err)
		return
	}
	for key := range r.URL.Query() {
		if key != "date" && key != "_" {
			writeError(w, r, finance.InvalidInput([]finance.Problem{{Field: key, Message: "unknown query parameter"}}))
			return
		}
	}
	out, err := s.scheduleViews(r, date, now)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, dataEnvelope{Return: true, Status: http.StatusOK, Data: out})
}

// scheduleViews builds every schedule's view of date.
func (s *Server) scheduleViews(r *http.Request, date string, now time.Time) ([]scheduleJSON, error) {
	ctx := r.Context()
	nights, companies, err := s.schedules.Nights(ctx, s.store.Pool(), []string{date}, now)
	if err != nil {
		return nil, err
	}
	zones := map[string]*time.Location{}
	for _, c := range companies {
		if _, ok := zones[c.TimeZone]; !ok {
			if loc, err := time.LoadLocation(c.TimeZone); err == nil {
				zones[c.TimeZone] = loc
			}
		}
	}
	var out []scheduleJSON
	for _, sch := range s.schedules.Schedules() {
		v := scheduleJSON{Name: sch.Name, Spec: sch.Spec, Kind: sch.Kind, Override: sch.EnvName(), ZoneRule: zoneRule,
			Date: date, NextRuns: []nextRunJSON{}, Missing: []int64{}, Failed: []int64{}, Companies: []scheduleCompanyJSON{}}
		for _, zone := range sortedZones(zones) {
			for _, t := range s.schedules.Next(sch.Name, zones[zone], now, 1) {
				v.NextRuns = append(v.NextRuns, nextRunJSON{TimeZone: zone, At: t.UTC().Format(time.DateTime)})
			}
		}
		last, err := s.lastRuns(r, sch)
		if err != nil {
			return nil, err
		}
		byCompany := map[int64]storage.CompanyInfo{}
		for _, c := range companies {
			byCompany[c.ID] = c
		}
		for _, n := range nights {
			if n.Schedule != sch.Name {
				continue
			}
			c := byCompany[n.CompanyID]
			cj := scheduleCompanyJSON{CompanyID: c.ID, Name: c.Name, TimeZone: c.TimeZone, State: n.State, LastRun: last[c.ID]}
			if !n.FiresAt.IsZero() {
				cj.FiresAt = utcText(&n.FiresAt)
			}
			if n.Run != nil {
				cj.JobID = &n.Run.JobID
				if n.Run.Error != "" {
					cj.Error = &n.Run.Error
				}
			}
			switch n.State {
			case jobs.NightMissing:
				v.Missing = append(v.Missing, c.ID)
			case jobs.NightFailed:
				v.Failed = append(v.Failed, c.ID)
			}
			v.Companies = append(v.Companies, cj)
		}
		out = append(out, v)
	}
	return out, nil
}

// lastRuns are the last runs of a schedule's kind by company: the runs of
// the highest key shaped like the schedule's keys.
func (s *Server) lastRuns(r *http.Request, sch jobs.Schedule) (map[int64]*lastRunJSON, error) {
	_, _, key, err := s.schedules.RunOf(sch.Name, "2026-01-15")
	if err != nil {
		return nil, err
	}
	like := strings.Map(func(c rune) rune {
		if c >= '0' && c <= '9' {
			return '_'
		}
		return c
	}, key)
	runs, err := storage.LastKeyRuns(r.Context(), s.store.Pool(), sch.Kind, like)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	out := make(map[int64]*lastRunJSON, len(runs))
	for _, run := range runs {
		out[run.CompanyID] = &lastRunJSON{Key: run.Key, JobID: run.JobID, State: run.State,
			StartedAt: utcText(run.StartedAt), FinishedAt: utcText(run.FinishedAt),
			DurationSeconds: run.Duration(now).Round(time.Millisecond).Seconds()}
	}
	return out, nil
}

func sortedZones(zones map[string]*time.Location) []string {
	out := make([]string, 0, len(zones))
	for z := range zones {
		out = append(out, z)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func runScheduleOp(names []string) operation {
	outcome := openapi.Object(map[string]*openapi.Schema{"company_id": openapi.Integer(), "job_id": openapi.Integer(),
		"outcome": openapi.Enum("created", "existing"), "state": openapi.String()}, "company_id", "job_id", "outcome", "state")
	return operation{
		access: byOperator, tag: "operators", summary: "Run a schedule for a date, for one or every company",
		description: "Records the schedule's run of `date` (the payload the scheduler would make) for `company_id`, or " +
			"for every company when it is left out, as the scheduler would: a run of the date recorded already is " +
			"answered as `existing` and nothing is started, unless `rerun` is true, which makes a new run of the kinds " +
			"that allow it (the nightly and monthly ones) once the date's runs have finished (a run not finished is " +
			"answered as `existing`). `reason` is required; the action is recorded in the audit log (`schedules.run`). " +
			"A run created for a date whose scheduled run has not fired yet on its company's clock (today before the " +
			"schedule's time, or tomorrow) is that night's run: `warnings` says so, as `POST /jobs` does.",
		pathParams: map[string]*openapi.Parameter{"name": {Description: "The schedule.", Schema: openapi.Enum(names...)}},
		body: jsonBody("What to run.", true, openapi.Object(map[string]*openapi.Schema{
			"date": openapi.String(), "company_id": openapi.Integer(), "rerun": openapi.Boolean(),
			"reason": (&openapi.Schema{Type: "string", MaxLength: openapi.Int(maxOperatorReason)}),
		}, "date", "reason")),
		responses: answers(map[int]*openapi.Response{http.StatusOK: jsonAnswer("Each company's run.",
			warned(envelope(openapi.Object(map[string]*openapi.Schema{"schedule": openapi.String(), "date": openapi.String(),
				"created": openapi.Integer(), "runs": openapi.Array(outcome), "audit_id": openapi.Integer()},
				"schedule", "date", "created", "runs", "audit_id"), true)))},
			http.StatusNotFound, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType, http.StatusUnprocessableEntity),
	}
}

// warned adds to an answer's envelope the warnings of runs made ahead of
// their night.
func warned(env *openapi.Schema) *openapi.Schema {
	env.Properties["warnings"] = openapi.Array(openapi.Ref("Problem")).WithDescription(
		"The runs created for a date whose scheduled run has not fired yet, which are that night's runs (docs/jobs.md, " +
			"\"A run ahead of its night\"): one warning on `date` per schedule and message, naming the companies when the " +
			"request named none. Absent when there is none.")
	return env
}

// runRequest is the body of POST /operator/schedules/{name}/run.
type runRequest struct {
	Date      string
	CompanyID int64 // 0: every company
	Rerun     bool
	Reason    string
}

func readRunRequest(w http.ResponseWriter, r *http.Request) (runRequest, error) {
	var req runRequest
	obj, problems, err := readObject(w, r)
	if err != nil {
		return req, err
	}
	for _, key := range sortedKeys(obj) {
		raw := obj[key]
		var bad string
		switch key {
		case "date":
			if json.Unmarshal(raw, &req.Date) != nil {
				bad = "must be a date, YYYY-MM-DD"
			} else if _, err := time.Parse(time.DateOnly, req.Date); err != nil {
				bad = "must be a date, YYYY-MM-DD"
			}
		case "company_id":
			if json.Unmarshal(raw, &req.CompanyID) != nil || req.CompanyID <= 0 {
				bad = "must be a company id"
			}
		case "rerun":
			if json.Unmarshal(raw, &req.Rerun) != nil {
				bad = "must be true or false"
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
	if _, ok := obj["date"]; !ok {
		problems = append(problems, finance.Problem{Field: "date", Message: "is required"})
	}
	req.Reason = strings.TrimSpace(req.Reason)
	if req.Reason == "" || len(req.Reason) > maxOperatorReason || !validText(req.Reason) {
		problems = append(problems, finance.Problem{Field: "reason", Message: "is required: 1 to 500 bytes of text saying why"})
	}
	if len(problems) > 0 {
		return req, finance.InvalidInput(problems)
	}
	return req, nil
}

// runOutcome is what a company's run became.
type runOutcome struct {
	CompanyID int64  `json:"company_id"`
	JobID     int64  `json:"job_id"`
	Outcome   string `json:"outcome"`
	State     string `json:"state"`
}

// runSchedule is POST /operator/schedules/{name}/run.
func (s *Server) runSchedule(w http.ResponseWriter, r *http.Request) {
	name := httprouter.ParamsFromContext(r.Context()).ByName("name")
	if _, _, _, err := s.schedules.RunOf(name, "2026-01-15"); finance.ErrorCode(err) == finance.NotFound {
		writeError(w, r, err)
		return
	}
	req, err := readRunRequest(w, r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	runs, warnings, auditID, err := s.submitRuns(r, name, req)
	if err != nil {
		writeError(w, r, err)
		return
	}
	created := 0
	for _, o := range runs {
		if o.Outcome == "created" {
			created++
		}
	}
	answer := dataEnvelope{Return: true, Status: http.StatusOK,
		Message: fmt.Sprintf("%s created, %d existing.", finance.Count(created, "run", "runs"), len(runs)-created),
		Data:    map[string]any{"schedule": name, "date": req.Date, "created": created, "runs": runs, "audit_id": auditID}}
	answer.Warnings = warnings
	writeJSON(w, http.StatusOK, answer)
}

// aheadCompaniesListed is how many companies a warning of runs ahead of
// their night names; it says how many more.
const aheadCompaniesListed = 20

// aheadWarnings gathers the warnings of the runs created ahead of their
// night (jobs.Scheduler.AheadOfNight, each company's) on the body's date:
// one per distinct message, in order, naming its companies unless the
// request named the company (then it is the warning POST /jobs answers).
type aheadWarnings struct {
	named     bool
	messages  []string
	companies map[string][]int64
}

func (a *aheadWarnings) add(company int64, problems []finance.Problem) {
	if a.companies == nil {
		a.companies = map[string][]int64{}
	}
	for _, p := range problems {
		if _, seen := a.companies[p.Message]; !seen {
			a.messages = append(a.messages, p.Message)
		}
		a.companies[p.Message] = append(a.companies[p.Message], company)
	}
}

func (a *aheadWarnings) problems() []finance.Problem {
	var out []finance.Problem
	for _, m := range a.messages {
		if !a.named {
			m = "for " + companiesText(a.companies[m]) + ": " + m
		}
		out = append(out, finance.Problem{Field: "date", Message: m})
	}
	return out
}

// companiesText names companies, at most aheadCompaniesListed of them:
// "company 3", "companies 3, 4 and 7", "25 companies: 3, 4, ... and 5
// more".
func companiesText(ids []int64) string {
	shown := ids[:min(len(ids), aheadCompaniesListed)]
	parts := make([]string, len(shown))
	for i, id := range shown {
		parts[i] = strconv.FormatInt(id, 10)
	}
	switch {
	case len(ids) == 1:
		return "company " + parts[0]
	case len(ids) > len(shown):
		return fmt.Sprintf("%d companies: %s and %d more", len(ids), strings.Join(parts, ", "), len(ids)-len(shown))
	default:
		return "companies " + strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
	}
}

// submitRuns records the runs of a schedule's date for the companies of
// req in one transaction, with the audit row, and answers the warnings of
// those created ahead of their night.
func (s *Server) submitRuns(r *http.Request, name string, req runRequest) ([]runOutcome, []finance.Problem, int64, error) {
	ctx := r.Context()
	operator := operatorOf(ctx)
	var runs []runOutcome
	var auditID int64
	var ahead aheadWarnings
	kind, payload, _, err := s.schedules.RunOf(name, req.Date)
	if err != nil {
		return nil, nil, 0, err
	}
	err = pgx.BeginFunc(ctx, s.store.Pool(), func(tx pgx.Tx) error {
		ahead = aheadWarnings{named: req.CompanyID != 0}
		companies, err := storage.Companies(ctx, tx)
		if err != nil {
			return err
		}
		var ids []int64
		for _, c := range companies {
			if req.CompanyID == 0 || c.ID == req.CompanyID {
				ids = append(ids, c.ID)
			}
		}
		if len(ids) == 0 {
			return finance.InvalidInput([]finance.Problem{{Field: "company_id", Message: "no company has this id"}})
		}
		var acted [][2]int64
		for _, id := range ids {
			job, found, err := s.schedules.SubmitRun(ctx, tx, id, name, req.Date, req.Rerun, "operator:"+operator)
			if err != nil {
				return err
			}
			o := runOutcome{CompanyID: id, JobID: job.ID, Outcome: "created", State: job.State}
			if found != storage.FoundNothing {
				o.Outcome = "existing"
			} else {
				acted = append(acted, [2]int64{id, job.ID})
				warnings, err := s.schedules.AheadOfNight(ctx, tx, id, kind.Name, payload)
				if err != nil {
					return err
				}
				ahead.add(id, warnings)
			}
			runs = append(runs, o)
		}
		company := "all"
		if req.CompanyID != 0 {
			company = strconv.FormatInt(req.CompanyID, 10)
		}
		auditID, err = storage.RecordAudit(ctx, tx, storage.AuditEntry{Operator: operator, Action: "schedules.run",
			Reason: req.Reason, Count: len(acted), Jobs: acted,
			Selection: fmt.Sprintf("schedule=%s date=%s company=%s rerun=%t", name, req.Date, company, req.Rerun)})
		return err
	})
	if err != nil {
		return nil, nil, 0, err
	}
	return runs, ahead.problems(), auditID, nil
}

// scheduleNames are the names of the schedules in force.
func (s *Server) scheduleNames() []string {
	var names []string
	for _, sch := range s.schedules.Schedules() {
		names = append(names, sch.Name)
	}
	return names
}
