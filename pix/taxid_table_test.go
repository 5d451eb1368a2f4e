package pix

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// taxIDCase is a line of testdata/taxids.txt.
type taxIDCase struct {
	value string
	valid bool
	why   string
}

// readTaxIDTable reads the table of CPF and CNPJ values.
func readTaxIDTable(t *testing.T, path string) []taxIDCase {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []taxIDCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.SplitN(line, " ", 3)
		if len(fields) < 2 || (fields[1] != "valid" && fields[1] != "invalid") {
			t.Fatalf("%s: bad line %q", path, line)
		}
		c := taxIDCase{value: fields[0], valid: fields[1] == "valid"}
		if len(fields) == 3 {
			c.why = fields[2]
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestValidTaxID holds the rule, and the tax-id keys of CheckKey, to the
// table.
func TestValidTaxID(t *testing.T) {
	t.Parallel()
	for _, c := range readTaxIDTable(t, "testdata/taxids.txt") {
		if got := ValidTaxID(c.value); got != c.valid {
			t.Errorf("ValidTaxID(%q) = %v, want %v (%s)", c.value, got, c.valid, c.why)
		}
		typ, err := CheckKey(c.value)
		isTaxKey := err == nil && (typ == KeyCPF || typ == KeyCNPJ)
		if isTaxKey != c.valid {
			t.Errorf("CheckKey(%q) = %q, %v; a tax-id key: %v, want %v", c.value, typ, err, isTaxKey, c.valid)
		}
	}
}
