package api

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/storage"
)

// problemFields are the fields an error answer names.
func problemFields(r response) []string {
	var out []string
	errs, _ := r.body["errors"].([]any)
	for _, p := range errs {
		if m, ok := p.(map[string]any); ok {
			out = append(out, m["field"].(string))
		}
	}
	return out
}

// TestOperatorCompanies: a company is created explicitly with its time
// zone and lead days, checked against the tz database and the bounds; a
// name another company has but for case and accents is a 409; the list,
// the company and its update answer what is stored, and each write that
// changes something is audited with the token's label.
func TestOperatorCompanies(t *testing.T) {
	t.Parallel()
	e := setup(t, withLabelledTokens())
	created := e.do(t, http.MethodPost, "/operator/companies", anaToken, map[string]any{
		"name": "Horizonte Imóveis", "time_zone": "America/Manaus", "invoice_lead_days": 20, "reason": "new customer"})
	if created.status != http.StatusCreated {
		t.Fatalf("create: %d %s", created.status, created.raw)
	}
	if !strings.HasPrefix(created.raw, `{"return":true,"status":201,"message":"`) { // the company API's order
		t.Errorf("the envelope's keys out of order: %.80s", created.raw)
	}
	company := created.body["data"].(map[string]any)["company"].(map[string]any)
	if company["name"] != "Horizonte Imóveis" || company["time_zone"] != "America/Manaus" || company["invoice_lead_days"] != json.Number("20") {
		t.Fatalf("created: %s", created.raw)
	}
	id := company["id"].(json.Number).String()
	var users int
	if err := e.pool.QueryRow(context.Background(), `SELECT count(*) FROM users WHERE company_id = $1`, id).Scan(&users); err != nil || users != 1 {
		t.Errorf("first user: %d (%v)", users, err)
	}

	for _, c := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"name": "X", "time_zone": "Mars/Olympus", "reason": "r"}, "time_zone"},
		{map[string]any{"name": "X", "time_zone": "EST", "reason": "r"}, "time_zone"},
		{map[string]any{"name": "X", "time_zone": "Local", "reason": "r"}, "time_zone"},
		{map[string]any{"name": "X", "invoice_lead_days": 367, "reason": "r"}, "invoice_lead_days"},
		{map[string]any{"name": "X", "invoice_lead_days": -1, "reason": "r"}, "invoice_lead_days"},
		{map[string]any{"name": "X", "invoice_lead_days": 1.5, "reason": "r"}, "invoice_lead_days"},
		{map[string]any{"name": " ", "reason": "r"}, "name"},
		{map[string]any{"reason": "r"}, "name"},
		{map[string]any{"name": "X"}, "reason"},
		{map[string]any{"name": "X", "reason": "r", "document": "1"}, "document"},
	} {
		r := e.do(t, http.MethodPost, "/operator/companies", anaToken, c.body)
		if r.status != http.StatusUnprocessableEntity || !strings.Contains(strings.Join(problemFields(r), ","), c.field) {
			t.Errorf("%v: %d %s, want 422 naming %s", c.body, r.status, r.raw, c.field)
		}
	}
	dup := e.do(t, http.MethodPost, "/operator/companies", anaToken, map[string]any{"name": "horizonte  imoveis", "reason": "r"})
	if dup.status != http.StatusConflict || !strings.Contains(dup.raw, "Horizonte Imóveis") {
		t.Errorf("near duplicate: %d %s", dup.status, dup.raw)
	}

	list := e.do(t, http.MethodGet, "/operator/companies?filter[name]=%25orizonte%25", anaToken, nil)
	if list.status != http.StatusOK || len(list.data(t)) != 1 || list.data(t)[0]["id"].(json.Number).String() != id {
		t.Errorf("list: %d %s", list.status, list.raw)
	}
	if r := e.operatorDo(t, http.MethodGet, "/operator/companies", bearer(e.keyA), nil); r.status != http.StatusForbidden {
		t.Errorf("a company's key: %d", r.status)
	}

	updated := e.do(t, http.MethodPut, "/operator/companies/"+id, anaToken, map[string]any{
		"time_zone": "America/Sao_Paulo", "invoice_lead_days": 20, "reason": "moved to São Paulo"})
	changed := updated.body["data"].(map[string]any)["changed"].(map[string]any)
	if updated.status != http.StatusOK || len(changed) != 1 || changed["time_zone"].([]any)[1] != "America/Sao_Paulo" {
		t.Errorf("update: %d %s", updated.status, updated.raw)
	}
	same := e.do(t, http.MethodPut, "/operator/companies/"+id, anaToken, map[string]any{"time_zone": "America/Sao_Paulo", "reason": "again"})
	if same.status != http.StatusOK || same.body["data"].(map[string]any)["audit_id"] != nil {
		t.Errorf("update changing nothing: %d %s", same.status, same.raw)
	}
	if r := e.do(t, http.MethodPut, "/operator/companies/"+id, anaToken, map[string]any{"name": "COMPANY A", "reason": "r"}); r.status != http.StatusConflict {
		t.Errorf("rename to another's name: %d %s", r.status, r.raw)
	}
	if r := e.do(t, http.MethodPut, "/operator/companies/999999", anaToken, map[string]any{"time_zone": "UTC", "reason": "r"}); r.status != http.StatusNotFound {
		t.Errorf("unknown company: %d %s", r.status, r.raw)
	}
	var zone string
	var lead int
	if err := e.pool.QueryRow(context.Background(), `SELECT time_zone, invoice_lead_days FROM companies WHERE id = $1`, id).Scan(&zone, &lead); err != nil || zone != "America/Sao_Paulo" || lead != 20 {
		t.Errorf("stored: %s %d (%v)", zone, lead, err)
	}

	audit := e.do(t, http.MethodGet, "/operator/audit", anaToken, nil)
	want := []string{"companies.update ana company=" + id + ` time_zone="America/Manaus"->"America/Sao_Paulo"`,
		"companies.create ana company=" + id + ` name="Horizonte Imóveis" time_zone=America/Manaus invoice_lead_days=20`}
	rows := audit.data(t)
	if len(rows) != len(want) {
		t.Fatalf("audit: %s", audit.raw)
	}
	for i, row := range rows {
		if got := row["action"].(string) + " " + row["operator"].(string) + " " + row["selection"].(string); got != want[i] {
			t.Errorf("audit row %d: %s, want %s", i, got, want[i])
		}
	}
}

// TestOperatorKeys: a key issued for a company works, is listed with its
// prefix and last use and never its secret, and once revoked is refused
// at its very next request, though the process had it cached; a second
// revocation changes nothing.
func TestOperatorKeys(t *testing.T) {
	t.Parallel()
	e := setup(t, withLabelledTokens())
	path := "/operator/companies/" + strconv.FormatInt(e.compA, 10) + "/keys"
	issued := e.do(t, http.MethodPost, path, anaToken, map[string]any{"name": "erp", "reason": "ERP integration"})
	if issued.status != http.StatusCreated {
		t.Fatalf("issue: %d %s", issued.status, issued.raw)
	}
	data := issued.body["data"].(map[string]any)
	key := data["key"].(string)
	rec := data["api_key"].(map[string]any)
	if rec["prefix"] != key[:len(key)-56] || rec["name"] != "erp" || rec["revoked_at"] != nil {
		t.Fatalf("issued: %s", issued.raw)
	}
	keyID := rec["id"].(json.Number).String()
	if r := e.do(t, http.MethodGet, "/financial/settings", key, nil); r.status != http.StatusOK {
		t.Fatalf("the new key: %d %s", r.status, r.raw)
	}
	list := e.do(t, http.MethodGet, "/operator/keys?filter[company_id]="+strconv.FormatInt(e.compA, 10)+"&filter[revoked_at|empty]=1", anaToken, nil)
	if list.status != http.StatusOK || len(list.data(t)) != 2 {
		t.Fatalf("list: %d %s", list.status, list.raw)
	}
	if strings.Contains(list.raw, key[len(key)-56:]) || strings.Contains(list.raw, "secret") {
		t.Errorf("the list shows a secret: %s", list.raw)
	}
	for _, k := range list.data(t) {
		if k["id"].(json.Number).String() == keyID && k["last_used_at"] == nil {
			t.Errorf("the key used has no last use: %v", k)
		}
	}
	show := e.do(t, http.MethodGet, "/operator/companies/"+strconv.FormatInt(e.compA, 10), anaToken, nil)
	if keys := show.body["data"].(map[string]any)["keys"].([]any); show.status != http.StatusOK || len(keys) != 2 {
		t.Errorf("company: %d %s", show.status, show.raw)
	}

	if r := e.do(t, http.MethodPost, "/operator/keys/"+keyID+"/revoke", anaToken, map[string]any{}); r.status != http.StatusUnprocessableEntity {
		t.Errorf("no reason: %d %s", r.status, r.raw)
	}
	revoked := e.do(t, http.MethodPost, "/operator/keys/"+keyID+"/revoke", anaToken, map[string]any{"reason": "leaked"})
	if revoked.status != http.StatusOK || revoked.body["data"].(map[string]any)["revoked"] != true {
		t.Fatalf("revoke: %d %s", revoked.status, revoked.raw)
	}
	if r := e.do(t, http.MethodGet, "/financial/settings", key, nil); r.status != http.StatusUnauthorized {
		t.Errorf("the revoked key, at once: %d %s", r.status, r.raw)
	}
	if r := e.do(t, http.MethodGet, "/financial/settings", e.keyA, nil); r.status != http.StatusOK {
		t.Errorf("the company's other key: %d", r.status)
	}
	again := e.do(t, http.MethodPost, "/operator/keys/"+keyID+"/revoke", anaToken, map[string]any{"reason": "leaked"})
	if again.status != http.StatusOK || again.body["data"].(map[string]any)["revoked"] != false || again.body["data"].(map[string]any)["audit_id"] != nil {
		t.Errorf("second revoke: %d %s", again.status, again.raw)
	}
	if r := e.do(t, http.MethodPost, "/operator/keys/999999/revoke", anaToken, map[string]any{"reason": "x"}); r.status != http.StatusNotFound {
		t.Errorf("unknown key: %d %s", r.status, r.raw)
	}
	if r := e.do(t, http.MethodPost, "/operator/companies/999999/keys", anaToken, map[string]any{"reason": "x"}); r.status != http.StatusNotFound {
		t.Errorf("key for no company: %d %s", r.status, r.raw)
	}
	if n := e.countRows(t, `SELECT count(*) FROM operator_audit WHERE action IN ('keys.create', 'keys.revoke') AND operator = 'ana'`); n != 2 {
		t.Errorf("audit rows: %d, want 2", n)
	}
}

// TestRevokedKeyForgottenEverywhere: a key revoked outside this process
// (as `propfin apikey revoke` does) is refused at once by a process that
// had it cached for an hour, through the notification of the revocation.
func TestRevokedKeyForgottenEverywhere(t *testing.T) {
	t.Parallel()
	e := setup(t, func(c *Config, s *Server) { s.auth = newAuthenticator(c.Store.Pool(), time.Hour) })
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go e.srv.ForgetRevokedKeys(ctx)
	if r := e.do(t, http.MethodGet, "/financial/settings", e.keyA, nil); r.status != http.StatusOK {
		t.Fatalf("before: %d", r.status)
	}
	p, err := storage.LookupAPIKey(ctx, e.pool, e.keyA)
	if err != nil {
		t.Fatal(err)
	}
	waitListening(t, e)
	err = pgx.BeginFunc(ctx, e.pool, func(tx pgx.Tx) error {
		_, _, err := storage.RevokeAPIKey(ctx, tx, p.CompanyID, p.KeyID)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		r := e.do(t, http.MethodGet, "/financial/settings", e.keyA, nil)
		if r.status == http.StatusUnauthorized {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the revoked key is still served from the cache: %d", r.status)
		}
	}
	if r := e.do(t, http.MethodGet, "/financial/settings", e.keyB, nil); r.status != http.StatusOK {
		t.Errorf("another company's key: %d", r.status)
	}
}

// waitListening waits until a session listens on the keys' channel.
func waitListening(t *testing.T, e *testEnv) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		var n int
		if err := e.pool.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND query = 'LISTEN `+storage.KeysChannel+`'`).Scan(&n); err == nil && n > 0 {
			return
		}
	}
	t.Fatal("nothing listens for revoked keys")
}
