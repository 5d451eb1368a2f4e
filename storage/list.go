package storage

import (
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/finance"
)

// Store reads and writes the declared resources of every company. Every
// statement it runs is scoped to the company it is given.
type Store struct {
	pool     *pgxpool.Pool
	reads    *pgxpool.Pool // lists, gets and reports: pool, or a replica of it
	registry *Registry
}

// NewStore returns a Store over pool for the resources of registry.
func NewStore(pool *pgxpool.Pool, registry *Registry) *Store {
	return &Store{pool: pool, reads: pool, registry: registry}
}

// WithReplica returns a Store like s whose List, Get and reports read from
// replica, a pool on a replica of s's database; its writes, and what they
// read in their transactions, still go to s's pool. What a replica returns
// may lag the primary: a record written a moment ago may not be listed yet.
func (s *Store) WithReplica(replica *pgxpool.Pool) *Store {
	return &Store{pool: s.pool, reads: replica, registry: s.registry}
}

// Registry returns the store's resource declarations.
func (s *Store) Registry() *Registry { return s.registry }

// Pool returns the store's connection pool: the primary's.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Page is one page of a list: HasNext is known by reading one row more than
// the page size; Total is set only when the query asked for it.
type Page struct {
	Records []*Record
	HasNext bool
	Total   *int64
}

// List runs a checked list query for a company (under the parent of the
// scope, for a sub-resource).
func (s *Store) List(ctx context.Context, res *Resource, sc Scope, q ListQuery) (Page, error) {
	if err := s.checkParent(ctx, s.reads, res, sc); err != nil {
		return Page{}, err
	}
	companyID := sc.CompanyID
	sh := mainShape(res, q.Fields, q.CustomFields, q.Includes)
	b := listStatement(res, sc, q, sh)
	records, err := s.query(ctx, b, sh)
	if err != nil {
		return Page{}, translate(err, "list "+res.Name)
	}
	page := Page{Records: records}
	if len(records) > q.PerPage {
		page.Records, page.HasNext = records[:q.PerPage], true
	}
	if err := s.loadIncludes(ctx, companyID, page.Records, sh.includes); err != nil {
		return Page{}, err
	}
	if err := checkExpandedSize(page.Records); err != nil {
		return Page{}, err
	}
	if q.WithTotal {
		total, err := s.count(ctx, res, sc, q)
		if err != nil {
			return Page{}, err
		}
		page.Total = &total
	}
	return page, nil
}

// Get reads one record of a company by id (under the parent of the scope,
// for a sub-resource).
func (s *Store) Get(ctx context.Context, res *Resource, sc Scope, id int64, q GetQuery) (*Record, error) {
	rec, sh, err := s.getIn(ctx, s.reads, res, sc, id, q)
	if err != nil {
		return nil, err
	}
	records := []*Record{rec}
	if err := s.loadIncludes(ctx, sc.CompanyID, records, sh.includes); err != nil {
		return nil, err
	}
	if err := checkExpandedSize(records); err != nil {
		return nil, err
	}
	return rec, nil
}

// GetIn is Get read in q, the transaction of a write (which sees what the
// write did), for the write's answer; it reads no includes (a query with
// some is an error).
func (s *Store) GetIn(ctx context.Context, q DBTX, res *Resource, sc Scope, id int64, gq GetQuery) (*Record, error) {
	if len(gq.Includes) > 0 {
		return nil, fmt.Errorf("get %s %d in a write: includes are not read there", res.Name, id)
	}
	rec, _, err := s.getIn(ctx, q, res, sc, id, gq)
	return rec, err
}

// getIn reads the record id of res, in q, without its includes.
func (s *Store) getIn(ctx context.Context, q DBTX, res *Resource, sc Scope, id int64, gq GetQuery) (*Record, *shape, error) {
	if err := s.checkParent(ctx, q, res, sc); err != nil {
		return nil, nil, err
	}
	sh := mainShape(res, gq.Fields, gq.CustomFields, gq.Includes)
	var b sqlBuilder
	if !res.Shared {
		b.forCompany(sc.CompanyID)
	}
	b.write("SELECT ")
	writeSelectList(&b, sh)
	b.write(" FROM ", ident(res.Table))
	writeWhere(&b, res, sc, scoped(res, sc, []Filter{{Column: "id", Op: Equal, Values: []any{id}}}), nil)
	records, err := queryRecords(ctx, q, &b, sh)
	if err != nil {
		return nil, nil, translate(err, res.Name)
	}
	if len(records) == 0 {
		return nil, nil, recordNotFound(id)
	}
	return records[0], sh, nil
}

// listStatement is the select of one page of a list.
func listStatement(res *Resource, sc Scope, q ListQuery, sh *shape) *sqlBuilder {
	var b sqlBuilder
	if !res.Shared {
		b.forCompany(sc.CompanyID)
	}
	b.write("SELECT ")
	writeSelectList(&b, sh)
	b.write(" FROM ", ident(res.Table))
	writeWhere(&b, res, sc, scoped(res, sc, q.Filters), q.Special)
	writeOrder(&b, res, q.Sort)
	b.write(fmt.Sprintf(" LIMIT %d OFFSET %d", q.PerPage+1, (q.Page-1)*q.PerPage))
	return &b
}

func (s *Store) count(ctx context.Context, res *Resource, sc Scope, q ListQuery) (int64, error) {
	var b sqlBuilder
	b.write("SELECT count(*) FROM ", ident(res.Table))
	writeWhere(&b, res, sc, scoped(res, sc, q.Filters), q.Special)
	var total int64
	if err := s.reads.QueryRow(ctx, b.String(), b.queryArgs()...).Scan(&total); err != nil {
		return 0, translate(err, "count "+res.Name)
	}
	return total, nil
}

// mainShape selects the requested columns (all when none), then the keys
// the first-level explicit includes need: rule 1 of the query language, a
// direct relation needs no key in fields.
func mainShape(res *Resource, fields []string, custom bool, includes []*Include) *shape {
	sh := &shape{custom: custom && res.CustomFields, includes: includes}
	sh.columns = pickColumns(res, fields)
	sh.visible = len(sh.columns)
	for _, inc := range includes {
		if !inc.Implicit {
			addHidden(sh, res, inc.Relation.LocalKey())
		}
	}
	return sh
}

func pickColumns(res *Resource, names []string) []Column {
	if names == nil {
		return slices.DeleteFunc(slices.Clone(res.Columns), func(c Column) bool { return !c.Visible() })
	}
	cols := make([]Column, 0, len(names))
	for _, n := range names {
		if c, ok := res.Column(n); ok {
			cols = append(cols, c)
		}
	}
	return cols
}

func addHidden(sh *shape, res *Resource, name string) {
	if sh.index(name) >= 0 {
		return
	}
	if c, ok := res.Column(name); ok {
		sh.columns = append(sh.columns, c)
	}
}

func writeSelectList(b *sqlBuilder, sh *shape) {
	for i, c := range sh.columns {
		if i > 0 {
			b.write(", ")
		}
		b.write(b.selectExpr(c))
	}
	if sh.custom {
		b.write(", custom_fields::text")
	}
}

func writeWhere(b *sqlBuilder, res *Resource, sc Scope, filters []Filter, special []SpecialCondition) {
	b.write(" WHERE ")
	company := ""
	if res.Shared {
		b.write("TRUE")
	} else {
		if b.companyID == 0 {
			b.forCompany(sc.CompanyID)
		}
		if b.companyID == sc.CompanyID {
			company = b.companyParam()
		} else {
			company = b.bind(sc.CompanyID, Int)
		}
		b.write("company_id = ", company)
	}
	for _, f := range filters {
		c, _ := res.Column(f.Column)
		b.write(" AND ")
		if sql := columnEquals(b, c, f, company, sc); sql != "" {
			b.write("(", sql, ")")
			continue
		}
		b.condition(c, f, company)
	}
	for _, cond := range special {
		f := &FilterSQL{b: b, company: company, companyID: sc.CompanyID, userID: sc.UserID, filter: cond.Filter}
		if cond.Filter.Scalar {
			f.value = cond.Values[0]
		} else {
			f.value = typedArray(cond.Filter.Elem, cond.Values)
		}
		b.write(" AND (", cond.Filter.Condition(f), ")")
	}
}

// columnEquals is the SQL a column's Equals declares for the filter, when
// the filter is an equality without wildcard on such a column and the
// declaration writes one for its value; "" otherwise.
func columnEquals(b *sqlBuilder, c Column, f Filter, company string, sc Scope) string {
	if c.Equals == nil || f.Op != Equal || f.Pattern || len(f.Values) != 1 {
		return ""
	}
	v, ok := f.Values[0].(string)
	if !ok {
		return ""
	}
	sf := c.equalsFilter(v)
	return sf.Condition(&FilterSQL{b: b, company: company, companyID: sc.CompanyID, userID: sc.UserID, filter: sf, value: v})
}

// typedArray turns In-filter values into a slice pgx encodes as one array.
func typedArray(t Type, values []any) any {
	switch t {
	case Int:
		out := make([]int64, len(values))
		for i, v := range values {
			out[i] = v.(int64)
		}
		return out
	case Bool:
		out := make([]bool, len(values))
		for i, v := range values {
			out[i] = v.(bool)
		}
		return out
	}
	return values
}

// writeOrder applies the sort keys left to right and ends with id, the
// stable tie-breaker that makes pages never overlap. Columns are named
// with their table: a bare name would sort by the output column of the
// same name, which for a decimal is its text (10.50 after 100.00).
func writeOrder(b *sqlBuilder, res *Resource, keys []SortKey) {
	b.write(" ORDER BY ")
	hasID := false
	for i, k := range keys {
		if i > 0 {
			b.write(", ")
		}
		if c, ok := res.Column(k.Column); ok && c.Expr != "" {
			b.write(b.columnSQL(c))
		} else {
			b.write(ident(res.Table), ".", ident(k.Column))
		}
		if k.Desc {
			b.write(" DESC")
		}
		hasID = hasID || k.Column == "id"
	}
	if !hasID {
		if len(keys) > 0 {
			b.write(", ")
		}
		b.write(ident(res.Table), `."id"`)
	}
}

// querier is what a pool and a transaction have in common.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// query runs a select on the pool reads go to and reads its rows into
// records.
func (s *Store) query(ctx context.Context, b *sqlBuilder, sh *shape) ([]*Record, error) {
	return queryRecords(ctx, s.reads, b, sh)
}

// queryRecords runs a statement and reads its rows into records of shape sh.
func queryRecords(ctx context.Context, q querier, b *sqlBuilder, sh *shape) ([]*Record, error) {
	rows, err := q.Query(ctx, b.String(), b.queryArgs()...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var records []*Record
	for rows.Next() {
		values, err := rows.Values()
		if err != nil {
			return nil, err
		}
		if err := decodeZonedColumns(sh, values); err != nil {
			return nil, err
		}
		rec := &Record{shape: sh, values: values[:len(sh.columns)]}
		if sh.custom {
			if text, ok := values[len(sh.columns)].(string); ok {
				rec.custom = []byte(text)
			}
		}
		if len(sh.includes) > 0 {
			rec.related = make([]any, len(sh.includes))
		}
		records = append(records, rec)
	}
	return records, rows.Err()
}

// loadIncludes resolves each include of parents with one query per
// relation, then recurses into nested includes.
func (s *Store) loadIncludes(ctx context.Context, companyID int64, parents []*Record, includes []*Include) error {
	if len(parents) == 0 {
		return nil
	}
	for i, inc := range includes {
		if err := s.loadInclude(ctx, companyID, parents, i, inc); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) loadInclude(ctx context.Context, companyID int64, parents []*Record, slot int, inc *Include) error {
	localIdx := parents[0].shape.keyIndex(inc.Relation.LocalKey())
	if localIdx < 0 {
		return nil // rule 2: the parent's key was not returned, the relation stays empty
	}
	keys := distinctKeys(parents, localIdx)
	if len(keys) == 0 {
		return nil
	}
	target := s.registry.MustResource(inc.Relation.Resource)
	sh := &shape{columns: pickColumns(target, inc.Columns), includes: inc.Children, nested: true}
	sh.visible = len(sh.columns)
	addHidden(sh, target, inc.Relation.RemoteKey())

	var b sqlBuilder
	if !target.Shared {
		b.forCompany(companyID)
	}
	b.write("SELECT ")
	writeSelectList(&b, sh)
	b.write(" FROM ", ident(target.Table))
	writeWhere(&b, target, Company(companyID), nil, []SpecialCondition{{Filter: ColumnIn("", inc.Relation.RemoteKey(), Int), Values: keys}})
	if inc.Relation.Where != "" {
		b.write(" AND (", inc.Relation.Where, ")")
	}
	if inc.Relation.Order != "" {
		b.write(" ORDER BY ", inc.Relation.Order, `, "id"`)
	} else {
		writeOrder(&b, target, nil)
	}
	b.write(fmt.Sprintf(" LIMIT %d", MaxIncludedRecords+1))
	children, err := s.query(ctx, &b, sh)
	if err != nil {
		return translate(err, "include "+inc.Relation.Name)
	}
	if len(children) > MaxIncludedRecords {
		return tooManyIncluded(inc.Param)
	}
	if err := s.loadIncludes(ctx, companyID, children, inc.Children); err != nil {
		return err
	}
	attach(parents, localIdx, slot, inc.Relation.Kind, children, sh.index(inc.Relation.RemoteKey()))
	return nil
}

func distinctKeys(records []*Record, idx int) []any {
	seen := make(map[int64]bool, len(records))
	keys := make([]any, 0, len(records))
	for _, r := range records {
		for _, k := range keysOf(r.values[idx]) {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	return keys
}

// keysOf reads a key value: one integer, or each of an integer array's.
func keysOf(v any) []int64 {
	switch x := v.(type) {
	case []int64:
		return x
	case []any: // an array as pgx reads it into any
		keys := make([]int64, 0, len(x))
		for _, e := range x {
			if k, ok := asInt64(e); ok {
				keys = append(keys, k)
			}
		}
		return keys
	}
	if k, ok := asInt64(v); ok {
		return []int64{k}
	}
	return nil
}

func asInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int32:
		return int64(x), true
	case int16:
		return int64(x), true
	}
	return 0, false
}

// attach hangs the loaded children on their parents: one record (or nil)
// for BelongsTo, a list (possibly empty) for HasMany and InArray.
func attach(parents []*Record, localIdx, slot int, kind RelationKind, children []*Record, remoteIdx int) {
	byKey := make(map[int64][]*Record, len(children))
	for _, c := range children {
		if k, ok := asInt64(c.values[remoteIdx]); ok {
			byKey[k] = append(byKey[k], c)
		}
	}
	for _, p := range parents {
		var matched []*Record
		for _, k := range keysOf(p.values[localIdx]) {
			matched = append(matched, byKey[k]...)
		}
		if kind == BelongsTo {
			if len(matched) > 0 {
				p.related[slot] = matched[0]
			} else {
				p.related[slot] = (*Record)(nil)
			}
			continue
		}
		if matched == nil {
			matched = []*Record{}
		}
		p.related[slot] = matched
	}
}

func tooManyIncluded(param string) error {
	if param == "" {
		param = "include"
	}
	return finance.InvalidInput([]finance.Problem{{Field: param, Message: fmt.Sprintf(
		"the includes would return more than %d records; ask for fewer rows (perPage) or fewer relations", MaxIncludedRecords)}})
}

// checkExpandedSize bounds the response: a record shared by many parents
// (a category of every type on the page) is written under each of them,
// so what counts is the size of the expanded tree, not the rows loaded.
func checkExpandedSize(records []*Record) error {
	memo := map[*Record]int{}
	total := 0
	for _, r := range records {
		total += expandedSize(r, memo)
		if total > MaxIncludedRecords {
			return tooManyIncluded("")
		}
	}
	return nil
}

func expandedSize(r *Record, memo map[*Record]int) int {
	if n, ok := memo[r]; ok {
		return n
	}
	n := 1
	for _, rel := range r.related {
		switch x := rel.(type) {
		case *Record:
			if x != nil {
				n += expandedSize(x, memo)
			}
		case []*Record:
			for _, c := range x {
				n += expandedSize(c, memo)
				if n > MaxIncludedRecords {
					break
				}
			}
		}
		if n > MaxIncludedRecords {
			break
		}
	}
	memo[r] = n
	return n
}
