package api

import (
	"fmt"
	"maps"
	"testing"
)

// condominiumBody is a valid development of company A with the spec's
// required fields (of a new building type), with the overrides applied
// (a nil value removes the key).
func condominiumBody(t *testing.T, e *testEnv, overrides map[string]any) map[string]any {
	t.Helper()
	category := e.create(t, "/buildings/categories", map[string]any{"description": "Residencial", "color": "#0000ff"})
	typ := e.create(t, "/buildings/types", map[string]any{"description": "Apartamento", "category_id": category})
	b := map[string]any{"mode": "release", "status": "active", "type_id": typ, "title": "Residencial Aurora"}
	maps.Copy(b, overrides)
	for k, v := range overrides {
		if v == nil {
			delete(b, k)
		}
	}
	return b
}

// newCondominium creates a condominium of company A from condominiumBody;
// its id.
func newCondominium(t *testing.T, e *testEnv, overrides map[string]any) int64 {
	t.Helper()
	return e.create(t, "/condominiums", condominiumBody(t, e, overrides))
}

// condominiumPath is the path of condominium id, with more segments joined.
func condominiumPath(id int64, more ...any) string {
	p := fmt.Sprintf("/condominiums/%d", id)
	for _, m := range more {
		p += fmt.Sprintf("/%v", m)
	}
	return p
}
