package storage_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

func TestMigrateIsIdempotent(t *testing.T) {
	t.Parallel()
	pool := storagetest.NewDB(t) // already migrated from the template
	applied, err := storage.MigrateVerbose(context.Background(), pool)
	if err != nil {
		t.Fatal(err)
	}
	if len(applied) != 0 {
		t.Errorf("second run applied %v", applied)
	}
	migrations, err := storage.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	var recorded int
	if err := pool.QueryRow(context.Background(), "SELECT count(*) FROM schema_migrations").Scan(&recorded); err != nil {
		t.Fatal(err)
	}
	if recorded != len(migrations) {
		t.Errorf("schema_migrations has %d rows, want %d", recorded, len(migrations))
	}
	var states int
	if err := pool.QueryRow(context.Background(), "SELECT count(*) FROM states").Scan(&states); err != nil {
		t.Fatal(err)
	}
	if states != 27 {
		t.Errorf("%d states seeded, want 27", states)
	}
}

// acrossCompanies are the indexes of the work done across companies by
// design, and only there: the outbox relay takes the oldest pending jobs
// of every company, and sweeps the quiet ones (docs/storage.md). Each is
// partial, so it holds only the jobs in flight.
var acrossCompanies = map[string]bool{"jobs_relay_pending": true, "jobs_relay_in_flight": true}

// TestKeysLeadWithCompany checks the schema rule: every primary key and
// index of a company-owned table starts with company_id.
func TestKeysLeadWithCompany(t *testing.T) {
	t.Parallel()
	pool := storagetest.NewDB(t)
	rows, err := pool.Query(context.Background(), `
		SELECT i.indexrelid::regclass::text, a.attname
		FROM pg_index i
		JOIN pg_class c ON c.oid = i.indrelid
		JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
		JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = i.indkey[0]
		WHERE EXISTS (SELECT 1 FROM pg_attribute x WHERE x.attrelid = c.oid AND x.attname = 'company_id')`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var index, first string
		if err := rows.Scan(&index, &first); err != nil {
			t.Fatal(err)
		}
		n++
		if first != "company_id" && !acrossCompanies[index] {
			t.Errorf("index %s starts with %s, not company_id", index, first)
		}
	}
	if n < 5 {
		t.Errorf("only %d indexes checked", n)
	}
}

func TestAPIKeys(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	companyID, userID, err := storage.EnsureCompany(ctx, pool, "Imobiliária Horizonte")
	if err != nil {
		t.Fatal(err)
	}
	again, againUser, err := storage.EnsureCompany(ctx, pool, "Imobiliária Horizonte")
	if err != nil || again != companyID || againUser != userID {
		t.Fatalf("EnsureCompany is not idempotent: %d/%d vs %d/%d (%v)", again, againUser, companyID, userID, err)
	}
	key, err := storage.CreateAPIKey(ctx, pool, companyID, userID, "test")
	if err != nil {
		t.Fatal(err)
	}
	p, err := storage.LookupAPIKey(ctx, pool, key.Key)
	if err != nil || p != key.Principal {
		t.Fatalf("lookup: %+v %v, want %+v", p, err, key.Principal)
	}
	var stored []byte
	if err := pool.QueryRow(ctx, "SELECT secret_hash FROM api_keys WHERE id = $1", key.KeyID).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	secret := key.Key[strings.LastIndex(key.Key, "_")+1:]
	if bytes.Contains(stored, []byte(secret)) || len(stored) != 32 {
		t.Errorf("the key is not stored as a 32-byte hash")
	}
	for _, bad := range []string{"", "pf_", key.Key + "0", strings.Replace(key.Key, "pf_", "px_", 1), "pf_999_" + secret} {
		if _, err := storage.LookupAPIKey(ctx, pool, bad); finance.ErrorCode(err) != finance.Unauthenticated {
			t.Errorf("key %q: %v, want unauthenticated", bad, err)
		}
	}
	if _, err := pool.Exec(ctx, "UPDATE api_keys SET revoked_at = now() WHERE id = $1", key.KeyID); err != nil {
		t.Fatal(err)
	}
	if _, err := storage.LookupAPIKey(ctx, pool, key.Key); finance.ErrorCode(err) != finance.Unauthenticated {
		t.Errorf("revoked key: %v", err)
	}
}

func TestRegistryRefusesBadDeclarations(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		res  []*storage.Resource
		want string
	}{
		{"no id", []*storage.Resource{{Name: "a", Columns: []storage.Column{{Name: "x", Type: storage.Int}}}}, "id column"},
		{"duplicate column", []*storage.Resource{{Name: "a", Columns: []storage.Column{{Name: "id", Type: storage.Int}, {Name: "id", Type: storage.Int}}}}, "twice"},
		{"relation to nowhere", []*storage.Resource{{Name: "a", Columns: []storage.Column{{Name: "id", Type: storage.Int}},
			Relations: []storage.Relation{{Name: "b", Kind: storage.HasMany, Resource: "b", Key: "a_id"}}}}, "undeclared"},
		{"missing key column", []*storage.Resource{{Name: "a", Columns: []storage.Column{{Name: "id", Type: storage.Int}},
			Relations: []storage.Relation{{Name: "self", Kind: storage.BelongsTo, Resource: "a", Key: "parent_id"}}}}, "no column"},
		{"decimal without scale", []*storage.Resource{{Name: "a", Columns: []storage.Column{{Name: "id", Type: storage.Int},
			{Name: "amount", Type: storage.Decimal}}}}, "numeric(precision, scale)"},
		{"scale over precision", []*storage.Resource{{Name: "a", Columns: []storage.Column{{Name: "id", Type: storage.Int},
			{Name: "amount", Type: storage.Decimal, Precision: 2, Scale: 3}}}}, "numeric(precision, scale)"},
		{"scale on a string", []*storage.Resource{{Name: "a", Columns: []storage.Column{{Name: "id", Type: storage.Int},
			{Name: "title", Type: storage.String, Scale: 2}}}}, "not a decimal"},
		{"plain name without a body name", []*storage.Resource{{Name: "a", Columns: []storage.Column{{Name: "id", Type: storage.Int},
			{Name: "title", Type: storage.String, Writable: true, PlainName: true}}}}, "body name"},
		{"enum on integers", []*storage.Resource{{Name: "a", Columns: []storage.Column{{Name: "id", Type: storage.Int},
			{Name: "tag", Type: storage.IntArray, Enum: []string{"a"}}}}}, "must be a string"},
		{"local date-time without a zone column", []*storage.Resource{{Name: "a", Columns: []storage.Column{{Name: "id", Type: storage.Int},
			{Name: "at", Type: storage.DateTime, Local: true}}}}, "local column"},
		{"local date", []*storage.Resource{{Name: "a", TimeZone: "zone", Columns: []storage.Column{{Name: "id", Type: storage.Int},
			{Name: "zone", Type: storage.String, NotNull: true}, {Name: "on", Type: storage.Date, Local: true}}}}, "local column"},
		{"zone column missing", []*storage.Resource{{Name: "a", TimeZone: "zone", Columns: []storage.Column{{Name: "id", Type: storage.Int}}}}, "time zone column"},
		{"zone column nullable", []*storage.Resource{{Name: "a", TimeZone: "zone", Columns: []storage.Column{{Name: "id", Type: storage.Int},
			{Name: "zone", Type: storage.String, Writable: true}}}}, "time zone column"},
		{"normalizing a date", []*storage.Resource{{Name: "a", Columns: []storage.Column{{Name: "id", Type: storage.Int},
			{Name: "on", Type: storage.Date, Writable: true, Normalize: storage.NormalizeCEP}}}}, "normalizes"},
		{"date-time special filter", []*storage.Resource{{Name: "a", Columns: []storage.Column{{Name: "id", Type: storage.Int},
			{Name: "at", Type: storage.DateTime}}, Filters: []storage.SpecialFilter{storage.ColumnMin("atMin", "at", storage.DateTime)}}}, "takes dates"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := storage.NewRegistry(c.res...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one mentioning %q", err, c.want)
			}
		})
	}
	if _, err := storage.NewRegistry(storage.Resources()...); err != nil {
		t.Errorf("the shipped declarations: %v", err)
	}
}

// TestReadOnlyRefusesWrites: every write to a read-only resource is refused
// by storage itself, whoever the caller.
func TestReadOnlyRefusesWrites(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	reg := storage.DefaultRegistry()
	store := storage.NewStore(pool, reg)
	states := reg.MustResource(storage.States)
	w := storage.Write{Values: map[string]any{"name": "x"}}
	writes := map[string]func() error{
		"create": func() error { _, err := store.Create(ctx, states, storage.Company(1), w); return err },
		"update": func() error { _, err := store.Update(ctx, states, storage.Company(1), 35, w); return err },
		"delete": func() error { return store.Delete(ctx, states, storage.Company(1), 35) },
	}
	for name, write := range writes {
		if err := write(); finance.ErrorCode(err) != finance.Invalid {
			t.Errorf("%s: %v, want invalid", name, err)
		}
	}
}

func TestCheckDecimal(t *testing.T) {
	t.Parallel()
	money := storage.Column{Name: "amount", Type: storage.Decimal, Precision: 14, Scale: 2}
	whole := storage.Column{Name: "units", Type: storage.Decimal, Precision: 5, Scale: 0}
	cases := []struct {
		col  storage.Column
		text string
		want string
	}{
		{money, "10.55", ""},
		{money, "10.550000", ""},
		{money, "-0.01", ""},
		{money, "000000000000999999999999.99", ""},
		{money, "10.555", "must have at most 2 decimal places"},
		{money, "0.001", "must have at most 2 decimal places"},
		{money, "1000000000000", "must have at most 12 digits before the decimal point"},
		{money, "-1000000000000.5", "must have at most 12 digits before the decimal point"},
		{whole, "99999.0", ""},
		{whole, "1.5", "must have at most 0 decimal places"},
		{whole, "100000", "must have at most 5 digits before the decimal point"},
	}
	for _, c := range cases {
		if got := c.col.CheckDecimal(c.text); got != c.want {
			t.Errorf("numeric(%d,%d) %s: %q, want %q", c.col.Precision, c.col.Scale, c.text, got, c.want)
		}
	}
}

// TestCustomFieldLimits: storage holds every caller to the limits of one
// record's custom fields, an update's merge included, and a refused update
// changes nothing.
func TestCustomFieldLimits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	companyID, _, err := storage.EnsureCompany(ctx, pool, "Limits")
	if err != nil {
		t.Fatal(err)
	}
	reg := storage.DefaultRegistry()
	store := storage.NewStore(pool, reg)
	res := reg.MustResource(storage.BuildingCategories)
	write := func(from, to int) storage.Write {
		w := storage.Write{Values: map[string]any{"description": "d", "color": "c"}, Custom: map[string]json.RawMessage{}}
		for i := from; i < to; i++ {
			w.Custom[fmt.Sprintf("f%03d", i)] = json.RawMessage("1")
		}
		return w
	}
	if _, err := store.Create(ctx, res, storage.Company(companyID), write(0, storage.MaxCustomFields+1)); finance.ErrorCode(err) != finance.Invalid {
		t.Errorf("create with %d custom fields: %v", storage.MaxCustomFields+1, err)
	}
	rec, err := store.Create(ctx, res, storage.Company(companyID), write(0, storage.MaxCustomFields))
	if err != nil {
		t.Fatal(err)
	}
	id, _ := rec.ID()
	if _, err := store.Update(ctx, res, storage.Company(companyID), id, write(storage.MaxCustomFields, storage.MaxCustomFields+1)); finance.ErrorCode(err) != finance.Invalid {
		t.Errorf("update past the limit once merged: %v", err)
	}
	var n int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM building_categories, jsonb_object_keys(custom_fields) WHERE id = $1", id).Scan(&n); err != nil || n != storage.MaxCustomFields {
		t.Errorf("after the refused update: %d custom fields (%v)", n, err)
	}
}

// TestSchemaStatus: a migrated database is up to date; a migration's row
// gone is a migration missing, by name; a version the binary does not
// embed is unknown (the schema is ahead), not missing; a database never
// migrated misses them all.
func TestSchemaStatus(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	migrations, err := storage.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	last := migrations[len(migrations)-1]
	check := func(what string, wantMissing []string, wantUnknown []int) {
		t.Helper()
		s, err := storage.SchemaStatus(ctx, pool)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(s.Missing, wantMissing) || !slices.Equal(s.Unknown, wantUnknown) || s.Behind() != (len(wantMissing) > 0) {
			t.Errorf("%s: missing %v unknown %v, want %v and %v", what, s.Missing, s.Unknown, wantMissing, wantUnknown)
		}
	}
	check("migrated", nil, nil)
	if _, err := pool.Exec(ctx, `DELETE FROM schema_migrations WHERE version = $1`, last.Version); err != nil {
		t.Fatal(err)
	}
	check("one behind", []string{last.Name}, nil)
	if _, err := pool.Exec(ctx, `INSERT INTO schema_migrations (version, name) VALUES ($1, $2), (9999, '9999_later.sql')`,
		last.Version, last.Name); err != nil {
		t.Fatal(err)
	}
	check("ahead", nil, []int{9999})
	if _, err := pool.Exec(ctx, `DROP TABLE schema_migrations`); err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, m := range migrations {
		all = append(all, m.Name)
	}
	check("never migrated", all, nil)
}
