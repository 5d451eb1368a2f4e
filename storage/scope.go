package storage

import (
	"context"
	"fmt"
)

// Scope is whom and where a storage call acts for: the company every
// statement is scoped to, the user of the request (0: none, such as a
// job), and, for a sub-resource reached under its parent's path, the
// parent record's id (0: not under a parent); in the hooks of a child
// collection's element, the id of the record the child belongs to.
type Scope struct {
	CompanyID int64
	UserID    int64
	Parent    int64
}

// Company is the scope of a company alone.
func Company(id int64) Scope { return Scope{CompanyID: id} }

// Parent declares a sub-resource: the resource it lives under and the
// column of its own table holding that parent's id
// (`/financial/contracts/{contract}/vehicles`: Parent{Resource:
// "contracts", Key: "contract_id"}). Under the parent's path, list, get,
// update and delete see only the rows of that parent, create sets the key,
// and a parent that is not the company's is a 404.
type Parent struct {
	Resource string
	Key      string
}

// scoped adds the parent's key to the filters of a sub-resource reached
// under its parent.
func scoped(res *Resource, sc Scope, filters []Filter) []Filter {
	if res.Parent == nil || sc.Parent == 0 {
		return filters
	}
	return append([]Filter{{Column: res.Parent.Key, Op: Equal, Values: []any{sc.Parent}}}, filters...)
}

// checkParent answers 404 when the scope's parent is not a record of the
// company. Outside a parent's path (sc.Parent 0) it checks nothing.
func (s *Store) checkParent(ctx context.Context, q DBTX, res *Resource, sc Scope) error {
	if res.Parent == nil || sc.Parent == 0 {
		return nil
	}
	parent := s.registry.MustResource(res.Parent.Resource)
	var b sqlBuilder
	b.write("SELECT EXISTS (SELECT 1 FROM ", ident(parent.Table))
	writeWhere(&b, parent, sc, []Filter{{Column: "id", Op: Equal, Values: []any{sc.Parent}}}, nil)
	b.write(")")
	var exists bool
	if err := q.QueryRow(ctx, b.String(), b.args...).Scan(&exists); err != nil {
		return translate(fmt.Errorf("check parent: %w", err), res.Name)
	}
	if !exists {
		return recordNotFound(sc.Parent)
	}
	return nil
}
