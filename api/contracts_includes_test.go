package api

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// TestContractIncludes: every include of a contract, with the declared
// conditions (buyers, tickets, commissions), the renewals both ways and
// the building's owners (matched on building_id).
func TestContractIncludes(t *testing.T) {
	t.Parallel()
	f := contractEnv(t)
	id := f.newContract(t, map[string]any{"user_id": f.user, "team_id": f.team, "deal_id": f.deal,
		"documentables": []any{map[string]any{"template_id": 7}}})
	renewal := f.newContract(t, map[string]any{"renewed_id": id})
	resident := f.create(t, contractPath(id, "occupants"), map[string]any{"type": "resident", "name": "Rita"})
	buyer := f.create(t, contractPath(id, "occupants"), map[string]any{"type": "buyer", "person_id": f.payer})
	vehicle := f.create(t, contractPath(id, "vehicles"), map[string]any{"plate": "ABC1D23"})
	ticket := f.invoice(t, map[string]any{"type": "contract", "contract_id": id})
	byPix := f.invoice(t, map[string]any{"type": "contract", "contract_id": id, "billing_method": "pix"})
	inspect := f.create(t, contractPath(id, "inspects"), map[string]any{"kind": "entry"})
	event := f.scalar(t, `INSERT INTO events (company_id, contract_id, title) VALUES ($1, $2, 'Vistoria') RETURNING id`, f.compA, id)
	item := f.create(t, contractPath(id, "items"), map[string]any{"item_id": f.rent, "amount": "100.00"})
	commission := f.create(t, contractPath(id, "items"), map[string]any{"mode": "commission", "broker_id": f.broker, "percentage": "5"})
	insurance := f.create(t, contractPath(id, "insurances"), map[string]any{"kind": "fire"})
	file := f.create(t, contractPath(id, "files"), map[string]any{"name": "contrato.pdf", "url": "https://files.example.com/c.pdf"})

	names := []string{"occupants", "buyers", "vehicles", "tickets", "inspects", "events", "business", "building", "billing",
		"account", "user", "renewed", "renewedTo", "team", "tenant", "owners", "invoices", "items", "commissions",
		"insurances", "files", "documentables", "deal"}
	query := "?include[" + strings.Join(names, "]&include[") + "]"
	rec := f.get(t, contractPath(id)+query, http.StatusOK).record(t)
	docs := relatedIDs(t, rec, "documentables")
	lists := []struct {
		name string
		want []int64
	}{
		{"occupants", []int64{resident, buyer}},
		{"buyers", []int64{buyer}},
		{"vehicles", []int64{vehicle}},
		{"tickets", []int64{ticket}},
		{"inspects", []int64{inspect}},
		{"events", []int64{event}},
		{"renewedTo", []int64{renewal}},
		{"invoices", []int64{ticket, byPix}},
		{"items", []int64{item, commission}},
		{"commissions", []int64{commission}},
		{"insurances", []int64{insurance}},
		{"files", []int64{file}},
	}
	for _, c := range lists {
		if got := relatedIDs(t, rec, c.name); !slices.Equal(got, c.want) {
			t.Errorf("include[%s]: %v, want %v", c.name, got, c.want)
		}
	}
	if len(docs) != 1 {
		t.Errorf("include[documentables]: %v", rec["documentables"])
	}
	ones := []struct {
		name string
		want int64
	}{
		{"business", f.business}, {"building", f.building}, {"billing", f.billing}, {"account", f.account},
		{"user", f.user}, {"renewed", 0}, {"team", f.team}, {"tenant", f.tenant}, {"deal", f.deal},
	}
	for _, c := range ones {
		if got := relatedID(t, rec, c.name); got != c.want {
			t.Errorf("include[%s]: %d, want %d", c.name, got, c.want)
		}
	}
	owners, _ := rec["owners"].([]any)
	if len(owners) != 1 || num(t, owners[0].(map[string]any)["person_id"]) != f.owner || fmt.Sprint(owners[0].(map[string]any)["percentage"]) != "100.00" {
		t.Errorf("include[owners]: %v", rec["owners"])
	}

	// in a list, each contract gets its own: the renewal points back, has
	// no occupants, an empty events list, and the same building's owners
	data := f.get(t, "/financial/contracts?sort=id&include[renewed]=id&include[renewedTo]&include[events]&include[occupants]&include[owners]", http.StatusOK).data(t)
	if len(data) != 2 {
		t.Fatalf("list: %v", data)
	}
	if relatedID(t, data[1], "renewed") != id || len(relatedIDs(t, data[1], "renewedTo")) != 0 ||
		len(relatedIDs(t, data[1], "events")) != 0 || len(relatedIDs(t, data[1], "occupants")) != 0 ||
		len(relatedIDs(t, data[1], "owners")) != 1 {
		t.Errorf("the renewal's includes: %v", data[1])
	}
	f.get(t, contractPath(id)+"?include[nothing]", http.StatusUnprocessableEntity)
}
