package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/propfin/propfin/storage"
)

const indicesUsage = `usage: propfin indices import FILE

Stores months of price indices (the monthly variation in percent) from FILE,
all of them or none (DATABASE_URL): a CSV with the header indicator,month,rate
or a JSON array of {"indicator", "month", "rate"} ("-" reads stdin). Months are
YYYY-MM; indicators: IGP-M, INCC-M, INPC, IVAR, IPC-BR, IPCA, IPC-FIPE, IGP-DI.
A stored month with another rate is updated. Every bad row is named by its
line, and then nothing is stored.
`

func runIndices(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	switch {
	case len(args) == 1 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help"):
		fmt.Fprint(stdout, indicesUsage)
		return errHelpShown
	case len(args) != 2 || args[0] != "import":
		fmt.Fprint(stderr, indicesUsage)
		return errors.New("want: indices import FILE")
	}
	data, err := readInput(args[1], stdin)
	if err != nil {
		return err
	}
	rows, problems := parseIndexFile(data)
	if len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintf(stderr, "%s: %s\n", args[1], p)
		}
		fmt.Fprintf(stderr, "propfin indices: %d problems; nothing imported\n", len(problems))
		return errReported
	}
	return importIndices(ctx, rows, stdout)
}

func readInput(name string, stdin io.Reader) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(stdin)
	}
	return os.ReadFile(name)
}

// importIndices stores rows in one statement (all or none).
func importIndices(ctx context.Context, rows []storage.IndexRow, stdout io.Writer) error {
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	if cfg.DatabaseURL == "" {
		return errors.New("DATABASE_URL must be set")
	}
	pool, err := storage.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	res, err := storage.UpsertIndices(ctx, pool, rows, storage.IndexImport, storage.Scope{})
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	fmt.Fprintf(stdout, "imported %d months: %d inserted, %d updated, %d unchanged\n",
		len(rows), res.Inserted, res.Updated, res.Unchanged)
	return nil
}

// lineRow is a row read from a file with the line it starts on.
type lineRow struct {
	line                   int
	indicator, month, rate string
}

// parseIndexFile reads a JSON array (the file starts with '[') or a CSV,
// and checks every row: the problems are "line N: field: message", a
// month given twice included.
func parseIndexFile(data []byte) ([]storage.IndexRow, []string) {
	var raw []lineRow
	var err error
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '[' {
		raw, err = jsonRows(data)
	} else {
		raw, err = csvRows(data)
	}
	if err != nil {
		return nil, []string{err.Error()}
	}
	if len(raw) == 0 {
		return nil, []string{"no rows"}
	}
	var problems []string
	rows := make([]storage.IndexRow, 0, len(raw))
	first := map[string]int{}
	for _, r := range raw {
		row, ps := storage.ParseIndexRow(r.indicator, r.month, r.rate)
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

// csvRows reads a CSV whose header names indicator, month and rate (in
// any order; other columns are refused).
func csvRows(data []byte) ([]lineRow, error) {
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
	var rows []lineRow
	for {
		rec, err := rd.Read()
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return nil, err // csv.ParseError names its line
		}
		line, _ := rd.FieldPos(0)
		rows = append(rows, lineRow{line: line, indicator: rec[col["indicator"]], month: rec[col["month"]], rate: rec[col["rate"]]})
	}
}

// jsonRows reads an array of {"indicator", "month", "rate"} objects, each
// with the line it starts on; the rate may be a number or a string.
func jsonRows(data []byte) ([]lineRow, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("line 1: %w", err)
	}
	var rows []lineRow
	for dec.More() {
		line := lineAt(data, dec.InputOffset())
		var obj map[string]any
		if err := dec.Decode(&obj); err != nil {
			return nil, fmt.Errorf("line %d: not an object {indicator, month, rate}: %w", line, err)
		}
		r := lineRow{line: line}
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
		return nil, fmt.Errorf("line %d: %w", lineAt(data, dec.InputOffset()), err)
	}
	return rows, nil
}

// lineAt is the line of the first byte at or after off that is not
// space or a comma: where the next value starts.
func lineAt(data []byte, off int64) int {
	i := int(off)
	for i < len(data) && strings.IndexByte(" \t\r\n,", data[i]) >= 0 {
		i++
	}
	return 1 + bytes.Count(data[:min(i, len(data))], []byte("\n"))
}
