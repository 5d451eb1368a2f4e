package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"

	"github.com/propfin/propfin/cnab"
)

// remittanceCommand is what a command that writes a remittance file from
// a JSON description (cnab remessa, cnab pagamento) tells runRemittance.
type remittanceCommand struct {
	name  string // as typed after propfin, for the flag set
	usage string
	// load decodes the input from r, printing problems it reports with
	// print (and then returning errReported) if it prints any.
	load func(r io.Reader, print func(cnab.Problem)) error
	// write writes the loaded remittance to w, passing every problem and
	// warning to print, and returns errReported when anything was rejected.
	write func(ctx context.Context, w io.Writer, print func(cnab.Problem)) error
	// problem is how a problem reads on standard error.
	problem func(cnab.Problem) string
}

// runRemittance parses [-o FILE] INPUT, loads INPUT ("-" for standard
// input), checks the whole remittance printing its problems and warnings,
// and only when it is valid writes it to standard output or to FILE.
func runRemittance(ctx context.Context, c remittanceCommand, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	outPath := fs.String("o", "", "write the remittance to `FILE` instead of standard output")
	fs.Usage = func() {
		fmt.Fprint(stderr, c.usage)
		fs.PrintDefaults()
	}
	path, err := parseFileArgs(fs, args)
	if errors.Is(err, errHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	report := func(p cnab.Problem) { fmt.Fprintln(stderr, c.problem(p)) }
	if err := loadRemittance(path, stdin, func(r io.Reader) error { return c.load(r, report) }); err != nil {
		return err
	}
	// Check everything first, so that nothing is written for bad input.
	if err := c.write(ctx, io.Discard, report); err != nil {
		return err
	}
	quiet := func(cnab.Problem) {}
	if *outPath == "" {
		return c.write(ctx, stdout, quiet)
	}
	return writeFileAtomically(*outPath, func(w io.Writer) error { return c.write(ctx, w, quiet) })
}

// loadRemittance hands load the file at path, or stdin for "-".
func loadRemittance(path string, stdin io.Reader, load func(io.Reader) error) error {
	if path == "-" {
		return load(stdin)
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return load(f)
}

// remittanceWriter is a remittance writer of items of type T
// (*cnab.Writer, *pagamento.Writer).
type remittanceWriter[T any] interface {
	Write(T) error
	Close() error
}

// writeItems writes each item with wr and closes it, printing the
// problems of the items rejected or not decoded (after calling skip, when
// set, for those). It returns errReported when any item was rejected.
func writeItems[T any](ctx context.Context, wr remittanceWriter[T], items iter.Seq2[T, error], skip func(), print func(cnab.Problem)) error {
	bad := false
	for item, err := range items {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err == nil {
			err = wr.Write(item)
		} else if skip != nil {
			skip()
		}
		if err != nil {
			if rerr := printCnabProblems(err, print); !errors.Is(rerr, errReported) {
				return rerr
			}
			bad = true
		}
	}
	if err := wr.Close(); err != nil && !bad {
		return err
	}
	if bad {
		return errReported
	}
	return nil
}

// printCnabProblems prints a cnab.Problems error line by line and returns
// errReported; any other error is returned as it is.
func printCnabProblems(err error, print func(cnab.Problem)) error {
	var ps cnab.Problems
	if !errors.As(err, &ps) {
		return err
	}
	for _, p := range ps {
		print(p)
	}
	return errReported
}

// writeFileAtomically writes to a temporary file beside path and renames
// it into place, so that path never holds a partial remittance.
func writeFileAtomically(path string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
