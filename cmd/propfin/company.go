package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// The operators' commands on companies (docs/operations.md, "Companies and
// API keys"): create one explicitly with the settings only operators set,
// list them, change a company's name, time zone or invoice lead days. The
// writes are audited like the operator routes' (apikey.go).

const companyUsage = `usage:
  propfin company create --name NAME [--time-zone ZONE] [--lead-days N] --reason TEXT
  propfin company list
  propfin company update --id ID [--name NAME] [--time-zone ZONE] [--lead-days N] --reason TEXT
each also takes --data-dir DIR (default: .propfin when DATABASE_URL is unset)`

func runCompany(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	sub := map[string]func(context.Context, []string, io.Writer, io.Writer) error{
		"create": companyCreate, "list": companyList, "update": companyUpdate,
	}
	if len(args) == 0 || sub[args[0]] == nil {
		fmt.Fprintln(stderr, companyUsage)
		return errReported
	}
	return sub[args[0]](ctx, args[1:], stdout, stderr)
}

// settingsFlags declares the flags of a company's settings; settings()
// gives those set on the command line.
type settingsFlags struct {
	fs       *flag.FlagSet
	name     string
	zone     string
	leadDays int
}

func newSettingsFlags(fs *flag.FlagSet) *settingsFlags {
	f := &settingsFlags{fs: fs}
	fs.StringVar(&f.name, "name", "", "the company's name")
	fs.StringVar(&f.zone, "time-zone", "", "a tz database zone, such as America/Sao_Paulo (default for a new company)")
	fs.IntVar(&f.leadDays, "lead-days", storage.DefaultInvoiceLeadDays, "days before its due date an invoice is billed, 0 to 366")
	return f
}

func (f *settingsFlags) settings() storage.CompanySettings {
	var s storage.CompanySettings
	f.fs.Visit(func(fl *flag.Flag) {
		switch fl.Name {
		case "name":
			s.Name = &f.name
		case "time-zone":
			s.TimeZone = &f.zone
		case "lead-days":
			s.InvoiceLeadDays = &f.leadDays
		}
	})
	return s
}

func companyCreate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("company create", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := newSettingsFlags(fs)
	reason := fs.String("reason", "", "why, for the operators' audit log (required)")
	dataDir := dataDirFlag(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	s := f.settings()
	switch {
	case s.Name == nil:
		return errors.New("--name is required")
	case strings.TrimSpace(*reason) == "":
		return errors.New("--reason is required: it says why in the operators' audit log")
	}
	var c storage.CompanyRecord
	err := operatorWrite(ctx, *dataDir, stderr, func(tx pgx.Tx, operator string) error {
		var err error
		if c, err = storage.CreateCompany(ctx, tx, s); err != nil {
			return err
		}
		_, err = storage.RecordAudit(ctx, tx, storage.AuditEntry{Operator: operator, Action: "companies.create",
			Reason: strings.TrimSpace(*reason), Count: 1, Selection: storage.CompanyCreatedSelection(c)})
		return err
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "company %d created: %q, time zone %s, invoice lead days %d\n", c.ID, c.Name, c.TimeZone, c.InvoiceLeadDays)
	fmt.Fprintf(stdout, "issue its first key with: propfin apikey create --company-id %d --reason TEXT\n", c.ID)
	return nil
}

func companyList(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("company list", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dataDir := dataDirFlag(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var companies []storage.CompanyRecord
	keys := map[int64]int{}
	err := operatorRead(ctx, *dataDir, stderr, func(pool *pgxpool.Pool) error {
		var err error
		if companies, err = storage.ListCompanies(ctx, pool); err != nil {
			return err
		}
		all, err := storage.ListAPIKeys(ctx, pool, 0)
		for _, k := range all {
			if k.RevokedAt == nil {
				keys[k.CompanyID]++
			}
		}
		return err
	})
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tTIME ZONE\tLEAD DAYS\tKEYS\tCREATED")
	for _, c := range companies {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%d\t%s\n", c.ID, c.Name, c.TimeZone, c.InvoiceLeadDays, keys[c.ID], utcTime(&c.CreatedAt))
	}
	return tw.Flush()
}

func companyUpdate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("company update", flag.ContinueOnError)
	fs.SetOutput(stderr)
	id := idFlag(fs, "id", "id of the company (propfin company list)")
	f := newSettingsFlags(fs)
	reason := fs.String("reason", "", "why, for the operators' audit log (required)")
	dataDir := dataDirFlag(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	s := f.settings()
	switch {
	case *id <= 0:
		return errors.New("--id ID is required (propfin company list)")
	case s == (storage.CompanySettings{}):
		return errors.New("nothing to change: give --name, --time-zone or --lead-days")
	case strings.TrimSpace(*reason) == "":
		return errors.New("--reason is required: it says why in the operators' audit log")
	}
	var changed map[string][2]any
	err := operatorWrite(ctx, *dataDir, stderr, func(tx pgx.Tx, operator string) error {
		before, after, err := storage.UpdateCompany(ctx, tx, *id, s)
		if err != nil {
			return err
		}
		if changed = storage.CompanyChanges(before, after); len(changed) == 0 {
			return nil
		}
		_, err = storage.RecordAudit(ctx, tx, storage.AuditEntry{Operator: operator, Action: "companies.update",
			Reason: strings.TrimSpace(*reason), Count: 1, Selection: storage.CompanyChangeSelection(*id, changed)})
		return err
	})
	if err != nil {
		return err
	}
	if len(changed) == 0 {
		fmt.Fprintf(stdout, "company %d has these settings already; nothing changed\n", *id)
		return nil
	}
	fmt.Fprintf(stdout, "company %d updated: %s\n", *id, strings.TrimPrefix(storage.CompanyChangeSelection(*id, changed), fmt.Sprintf("company=%d ", *id)))
	return nil
}

// flagOf is the flag a body field is given with on the command line.
var flagOf = map[string]string{"name": "--name", "time_zone": "--time-zone", "invoice_lead_days": "--lead-days"}

// explain writes a coded error for the command line: its message, and
// each problem by the flag it came from.
func explain(err error) error {
	var fe *finance.Error
	if !errors.As(err, &fe) || fe.Code == finance.Internal {
		return err
	}
	msg := fe.Message
	for _, p := range fe.Problems {
		field := p.Field
		if f, ok := flagOf[field]; ok {
			field = f
		}
		msg += "\n  " + field + " " + p.Message
	}
	return errors.New(msg)
}
