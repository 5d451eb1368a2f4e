package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/propfin/propfin/cnab"
)

const cnabRemessaUsage = `usage: propfin cnab remessa [-o FILE] INPUT.json

Writes the collection remittance (CNAB 240 or 400) described by INPUT.json
("-" for standard input) to standard output, or to FILE with -o. The input
schema is in docs/cnab.md. Problems are printed one a line with the title
index and the field; any error exits 1 and writes nothing. Warnings (a text
truncated to its field, a character replaced) are printed and the file is
written.
`

// runCnabRemessa writes a remittance file from its JSON description.
func runCnabRemessa(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("cnab remessa", flag.ContinueOnError)
	fs.SetOutput(stderr)
	outPath := fs.String("o", "", "write the remittance to `FILE` instead of standard output")
	fs.Usage = func() {
		fmt.Fprint(stderr, cnabRemessaUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return errReported
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errReported
	}
	in, err := readRemessaInput(fs.Arg(0), stdin)
	if err != nil {
		return err
	}
	if in.Created.IsZero() {
		in.Created = time.Now()
	}
	// Check everything first, so that nothing is written for bad input.
	if err := writeRemessa(ctx, io.Discard, in, stderr, true); err != nil {
		return err
	}
	if *outPath == "" {
		return writeRemessa(ctx, stdout, in, stderr, false)
	}
	return writeRemessaFile(ctx, *outPath, in, stderr)
}

func readRemessaInput(path string, stdin io.Reader) (cnab.Input, error) {
	r := stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return cnab.Input{}, err
		}
		defer f.Close()
		r = f
	}
	return cnab.DecodeInput(r)
}

// writeRemessa writes the remittance to w. When report is set, problems
// and warnings are printed to stderr and an invalid input returns
// errReported.
func writeRemessa(ctx context.Context, w io.Writer, in cnab.Input, stderr io.Writer, report bool) error {
	print := func(p cnab.Problem) {
		if report {
			fmt.Fprintln(stderr, p)
		}
	}
	wr, err := cnab.NewWriter(w, in.Remittance, print)
	if err != nil {
		return reportProblems(err, print)
	}
	bad := false
	for title, err := range in.Each() {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err == nil {
			err = wr.Write(title)
		} else {
			wr.Skip()
		}
		if err != nil {
			if rerr := reportProblems(err, print); !errors.Is(rerr, errReported) {
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

// reportProblems prints a Problems error line by line and returns
// errReported; any other error is returned as it is.
func reportProblems(err error, print func(cnab.Problem)) error {
	var ps cnab.Problems
	if !errors.As(err, &ps) {
		return err
	}
	for _, p := range ps {
		print(p)
	}
	return errReported
}

// writeRemessaFile writes to a temporary file beside path and renames it
// into place, so that path never holds a partial remittance.
func writeRemessaFile(ctx context.Context, path string, in cnab.Input, stderr io.Writer) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := writeRemessa(ctx, tmp, in, stderr, false); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
