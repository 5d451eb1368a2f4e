package storage_test

import (
	"context"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/propfin/propfin/storage/storagetest"
)

// referenceTables are the tables that belong to no company. Every other
// table carries company_id and is distributed by it; these are Citus
// reference tables (copied to every node), or stay on the coordinator.
var referenceTables = []string{
	"companies",             // the tenants themselves: every company_id refers to a row here
	"job_relay",             // the relay's position in the outbox, across companies (one row)
	"states",                // Brazil's states, the same for everyone
	"price_indices",         // IGP-M, IPCA... by month: the market's, written by operators
	"price_indices_version", // the version of price_indices, replaced by every write (one row)
	"operator_audit",        // what operators did, across companies
	"schema_migrations",     // the migration runner's record; stays on the coordinator
}

// TestSchemaDistributesByCompany holds the migrated schema to the rule
// that lets it be distributed by company (Citus): every table but the
// reference tables has a NOT NULL company_id, and its primary key, unique
// constraints and indexes, and foreign keys to other company-owned tables
// lead with it. A migration that adds a table or a key breaking the rule
// fails here.
func TestSchemaDistributesByCompany(t *testing.T) {
	t.Parallel()
	d, err := storagetest.ReadDistribution(context.Background(), storagetest.NewDB(t), referenceTables)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range d.Problems {
		t.Error(p)
	}
	if len(d.Distributed) < 50 {
		t.Errorf("only %d company-owned tables found: %v", len(d.Distributed), d.Distributed)
	}
}

// TestDistributionFindsBreaks: the rule above notices each kind of break.
func TestDistributionFindsBreaks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	for _, sql := range []string{
		// no company-first key anywhere
		`CREATE TABLE bad_parent (company_id bigint NOT NULL REFERENCES companies (id), id bigint PRIMARY KEY, code text UNIQUE)`,
		`CREATE UNIQUE INDEX bad_parent_code_lower ON bad_parent (lower(code))`,
		// company_id nullable, no primary key, a foreign key on id alone
		`CREATE TABLE bad_child (company_id bigint, parent_id bigint REFERENCES bad_parent (id))`,
		// neither company_id nor listed
		`CREATE TABLE loose (name text)`,
		// a listed reference table with company_id, and one referring to a company-owned table
		`CREATE TABLE shared_but_owned (company_id bigint NOT NULL, id bigint, PRIMARY KEY (company_id, id))`,
		`CREATE TABLE owned (company_id bigint NOT NULL, id bigint, PRIMARY KEY (company_id, id))`,
		`CREATE TABLE shared_codes (owner_company bigint, owner_id bigint,
			FOREIGN KEY (owner_company, owner_id) REFERENCES owned (company_id, id))`,
		// right keys, but foreign keys both ways, one of them setting a column to NULL
		`CREATE TABLE cycle_a (company_id bigint NOT NULL, id bigint, b_id bigint, PRIMARY KEY (company_id, id))`,
		`CREATE TABLE cycle_b (company_id bigint NOT NULL, id bigint, a_id bigint, PRIMARY KEY (company_id, id),
			FOREIGN KEY (company_id, a_id) REFERENCES cycle_a (company_id, id))`,
		`ALTER TABLE cycle_a ADD CONSTRAINT cycle_a_b_fk FOREIGN KEY (company_id, b_id) REFERENCES cycle_b (company_id, id)
			ON DELETE SET NULL (b_id)`,
	} {
		if _, err := pool.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	d, err := storagetest.ReadDistribution(ctx, pool, append(slices.Clone(referenceTables), "shared_codes", "shared_but_owned", "gone"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"bad_child: company_id may be NULL",
		"bad_child: foreign key bad_child_parent_id_fkey (parent_id) to bad_parent (id) does not lead with company_id on both sides",
		"bad_child: no primary key",
		"bad_parent: primary key bad_parent_pkey leads with id, not company_id",
		"bad_parent: unique constraint bad_parent_code_key leads with code, not company_id",
		"bad_parent: unique index bad_parent_code_lower leads with an expression, not company_id",
		"foreign keys form a cycle among cycle_a, cycle_b: no order distributes them",
		"gone: listed as a reference table but there is no such table",
		"loose: no company_id, and not a reference table",
		"shared_but_owned: listed as a reference table but has company_id",
		"shared_codes: foreign key shared_codes_owner_company_owner_id_fkey: a reference table refers to company-owned owned",
	}
	if !slices.Equal(d.Problems, want) {
		t.Errorf("problems\n%s\nwant\n%s", strings.Join(d.Problems, "\n"), strings.Join(want, "\n"))
	}
	if !slices.Contains(d.SetNull, "cycle_a.cycle_a_b_fk") {
		t.Errorf("SetNull %v lacks cycle_a.cycle_a_b_fk", d.SetNull)
	}
}

// TestCitusCommandsInOperationsDoc holds docs/operations.md to the schema:
// it makes every reference table a reference table and distributes every
// company-owned table, in an order where each table comes after those its
// foreign keys reference, and names every foreign key Citus refuses.
func TestCitusCommandsInOperationsDoc(t *testing.T) {
	t.Parallel()
	d, err := storagetest.ReadDistribution(context.Background(), storagetest.NewDB(t), referenceTables)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	names := func(pattern string) []string {
		var out []string
		for _, m := range regexp.MustCompile(pattern).FindAllStringSubmatch(doc, -1) {
			out = append(out, m[1])
		}
		return out
	}
	wantReference := slices.DeleteFunc(slices.Clone(d.Reference), func(s string) bool { return s == "schema_migrations" })
	if got := names(`create_reference_table\('(\w+)'\)`); !slices.Equal(got, wantReference) {
		t.Errorf("docs/operations.md makes reference tables of\n%v\nwant\n%v", got, wantReference)
	}
	if got := names(`create_distributed_table\('(\w+)'`); !slices.Equal(got, d.Distributed) {
		t.Errorf("docs/operations.md distributes\n%v\nwant, in this order (each after the tables it refers to)\n%s", got,
			citusCommands(d.Distributed))
	}
	for _, fk := range d.SetNull {
		if _, name, _ := strings.Cut(fk, "."); !strings.Contains(doc, name) {
			t.Errorf("docs/operations.md does not name %s, a foreign key that sets NULL on delete", fk)
		}
	}
}

// citusCommands are the distribution commands of tables, as the doc
// should hold them.
func citusCommands(tables []string) string {
	var b strings.Builder
	for i, name := range tables {
		if i == 0 {
			b.WriteString("SELECT create_distributed_table('" + name + "', 'company_id');\n")
			continue
		}
		b.WriteString("SELECT create_distributed_table('" + name + "', 'company_id', colocate_with => '" + tables[0] + "');\n")
	}
	return b.String()
}
