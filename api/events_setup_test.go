package api

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// eventFixture is company A's data an event points at, on top of the
// contract fixture: users u1 (the API key's), u2 and u3, a user group,
// two calendars, a funnel with a step, a deal in it and a contract.
type eventFixture struct {
	*contractFixture
	u1, u2, u3, group    int64
	cal1, cal2           int64
	funnel, step, dealID int64
	eventContract        int64
}

// eventEnv is a test environment with company A's event fixture.
func eventEnv(t *testing.T) *eventFixture {
	t.Helper()
	f := &eventFixture{contractFixture: contractEnv(t)}
	f.u1 = f.user
	f.u2 = f.scalar(t, `INSERT INTO users (company_id, name) VALUES ($1, 'Bia') RETURNING id`, f.compA)
	f.u3 = f.scalar(t, `INSERT INTO users (company_id, name) VALUES ($1, 'Caio') RETURNING id`, f.compA)
	f.group = f.scalar(t, `INSERT INTO user_groups (company_id, name) VALUES ($1, 'Corretores') RETURNING id`, f.compA)
	f.cal1 = f.create(t, "/calendars", map[string]any{"name": "Visitas"})
	f.cal2 = f.create(t, "/calendars", map[string]any{"name": "Financeiro"})
	f.funnel = f.create(t, "/funnels", map[string]any{"name": "Vendas"})
	f.step = f.create(t, fmt.Sprintf("/funnels/%d/steps", f.funnel), map[string]any{"name": "Contato", "position": 1})
	f.dealID = f.create(t, "/deals", map[string]any{"title": "Venda Aurora", "funnel_id": f.funnel, "step_id": f.step})
	f.eventContract = f.newContract(t, nil)
	return f
}

// eventBody is a valid event in the spec's body form (`filter[...]` keys),
// with the overrides applied (plain names are turned into that form; a
// nil value removes the key).
func (f *eventFixture) eventBody(overrides map[string]any) map[string]any {
	b := map[string]any{
		"filter[calendar_id]": f.cal1, "filter[title]": "Visita", "filter[guest][]": []int64{},
		"filter[guest_group][]": []int64{}, "filter[guest_access]": "view", "filter[type]": "visit",
		"filter[status]": "scheduled", "filter[initial_date]": "2024-03-01 12:00:00",
	}
	for k, v := range overrides {
		key := eventKey(k)
		if v == nil {
			delete(b, key)
			continue
		}
		b[key] = v
	}
	return b
}

// eventKey is the spec's body key of an event field.
func eventKey(name string) string {
	switch name {
	case "guest", "guest_group", "tag", "reminder":
		return "filter[" + name + "][]"
	}
	return "filter[" + name + "]"
}

// event creates an event of company A from eventBody; its id.
func (f *eventFixture) event(t *testing.T, overrides map[string]any) int64 {
	t.Helper()
	return f.create(t, "/events", f.eventBody(overrides))
}

// plainBody is body with the keys in their plain form.
func plainBody(body map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range body {
		k = trimFilterKey(k)
		out[k] = v
	}
	return out
}

func trimFilterKey(k string) string {
	if plain, ok := strings.CutPrefix(k, "filter["); ok {
		return strings.TrimSuffix(strings.TrimSuffix(plain, "[]"), "]")
	}
	return k
}

// eventPath is the path of event id, with more segments joined.
func eventPath(id int64, more ...any) string {
	p := fmt.Sprintf("/events/%d", id)
	for _, m := range more {
		p += fmt.Sprintf("/%v", m)
	}
	return p
}

// putEvent updates event id with company A's key.
func (f *eventFixture) putEvent(t *testing.T, id int64, body map[string]any) response {
	t.Helper()
	return f.do(t, http.MethodPut, eventPath(id), f.keyA, body)
}
