package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"testing"
)

// dealSet is two funnels with their steps and five deals moved through
// them by the API (so the step history is the hook's).
type dealSet struct {
	*testEnv
	u1, u2, team1, team2 int64
	f1, s1, s2, s3       int64
	f2, t1               int64
	a, b, c, d, e        int64
}

// seedDeals makes funnel 1 (steps 1, 2, 3) and funnel 2 (one step), and
// deals: a, through steps 1, 2 and 3 and won (u1, team 1); b, steps 1 and
// 2, open (u2, team 1); c, step 1, lost (u1, team 2), entered 2024-01-10;
// d, created at step 2 (u2, no team); e, in funnel 2.
func seedDeals(t *testing.T) *dealSet {
	t.Helper()
	s := &dealSet{testEnv: setup(t)}
	s.u1 = s.scalar(t, `SELECT min(id) FROM users WHERE company_id = $1`, s.compA)
	s.u2 = s.scalar(t, `INSERT INTO users (company_id, name) VALUES ($1, 'Bia') RETURNING id`, s.compA)
	s.team1 = s.scalar(t, `INSERT INTO teams (company_id, name) VALUES ($1, 'Locação') RETURNING id`, s.compA)
	s.team2 = s.scalar(t, `INSERT INTO teams (company_id, name) VALUES ($1, 'Vendas') RETURNING id`, s.compA)
	s.f1 = s.create(t, "/funnels", map[string]any{"name": "Vendas"})
	steps := func(funnel int64) string { return fmt.Sprintf("/funnels/%d/steps", funnel) }
	s.s1 = s.create(t, steps(s.f1), map[string]any{"name": "Contato", "position": 1})
	s.s3 = s.create(t, steps(s.f1), map[string]any{"name": "Fechamento", "position": 3})
	s.s2 = s.create(t, steps(s.f1), map[string]any{"name": "Visita", "position": 2})
	s.f2 = s.create(t, "/funnels", map[string]any{"name": "Locação"})
	s.t1 = s.create(t, steps(s.f2), map[string]any{"name": "Triagem", "position": 1})
	deal := func(title string, step int64, more map[string]any) int64 {
		body := map[string]any{"title": title, "funnel_id": s.f1, "step_id": step}
		for k, v := range more {
			body[k] = v
		}
		return s.create(t, "/deals", body)
	}
	move := func(id int64, body map[string]any) {
		if r := s.do(t, http.MethodPut, fmt.Sprintf("/deals/%d", id), s.keyA, body); r.status != http.StatusOK {
			t.Fatalf("move deal %d: %d %s", id, r.status, r.raw)
		}
	}
	s.a = deal("A", s.s1, map[string]any{"user_id": s.u1, "team_id": s.team1})
	move(s.a, map[string]any{"step_id": s.s2})
	move(s.a, map[string]any{"step_id": s.s3, "status": "won"})
	s.b = deal("B", s.s1, map[string]any{"user_id": s.u2, "team_id": s.team1})
	move(s.b, map[string]any{"step_id": s.s2})
	s.c = deal("C", s.s1, map[string]any{"user_id": s.u1, "team_id": s.team2, "status": "lost"})
	s.exec(t, `UPDATE deal_step_history SET entered_at = '2024-01-10 15:00:00+00' WHERE deal_id = $1`, s.c)
	s.d = deal("D", s.s2, map[string]any{"user_id": s.u2})
	s.e = s.create(t, "/deals", map[string]any{"title": "E", "funnel_id": s.f2, "step_id": s.t1})
	return s
}

// TestDealWrites: a deal's step must be a step of its funnel (on create,
// on a move of either), every move is recorded in its history, and the
// routes of funnels, steps and deals keep companies apart.
func TestDealWrites(t *testing.T) {
	t.Parallel()
	s := seedDeals(t)
	cases := []struct {
		method, path string
		body         map[string]any
		field        string
	}{
		{http.MethodPost, "/deals", map[string]any{"title": "X", "funnel_id": s.f1, "step_id": s.t1}, "step_id"},
		{http.MethodPost, "/deals", map[string]any{"title": "X"}, "funnel_id"},
		{http.MethodPost, "/deals", map[string]any{"title": "X", "funnel_id": s.f1, "step_id": s.s1, "status": "closed"}, "status"},
		{http.MethodPut, fmt.Sprintf("/deals/%d", s.b), map[string]any{"funnel_id": s.f2}, "step_id"},
		{http.MethodPut, fmt.Sprintf("/deals/%d", s.b), map[string]any{"step_id": s.t1}, "step_id"},
		{http.MethodPost, fmt.Sprintf("/funnels/%d/steps", s.f1), map[string]any{"name": "X", "position": 0}, "position"},
	}
	for _, c := range cases {
		r := s.do(t, c.method, c.path, s.keyA, c.body)
		if r.status != http.StatusUnprocessableEntity || !slices.Contains(r.problemFields(t), c.field) {
			t.Errorf("%s %s %v: %d %s, want 422 naming %s", c.method, c.path, c.body, r.status, r.raw, c.field)
		}
	}
	rec := s.get(t, fmt.Sprintf("/deals/%d?include[history]&include[step]&include[funnel]&include[team]&include[user]", s.a), http.StatusOK).record(t)
	history, _ := rec["history"].([]any)
	var steps []int64
	for _, h := range history {
		steps = append(steps, num(t, h.(map[string]any)["step_id"]))
	}
	if !slices.Equal(steps, []int64{s.s1, s.s2, s.s3}) || relatedID(t, rec, "step") != s.s3 || relatedID(t, rec, "funnel") != s.f1 ||
		relatedID(t, rec, "team") != s.team1 || relatedID(t, rec, "user") != s.u1 {
		t.Errorf("deal a: %v", rec)
	}
	// a write that leaves the step alone records nothing; a move to another funnel does
	s.do(t, http.MethodPut, fmt.Sprintf("/deals/%d", s.b), s.keyA, map[string]any{"title": "B2"})
	s.do(t, http.MethodPut, fmt.Sprintf("/deals/%d", s.d), s.keyA, map[string]any{"funnel_id": s.f2, "step_id": s.t1})
	if n := s.scalar(t, `SELECT count(*) FROM deal_step_history WHERE deal_id = ANY($1)`, []int64{s.b, s.d}); n != 4 {
		t.Errorf("history rows of b and d: %d, want 4", n)
	}
	steps = nil
	for _, st := range s.get(t, fmt.Sprintf("/funnels/%d?include[steps]", s.f1), http.StatusOK).record(t)["steps"].([]any) {
		steps = append(steps, num(t, st.(map[string]any)["id"]))
	}
	if !slices.Equal(steps, []int64{s.s1, s.s2, s.s3}) {
		t.Errorf("steps by position: %v", steps)
	}
	if r := s.do(t, http.MethodDelete, fmt.Sprintf("/funnels/%d/steps/%d", s.f1, s.s1), s.keyA, nil); r.status != http.StatusConflict {
		t.Errorf("delete a step deals went through: %d %s", r.status, r.raw)
	}
	if r := s.do(t, http.MethodGet, fmt.Sprintf("/funnels/%d/steps/%d", s.f2, s.s1), s.keyA, nil); r.status != http.StatusNotFound {
		t.Errorf("a step under another funnel: %d", r.status)
	}
	roundTrip(t, s.testEnv, crudCase{path: "/funnels", create: map[string]any{"name": "Pós-venda"}, update: map[string]any{"name": "Pós"},
		filter: "filter[name]=pós%25", include: "steps"})
	step := s.create(t, fmt.Sprintf("/funnels/%d/steps", s.f2), map[string]any{"name": "Proposta", "position": 2})
	stepPath := fmt.Sprintf("/funnels/%d/steps/%d", s.f2, step)
	if r := s.do(t, http.MethodPut, stepPath, s.keyA, map[string]any{"name": "Proposta enviada"}); r.status != http.StatusOK || r.record(t)["name"] != "Proposta enviada" {
		t.Errorf("update a step: %d %s", r.status, r.raw)
	}
	if ids := s.get(t, fmt.Sprintf("/funnels/%d/steps?filter[position]=2&include[funnel]", s.f2), http.StatusOK).ids(t); !slices.Equal(ids, []int64{step}) {
		t.Errorf("steps of funnel 2 at position 2: %v", ids)
	}
	for _, m := range []string{http.MethodGet, http.MethodPut, http.MethodDelete} {
		if r := s.do(t, m, stepPath, s.keyB, map[string]any{"name": "B"}); r.status != http.StatusNotFound {
			t.Errorf("B %s %s: %d", m, stepPath, r.status)
		}
	}
	if r := s.do(t, http.MethodDelete, stepPath, s.keyA, nil); r.status != http.StatusOK {
		t.Errorf("delete a step no deal went through: %d %s", r.status, r.raw)
	}
	roundTrip(t, s.testEnv, crudCase{path: "/deals", create: map[string]any{"title": "Nova", "funnel_id": s.f2, "step_id": s.t1},
		update: map[string]any{"status": "won"}, filter: fmt.Sprintf("filter[funnelIn][]=%d&filter[statusIn][]=open", s.f2), include: "history"})
	for _, path := range []string{fmt.Sprintf("/funnels/%d/steps", s.f1), fmt.Sprintf("/funnels/%d/steps/%d", s.f1, s.s1)} {
		if r := s.do(t, http.MethodGet, path, s.keyB, nil); r.status != http.StatusNotFound {
			t.Errorf("B GET %s: %d", path, r.status)
		}
	}
	r := s.do(t, http.MethodPost, "/deals", s.keyB, map[string]any{"title": "X", "funnel_id": s.f1, "step_id": s.s1})
	if got := r.problemFields(t); r.status != http.StatusUnprocessableEntity || !slices.Equal(got, []string{"funnel_id", "step_id"}) {
		t.Errorf("B pointing at A's funnel: %d %v", r.status, got)
	}
}

// funnelRates is a funnel of the report as "reached/in_step/rate" per step.
func funnelRates(t *testing.T, r response) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, f := range r.data(t) {
		key := fmt.Sprintf("%v deals=%v open=%v won=%v lost=%v win=%v", f["name"], f["deals"], f["open"], f["won"], f["lost"], f["win_rate"])
		out[key] = []string{}
		for _, st := range f["steps"].([]any) {
			m := st.(map[string]any)
			out[key] = append(out[key], fmt.Sprintf("%v:%v/%v/%v", m["name"], m["reached"], m["in_step"], m["conversion_rate"]))
		}
	}
	return out
}

// TestDealConversionFunnel: the funnel report's exact numbers on a known
// set: deals reaching each step (a deal created further on counts as
// having passed the steps before), deals in it now, and each step's rate
// against the previous one, with four decimal places, filtered by
// funnel, user, team and period.
func TestDealConversionFunnel(t *testing.T) {
	t.Parallel()
	s := seedDeals(t)
	cases := []struct {
		query string
		want  map[string][]string
	}{
		{"", map[string][]string{
			"Vendas deals=4 open=2 won=1 lost=1 win=0.2500":  {"Contato:4/1/<nil>", "Visita:3/2/0.7500", "Fechamento:1/1/0.3333"},
			"Locação deals=1 open=1 won=0 lost=0 win=0.0000": {"Triagem:1/1/<nil>"},
		}},
		{fmt.Sprintf("filter[funnel_id]=%d", s.f2), map[string][]string{
			"Locação deals=1 open=1 won=0 lost=0 win=0.0000": {"Triagem:1/1/<nil>"},
		}},
		{fmt.Sprintf("filter[userIn][]=%d", s.u1), map[string][]string{
			"Vendas deals=2 open=0 won=1 lost=1 win=0.5000": {"Contato:2/1/<nil>", "Visita:1/0/0.5000", "Fechamento:1/1/1.0000"},
			"Locação deals=0 open=0 won=0 lost=0 win=<nil>": {"Triagem:0/0/<nil>"},
		}},
		{fmt.Sprintf("filter[funnel_id]=%d&filter[teamIn][0]=%d", s.f1, s.team1), map[string][]string{
			"Vendas deals=2 open=1 won=1 lost=0 win=0.5000": {"Contato:2/0/<nil>", "Visita:2/1/1.0000", "Fechamento:1/1/0.5000"},
		}},
		{fmt.Sprintf("filter[funnel_id]=%d&filter[period][]=2024-01-31&filter[period][]=2024-01-01", s.f1), map[string][]string{
			"Vendas deals=1 open=0 won=0 lost=1 win=0.0000": {"Contato:1/1/<nil>", "Visita:0/0/0.0000", "Fechamento:0/0/<nil>"},
		}},
		{fmt.Sprintf("filter[funnel_id]=%d&filter[period][]=%s&filter[period][]=%s", s.f1, today(0), today(0)), map[string][]string{
			"Vendas deals=3 open=2 won=1 lost=0 win=0.3333": {"Contato:3/0/<nil>", "Visita:3/2/1.0000", "Fechamento:1/1/0.3333"},
		}},
	}
	for _, c := range cases {
		got := funnelRates(t, s.get(t, "/deals/conversion/funnel?"+c.query, http.StatusOK))
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s:\n got %v\nwant %v", c.query, got, c.want)
		}
	}
	// the rate is a JSON number written exactly
	r := s.get(t, fmt.Sprintf("/deals/conversion/funnel?filter[funnel_id]=%d", s.f1), http.StatusOK)
	var raw struct {
		Data []struct {
			Steps []struct {
				Rate json.RawMessage `json:"conversion_rate"`
			} `json:"steps"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(r.raw), &raw); err != nil || string(raw.Data[0].Steps[2].Rate) != "0.3333" {
		t.Errorf("rate as sent: %s", r.raw)
	}
	for _, q := range []string{"filter[period][]=2024-01-01", "filter[funnel_id]=x", "filter[userIn][]=x", "limit=5", "filter[stepIn][]=1",
		"filter[funnel_id]=1&filter[funnel_id]=2", "filter[period][]=2024-13-01&filter[period][]=2024-01-01"} {
		s.get(t, "/deals/conversion/funnel?"+q, http.StatusUnprocessableEntity)
	}
	if r := s.do(t, http.MethodGet, "/deals/conversion/funnel", s.keyB, nil); r.status != http.StatusOK || len(r.data(t)) != 0 {
		t.Errorf("B's funnel report: %s", r.raw)
	}
}

// TestDealConversionStepDeals: the deals in each step, latest entry first,
// with the step's count beyond the limit, under the same filters.
func TestDealConversionStepDeals(t *testing.T) {
	t.Parallel()
	s := seedDeals(t)
	s.exec(t, `UPDATE deal_step_history SET entered_at = now() - interval '1 day' WHERE deal_id = $1`, s.b)
	steps := func(query string) []string {
		var out []string
		for _, st := range s.get(t, "/deals/conversion/step-deals?"+query, http.StatusOK).data(t) {
			var ids []int64
			for _, d := range st["deals"].([]any) {
				ids = append(ids, num(t, d.(map[string]any)["id"]))
			}
			out = append(out, fmt.Sprintf("%v/%v:%v%v", st["funnel_name"], st["name"], st["count"], ids))
		}
		return out
	}
	cases := []struct {
		query string
		want  []string
	}{
		{"", []string{fmt.Sprintf("Vendas/Contato:1[%d]", s.c), fmt.Sprintf("Vendas/Visita:2[%d %d]", s.d, s.b),
			fmt.Sprintf("Vendas/Fechamento:1[%d]", s.a), fmt.Sprintf("Locação/Triagem:1[%d]", s.e)}},
		{fmt.Sprintf("filter[funnel_id]=%d&limit=1", s.f1), []string{fmt.Sprintf("Vendas/Contato:1[%d]", s.c),
			fmt.Sprintf("Vendas/Visita:2[%d]", s.d), fmt.Sprintf("Vendas/Fechamento:1[%d]", s.a)}},
		{fmt.Sprintf("filter[funnel_id]=%d&filter[userIn][]=%d", s.f1, s.u2), []string{"Vendas/Contato:0[]",
			fmt.Sprintf("Vendas/Visita:2[%d %d]", s.d, s.b), "Vendas/Fechamento:0[]"}},
		{fmt.Sprintf("filter[funnel_id]=%d&filter[teamIn][]=%d&filter[period][]=2024-01-01&filter[period][]=2024-01-31", s.f1, s.team2),
			[]string{fmt.Sprintf("Vendas/Contato:1[%d]", s.c), "Vendas/Visita:0[]", "Vendas/Fechamento:0[]"}},
	}
	for _, c := range cases {
		if got := steps(c.query); !slices.Equal(got, c.want) {
			t.Errorf("%s:\n got %v\nwant %v", c.query, got, c.want)
		}
	}
	data := s.get(t, fmt.Sprintf("/deals/conversion/step-deals?filter[funnel_id]=%d", s.f1), http.StatusOK).data(t)
	a := data[2]["deals"].([]any)[0].(map[string]any)
	if a["title"] != "A" || a["status"] != "won" || num(t, a["user_id"]) != s.u1 || num(t, a["team_id"]) != s.team1 || len(a["entered_at"].(string)) != 19 {
		t.Errorf("deal a in its step: %v", a)
	}
	for _, q := range []string{"limit=0", "limit=1001", "limit=x", "limit=1&limit=2", "filter[period][]=2024-01-01&filter[period][]=2024-01-02&filter[period][]=2024-01-03"} {
		s.get(t, "/deals/conversion/step-deals?"+q, http.StatusUnprocessableEntity)
	}
	if r := s.do(t, http.MethodGet, "/deals/conversion/step-deals", s.keyB, nil); r.status != http.StatusOK || len(r.data(t)) != 0 {
		t.Errorf("B's step-deals report: %s", r.raw)
	}
	// the reports sit beside /deals/{id}: the static names first, any other name is the id
	s.get(t, fmt.Sprintf("/deals/%d", s.a), http.StatusOK)
	s.get(t, "/deals/conversion", http.StatusNotFound)
	s.get(t, "/deals/conversion/other", http.StatusNotFound)
	if r := s.do(t, http.MethodPost, "/deals/conversion/funnel", s.keyA, map[string]any{}); r.status != http.StatusMethodNotAllowed {
		t.Errorf("POST a report: %d", r.status)
	}
}
