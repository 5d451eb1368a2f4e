package api

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/propfin/propfin/jobs/webhook"
)

func withWebhookPolicy(p webhook.Policy) envOption {
	return func(_ *Config, s *Server) { s.webhooks = p }
}

// TestWebhookEndpoints: an endpoint is created with its secret in the
// answer alone (made when not given, a given one checked), events "*" or
// a list of known types; its URL is held to the network policy (https,
// no private, loopback or link-local address, plain http to loopback only
// when allowed) on create and update; the secret rotates; another
// company's endpoint is a 404.
func TestWebhookEndpoints(t *testing.T) {
	t.Parallel()
	e := setup(t)
	r := e.do(t, http.MethodPost, "/webhooks", e.keyA, map[string]any{"url": "https://93.184.216.34/hooks", "events": "*",
		"description": "ERP"})
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	rec := r.record(t)
	secret, _ := rec["secret"].(string)
	if webhook.CheckSecret(secret) != "" || fmt.Sprint(rec["events"]) != "[*]" || rec["active"] != true {
		t.Fatalf("created %s", r.raw)
	}
	id := num(t, rec["id"])
	path := fmt.Sprintf("/webhooks/%d", id)
	got := e.get(t, path, http.StatusOK)
	if strings.Contains(got.raw, "whsec_") || strings.Contains(got.raw, "secret\"") {
		t.Errorf("GET shows the secret: %s", got.raw)
	}
	if list := e.get(t, "/webhooks?filter[eventsIn][]=*", http.StatusOK); strings.Contains(list.raw, "whsec_") || len(list.ids(t)) != 1 {
		t.Errorf("list: %s", list.raw)
	}
	given := webhook.NewSecret()
	r = e.do(t, http.MethodPost, "/webhooks", e.keyA, map[string]any{"url": "https://93.184.216.34/b", "events": []string{"invoice.paid"}, "secret": given})
	if r.status != http.StatusCreated || r.record(t)["secret"] != given {
		t.Errorf("a given secret: %d %s", r.status, r.raw)
	}

	refused := []struct {
		body   map[string]any
		fields []string
	}{
		{map[string]any{"url": "http://93.184.216.34/x"}, []string{"url"}},
		{map[string]any{"url": "https://10.0.0.7/x"}, []string{"url"}},
		{map[string]any{"url": "https://169.254.169.254/latest"}, []string{"url"}},
		{map[string]any{"url": "https://127.0.0.1:9000/x"}, []string{"url"}},
		{map[string]any{"url": "http://localhost:9000/x"}, []string{"url"}},
		{map[string]any{"url": "http://hooks.propfin.invalid/x"}, []string{"url"}}, // never resolves
		{map[string]any{"url": "https://93.184.216.34/x", "events": []string{"invoice.eaten"}}, []string{"events"}},
		{map[string]any{"url": "https://93.184.216.34/x", "events": []string{}}, []string{"events"}},
		{map[string]any{"url": "https://10.0.0.1/h", "events": []string{}}, []string{"url", "events"}}, // both at once
		{map[string]any{"url": "https://93.184.216.34/x", "secret": "whsec_short"}, []string{"secret"}},
		{map[string]any{"events": []string{"ping"}}, []string{"url"}},
	}
	for _, c := range refused {
		r := e.do(t, http.MethodPost, "/webhooks", e.keyA, c.body)
		if r.status != http.StatusUnprocessableEntity || !slices.Equal(r.problemFields(t), c.fields) {
			t.Errorf("%v: %d %s, want 422 naming %v", c.body, r.status, r.raw, c.fields)
		}
	}
	if r := e.do(t, http.MethodPut, path, e.keyA, map[string]any{"url": "https://192.168.1.1/x"}); r.status != http.StatusUnprocessableEntity {
		t.Errorf("update to a private address: %d %s", r.status, r.raw)
	}
	if r := e.do(t, http.MethodPut, path, e.keyA, map[string]any{"secret": webhook.NewSecret()}); r.status != http.StatusUnprocessableEntity {
		t.Errorf("a secret on update: %d %s", r.status, r.raw)
	}
	if r := e.do(t, http.MethodPut, path, e.keyA, map[string]any{"events": []string{"invoice.paid", "ping"}}); r.status != http.StatusOK ||
		fmt.Sprint(r.record(t)["events"]) != "[invoice.paid ping]" {
		t.Errorf("update events: %d %s", r.status, r.raw)
	}

	r = e.do(t, http.MethodPost, path+"/rotateSecret", e.keyA, nil)
	fresh, _ := r.record(t)["secret"].(string)
	if r.status != http.StatusOK || fresh == secret || webhook.CheckSecret(fresh) != "" || r.record(t)["previous_secret_expires_at"] == "" {
		t.Errorf("rotate: %d %s", r.status, r.raw)
	}
	if got := e.get(t, path, http.StatusOK).record(t); got["previous_secret_expires_at"] == nil {
		t.Errorf("after the rotation the endpoint says no overlap: %v", got)
	}
	for _, p := range []string{path, path + "/rotateSecret", path + "/test"} {
		method := http.MethodPost
		if p == path {
			method = http.MethodGet
		}
		if r := e.do(t, method, p, e.keyB, nil); r.status != http.StatusNotFound {
			t.Errorf("company B %s %s: %d", method, p, r.status)
		}
	}

	// loopback endpoints, plain http included, when the policy allows them
	t.Run("loopback allowed", func(t *testing.T) {
		dev := setup(t, withWebhookPolicy(webhook.Policy{AllowLoopback: true}))
		if r := dev.do(t, http.MethodPost, "/webhooks", dev.keyA, map[string]any{"url": "http://127.0.0.1:9000/x"}); r.status != http.StatusCreated {
			t.Errorf("dev, loopback: %d %s", r.status, r.raw)
		}
	})
}

// TestWebhookPingAndResend: POST /webhooks/{id}/test writes a ping event
// and one delivery to that endpoint (202, the delivery, pending); the
// event is listed by GET /webhookEvents with the query language and the
// delivery by GET /webhooks/{id}/deliveries; a resend is a new delivery of
// the same event; a delivery of another endpoint, or company, is a 404.
func TestWebhookPingAndResend(t *testing.T) {
	t.Parallel()
	e := setup(t)
	r := e.do(t, http.MethodPost, "/webhooks", e.keyA, map[string]any{"url": "https://93.184.216.34/hooks", "events": []string{"invoice.paid"}})
	id := num(t, r.record(t)["id"])
	other := num(t, e.do(t, http.MethodPost, "/webhooks", e.keyA, map[string]any{"url": "https://93.184.216.34/o"}).record(t)["id"])
	r = e.do(t, http.MethodPost, fmt.Sprintf("/webhooks/%d/test", id), e.keyA, nil)
	if r.status != http.StatusAccepted || r.record(t)["status"] != "pending" || num(t, r.record(t)["endpoint_id"]) != id {
		t.Fatalf("test: %d %s", r.status, r.raw)
	}
	delivery := num(t, r.record(t)["id"])
	event := num(t, r.record(t)["event_id"])
	events := e.get(t, "/webhookEvents?filter[type]=ping", http.StatusOK).data(t)
	if len(events) != 1 || num(t, events[0]["id"]) != event || num(t, events[0]["company_id"]) != e.compA {
		t.Fatalf("events: %v", events)
	}
	if data, _ := events[0]["data"].(map[string]any); data == nil || num(t, data["id"]) != id || data["secret"] != nil {
		t.Errorf("the ping's data: %v", events[0]["data"])
	}
	if e.get(t, "/webhookEvents?filter[typeIn][]=invoice.paid", http.StatusOK).ids(t) != nil {
		t.Error("a ping listed as invoice.paid")
	}
	list := e.get(t, fmt.Sprintf("/webhooks/%d/deliveries?include[event]=", id), http.StatusOK).data(t)
	if len(list) != 1 || num(t, list[0]["id"]) != delivery || list[0]["event"] == nil {
		t.Fatalf("deliveries: %v", list)
	}
	r = e.do(t, http.MethodPost, fmt.Sprintf("/webhooks/%d/deliveries/%d/resend", id, delivery), e.keyA, nil)
	if r.status != http.StatusAccepted || num(t, r.record(t)["event_id"]) != event || num(t, r.record(t)["id"]) == delivery {
		t.Fatalf("resend: %d %s", r.status, r.raw)
	}
	if n := len(e.get(t, fmt.Sprintf("/webhooks/%d/deliveries", id), http.StatusOK).data(t)); n != 2 {
		t.Errorf("%d deliveries after the resend, want 2", n)
	}
	if r := e.do(t, http.MethodPost, fmt.Sprintf("/webhooks/%d/deliveries/%d/resend", other, delivery), e.keyA, nil); r.status != http.StatusNotFound {
		t.Errorf("resend under another endpoint: %d", r.status)
	}
	if r := e.do(t, http.MethodPost, fmt.Sprintf("/webhooks/%d/deliveries/%d/resend", id, delivery), e.keyB, nil); r.status != http.StatusNotFound {
		t.Errorf("resend by company B: %d", r.status)
	}
	if r := e.do(t, http.MethodGet, "/webhookEvents", e.keyB, nil); len(r.data(t)) != 0 {
		t.Errorf("company B sees events: %s", r.raw)
	}
	var jobs int
	e.pool.QueryRow(t.Context(), `SELECT count(*) FROM jobs WHERE company_id = $1 AND kind = 'webhook:deliver'`, e.compA).Scan(&jobs) //nolint:errcheck // 0 fails
	if jobs != 2 {
		t.Errorf("%d delivery jobs, want 2", jobs)
	}
}
