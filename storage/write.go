package storage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/propfin/propfin/finance"
)

// Write is a checked create or update body: Values by column (nil is SQL
// NULL), Custom by custom-field name without its `_` prefix (a JSON null
// removes the field).
type Write struct {
	Values map[string]any
	Custom map[string]json.RawMessage
	// Children holds the elements of each declared child collection the
	// body gives, by the collection's name (Resource.Children).
	Children map[string][]ChildWrite
}

func (w Write) columns() []string {
	names := make([]string, 0, len(w.Values))
	for n := range w.Values {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// storedColumns are the columns of w the row holds: every one but the
// resource's unstored columns, which its hooks store.
func (w Write) storedColumns(res *Resource) []string {
	return slices.DeleteFunc(w.columns(), func(name string) bool {
		c, _ := res.Column(name)
		return c.Unstored
	})
}

// CustomSet returns the custom fields the write sets, leaving out those it
// removes (a JSON null).
func (w Write) CustomSet() map[string]json.RawMessage {
	set := map[string]json.RawMessage{}
	for name, v := range w.Custom {
		if string(v) != "null" {
			set[name] = v
		}
	}
	return set
}

// customPatch splits the custom fields into the object to merge and the
// names to remove.
func (w Write) customPatch() (merge []byte, remove []string, err error) {
	remove = []string{}
	for name, v := range w.Custom {
		if string(v) == "null" {
			remove = append(remove, name)
		}
	}
	merge, err = json.Marshal(w.CustomSet())
	sort.Strings(remove)
	return merge, remove, err
}

// Create inserts a record for a company, with its child collections and
// around its hooks, in one transaction, and returns it with every column,
// its custom fields and its children.
func (s *Store) Create(ctx context.Context, res *Resource, sc Scope, w Write) (*Record, error) {
	return s.create(ctx, res, sc, w, false)
}

// errCheckOnly rolls back the transaction of a write run for its checks.
var errCheckOnly = errors.New("storage: checked, not written")

// CheckCreate runs a create's checks and hooks as Create does, in a
// transaction rolled back whatever happens: the refusal the create would
// answer, nil when it would be written. A body with problems of its own
// is checked on the rest, so that one answer names every problem.
func (s *Store) CheckCreate(ctx context.Context, res *Resource, sc Scope, w Write) error {
	_, err := s.create(ctx, res, sc, w, true)
	return err
}

// CheckUpdate is CheckCreate of an update of record id (Update).
func (s *Store) CheckUpdate(ctx context.Context, res *Resource, sc Scope, id int64, w Write) error {
	_, err := s.update(ctx, res, sc, id, w, true)
	return err
}

// checkedOnly is the result of a write run for its checks alone (checkOnly):
// its own refusal, the rollback no error.
func checkedOnly(err error) error {
	if errors.Is(err, errCheckOnly) {
		return nil
	}
	return err
}

// writeEnd ends a write's transaction: the error of finishing it, else,
// for a write run for its checks alone, errCheckOnly to roll it back.
func writeEnd(err error, checkOnly bool) error {
	if err == nil && checkOnly {
		return errCheckOnly
	}
	return err
}

// create is Create, or with checkOnly CheckCreate.
func (s *Store) create(ctx context.Context, res *Resource, sc Scope, w Write, checkOnly bool) (*Record, error) {
	w = normalizeWrite(res, w)
	if err := checkWrite(res, w); err != nil {
		return nil, err
	}
	if err := checkCreateChildren(res, w); err != nil {
		return nil, err
	}
	companyID := sc.CompanyID
	if res.Parent != nil && sc.Parent != 0 {
		w.Values = maps.Clone(w.Values)
		w.Values[res.Parent.Key] = sc.Parent
	}
	var rec *Record
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := s.checkParent(ctx, tx, res, sc); err != nil {
			return err
		}
		if err := s.checkReferences(ctx, tx, res, companyID, w); err != nil {
			return err
		}
		placed, err := s.placeWallTimes(ctx, tx, res, sc, 0, w)
		if err != nil {
			return err
		}
		change := &Change{Op: OpCreate, Resource: res, Scope: sc, New: placed}
		if err := runHooks(ctx, tx, res.Hooks.Before, change); err != nil {
			return err
		}
		if rec, err = insertRow(ctx, tx, res, companyID, change.New); err != nil {
			return err
		}
		change.ID, _ = rec.ID()
		return writeEnd(s.finishWrite(ctx, tx, res, sc, change, rec), checkOnly)
	})
	if err = checkedOnly(err); err != nil {
		return nil, translateFor(err, res, "create "+res.Name)
	}
	return rec, nil
}

// finishWrite writes the child collections of a create or update, reads
// them back into rec and runs the after-write hooks. After hooks may
// write the record again (a payment's posting writes its amounts), so
// when there are any the record is read again after them.
func (s *Store) finishWrite(ctx context.Context, tx pgx.Tx, res *Resource, sc Scope, change *Change, rec *Record) error {
	if err := s.writeChildren(ctx, tx, res, sc, change.ID, change.New); err != nil {
		return err
	}
	if err := s.loadChildren(ctx, tx, res, sc, rec); err != nil {
		return err
	}
	change.Record = rec
	if len(res.Hooks.After) == 0 {
		rec.warnings = change.warnings
		return nil
	}
	if err := runHooks(ctx, tx, res.Hooks.After, change); err != nil {
		return err
	}
	fresh, err := readRow(ctx, tx, res, Scope{CompanyID: sc.CompanyID}, change.ID, "")
	if err != nil {
		return fmt.Errorf("read %s %d again: %w", res.Name, change.ID, err)
	}
	if err := s.loadChildren(ctx, tx, res, sc, fresh); err != nil {
		return err
	}
	*rec = *fresh
	rec.warnings = change.warnings
	return nil
}

// insertRow inserts one checked row and returns it.
func insertRow(ctx context.Context, tx pgx.Tx, res *Resource, companyID int64, w Write) (*Record, error) {
	cols := w.storedColumns(res)
	var b sqlBuilder
	b.write("INSERT INTO ", ident(res.Table), " (company_id")
	for _, c := range cols {
		b.write(", ", ident(c))
	}
	if res.CustomFields {
		b.write(", custom_fields")
	}
	b.write(") VALUES (", b.bind(companyID, Int))
	for _, name := range cols {
		c, _ := res.Column(name)
		b.write(", ", b.bind(w.Values[name], c.Type))
	}
	if res.CustomFields {
		merge, _, err := w.customPatch()
		if err != nil {
			return nil, fmt.Errorf("encode custom fields: %w", err)
		}
		b.write(", ", b.bind(string(merge), String), "::jsonb")
	}
	b.write(")")
	return returnOne(ctx, tx, &b, res, 0)
}

// Update changes the given columns of a company's record, applies its
// child collection changes and runs its hooks, in one transaction, and
// returns the record with its children.
func (s *Store) Update(ctx context.Context, res *Resource, sc Scope, id int64, w Write) (*Record, error) {
	return s.update(ctx, res, sc, id, w, false)
}

// update is Update, or with checkOnly CheckUpdate.
func (s *Store) update(ctx context.Context, res *Resource, sc Scope, id int64, w Write, checkOnly bool) (*Record, error) {
	w = normalizeWrite(res, w)
	if err := checkWrite(res, w); err != nil {
		return nil, err
	}
	companyID := sc.CompanyID
	var rec *Record
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := s.checkParent(ctx, tx, res, sc); err != nil {
			return err
		}
		change := &Change{Op: OpUpdate, Resource: res, Scope: sc, ID: id, New: w}
		if res.Hooks.any() {
			old, err := lockRow(ctx, tx, res, sc, id, OpUpdate)
			if err != nil {
				return err
			}
			change.Old = old
		}
		if err := s.checkReferences(ctx, tx, res, companyID, w); err != nil {
			return err
		}
		var err error
		if change.New, err = s.placeWallTimes(ctx, tx, res, sc, id, change.New); err != nil {
			return err
		}
		if err := runHooks(ctx, tx, res.Hooks.Before, change); err != nil {
			return err
		}
		if rec, err = updateRow(ctx, tx, res, sc, id, change.New, func(b *sqlBuilder) { writeParentKey(b, res, sc) }); err != nil {
			return err
		}
		return writeEnd(s.finishWrite(ctx, tx, res, sc, change, rec), checkOnly)
	})
	if err = checkedOnly(err); err != nil {
		return nil, translateFor(err, res, "update "+res.Name)
	}
	return rec, nil
}

// updateRow updates one checked row (more conditions from where) and
// returns it; no row is not found.
func updateRow(ctx context.Context, tx pgx.Tx, res *Resource, sc Scope, id int64, w Write, where func(*sqlBuilder)) (*Record, error) {
	var b sqlBuilder
	b.write("UPDATE ", ident(res.Table), " SET updated_at = now()")
	for _, name := range w.storedColumns(res) {
		c, _ := res.Column(name)
		b.write(", ", ident(name), " = ", b.bind(w.Values[name], c.Type))
	}
	if res.CustomFields && len(w.Custom) > 0 {
		merge, remove, err := w.customPatch()
		if err != nil {
			return nil, fmt.Errorf("encode custom fields: %w", err)
		}
		b.write(", custom_fields = (custom_fields || ", b.bind(string(merge), String), "::jsonb)")
		if len(remove) > 0 {
			b.write(" - ", b.bindArray(remove, String))
		}
	}
	b.write(" WHERE company_id = ", b.bind(sc.CompanyID, Int), " AND id = ", b.bind(id, Int))
	where(&b)
	rec, err := returnOne(ctx, tx, &b, res, id)
	if err != nil {
		return nil, err
	}
	if res.CustomFields && len(w.Custom) > 0 {
		if err := checkStoredCustomFields(rec); err != nil {
			return nil, err
		}
	}
	return rec, nil
}

// Delete removes a company's record. A record still referenced by others
// is a conflict, and nothing is removed; a read-only resource is invalid.
func (s *Store) Delete(ctx context.Context, res *Resource, sc Scope, id int64) error {
	return s.DeleteWith(ctx, res, sc, id, nil)
}

// DeleteWith is Delete with the request's delete options (names declared
// in res.DeleteOptions; any other is refused), which reach the hooks. The
// record's child collections are removed with it, in its transaction.
func (s *Store) DeleteWith(ctx context.Context, res *Resource, sc Scope, id int64, options map[string]bool) error {
	if err := res.CheckWritable(); err != nil {
		return err
	}
	opts := make(map[string]bool, len(res.DeleteOptions))
	for _, name := range res.DeleteOptions {
		opts[name] = false
	}
	var problems []finance.Problem
	for name, v := range options {
		if !res.AcceptsDeleteOption(name) {
			problems = append(problems, finance.Problem{Field: name, Message: "unknown query parameter"})
			continue
		}
		opts[name] = v
	}
	if len(problems) > 0 {
		sort.Slice(problems, func(i, j int) bool { return problems[i].Field < problems[j].Field })
		return finance.InvalidInput(problems)
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := s.checkParent(ctx, tx, res, sc); err != nil {
			return err
		}
		change := &Change{Op: OpDelete, Resource: res, Scope: sc, ID: id, Options: opts}
		if res.Hooks.any() {
			old, err := lockRow(ctx, tx, res, sc, id, OpDelete)
			if err != nil {
				return err
			}
			change.Old = old
			if err := runHooks(ctx, tx, res.Hooks.Before, change); err != nil {
				return err
			}
		}
		if err := s.deleteChildren(ctx, tx, res, sc, id); err != nil {
			return err
		}
		var b sqlBuilder
		b.write("DELETE FROM ", ident(res.Table), " WHERE company_id = ", b.bind(sc.CompanyID, Int), " AND id = ", b.bind(id, Int))
		writeParentKey(&b, res, sc)
		tag, err := tx.Exec(ctx, b.String(), b.args...)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return recordNotFound(id)
		}
		return runHooks(ctx, tx, res.Hooks.After, change)
	})
	if err != nil {
		err = translate(err, "delete "+res.Name)
		var pgErr *pgconn.PgError
		if finance.ErrorCode(err) == finance.Conflict && errors.As(err, &pgErr) {
			return &finance.Error{Code: finance.Conflict, Message: "The record is still referenced by other records and was not deleted.", Err: err}
		}
		return err
	}
	return nil
}

// writeParentKey limits an update or delete of a sub-resource reached
// under its parent to that parent's rows.
func writeParentKey(b *sqlBuilder, res *Resource, sc Scope) {
	if res.Parent != nil && sc.Parent != 0 {
		b.write(" AND ", ident(res.Parent.Key), " = ", b.bind(sc.Parent, Int))
	}
}

// normalizeWrite rewrites the texts of w as their columns' Normalize
// declares (a CPF's punctuation dropped), so that whoever calls storage
// stores the same form as the API's parser gives. w's own map is not
// changed.
func normalizeWrite(res *Resource, w Write) Write {
	var values map[string]any
	for name, v := range w.Values {
		c, _ := res.Column(name)
		text, isText := v.(string)
		if !isText || c.Normalize == nil {
			continue
		}
		if bare := c.Normalize(text); bare != text {
			if values == nil {
				values = maps.Clone(w.Values)
			}
			values[name] = bare
		}
	}
	if values != nil {
		w.Values = values
	}
	return w
}

// checkWrite refuses, before any SQL, a write to a read-only resource,
// custom fields past the limits of one record (the update's merge is
// checked again once done), texts outside their column's enum or refused
// by its Check, and decimals their column cannot hold without rounding.
func checkWrite(res *Resource, w Write) error {
	if err := res.CheckWritable(); err != nil {
		return err
	}
	if err := checkCustomFields(w.CustomSet()); err != nil {
		return err
	}
	for name, elems := range w.Children {
		if _, ok := res.Child(name); !ok {
			return finance.InvalidInput([]finance.Problem{{Field: name, Message: "unknown field"}})
		}
		if len(elems) > MaxChildWrites {
			return finance.InvalidInput([]finance.Problem{{Field: name, Message: fmt.Sprintf("must have at most %d elements", MaxChildWrites)}})
		}
	}
	var problems []finance.Problem
	for _, name := range w.columns() {
		c, _ := res.Column(name)
		if w.Values[name] == nil && c.NotNull {
			problems = append(problems, finance.Problem{Field: c.Key(), Message: "cannot be null"})
			continue
		}
		if texts, isTexts := w.Values[name].([]string); isTexts {
			for _, text := range texts {
				if msg := c.CheckEnum(text); msg != "" {
					problems = append(problems, finance.Problem{Field: c.Key(), Message: msg})
					break
				}
			}
			continue
		}
		if n, isInt := w.Values[name].(int64); isInt {
			if msg := c.CheckInt(n); msg != "" {
				problems = append(problems, finance.Problem{Field: c.Key(), Message: msg})
			}
			continue
		}
		text, isText := w.Values[name].(string)
		if !isText {
			continue
		}
		msg := c.CheckEnum(text)
		if msg == "" {
			msg = c.CheckValue(text)
		}
		switch {
		case c.Type == Decimal:
			msg = c.CheckDecimal(text)
		case c.Type == JSONText && !json.Valid([]byte(text)):
			msg = "must be a string holding valid JSON"
		}
		if msg != "" {
			problems = append(problems, finance.Problem{Field: c.Key(), Message: msg})
		}
	}
	if len(problems) > 0 {
		return finance.InvalidInput(problems)
	}
	return nil
}

// returnOne finishes a write with RETURNING every column and custom fields,
// and reads the one record; no row is record id not found.
func returnOne(ctx context.Context, tx pgx.Tx, b *sqlBuilder, res *Resource, id int64) (*Record, error) {
	sh := mainShape(res, nil, true, nil)
	b.write(" RETURNING ")
	writeSelectList(b, sh)
	records, err := queryRecords(ctx, tx, b, sh)
	if err != nil {
		return nil, err
	}
	if len(records) == 0 {
		return nil, recordNotFound(id)
	}
	return records[0], nil
}

// checkReferences refuses a write whose reference columns point at records
// that do not exist for this company, naming every such field at once.
func (s *Store) checkReferences(ctx context.Context, tx pgx.Tx, res *Resource, companyID int64, w Write) error {
	var problems []finance.Problem
	for _, name := range w.columns() {
		c, _ := res.Column(name)
		if c.References == "" || w.Values[name] == nil {
			continue
		}
		target := s.registry.MustResource(c.References)
		if c.Type == IntArray {
			missing, err := missingIDs(ctx, tx, target, companyID, w.Values[name])
			if err != nil {
				return fmt.Errorf("check %s: %w", name, err)
			}
			if len(missing) > 0 {
				problems = append(problems, finance.Problem{Field: c.Key(), Message: fmt.Sprintf("no %s with id %s", target.Name, joinInts(missing))})
			}
			continue
		}
		exists, err := recordExists(ctx, tx, target, companyID, w.Values[name])
		if err != nil {
			return fmt.Errorf("check %s: %w", name, err)
		}
		if !exists {
			problems = append(problems, missingReference(c.Key(), target, w.Values[name]))
		}
	}
	if len(problems) > 0 {
		return finance.InvalidInput(problems)
	}
	return nil
}

// Reference is a field outside a resource's body that names a record of
// the company: a job payload's contract_id.
type Reference struct {
	Field    string // as the problem names it: "payload.contract_id"
	Resource string // the resource of the record (Contracts)
	ID       int64
}

// CheckReferences refuses references to records the company does not
// have, as a write's reference columns are refused: Invalid, naming every
// such field at once. A resource the registry does not declare is an
// error of the caller.
func (reg *Registry) CheckReferences(ctx context.Context, q DBTX, companyID int64, refs []Reference) error {
	var problems []finance.Problem
	for _, ref := range refs {
		target, ok := reg.Resource(ref.Resource)
		if !ok {
			return fmt.Errorf("check %s: no resource %q", ref.Field, ref.Resource)
		}
		exists, err := recordExists(ctx, q, target, companyID, ref.ID)
		if err != nil {
			return translate(fmt.Errorf("check %s: %w", ref.Field, err), ref.Resource)
		}
		if !exists {
			problems = append(problems, missingReference(ref.Field, target, ref.ID))
		}
	}
	if len(problems) > 0 {
		return finance.InvalidInput(problems)
	}
	return nil
}

// recordExists says whether target has a record of the company with id.
func recordExists(ctx context.Context, q DBTX, target *Resource, companyID int64, id any) (bool, error) {
	var b sqlBuilder
	b.write("SELECT EXISTS (SELECT 1 FROM ", ident(target.Table))
	writeWhere(&b, target, Company(companyID), []Filter{{Column: "id", Op: Equal, Values: []any{id}}}, nil)
	b.write(")")
	var exists bool
	err := q.QueryRow(ctx, b.String(), b.args...).Scan(&exists)
	return exists, err
}

func missingReference(field string, target *Resource, id any) finance.Problem {
	return finance.Problem{Field: field, Message: fmt.Sprintf("no %s with id %v", target.Name, id)}
}

// missingIDs lists the ids of an integer array (a tag list) that name no
// record of target for the company, in the array's order.
func missingIDs(ctx context.Context, tx pgx.Tx, target *Resource, companyID int64, v any) ([]int64, error) {
	ids, _ := v.([]int64)
	if len(ids) == 0 {
		return nil, nil
	}
	var b sqlBuilder
	b.write("SELECT coalesce(array_agg(DISTINCT id), '{}') FROM ", ident(target.Table))
	writeWhere(&b, target, Company(companyID), nil, []SpecialCondition{{Filter: ColumnIn("", "id", Int), Values: int64sAsAny(ids)}})
	var found []int64
	if err := tx.QueryRow(ctx, b.String(), b.args...).Scan(&found); err != nil {
		return nil, err
	}
	var missing []int64
	for _, id := range ids {
		if !slices.Contains(found, id) && !slices.Contains(missing, id) {
			missing = append(missing, id)
		}
	}
	return missing, nil
}

func int64sAsAny(ids []int64) []any {
	out := make([]any, len(ids))
	for i, id := range ids {
		out[i] = id
	}
	return out
}

func joinInts(ids []int64) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.FormatInt(id, 10)
	}
	return strings.Join(parts, ", ")
}

// checkCreateChildren requires the required child collections on create,
// where every element is an add.
func checkCreateChildren(res *Resource, w Write) error {
	var problems []finance.Problem
	for _, ch := range res.Children {
		elems := w.Children[ch.Name]
		if ch.Required && len(elems) == 0 {
			problems = append(problems, finance.Problem{Field: ch.Name, Message: "is required"})
		}
		for i, cw := range elems {
			if cw.ID != 0 || cw.Delete {
				problems = append(problems, finance.Problem{Field: fmt.Sprintf("%s.%d.id", ch.Name, i), Message: "cannot be given on create"})
			}
		}
	}
	if len(problems) > 0 {
		return finance.InvalidInput(problems)
	}
	return nil
}
