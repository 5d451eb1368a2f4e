package api

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"time"

	"github.com/propfin/propfin/api/openapi"
	"github.com/propfin/propfin/storage"
)

// The deal-conversion reports of spec 000, GET /deals/conversion/funnel
// and GET /deals/conversion/step-deals (docs/api.md, "Deal-conversion
// reports"): read-only, one SQL statement each.

// Bounds of the step-deals report's deals per step.
const (
	defaultStepDeals = 100
	maxStepDeals     = 1000
)

// reportOp describes a deal-conversion report whose data is data's type;
// withLimit adds the limit parameter.
func reportOp(data any, withLimit bool, summary, description string) operation {
	schema, err := reflector.SchemaFor(data)
	if err != nil {
		panic("api: " + err.Error())
	}
	ids := func(name, what string) *openapi.Parameter {
		return listFilter("filter["+name+"][]", "Deals whose "+what+" is one of the values.", openapi.Integer())
	}
	period := listFilter("filter[period][]", "Deals that entered the funnel (their first step entry, a day in the "+
		"company's time zone) between the two dates, in either order, both included.", &openapi.Schema{Type: "string", Format: "date"})
	period.Schema.MinItems, period.Schema.MaxItems = openapi.Int(2), openapi.Int(2)
	params := []*openapi.Parameter{
		queryParam("filter[funnel_id]", "One funnel only.", openapi.Integer()),
		ids("userIn", "responsible user (`user_id`)"), ids("teamIn", "team (`team_id`)"), period, cacheBuster(),
	}
	if withLimit {
		limit := openapi.Integer()
		limit.Minimum, limit.Maximum, limit.Default = "1", json.Number(strconv.Itoa(maxStepDeals)), defaultStepDeals
		params = append(params, queryParam("limit", "At most that many deals listed per step.", limit))
	}
	return operation{
		tag: "deals/conversion", summary: summary,
		description: description + " Any other parameter is a 422.",
		params:      params,
		responses: answers(map[int]*openapi.Response{http.StatusOK: jsonAnswer("The report.", envelope(schema, false))},
			http.StatusUnprocessableEntity),
	}
}

// reportFilterKey splits filter[name], filter[name][] and filter[name][N].
var reportFilterKey = regexp.MustCompile(`^filter\[([A-Za-z_]+)\](\[[0-9]*\])?$`)

// parseConversion reads a report's query string: filter[funnel_id],
// filter[userIn][], filter[teamIn][], filter[period][] (two dates, in
// either order) and, with withLimit, limit. Anything else is a 422.
func parseConversion(rawQuery string, withLimit bool) (storage.ConversionQuery, error) {
	q := storage.ConversionQuery{Limit: defaultStepDeals}
	p := &queryParser{}
	var period []time.Time
	for _, kv := range p.params(rawQuery) {
		m := reportFilterKey.FindStringSubmatch(kv.key)
		name, list := "", false
		if m != nil {
			name, list = m[1], m[2] != ""
		}
		switch {
		case kv.key == "_":
		case kv.key == "limit" && withLimit:
			if p.once(kv.key) {
				q.Limit = p.positiveInt(kv, maxStepDeals)
			}
		case name == "funnel_id" && !list:
			if id, ok := p.value(kv.key, storage.Int, kv.value); ok && p.once(kv.key) {
				q.FunnelID = id.(int64)
			}
		case name == "userIn" || name == "teamIn":
			if id, ok := p.value(kv.key, storage.Int, kv.value); ok {
				if name == "userIn" {
					q.Users = append(q.Users, id.(int64))
				} else {
					q.Teams = append(q.Teams, id.(int64))
				}
			}
		case name == "period":
			if d, ok := p.value(kv.key, storage.Date, kv.value); ok {
				period = append(period, d.(time.Time))
			}
		default:
			p.fail(kv.key, "unknown query parameter")
		}
	}
	if len(q.Users)+len(q.Teams) > MaxInValues {
		p.fail("filter", "at most %d values in all", MaxInValues)
	}
	switch {
	case len(period) == 2:
		q.From, q.To = period[0], period[1]
		if q.To.Before(q.From) {
			q.From, q.To = q.To, q.From
		}
	case len(period) != 0:
		p.fail("filter[period]", "takes exactly 2 values")
	}
	return q, p.err()
}

// funnelReportOp describes GET /deals/conversion/funnel.
func funnelReportOp() operation {
	return reportOp([]funnelJSON{}, false,
		"Conversion by funnel",
		"One object per funnel (by id), its steps by position: the deals of the report in the funnel, open, won and "+
			"lost; per step the deals that reached it (entered it or a step further on) and those in it, and the "+
			"conversion from the previous step. Rates have 4 places, null where there is nothing to divide by "+
			"(docs/api.md, \"Deal-conversion reports\").")
}

// funnelReport is GET /deals/conversion/funnel.
func (s *Server) funnelReport(w http.ResponseWriter, r *http.Request) {
	q, err := parseConversion(r.URL.RawQuery, false)
	if err != nil {
		writeError(w, r, err)
		return
	}
	funnels, err := s.reads.FunnelReport(r.Context(), principalOf(r.Context()).CompanyID, q)
	if err != nil {
		writeError(w, r, err)
		return
	}
	out := make([]funnelJSON, len(funnels))
	for i, f := range funnels {
		out[i] = funnelJSON{FunnelID: f.FunnelID, Name: f.Name, Deals: f.Deals, Open: f.Open, Won: f.Won, Lost: f.Lost,
			WinRate: rate(f.WinRate), Steps: make([]stepJSON, len(f.Steps))}
		for j, st := range f.Steps {
			out[i].Steps[j] = stepJSON{StepID: st.StepID, Name: st.Name, Position: st.Position, Reached: st.Reached,
				InStep: st.InStep, ConversionRate: rate(st.Rate)}
		}
	}
	writeReport(w, r, out)
}

// stepDealsReportOp describes GET /deals/conversion/step-deals.
func stepDealsReportOp() operation {
	return reportOp([]stepDealsJSON{}, true,
		"The deals in each step",
		"One object per step of each funnel, with the deals of the report whose current step it is, the latest to "+
			"enter it first: `count` is all of them, `deals` the first `limit`.")
}

// stepDealsReport is GET /deals/conversion/step-deals.
func (s *Server) stepDealsReport(w http.ResponseWriter, r *http.Request) {
	q, err := parseConversion(r.URL.RawQuery, true)
	if err != nil {
		writeError(w, r, err)
		return
	}
	steps, err := s.reads.StepDealsReport(r.Context(), principalOf(r.Context()).CompanyID, q)
	if err != nil {
		writeError(w, r, err)
		return
	}
	out := make([]stepDealsJSON, len(steps))
	for i, st := range steps {
		out[i] = stepDealsJSON{FunnelID: st.FunnelID, FunnelName: st.FunnelName, StepID: st.StepID, Name: st.Name,
			Position: st.Position, Count: st.Count, Deals: make([]stepDealJSON, len(st.Deals))}
		for j, d := range st.Deals {
			out[i].Deals[j] = stepDealJSON{ID: d.ID, Title: d.Title, Status: d.Status, UserID: d.UserID, TeamID: d.TeamID,
				EnteredAt: d.EnteredAt.UTC().Format(time.DateTime)}
		}
	}
	writeReport(w, r, out)
}

// The reports' JSON, keys in this order.
type (
	funnelJSON struct {
		FunnelID int64           `json:"funnel_id"`
		Name     string          `json:"name"`
		Deals    int64           `json:"deals"`
		Open     int64           `json:"open"`
		Won      int64           `json:"won"`
		Lost     int64           `json:"lost"`
		WinRate  json.RawMessage `json:"win_rate" openapi:"number,null"`
		Steps    []stepJSON      `json:"steps"`
	}
	stepJSON struct {
		StepID         int64           `json:"step_id"`
		Name           string          `json:"name"`
		Position       int64           `json:"position"`
		Reached        int64           `json:"reached"`
		InStep         int64           `json:"in_step"`
		ConversionRate json.RawMessage `json:"conversion_rate" openapi:"number,null"`
	}
	stepDealsJSON struct {
		FunnelID   int64          `json:"funnel_id"`
		FunnelName string         `json:"funnel_name"`
		StepID     int64          `json:"step_id"`
		Name       string         `json:"name"`
		Position   int64          `json:"position"`
		Count      int64          `json:"count"`
		Deals      []stepDealJSON `json:"deals"`
	}
	stepDealJSON struct {
		ID        int64  `json:"id"`
		Title     string `json:"title"`
		Status    string `json:"status"`
		UserID    *int64 `json:"user_id"`
		TeamID    *int64 `json:"team_id"`
		EnteredAt string `json:"entered_at"`
	}
)

// rate writes a rate's decimal text as a JSON number (exact, never a
// float), null when there is none.
func rate(text string) json.RawMessage {
	if text == "" {
		return json.RawMessage("null")
	}
	return json.RawMessage(text)
}

// writeReport answers {"return":true,"status":200,"data":[...]}.
func writeReport(w http.ResponseWriter, r *http.Request, data any) {
	body, err := json.Marshal(struct {
		Return bool `json:"return"`
		Status int  `json:"status"`
		Data   any  `json:"data"`
	}{true, http.StatusOK, data})
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeRaw(w, http.StatusOK, body)
}
