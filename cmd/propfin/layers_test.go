package main

import (
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// module is the import path every package of ours starts with.
const module = "github.com/propfin/propfin"

// layerRules are the import rules of the design (DESIGN.md, "Layout"),
// per area of the tree (its first path element): the only other areas of
// ours it may import (when only is not nil; empty: none), and the areas
// it may never import.
var layerRules = map[string]struct{ only, never []string }{
	"finance": {only: []string{}},
	"pix":     {only: []string{}},
	"cnab":    {only: []string{"pix"}},
	"storage": {never: []string{"api", "jobs"}},
	"jobs":    {never: []string{"api"}},
}

// TestImportRules reads the import graph of the tree (go list) and holds
// it to the design's layers: finance and pix import nothing of ours, cnab
// only pix, storage no api or jobs, and nothing imports cmd.
func TestImportRules(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatalf("the go command is needed to read the import graph: %v", err)
	}
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports", module+"/...")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	seen := 0
	for {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		seen++
		for _, imp := range p.Imports {
			if problem := layerProblem(p.ImportPath, imp); problem != "" {
				t.Errorf("%s imports %s: %s", p.ImportPath, imp, problem)
			}
		}
	}
	if seen < 15 {
		t.Fatalf("go list gave %d packages", seen)
	}
}

// areaOf is the first element of a package's path inside the module ("" for
// a package that is not ours).
func areaOf(path string) string {
	rest, ok := strings.CutPrefix(path, module+"/")
	if !ok {
		return ""
	}
	area, _, _ := strings.Cut(rest, "/")
	return area
}

// layerProblem says why pkg may not import imp; "" when it may.
func layerProblem(pkg, imp string) string {
	from, to := areaOf(pkg), areaOf(imp)
	switch r := layerRules[from]; {
	case to == "" || to == from:
		return ""
	case to == "cmd":
		return "nothing imports cmd"
	case slices.Contains(r.never, to):
		return from + " imports no " + to
	case r.only != nil && !slices.Contains(r.only, to):
		if len(r.only) == 0 {
			return from + " imports nothing of ours"
		}
		return from + " imports only " + strings.Join(r.only, ", ") + " of ours"
	}
	return ""
}

// TestLayerProblem: the rule reads as the design says.
func TestLayerProblem(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pkg, imp string
		bad      bool
	}{
		{module + "/finance", module + "/storage", true},
		{module + "/pix", module + "/finance", true},
		{module + "/cnab/retorno", module + "/pix", false},
		{module + "/cnab/retorno", module + "/cnab", false},
		{module + "/cnab", module + "/finance", true},
		{module + "/storage/benchdata", module + "/jobs", true},
		{module + "/storage", module + "/finance", false},
		{module + "/jobs", module + "/api", true},
		{module + "/api/loadgen", module + "/jobs", false},
		{module + "/api", module + "/cmd/propfin", true},
		{module + "/finance", "github.com/shopspring/decimal", false},
	}
	for _, tt := range tests {
		if got := layerProblem(tt.pkg, tt.imp) != ""; got != tt.bad {
			t.Errorf("%s → %s: refused %v, want %v", tt.pkg, tt.imp, got, tt.bad)
		}
	}
}
