package storage

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/propfin/propfin/finance"
)

// rawRows reads the rows of a query of many rows (a remittance's 100,000
// titles) from the values as pgx receives them, where Scan's cost shows:
// Scan makes a string of each text column and reads a date through a
// time.Time held in an interface; here an integer or a date is decoded in
// place (PostgreSQL's binary format, or its text where the connection
// asks for text: the simple protocol), and the texts of a row are slices
// of one string, one allocation a row. The columns' types are checked
// once, when the query answers: an integer, a date or text.
type rawRows struct {
	rows  pgx.Rows
	fds   []rawColumn
	vals  [][]byte
	texts []string // the row's texts, by column ("" for the others)
	buf   []byte
	err   error // the first value that could not be read
}

type rawColumn struct {
	oid    uint32
	binary bool
}

// pgEpoch is day 0 of PostgreSQL's binary dates.
var pgEpoch = finance.NewDate(2000, 1, 1)

// newRawRows reads rows, whose columns must be integers, dates or texts.
func newRawRows(rows pgx.Rows) (*rawRows, error) {
	fds := rows.FieldDescriptions()
	r := &rawRows{rows: rows, fds: make([]rawColumn, len(fds)), texts: make([]string, len(fds))}
	for i, fd := range fds {
		switch fd.DataTypeOID {
		case pgtype.Int2OID, pgtype.Int4OID, pgtype.Int8OID, pgtype.NumericOID, pgtype.DateOID, pgtype.TextOID:
		default:
			return nil, fmt.Errorf("column %s: type %d is not an integer, a numeric, a date or text", fd.Name, fd.DataTypeOID)
		}
		r.fds[i] = rawColumn{oid: fd.DataTypeOID, binary: fd.Format == pgtype.BinaryFormatCode}
	}
	return r, nil
}

// eachRawRow runs a query of many rows in tx and hands each row, read
// through rawRows, to row; reading stops at row's first error. what names
// the rows in errors.
func eachRawRow(ctx context.Context, tx pgx.Tx, what, sql string, args []any, row func(*rawRows) error) error {
	rows, err := tx.Query(ctx, sql, args...)
	if err != nil {
		return translate(err, what)
	}
	defer rows.Close()
	r, err := newRawRows(rows)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	for r.Next() {
		if err := row(r); err != nil {
			return err
		}
	}
	return translate(rows.Err(), what)
}

// Next reads the next row; false at the end or on an error (the rows'
// Err says which).
func (r *rawRows) Next() bool {
	if !r.rows.Next() {
		return false
	}
	r.vals = r.rows.RawValues()
	r.buf = r.buf[:0]
	for i, c := range r.fds {
		if c.oid == pgtype.TextOID {
			r.buf = append(r.buf, r.vals[i]...)
		}
	}
	all := string(r.buf)
	for i, c := range r.fds {
		if c.oid == pgtype.TextOID {
			r.texts[i], all = all[:len(r.vals[i])], all[len(r.vals[i]):]
		}
	}
	return true
}

// Int64 is integer column i (smallint, integer or bigint); 0 for NULL.
func (r *rawRows) Int64(i int) int64 {
	v := r.vals[i]
	if r.fds[i].binary {
		switch len(v) {
		case 2:
			return int64(int16(binary.BigEndian.Uint16(v)))
		case 4:
			return int64(int32(binary.BigEndian.Uint32(v)))
		case 8:
			return int64(binary.BigEndian.Uint64(v))
		}
		return 0
	}
	var n int64
	neg := len(v) > 0 && v[0] == '-'
	if neg {
		v = v[1:]
	}
	for _, c := range v {
		n = n*10 + int64(c-'0')
	}
	if neg {
		return -n
	}
	return n
}

// Date is date column i; the zero Date for NULL, and for infinity (a date
// no title or payment has: a layout refuses its absence).
func (r *rawRows) Date(i int) finance.Date {
	v := r.vals[i]
	if !r.fds[i].binary {
		if len(v) != len(time.DateOnly) || v[4] != '-' || v[7] != '-' {
			return finance.Date{}
		}
		return finance.NewDate(digitsOf(v[0:4]), time.Month(digitsOf(v[5:7])), digitsOf(v[8:10]))
	}
	if len(v) != 4 {
		return finance.Date{}
	}
	days := int32(binary.BigEndian.Uint32(v))
	if days == math.MaxInt32 || days == math.MinInt32 {
		return finance.Date{}
	}
	return pgEpoch.AddDays(int(days))
}

// digitsOf is the number written in v, digits only.
func digitsOf(v []byte) int {
	n := 0
	for _, c := range v {
		n = n*10 + int(c-'0')
	}
	return n
}

// Cents is numeric column i in hundredths (an amount's cents, a rate's
// hundredths of a percent): reading numeric as it is sent costs PostgreSQL
// less than computing (amount * 100)::bigint for each row. 0 for NULL; a
// value with a third decimal place that is not zero, NaN or one past
// int64 is an error (Err).
func (r *rawRows) Cents(i int) int64 {
	v := r.vals[i]
	if v == nil {
		return 0
	}
	var c int64
	var ok bool
	if r.fds[i].binary {
		c, ok = binaryCents(v)
	} else {
		c, ok = textCents(v)
	}
	if !ok && r.err == nil {
		r.err = fmt.Errorf("column %d: %q is not an amount in cents", i, v)
	}
	return c
}

// binaryCents reads a numeric in PostgreSQL's binary format: the number of
// base-10,000 digits, the weight of the first, the sign and the display
// scale, then the digits.
func binaryCents(v []byte) (int64, bool) {
	if len(v) < 8 {
		return 0, false
	}
	n, weight, sign := int(binary.BigEndian.Uint16(v)), int(int16(binary.BigEndian.Uint16(v[2:]))), binary.BigEndian.Uint16(v[4:])
	if sign != 0 && sign != 0x4000 || len(v) != 8+2*n {
		return 0, false // NaN or an infinity
	}
	var c int64
	for k := 0; k < n; k++ {
		d := int64(binary.BigEndian.Uint16(v[8+2*k:]))
		switch exp := weight - k; { // d counts 10,000^exp
		case exp >= 4:
			return 0, false
		case exp >= 0:
			c += d * pow10000[exp] * 100
		case exp == -1:
			if d%100 != 0 {
				return 0, false
			}
			c += d / 100
		default:
			if d != 0 {
				return 0, false
			}
		}
	}
	if sign != 0 {
		c = -c
	}
	return c, true
}

// pow10000 are the powers of 10,000 that fit a cents amount of int64.
var pow10000 = [4]int64{1, 1e4, 1e8, 1e12}

// textCents reads a numeric as text (-1234.5).
func textCents(v []byte) (int64, bool) {
	neg := len(v) > 0 && v[0] == '-'
	if neg {
		v = v[1:]
	}
	var c int64
	places := -1 // none after the point yet
	for _, ch := range v {
		switch {
		case ch == '.' && places < 0:
			places = 0
		case ch >= '0' && ch <= '9' && places < 2:
			c = c*10 + int64(ch-'0')
			if places >= 0 {
				places++
			}
		case ch == '0':
		default:
			return 0, false
		}
	}
	for places = max(places, 0); places < 2; places++ {
		c *= 10
	}
	if neg {
		c = -c
	}
	return c, len(v) > 0 && len(v) <= 17
}

// Err is the first value of the rows read that could not be read.
func (r *rawRows) Err() error { return r.err }

// Text is text column i; "" for NULL.
func (r *rawRows) Text(i int) string { return r.texts[i] }
