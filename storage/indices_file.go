package storage

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Files of price indices, as `propfin indices import` reads them
// (docs/api.md, "Readjustment").

// indexLine is a row read from a file with the line it starts on.
type indexLine struct {
	line                   int
	indicator, month, rate string
}

// ParseIndexFile reads a file of price indices, a JSON array of
// {"indicator", "month", "rate"} (the file starts with '[') or a CSV with
// the header indicator,month,rate, and checks every row (ParseIndexRow):
// the problems are "line N: field: message", a month given twice
// included. `propfin indices import` stores what it reads
// (UpsertIndices), all rows or none.
func ParseIndexFile(data []byte) ([]IndexRow, []string) {
	var raw []indexLine
	var err error
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '[' {
		raw, err = indexJSONRows(data)
	} else {
		raw, err = indexCSVRows(data)
	}
	if err != nil {
		return nil, []string{err.Error()}
	}
	if len(raw) == 0 {
		return nil, []string{"no rows"}
	}
	var problems []string
	rows := make([]IndexRow, 0, len(raw))
	first := map[string]int{}
	for _, r := range raw {
		row, ps := ParseIndexRow(r.indicator, r.month, r.rate)
		for _, p := range ps {
			problems = append(problems, fmt.Sprintf("line %d: %s: %s", r.line, p.Field, p.Message))
		}
		if len(ps) > 0 {
			continue
		}
		if l, dup := first[row.Key()]; dup {
			problems = append(problems, fmt.Sprintf("line %d: %s is given twice (line %d)", r.line, row.Key(), l))
			continue
		}
		first[row.Key()] = r.line
		rows = append(rows, row)
	}
	return rows, problems
}

// indexCSVRows reads a CSV whose header names indicator, month and rate (in
// any order; other columns are refused).
func indexCSVRows(data []byte) ([]indexLine, error) {
	rd := csv.NewReader(bytes.NewReader(data))
	rd.TrimLeadingSpace = true
	header, err := rd.Read()
	if err != nil {
		return nil, fmt.Errorf("line 1: %w", err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))] = i
	}
	for _, name := range []string{"indicator", "month", "rate"} {
		if _, ok := col[name]; !ok || len(header) != 3 {
			return nil, errors.New("line 1: the header must be indicator,month,rate")
		}
	}
	var rows []indexLine
	for {
		rec, err := rd.Read()
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return nil, err // csv.ParseError names its line
		}
		line, _ := rd.FieldPos(0)
		rows = append(rows, indexLine{line: line, indicator: rec[col["indicator"]], month: rec[col["month"]], rate: rec[col["rate"]]})
	}
}

// indexJSONRows reads an array of {"indicator", "month", "rate"} objects, each
// with the line it starts on; the rate may be a number or a string.
func indexJSONRows(data []byte) ([]indexLine, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("line 1: %w", err)
	}
	var rows []indexLine
	for dec.More() {
		line := indexLineAt(data, dec.InputOffset())
		var obj map[string]any
		if err := dec.Decode(&obj); err != nil {
			return nil, fmt.Errorf("line %d: not an object {indicator, month, rate}: %w", line, err)
		}
		r := indexLine{line: line}
		for k, v := range obj {
			s := fmt.Sprint(v)
			switch k {
			case "indicator":
				r.indicator = s
			case "month":
				r.month = s
			case "rate":
				r.rate = s
			default:
				return nil, fmt.Errorf("line %d: unknown field %q", line, k)
			}
		}
		rows = append(rows, r)
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("line %d: %w", indexLineAt(data, dec.InputOffset()), err)
	}
	return rows, nil
}

// indexLineAt is the line of the first byte at or after off that is not
// space or a comma: where the next value starts.
func indexLineAt(data []byte, off int64) int {
	i := int(off)
	for i < len(data) && strings.IndexByte(" \t\r\n,", data[i]) >= 0 {
		i++
	}
	return 1 + bytes.Count(data[:min(i, len(data))], []byte("\n"))
}
