package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

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
	rows, problems := storage.ParseIndexFile(data)
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
		return fmt.Errorf("DATABASE_URL: %w", err)
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
