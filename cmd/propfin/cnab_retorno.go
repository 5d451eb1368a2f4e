package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/propfin/propfin/cnab"
	"github.com/propfin/propfin/cnab/retorno"
)

const cnabRetornoUsage = `usage: propfin cnab retorno FILE [--bank N] [--layout 240|400]

Reads a bank return file (CNAB 240 or 400; "-" for standard input) and
prints one JSON object per title or payment, one a line (the fields are in
docs/cnab-retorno.md). The bank and the layout are read from the file's
header; --bank and --layout make a file of another bank or layout be
refused. A line that cannot be read is reported on standard error with its
number, the events of the other lines are printed, and the exit status
is 1. What was read but not as the layout has it (lines whose trailing
blanks were stripped) is one warning on standard error; the exit status
stays 0.
`

// runCnabRetorno prints the events of a return file as JSON lines.
func runCnabRetorno(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("cnab retorno", flag.ContinueOnError)
	fs.SetOutput(stderr)
	bank := fs.String("bank", "", "refuse a file whose header is not of bank `N` (001, 033, 041, 104, 237, 341, 748, 756)")
	layout := fs.Int("layout", 0, "refuse a file that is not CNAB `240 or 400`")
	fs.Usage = func() {
		fmt.Fprint(stderr, cnabRetornoUsage)
		fs.PrintDefaults()
	}
	path, err := parseFileArgs(fs, args)
	if errors.Is(err, errHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	opt := retorno.Options{Bank: *bank, Layout: cnab.Layout(*layout)}
	if opt.Layout != 0 && opt.Layout != cnab.CNAB240 && opt.Layout != cnab.CNAB400 {
		return fmt.Errorf("--layout %d: want 240 or 400", *layout)
	}
	in := stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	return printRetorno(ctx, in, opt, stdout, stderr)
}

// printRetorno writes the events of in as JSON lines to stdout and the
// lines it cannot read to stderr.
func printRetorno(ctx context.Context, in io.Reader, opt retorno.Options, stdout, stderr io.Writer) error {
	rd, err := retorno.NewReader(in, opt)
	if err != nil {
		return err
	}
	out := bufio.NewWriter(stdout)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	problems, n := 0, 0
	for ev, err := range rd.All() {
		if n++; n%4096 == 0 && ctx.Err() != nil {
			break
		}
		var le *retorno.LineError
		switch {
		case errors.As(err, &le):
			problems++
			fmt.Fprintf(stderr, "propfin cnab retorno: %v\n", err)
		case err != nil:
			out.Flush()
			return err
		default:
			if err := enc.Encode(ev); err != nil {
				return err
			}
		}
	}
	if err := out.Flush(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, w := range rd.Warnings() {
		fmt.Fprintf(stderr, "propfin cnab retorno: warning: %s\n", w)
	}
	if problems > 0 {
		return errReported
	}
	return nil
}
