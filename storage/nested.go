package storage

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/propfin/propfin/finance"
)

// MaxChildWrites bounds the elements of one child collection in one write.
const MaxChildWrites = 1000

// Child declares a child collection written with its parent in the
// parent's transaction (an invoice's `items`): Name is its key in bodies
// and in the write's response, Resource the child resource declaring the
// rows' columns, Key the child's column holding the parent's id (set by the
// machinery, so it must not be writable). Required: a create must give at
// least one element. Where, when set, is a fixed SQL condition on the
// child's columns (`kind = 'line'`) that limits the children a write may
// edit or delete and those the write's response carries; rows outside it
// (an invoice's settlement lines) are refused by id, named
// `<child>.<index>.id`, and removed only with their parent.
type Child struct {
	Name     string
	Resource string
	Key      string
	Required bool
	Where    string
}

// ChildWrite is one element of a child collection in a write. On create
// every element is an add. On update an element without ID is an add,
// one with ID an edit of that child (Values are the changed columns), one
// with ID and Delete a removal. An ID that is not a child of the record
// written is a problem named `<child>.<index>.id`.
type ChildWrite struct {
	ID     int64
	Delete bool
	Write  Write
}

// Op is the kind of write a hook runs for.
type Op int

// Write operations.
const (
	OpCreate Op = iota + 1
	OpUpdate
	OpDelete
)

func (o Op) String() string {
	switch o {
	case OpCreate:
		return "create"
	case OpUpdate:
		return "update"
	case OpDelete:
		return "delete"
	}
	return "Op(" + strconv.Itoa(int(o)) + ")"
}

// Change is what a hook sees of a write.
type Change struct {
	Op       Op
	Resource *Resource
	Scope    Scope
	// ID is the record's id (0 before a create's insert).
	ID int64
	// Old is the row as stored before the write, read and locked in the
	// write's transaction (FOR NO KEY UPDATE before an update, FOR UPDATE
	// before a delete; nil on create).
	Old *Record
	// New is the checked body of a create or update (its Children
	// included); empty on delete.
	New Write
	// Record is the written record with its children, for after-write
	// hooks of a create or update (nil before the write and on delete).
	Record *Record
	// Options are the delete options of the request (DeleteOptions), each
	// false unless given.
	Options map[string]bool
	// Memo holds what a hook of this write hands to the later hooks of the
	// same write (the lines before an update, for the after hook that
	// writes the history).
	Memo map[string]any
	// warnings are what the write's hooks did that its writer may not
	// expect (Warn): the 2xx answer lists them with the resource's own.
	warnings []finance.Problem
}

// Warn adds a warning on field to the write's answer: the write is made
// all the same (docs/api.md, "Writes").
func (c *Change) Warn(field, format string, args ...any) {
	c.warnings = append(c.warnings, finance.Problem{Field: field, Message: fmt.Sprintf(format, args...)})
}

// Given reports whether the write sets column (the body gives it, or a
// hook set it).
func (c *Change) Given(column string) bool {
	_, ok := c.New.Values[column]
	return ok
}

// Changed reports whether the write sets column to a value other than the
// stored one (on create: to a value other than null), comparing by the
// column's type (decimals by value: 100 is 100.00).
func (c *Change) Changed(column string) bool {
	v, ok := c.New.Values[column]
	if !ok {
		return false
	}
	col, _ := c.Resource.Column(column)
	return !SameValue(col.Type, v, c.OldValue(column))
}

// Remember keeps v under key for the later hooks of the write.
func (c *Change) Remember(key string, v any) {
	if c.Memo == nil {
		c.Memo = map[string]any{}
	}
	c.Memo[key] = v
}

// OldValue returns the stored value of a column before the write (nil when
// there is no old row or the column was not read).
func (c *Change) OldValue(column string) any {
	if c.Old == nil {
		return nil
	}
	v, _ := c.Old.Value(column)
	return v
}

// Value returns the value a column will have after the write: the value
// the write sets, else the stored one.
func (c *Change) Value(column string) any {
	if v, ok := c.New.Values[column]; ok {
		return v
	}
	return c.OldValue(column)
}

// Set makes the write set column to v: a before hook of a create or
// update fills in what the body cannot give or what the rule decides (the
// acting user, an invoice's stored status, a discarded PIX code). The column must be a declared, non-derived column
// of the resource; the value is written as given, without the body's
// checks. The body's own map is not changed.
func (c *Change) Set(column string, v any) {
	values := make(map[string]any, len(c.New.Values)+1)
	maps.Copy(values, c.New.Values)
	values[column] = v
	c.New.Values = values
}

// Hook is a per-resource rule run inside the write's transaction: it may
// read and write through tx (history rows, SubmitJob) and refuses the write
// by returning an error: InvalidInput(problems) is a 422, a coded error its
// code's status (Errorf(Conflict, ...) a 409). Any error rolls the whole
// write back, including what earlier hooks wrote.
type Hook func(ctx context.Context, tx pgx.Tx, c *Change) error

// Hooks are a resource's rules around its writes. Before hooks run in
// order before the row is written (after the old row is read), After hooks
// once the row and its children are written, both in the same
// transaction; each sees Change.Op. A child resource's hooks also run for
// each element of a nested write through its parent, and for each child
// removed with its parent.
type Hooks struct {
	Before []Hook
	After  []Hook
}

func (h Hooks) any() bool { return len(h.Before) > 0 || len(h.After) > 0 }

func runHooks(ctx context.Context, tx pgx.Tx, hooks []Hook, c *Change) error {
	for _, h := range hooks {
		if err := h(ctx, tx, c); err != nil {
			return err
		}
	}
	return nil
}

// Child returns the declared child collection named name.
func (r *Resource) Child(name string) (Child, bool) {
	for _, c := range r.Children {
		if c.Name == name {
			return c, true
		}
	}
	return Child{}, false
}

// AcceptsDeleteOption reports whether DELETE takes the boolean option name.
func (r *Resource) AcceptsDeleteOption(name string) bool {
	for _, o := range r.DeleteOptions {
		if o == name {
			return true
		}
	}
	return false
}

// checkChildren checks a resource's child collections, hooks and delete
// options against the registry.
func (reg *Registry) checkChildren(r *Resource) error {
	for _, h := range append(slices.Clone(r.Hooks.Before), r.Hooks.After...) {
		if h == nil {
			return fmt.Errorf("resource %q: a hook is nil", r.Name)
		}
	}
	if (r.Hooks.any() || len(r.Children) > 0 || len(r.DeleteOptions) > 0) && r.ReadOnly {
		return fmt.Errorf("resource %q: a read-only resource has no write declarations", r.Name)
	}
	options := map[string]bool{}
	for _, o := range r.DeleteOptions {
		if o == "" || o == "_" || options[o] {
			return fmt.Errorf("resource %q: delete option %q is empty, reserved or declared twice", r.Name, o)
		}
		options[o] = true
	}
	seen := map[string]bool{}
	for _, ch := range r.Children {
		if seen[ch.Name] {
			return fmt.Errorf("resource %q: child %q declared twice", r.Name, ch.Name)
		}
		seen[ch.Name] = true
		if _, clash := r.ColumnByKey(ch.Name); clash {
			return fmt.Errorf("resource %q: child %q has the body key of a column", r.Name, ch.Name)
		}
		target, ok := reg.resources[ch.Resource]
		if !ok {
			return fmt.Errorf("resource %q: child %q is undeclared resource %q", r.Name, ch.Name, ch.Resource)
		}
		if target.ReadOnly || len(target.Children) > 0 {
			return fmt.Errorf("resource %q: child %q must be a writable resource without children of its own", r.Name, ch.Name)
		}
		if target.Shared != r.Shared {
			return fmt.Errorf("resource %q: child %q must be company-owned like its parent", r.Name, ch.Name)
		}
		if c, ok := target.Column(ch.Key); !ok || c.Type != Int || c.Writable {
			return fmt.Errorf("resource %q: child %q: key %q must be a non-writable integer column of %q", r.Name, ch.Name, ch.Key, target.Name)
		}
	}
	return nil
}

// prefixProblems names problems of one child element (`items.2.amount`).
func prefixProblems(err error, prefix string) error {
	var coded *finance.Error
	if !errors.As(err, &coded) || coded.Code != finance.Invalid {
		return err
	}
	out := &finance.Error{Code: coded.Code, Message: coded.Message, Err: coded.Err}
	for _, p := range coded.Problems {
		out.Problems = append(out.Problems, finance.Problem{Field: prefix + p.Field, Message: p.Message})
	}
	if len(out.Problems) == 0 {
		out.Problems = []finance.Problem{{Field: prefix[:len(prefix)-1], Message: coded.Message}}
	}
	return out
}

// writeChildren applies the child collections of w to the record parentID
// inside tx, collecting the problems of every element; any problem is an
// InvalidInput and the caller rolls back.
func (s *Store) writeChildren(ctx context.Context, tx pgx.Tx, res *Resource, sc Scope, parentID int64, w Write) error {
	var problems []finance.Problem
	for _, ch := range res.Children {
		elems, given := w.Children[ch.Name]
		if !given {
			continue
		}
		child := s.registry.MustResource(ch.Resource)
		childScope := Scope{CompanyID: sc.CompanyID, UserID: sc.UserID}
		seen := map[int64]bool{}
		for i, cw := range elems {
			prefix := ch.Name + "." + strconv.Itoa(i) + "."
			if cw.ID != 0 && seen[cw.ID] {
				problems = append(problems, finance.Problem{Field: prefix + "id", Message: "is given more than once"})
				continue
			}
			seen[cw.ID] = true
			err := s.writeChild(ctx, tx, child, ch, childScope, parentID, cw)
			if err == nil {
				continue
			}
			// after a statement PostgreSQL refused, the transaction takes no
			// other: stop at once
			var pgErr *pgconn.PgError
			refusedBySQL := errors.As(err, &pgErr)
			err = prefixProblems(translateFor(err, child, "write "+child.Name), prefix)
			var coded *finance.Error
			if refusedBySQL || !errors.As(err, &coded) || coded.Code != finance.Invalid {
				return err
			}
			problems = append(problems, coded.Problems...)
		}
	}
	if len(problems) > 0 {
		return finance.InvalidInput(problems)
	}
	return nil
}

// writeChild applies one element of a child collection around the child
// resource's own hooks: its before hooks see the element's operation
// (create, update, delete), the old row of an edit or removal (locked) and
// the element's values; its after hooks the written child.
func (s *Store) writeChild(ctx context.Context, tx pgx.Tx, child *Resource, ch Child, sc Scope, parentID int64, cw ChildWrite) error {
	if !cw.Delete {
		cw.Write = normalizeWrite(child, cw.Write)
		if err := checkWrite(child, cw.Write); err != nil {
			return err
		}
		if err := s.checkReferences(ctx, tx, child, sc.CompanyID, cw.Write); err != nil {
			return err
		}
		var err error
		if cw.Write, err = s.placeWallTimes(ctx, tx, child, sc, cw.ID, cw.Write); err != nil {
			return err
		}
	}
	if cw.ID == 0 {
		cw.Write.Values = maps.Clone(cw.Write.Values)
		if cw.Write.Values == nil {
			cw.Write.Values = map[string]any{}
		}
		cw.Write.Values[ch.Key] = parentID
	}
	if !child.Hooks.any() {
		_, err := applyChild(ctx, tx, child, ch, sc, parentID, cw)
		return err
	}
	change := childChange(child, sc, parentID, cw)
	if cw.ID != 0 {
		old, err := lockRow(ctx, tx, child, sc, cw.ID, change.Op, Filter{Column: ch.Key, Op: Equal, Values: []any{parentID}})
		if finance.ErrorCode(err) == finance.NotFound {
			return notOurChild(ch, cw.ID)
		}
		if err != nil {
			return err
		}
		change.Old = old
	}
	if err := runHooks(ctx, tx, child.Hooks.Before, change); err != nil {
		return err
	}
	rec, err := applyChild(ctx, tx, child, ch, sc, parentID, cw)
	if err != nil {
		return err
	}
	if rec != nil {
		change.ID, _ = rec.ID()
		change.Record = rec
	}
	return runHooks(ctx, tx, child.Hooks.After, change)
}

// childChange is what the child resource's hooks see of one element: its
// operation, the parent's id as the scope's parent, and no delete option
// given.
func childChange(child *Resource, sc Scope, parentID int64, cw ChildWrite) *Change {
	change := &Change{Op: OpCreate, Resource: child, Scope: sc, ID: cw.ID, New: cw.Write}
	change.Scope.Parent = parentID
	switch {
	case cw.Delete:
		change.Op, change.New = OpDelete, Write{}
		change.Options = noDeleteOptions(child)
	case cw.ID != 0:
		change.Op = OpUpdate
	}
	return change
}

// noDeleteOptions is every delete option of a resource, false.
func noDeleteOptions(res *Resource) map[string]bool {
	opts := make(map[string]bool, len(res.DeleteOptions))
	for _, name := range res.DeleteOptions {
		opts[name] = false
	}
	return opts
}

// notOurChild is the problem of an element whose id is not a child of
// the record written.
func notOurChild(ch Child, id int64) error {
	return finance.InvalidInput([]finance.Problem{{Field: "id", Message: fmt.Sprintf("no %s with id %d on this record", ch.Name, id)}})
}

// applyChild writes one checked element of a child collection (its key
// already set on an add) and returns the child written (nil for a
// removal).
func applyChild(ctx context.Context, tx pgx.Tx, child *Resource, ch Child, sc Scope, parentID int64, cw ChildWrite) (*Record, error) {
	if cw.Delete {
		var b sqlBuilder
		b.write("DELETE FROM ", ident(child.Table), " WHERE company_id = ", b.bind(sc.CompanyID, Int),
			" AND id = ", b.bind(cw.ID, Int), " AND ", ident(ch.Key), " = ", b.bind(parentID, Int))
		writeChildWhere(&b, ch)
		tag, err := tx.Exec(ctx, b.String(), b.args...)
		if err != nil {
			return nil, err
		}
		if tag.RowsAffected() == 0 {
			return nil, childRefused(ctx, tx, child, ch, sc, parentID, cw.ID)
		}
		return nil, nil
	}
	if cw.ID == 0 {
		return insertRow(ctx, tx, child, sc.CompanyID, cw.Write)
	}
	rec, err := updateRow(ctx, tx, child, sc, cw.ID, cw.Write, func(b *sqlBuilder) {
		b.write(" AND ", ident(ch.Key), " = ", b.bind(parentID, Int))
		writeChildWhere(b, ch)
	})
	if finance.ErrorCode(err) == finance.NotFound {
		return nil, childRefused(ctx, tx, child, ch, sc, parentID, cw.ID)
	}
	return rec, err
}

// writeChildWhere adds a child collection's declared condition.
func writeChildWhere(b *sqlBuilder, ch Child) {
	if ch.Where != "" {
		b.write(" AND (", ch.Where, ")")
	}
}

// childRefused says why the child id of an edit or a delete was not
// written: not a child of the record, or one outside the collection's
// Where (a settlement line), which clients cannot change.
func childRefused(ctx context.Context, tx pgx.Tx, child *Resource, ch Child, sc Scope, parentID, id int64) error {
	msg := fmt.Sprintf("no %s with id %d on this record", ch.Name, id)
	if ch.Where != "" {
		var b sqlBuilder
		b.write("SELECT EXISTS (SELECT 1 FROM ", ident(child.Table), " WHERE company_id = ", b.bind(sc.CompanyID, Int),
			" AND id = ", b.bind(id, Int), " AND ", ident(ch.Key), " = ", b.bind(parentID, Int), ")")
		var exists bool
		if err := tx.QueryRow(ctx, b.String(), b.args...).Scan(&exists); err != nil {
			return fmt.Errorf("check %s %d: %w", ch.Name, id, err)
		}
		if exists {
			msg = fmt.Sprintf("%s %d is not written through %s and cannot be changed or deleted", child.Name, id, ch.Name)
		}
	}
	return finance.InvalidInput([]finance.Problem{{Field: "id", Message: msg}})
}

// loadChildren reads every child collection of the record rec (its
// columns and custom fields, by id) and attaches them for the response.
func (s *Store) loadChildren(ctx context.Context, tx pgx.Tx, res *Resource, sc Scope, rec *Record) error {
	id, ok := rec.ID()
	if !ok || len(res.Children) == 0 {
		return nil
	}
	for _, ch := range res.Children {
		child := s.registry.MustResource(ch.Resource)
		sh := mainShape(child, nil, true, nil)
		var b sqlBuilder
		b.write("SELECT ")
		writeSelectList(&b, sh)
		b.write(" FROM ", ident(child.Table))
		writeWhere(&b, child, Company(sc.CompanyID), []Filter{{Column: ch.Key, Op: Equal, Values: []any{id}}}, nil)
		writeChildWhere(&b, ch)
		b.write(" ORDER BY id")
		records, err := queryRecords(ctx, tx, &b, sh)
		if err != nil {
			return fmt.Errorf("load %s: %w", ch.Name, err)
		}
		if records == nil {
			records = []*Record{}
		}
		rec.children = append(rec.children, namedRecords{name: ch.Name, records: records})
	}
	return nil
}

// deleteChildren removes the child rows of a record about to be deleted,
// around the child resource's own delete hooks when it declares any.
func (s *Store) deleteChildren(ctx context.Context, tx pgx.Tx, res *Resource, sc Scope, id int64) error {
	for _, ch := range res.Children {
		child := s.registry.MustResource(ch.Resource)
		changes, err := s.childDeletes(ctx, tx, child, ch, sc, id)
		if err != nil {
			return err
		}
		var b sqlBuilder
		b.write("DELETE FROM ", ident(child.Table), " WHERE company_id = ", b.bind(sc.CompanyID, Int),
			" AND ", ident(ch.Key), " = ", b.bind(id, Int))
		if _, err := tx.Exec(ctx, b.String(), b.args...); err != nil {
			return err
		}
		for i, change := range changes {
			if err := runHooks(ctx, tx, child.Hooks.After, change); err != nil {
				return prefixProblems(err, ch.Name+"."+strconv.Itoa(i)+".")
			}
		}
	}
	return nil
}

// childDeletes locks the children of the record id (by id) and runs the
// child resource's before hooks for the removal of each; it returns their
// changes for the after hooks. A refusal is named `items.N.field`, N the
// child's place by id. Nothing is read for a child without hooks.
func (s *Store) childDeletes(ctx context.Context, tx pgx.Tx, child *Resource, ch Child, sc Scope, id int64) ([]*Change, error) {
	if !child.Hooks.any() {
		return nil, nil
	}
	childScope := Scope{CompanyID: sc.CompanyID, UserID: sc.UserID}
	olds, err := lockRows(ctx, tx, child, childScope, OpDelete, []Filter{{Column: ch.Key, Op: Equal, Values: []any{id}}})
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", ch.Name, err)
	}
	changes := make([]*Change, len(olds))
	for i, old := range olds {
		childID, _ := old.ID()
		changes[i] = childChange(child, childScope, id, ChildWrite{ID: childID, Delete: true})
		changes[i].Old = old
		if err := runHooks(ctx, tx, child.Hooks.Before, changes[i]); err != nil {
			return nil, prefixProblems(err, ch.Name+"."+strconv.Itoa(i)+".")
		}
	}
	return changes, nil
}

// lockRow reads a record in tx for the hooks' old row, locked for the
// write to come: FOR NO KEY UPDATE before an update (the lock the UPDATE of
// non-key columns takes itself: the machinery never changes an id, and
// other rows' foreign-key checks against this one are not blocked), FOR
// UPDATE before a delete. More conditions (a child's parent key) come in
// extra. No row is not found.
func lockRow(ctx context.Context, tx pgx.Tx, res *Resource, sc Scope, id int64, op Op, extra ...Filter) (*Record, error) {
	records, err := lockRows(ctx, tx, res, sc, op, append([]Filter{{Column: "id", Op: Equal, Values: []any{id}}}, extra...))
	if err != nil {
		return nil, err
	}
	if len(records) == 0 {
		return nil, recordNotFound(id)
	}
	return records[0], nil
}

// lockRows reads the company's rows of res matching filters, by id, locked
// for the operation op.
func lockRows(ctx context.Context, tx pgx.Tx, res *Resource, sc Scope, op Op, filters []Filter) ([]*Record, error) {
	sh := mainShape(res, nil, true, nil)
	var b sqlBuilder
	b.write("SELECT ")
	writeSelectList(&b, sh)
	b.write(" FROM ", ident(res.Table))
	writeWhere(&b, res, sc, scoped(res, sc, filters), nil)
	b.write(" ORDER BY id", lockClause(op))
	return queryRecords(ctx, tx, &b, sh)
}

// lockClause is the row lock an operation's old row is read with.
func lockClause(op Op) string {
	if op == OpDelete {
		return " FOR UPDATE"
	}
	return " FOR NO KEY UPDATE"
}

// readRow reads a record with every column and its custom fields in tx
// (suffix ends the statement: a lock); no row is not found.
func readRow(ctx context.Context, tx pgx.Tx, res *Resource, sc Scope, id int64, suffix string) (*Record, error) {
	sh := mainShape(res, nil, true, nil)
	var b sqlBuilder
	b.write("SELECT ")
	writeSelectList(&b, sh)
	b.write(" FROM ", ident(res.Table))
	writeWhere(&b, res, sc, scoped(res, sc, []Filter{{Column: "id", Op: Equal, Values: []any{id}}}), nil)
	b.write(suffix)
	records, err := queryRecords(ctx, tx, &b, sh)
	if err != nil {
		return nil, err
	}
	if len(records) == 0 {
		return nil, recordNotFound(id)
	}
	return records[0], nil
}
