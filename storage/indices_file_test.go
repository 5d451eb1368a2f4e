package storage

import (
	"slices"
	"testing"
)

// TestParseIndexFile: a CSV (its header in any order, a byte-order mark
// allowed) or a JSON array of rows is read whole; every bad row is named by
// the line it starts on.
func TestParseIndexFile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		file     string
		keys     []string
		problems []string
	}{
		{"csv", "indicator,month,rate\nIVAR,2026-01,0.5\nINCC-M,2026-01,-0.12\n", []string{"IVAR 2026-01", "INCC-M 2026-01"}, nil},
		{"csv, header reordered, with a BOM", "\ufeffrate,indicator,month\n0.5,IVAR,2026-02\n", []string{"IVAR 2026-02"}, nil},
		{"json", "[\n {\"indicator\": \"IPCA\", \"month\": \"2025-12\", \"rate\": 0.33},\n {\"indicator\": \"IPCA\", \"month\": \"2026-01\", \"rate\": \"0.16\"}\n]",
			[]string{"IPCA 2025-12", "IPCA 2026-01"}, nil},
		{"a month given twice", "indicator,month,rate\nIVAR,2026-01,0.5\nIVAR,2026-01,0.6\n", nil,
			[]string{"line 3: IVAR 2026-01 is given twice (line 2)"}},
		{"a json row of an unknown field", "[\n {\"indicator\": \"IPCA\", \"month\": \"2026-01\", \"rate\": 0.1, \"x\": 1}\n]", nil,
			[]string{`line 2: unknown field "x"`}},
		{"a bad header", "ind,month,rate\nIVAR,2026-01,0.5\n", nil, []string{"line 1: the header must be indicator,month,rate"}},
		{"no rows", "indicator,month,rate\n", nil, []string{"no rows"}},
	}
	for _, tt := range tests {
		rows, problems := ParseIndexFile([]byte(tt.file))
		keys := make([]string, len(rows))
		for i, r := range rows {
			keys[i] = r.Key()
		}
		if len(problems) > 0 {
			keys = nil
		}
		if !slices.Equal(keys, tt.keys) || !slices.Equal(problems, tt.problems) {
			t.Errorf("%s: rows %v problems %q, want %v and %q", tt.name, keys, problems, tt.keys, tt.problems)
		}
	}
}
