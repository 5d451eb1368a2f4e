package storage

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Date-times read without an offset. A date-time given as
// YYYY-MM-DD HH:MM:SS, or a date alone, names a wall clock, not an
// instant: it is one only in a time zone. A date alone given for any
// date-time column is midnight in the zone of the row (Resource.TimeZone:
// an event's time_zone) or else of the company (companies.time_zone), so
// that a day is the day the reader means (midnight UTC is the evening
// before in every zone of Brazil). A date-time without offset given for a
// Local column (an event's initial_date) is read in the row's zone too;
// given for any other column it is UTC, the form the column is written
// back in. A date-time with an offset is always that instant.

// WallTime is a date and a clock reading without a time zone (midnight
// for a date alone), given for a date-time column; storage places it in
// its zone: in a write before the hooks run, in a filter in the statement.
type WallTime struct {
	// Clock holds the reading as a time in UTC.
	Clock time.Time
}

// epoch is the reading as the seconds of a UTC clock, which is how it is
// bound: PostgreSQL turns it back into the reading with
// `to_timestamp(epoch) AT TIME ZONE 'UTC'`, for any year.
func (w WallTime) epoch() int64 { return w.Clock.Unix() }

// wallSQL is the SQL of the instant a wall time bound as placeholder p
// (its epoch) is in the zone zoneSQL.
func wallSQL(p, zoneSQL string) string {
	return "((to_timestamp(" + p + ") AT TIME ZONE 'UTC') AT TIME ZONE " + zoneSQL + ")"
}

// companyZoneSQL is the SQL of the time zone of the company whose id is
// the placeholder company ("" for shared reference data: the default
// zone).
func companyZoneSQL(company string) string {
	if company == "" {
		return "'" + DefaultTimeZone + "'"
	}
	return "(SELECT coalesce(time_zone, '" + DefaultTimeZone + "') FROM companies WHERE id = " + company + ")"
}

// DefaultTimeZone is the time zone of a company that has none set.
const DefaultTimeZone = "America/Sao_Paulo"

// dayZoneSQL is the SQL of the zone a wall time given for column c is read
// in: the row's zone column (Resource.TimeZone), else the company's.
func dayZoneSQL(c Column, company string) string {
	if c.rowZone != "" {
		return ident(c.rowZone)
	}
	return companyZoneSQL(company)
}

// zonedSQL reads the instant of column c of a Local column as
// "<epoch> <offset seconds>", the offset of the row's zone at that
// instant (decodeZoned makes it a time in that offset).
func zonedSQL(c Column) string {
	col, zone := ident(c.Name), ident(c.rowZone)
	return "(extract(epoch FROM " + col + ")::bigint || ' ' || extract(epoch FROM (" + col + " AT TIME ZONE " + zone +
		") - (" + col + " AT TIME ZONE 'UTC'))::bigint)"
}

// decodeZoned turns the "<epoch> <offset seconds>" of zonedSQL into the
// instant as a time in its offset, which the record writes as the wall
// clock of the row's zone; nil stays nil.
func decodeZoned(v any) (any, error) {
	text, ok := v.(string)
	if !ok {
		return v, nil
	}
	epochText, offsetText, found := strings.Cut(text, " ")
	epoch, err1 := strconv.ParseInt(epochText, 10, 64)
	offset, err2 := strconv.Atoi(offsetText)
	if !found || err1 != nil || err2 != nil {
		return nil, fmt.Errorf("zoned date-time %q", text)
	}
	return time.Unix(epoch, 0).In(time.FixedZone("", offset)), nil
}

// decodeZonedColumns makes the Local columns of a row read by shape sh
// times in the row's zone.
func decodeZonedColumns(sh *shape, values []any) error {
	for i, c := range sh.columns {
		if !c.Local {
			continue
		}
		v, err := decodeZoned(values[i])
		if err != nil {
			return err
		}
		values[i] = v
	}
	return nil
}

// placeWallTimes makes a write's wall times instants, before its hooks
// see them, and fills in on create the row's time zone when the write
// leaves it out (Resource.TimeZone: the company's when the column accepts
// it, else the first zone it does). The zone is the write's, else on
// update the stored one, else for a resource without a zone column the
// company's. An update that changes the row's zone and leaves a Local
// column out keeps the column's wall clock (an all-day event stays on its
// day), so that column is written again from the stored reading in the
// new zone. id is the updated record (0 on create). w's map is not
// changed.
func (s *Store) placeWallTimes(ctx context.Context, tx pgx.Tx, res *Resource, sc Scope, id int64, w Write) (Write, error) {
	values := &copyOnWrite{values: w.Values}
	if err := s.fillZone(ctx, tx, res, sc, id, values); err != nil {
		return w, err
	}
	zone := ""
	for _, name := range slices.Sorted(maps.Keys(values.values)) {
		wall, isWall := values.values[name].(WallTime)
		if !isWall {
			continue
		}
		var err error
		if zone == "" {
			if zone, err = s.writeZone(ctx, tx, res, sc, id, values.values); err != nil {
				return w, err
			}
		}
		instant, err := placeWall(ctx, tx, wall, zone)
		if err != nil {
			return w, fmt.Errorf("place %s %s in %s: %w", name, wall.Clock.Format(time.DateTime), zone, err)
		}
		values.set(name, instant)
	}
	w.Values = values.values
	return w, nil
}

// copyOnWrite is a write's values, copied before the first change.
type copyOnWrite struct {
	values map[string]any
	copied bool
}

func (c *copyOnWrite) set(name string, v any) {
	if !c.copied {
		c.values, c.copied = maps.Clone(c.values), true
		if c.values == nil {
			c.values = map[string]any{}
		}
	}
	c.values[name] = v
}

// fillZone gives a new row of a resource with a zone column its default
// zone when the write leaves it out, and makes an update that moves the
// row to another zone keep the wall clocks of the Local columns it leaves
// out.
func (s *Store) fillZone(ctx context.Context, tx pgx.Tx, res *Resource, sc Scope, id int64, values *copyOnWrite) error {
	switch {
	case res.TimeZone == "":
		return nil
	case id != 0:
		return s.keepWallClocks(ctx, tx, res, sc, id, values)
	case values.values[res.TimeZone] != nil:
		return nil
	}
	zone, err := s.defaultZone(ctx, tx, res, sc)
	if err != nil {
		return err
	}
	values.set(res.TimeZone, zone)
	return nil
}

// defaultZone is the time zone a new row of res gets when its write
// leaves it out: the company's when the zone column accepts it (its
// Enum), else the column's first zone.
func (s *Store) defaultZone(ctx context.Context, tx pgx.Tx, res *Resource, sc Scope) (string, error) {
	zone, err := companyZone(ctx, tx, sc.CompanyID)
	if err != nil {
		return "", err
	}
	if col, _ := res.Column(res.TimeZone); len(col.Enum) > 0 && !slices.Contains(col.Enum, zone) {
		zone = col.Enum[0]
	}
	return zone, nil
}

// companyZone is the time zone of a company (companies.time_zone).
func companyZone(ctx context.Context, q DBTX, companyID int64) (string, error) {
	var zone string
	err := q.QueryRow(ctx, `SELECT coalesce(time_zone, '`+DefaultTimeZone+`') FROM companies WHERE id = $1`, companyID).Scan(&zone)
	if err != nil {
		return "", fmt.Errorf("time zone of company %d: %w", companyID, err)
	}
	return zone, nil
}

// writeZone is the zone the wall times of a write are read in: the row's
// zone as the write leaves it (given, else stored), or the company's.
func (s *Store) writeZone(ctx context.Context, tx pgx.Tx, res *Resource, sc Scope, id int64, values map[string]any) (string, error) {
	if res.TimeZone == "" {
		return companyZone(ctx, tx, sc.CompanyID)
	}
	if zone, ok := values[res.TimeZone].(string); ok {
		return zone, nil
	}
	zone, _, err := s.storedClocks(ctx, tx, res, sc, id)
	return zone, err
}

// keepWallClocks: when an update moves the row to another zone, the Local
// columns it leaves out are written again with the wall clock they read
// in the old zone, to be placed in the new one.
func (s *Store) keepWallClocks(ctx context.Context, tx pgx.Tx, res *Resource, sc Scope, id int64, values *copyOnWrite) error {
	newZone, moves := values.values[res.TimeZone].(string)
	if !moves {
		return nil
	}
	oldZone, clocks, err := s.storedClocks(ctx, tx, res, sc, id)
	if err != nil || oldZone == newZone {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(clocks)) {
		if _, given := values.values[name]; !given && clocks[name] != nil {
			values.set(name, WallTime{Clock: *clocks[name]})
		}
	}
	return nil
}

// storedClocks reads a row's zone and the wall clock of each of its Local
// columns in that zone (nil for a null).
func (s *Store) storedClocks(ctx context.Context, tx pgx.Tx, res *Resource, sc Scope, id int64) (string, map[string]*time.Time, error) {
	var local []string
	var b sqlBuilder
	b.write("SELECT ", ident(res.TimeZone))
	for _, c := range res.Columns {
		if c.Local {
			local = append(local, c.Name)
			b.write(", extract(epoch FROM ", ident(c.Name), " AT TIME ZONE ", ident(res.TimeZone), ")::bigint")
		}
	}
	b.write(" FROM ", ident(res.Table))
	writeWhere(&b, res, sc, scoped(res, sc, []Filter{{Column: "id", Op: Equal, Values: []any{id}}}), nil)
	epochs := make([]*int64, len(local))
	dest := []any{new(string)}
	for i := range epochs {
		dest = append(dest, &epochs[i])
	}
	if err := tx.QueryRow(ctx, b.String(), b.args...).Scan(dest...); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return "", nil, recordNotFound(id)
		}
		return "", nil, fmt.Errorf("time zone of %s %d: %w", res.Name, id, err)
	}
	clocks := make(map[string]*time.Time, len(local))
	for i, name := range local {
		if epochs[i] != nil {
			clock := time.Unix(*epochs[i], 0).UTC()
			clocks[name] = &clock
		}
	}
	return *dest[0].(*string), clocks, nil
}

// placeWall is the instant of a wall time in a zone, as a time in the
// zone's offset at that instant.
func placeWall(ctx context.Context, q DBTX, wall WallTime, zone string) (time.Time, error) {
	var epoch int64
	var offset int
	err := q.QueryRow(ctx, `SELECT extract(epoch FROM t)::bigint, extract(epoch FROM (t AT TIME ZONE $2) - (t AT TIME ZONE 'UTC'))::integer
		FROM (SELECT `+wallSQL("$1::bigint", "$2::text")+` AS t) w`, wall.epoch(), zone).Scan(&epoch, &offset)
	if err != nil {
		return time.Time{}, err
	}
	return time.Unix(epoch, 0).In(time.FixedZone("", offset)), nil
}
