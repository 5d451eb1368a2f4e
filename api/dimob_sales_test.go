package api

import (
	"fmt"
	"strings"
	"testing"
)

// TestDimobLeftOutContracts: a sale signed in the year and a rental paid
// in it, both with dimob false, are named by the preview as left out (on
// the contract's dimob), and the advice that a company without operations
// does not file is not given while they exist (docs/dimob.md, "Contracts
// left out").
func TestDimobLeftOutContracts(t *testing.T) {
	t.Parallel()
	f := dimobEnv(t)
	f.exec(t, `UPDATE contracts SET dimob = false WHERE id = $1`, f.sale)
	f.setPaid(t, f.leaseInvoice(t, f.leaseOff, "2024-03", nil), "2024-03-10", "2024-03-10")

	check := f.preview(t, 2024)
	if num(t, check["rentals"]) != 0 || num(t, check["sales"]) != 0 {
		t.Fatalf("rentals %v, sales %v: want none declared", check["rentals"], check["sales"])
	}
	found := map[string]map[string]any{}
	for _, w := range dimobProblems(t, check, "warnings") {
		msg, _ := w["message"].(string)
		if strings.Contains(msg, "does not file") {
			t.Errorf("advised not to file while contracts are left out: %v", w)
		}
		if strings.Contains(msg, "left out") {
			found[fmt.Sprint(w["contract"])] = w
		}
	}
	for _, c := range []struct {
		number, field string
		id            int64
	}{{"V-0042", "sales", f.sale}, {"L-0999", "rentals", f.leaseOff}} {
		w, ok := found[c.number]
		if !ok {
			t.Errorf("no warning of %s left out: %v", c.number, check["warnings"])
			continue
		}
		if w["declaration_field"] != c.field || w["resource"] != "contracts" || w["field"] != "dimob" ||
			num(t, w["id"]) != c.id || w["path"] != fmt.Sprintf("/financial/contracts/%d", c.id) {
			t.Errorf("%s: warning names %v", c.number, w)
		}
	}
	if len(found) != 2 {
		t.Errorf("left out: %v, want V-0042 and L-0999 only", found)
	}

	// With nothing left out, the advice stands.
	f.exec(t, `UPDATE contracts SET signed_at = '2023-08-20', start_at = '2023-08-20' WHERE id = $1`, f.sale)
	f.exec(t, `DELETE FROM transactions WHERE contract_id = $1`, f.leaseOff)
	advised := false
	for _, w := range dimobProblems(t, f.preview(t, 2024), "warnings") {
		advised = advised || strings.Contains(fmt.Sprint(w["message"]), "does not file")
	}
	if !advised {
		t.Error("no operations and nothing left out: the advice not to file is missing")
	}
}

// TestDimobSaleBuyer: a buyer occupant is the sale's buyer; without one,
// the contract's tenant_id (the buyer given at create) is.
func TestDimobSaleBuyer(t *testing.T) {
	t.Parallel()
	f := dimobEnv(t)
	f.exec(t, `UPDATE contracts SET tenant_id = $1 WHERE id = $2`, f.tenant, f.sale)
	buyer := func() string {
		t.Helper()
		check := f.preview(t, 2024)
		for _, p := range dimobProblems(t, check, "problems") {
			if strings.HasPrefix(fmt.Sprint(p["declaration_field"]), "buyer.") {
				t.Fatalf("blocking problem on the buyer: %v", p)
			}
		}
		_, run := f.run(t, 2024)
		_, _, d := f.file(t, num(t, run["id"]))
		if len(d.Sales) != 1 {
			t.Fatalf("sales in the file: %v", d.Sales)
		}
		return d.Sales[0].Buyer.TaxID
	}
	if got := buyer(); got != "39053344705" {
		t.Errorf("with a buyer occupant: buyer %q, want the occupant's 39053344705", got)
	}
	f.exec(t, `DELETE FROM contract_occupants WHERE contract_id = $1`, f.sale)
	if got := buyer(); got != "11222333000181" {
		t.Errorf("without a buyer occupant: buyer %q, want the contract's tenant 11222333000181", got)
	}
}

// TestDimobOwnSale: a sale of a building without owners (the declarant's
// own unit, R03) is refused in the developer's words, not as a missing
// seller's CPF.
func TestDimobOwnSale(t *testing.T) {
	t.Parallel()
	f := dimobEnv(t)
	f.exec(t, `DELETE FROM building_owners WHERE building_id = $1`, f.saleBuilding)
	p := findProblem(t, f.preview(t, 2024), "sales[0]", "seller.tax_id")
	if p["severity"] != "blocking" || !strings.Contains(fmt.Sprint(p["message"]), "R03") ||
		!strings.Contains(fmt.Sprint(p["message"]), "declarant itself") {
		t.Errorf("own sale: %v", p)
	}
}
