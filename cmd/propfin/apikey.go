package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/user"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// The operators' commands on API keys (docs/operations.md, "Companies and
// API keys"): issue one for a company named by id (or by its name, but
// for case and accents as creation compares names),
// list them without their secrets, revoke one. Each write is one
// transaction with its row of the operators' audit log, as the operator
// routes' are, by "cli:<system user>".

const apikeyUsage = `usage:
  propfin apikey create (--company-id ID | --company NAME [--create-company]) [--name LABEL] --reason TEXT
  propfin apikey list [--company-id ID] [--revoked]
  propfin apikey revoke --id KEY_ID --reason TEXT
each also takes --data-dir DIR (default: .propfin when DATABASE_URL is unset)`

func runAPIKey(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	sub := map[string]func(context.Context, []string, io.Writer, io.Writer) error{
		"create": apikeyCreate, "list": apikeyList, "revoke": apikeyRevoke,
	}
	if len(args) == 0 || sub[args[0]] == nil {
		fmt.Fprintln(stderr, apikeyUsage)
		return errReported
	}
	return sub[args[0]](ctx, args[1:], stdout, stderr)
}

func apikeyCreate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("apikey create", flag.ContinueOnError)
	fs.SetOutput(stderr)
	companyID := idFlag(fs, "company-id", "id of the company the key acts for (propfin company list)")
	company := fs.String("company", "", "name of the company the key acts for (case and accents aside)")
	create := fs.Bool("create-company", false, "with --company: create the company when none has that name")
	label := fs.String("name", "cli", "label stored with the key")
	reason := fs.String("reason", "", "why, for the operators' audit log (required)")
	dataDir := dataDirFlag(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case (*companyID == 0) == (*company == ""):
		return errors.New("give the company: --company-id ID, or --company NAME")
	case *create && *company == "":
		return errors.New("--create-company goes with --company NAME")
	case strings.TrimSpace(*reason) == "":
		return errors.New("--reason is required: it says why in the operators' audit log")
	}
	var id int64
	var key storage.NewAPIKey
	var made bool
	err := operatorWrite(ctx, *dataDir, stderr, func(tx pgx.Tx, operator string) error {
		var err error
		if id, made, err = keyCompany(ctx, tx, operator, *companyID, *company, *create, *reason); err != nil {
			return err
		}
		if key, err = storage.IssueAPIKey(ctx, tx, id, *label); err != nil {
			return err
		}
		_, err = storage.RecordAudit(ctx, tx, storage.AuditEntry{Operator: operator, Action: "keys.create",
			Reason: strings.TrimSpace(*reason), Count: 1, Selection: storage.KeySelection(id, key.KeyID, strings.TrimSpace(*label))})
		return err
	})
	if err != nil {
		return err
	}
	// the key alone on standard output, so that KEY=$(propfin apikey create …) holds it;
	// what it is for on standard error, before it
	if made {
		fmt.Fprintf(stderr, "company %d created\n", id)
	}
	fmt.Fprintf(stderr, "company %d, key id %d\n", id, key.KeyID)
	fmt.Fprintln(stdout, key.Key)
	return nil
}

// keyCompany is the company a key is issued for: id when given, else the
// company named name (storage.CompanyByName: case and accents aside);
// none is an error listing the close names,
// unless create, which makes it (audited).
func keyCompany(ctx context.Context, tx pgx.Tx, operator string, id int64, name string, create bool, reason string) (int64, bool, error) {
	if id != 0 {
		c, err := storage.GetCompany(ctx, tx, id)
		return c.ID, false, err
	}
	c, err := storage.CompanyByName(ctx, tx, name)
	if err == nil || !create || !isNotFound(err) {
		return c.ID, false, err
	}
	made, err := storage.CreateCompany(ctx, tx, storage.CompanySettings{Name: &name})
	if err != nil {
		return 0, false, err
	}
	_, err = storage.RecordAudit(ctx, tx, storage.AuditEntry{Operator: operator, Action: "companies.create",
		Reason: strings.TrimSpace(reason), Count: 1, Selection: storage.CompanyCreatedSelection(made)})
	return made.ID, true, err
}

func apikeyList(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("apikey list", flag.ContinueOnError)
	fs.SetOutput(stderr)
	companyID := idFlag(fs, "company-id", "only this company's keys (propfin company list)")
	revoked := fs.Bool("revoked", false, "list the revoked keys too")
	dataDir := dataDirFlag(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var keys []storage.APIKey
	err := operatorRead(ctx, *dataDir, stderr, func(pool *pgxpool.Pool) error {
		if *companyID != 0 {
			if _, err := storage.GetCompany(ctx, pool, *companyID); err != nil {
				return err
			}
		}
		var err error
		keys, err = storage.ListAPIKeys(ctx, pool, *companyID)
		return err
	})
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tCOMPANY\tNAME\tPREFIX\tCREATED\tLAST USED\tREVOKED")
	for _, k := range keys {
		if k.RevokedAt != nil && !*revoked {
			continue
		}
		prefix := "-"
		if k.Prefix != nil {
			prefix = *k.Prefix + "…"
		}
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.CompanyID, k.Name, prefix,
			utcTime(&k.CreatedAt), utcTime(k.LastUsedAt), utcTime(k.RevokedAt))
	}
	return tw.Flush()
}

func apikeyRevoke(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("apikey revoke", flag.ContinueOnError)
	fs.SetOutput(stderr)
	id := idFlag(fs, "id", "id of the key (propfin apikey list)")
	reason := fs.String("reason", "", "why, for the operators' audit log (required)")
	dataDir := dataDirFlag(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case *id <= 0:
		return errors.New("--id KEY_ID is required (propfin apikey list)")
	case strings.TrimSpace(*reason) == "":
		return errors.New("--reason is required: it says why in the operators' audit log")
	}
	var company int64
	var revoked bool
	var k storage.APIKey
	err := operatorWrite(ctx, *dataDir, stderr, func(tx pgx.Tx, operator string) error {
		var err error
		if company, err = storage.KeyCompany(ctx, tx, *id); err != nil {
			return err
		}
		if k, revoked, err = storage.RevokeAPIKey(ctx, tx, company, *id); err != nil || !revoked {
			return err
		}
		_, err = storage.RecordAudit(ctx, tx, storage.AuditEntry{Operator: operator, Action: "keys.revoke",
			Reason: strings.TrimSpace(*reason), Count: 1, Selection: storage.KeySelection(company, *id, "")})
		return err
	})
	if err != nil {
		return err
	}
	if !revoked {
		fmt.Fprintf(stdout, "key %d of company %d was revoked already, at %s; nothing changed\n", *id, company, utcTime(k.RevokedAt))
		return nil
	}
	fmt.Fprintf(stdout, "key %d of company %d revoked\n", *id, company)
	return nil
}

// utcTime writes an instant in UTC to the second, "-" for none.
func utcTime(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.UTC().Format(time.DateTime) + " UTC"
}

func isNotFound(err error) bool { return finance.ErrorCode(err) == finance.NotFound }

// idFlag defines an id flag: a whole number, refused with a sentence
// saying so and where the ids are listed (usage, from the flag's own),
// not the flag package's "parse error".
func idFlag(fs *flag.FlagSet, name, usage string) *int64 {
	v := new(int64)
	fs.Var((*idValue)(v), name, usage)
	return v
}

// idValue is an id flag's value.
type idValue int64

func (v *idValue) String() string {
	if v == nil || *v == 0 {
		return ""
	}
	return strconv.FormatInt(int64(*v), 10)
}

func (v *idValue) Set(s string) error {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n <= 0 {
		return errors.New("must be a positive whole number, an id as the list commands show it")
	}
	*v = idValue(n)
	return nil
}

func dataDirFlag(fs *flag.FlagSet) *string {
	return fs.String("data-dir", "", "use the local cluster of propfin dev in this `folder` instead of DATABASE_URL")
}

// cliOperator is who the audit log says acted from the command line:
// cli:<system user>.
func cliOperator() string {
	name := os.Getenv("USER")
	if u, err := user.Current(); err == nil && u.Username != "" {
		name = u.Username
	}
	if name == "" {
		name = "unknown"
	}
	return "cli:" + name
}

// operatorWrite runs fn in one transaction on the database of the
// operators' commands.
func operatorWrite(ctx context.Context, dataDir string, stderr io.Writer, fn func(tx pgx.Tx, operator string) error) error {
	return operatorRead(ctx, dataDir, stderr, func(pool *pgxpool.Pool) error {
		return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error { return fn(tx, cliOperator()) })
	})
}

// operatorRead runs fn on the database of the operators' commands, then
// closes it (the local cluster stopped before anything is printed).
func operatorRead(ctx context.Context, dataDir string, stderr io.Writer, fn func(pool *pgxpool.Pool) error) error {
	pool, done, err := openAPIKeyDatabase(ctx, dataDir, newLogger("text", stderr))
	if err != nil {
		return err
	}
	err = fn(pool)
	done() // before anything is printed: stopping a local cluster logs, and a key comes last
	return explain(err)
}

// openAPIKeyDatabase opens DATABASE_URL, or the dev cluster in dataDir
// (migrated, as `propfin dev` would have it); a database without the
// schema is an error that says to migrate it.
func openAPIKeyDatabase(ctx context.Context, dataDir string, log *slog.Logger) (*pgxpool.Pool, func(), error) {
	cfg, err := loadConfig()
	if err != nil {
		return nil, nil, err
	}
	url := cfg.DatabaseURL
	stop := func(context.Context) error { return nil }
	if dataDir == "" && url == "" && isDir(defaultDevDataDir) {
		dataDir = defaultDevDataDir // the cluster `propfin dev` made here
	}
	if dataDir != "" {
		url, stop, err = startDevDatabase(ctx, dataDir, false, log)
		if err != nil {
			return nil, nil, err
		}
	} else if url == "" {
		return nil, nil, errors.New("set DATABASE_URL, or pass --data-dir to use the local cluster of `propfin dev` " +
			"(" + defaultDevDataDir + " is taken when it exists)")
	}
	pool, err := storage.Open(ctx, url)
	if err == nil && dataDir != "" {
		err = storage.Migrate(ctx, pool)
	}
	if err == nil {
		err = checkMigrated(ctx, pool)
	}
	if err != nil {
		if pool != nil {
			pool.Close()
		}
		stop(context.WithoutCancel(ctx)) //nolint:errcheck // the first error is the one to report
		return nil, nil, err
	}
	return pool, func() {
		pool.Close()
		if err := stop(context.WithoutCancel(ctx)); err != nil {
			log.Warn("stop local cluster", "err", err)
		}
	}, nil
}

// checkMigrated refuses a database without propfin's tables.
func checkMigrated(ctx context.Context, pool *pgxpool.Pool) error {
	var migrated bool
	if err := pool.QueryRow(ctx, `SELECT to_regclass('api_keys') IS NOT NULL`).Scan(&migrated); err != nil {
		return fmt.Errorf("check the schema: %w", err)
	}
	if !migrated {
		return errors.New("the database has no propfin tables: run `propfin migrate` first")
	}
	return nil
}

func isDir(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.IsDir()
}
