package main

import (
	"context"
	"io"
	"time"

	"github.com/propfin/propfin/cnab"
)

const cnabRemessaUsage = `usage: propfin cnab remessa [-o FILE] INPUT.json

Writes the collection remittance (CNAB 240 or 400) described by INPUT.json
("-" for standard input) to standard output, or to FILE with -o, which may
come before or after INPUT.json. The input schema is in docs/cnab.md.
Problems are printed one a line with the title index and the field; any
error exits 1 and writes nothing. Warnings (a text truncated to its field,
a character replaced) are printed and the file is written.
`

// runCnabRemessa writes a remittance file from its JSON description.
func runCnabRemessa(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var in cnab.Input
	return runRemittance(ctx, remittanceCommand{
		name:  "cnab remessa",
		usage: cnabRemessaUsage,
		load: func(r io.Reader, _ func(cnab.Problem)) error {
			var err error
			if in, err = cnab.DecodeInput(r); err != nil {
				return err
			}
			if in.Created.IsZero() {
				in.Created = time.Now()
			}
			return nil
		},
		write: func(ctx context.Context, w io.Writer, print func(cnab.Problem)) error {
			return writeRemessa(ctx, w, &in, print)
		},
		problem: cnab.Problem.String,
	}, args, stdin, stdout, stderr)
}

// writeRemessa writes the remittance to w, passing problems and warnings
// to print; an invalid input returns errReported.
func writeRemessa(ctx context.Context, w io.Writer, in *cnab.Input, print func(cnab.Problem)) error {
	wr, err := cnab.NewWriter(w, in.Remittance, print)
	if err != nil {
		return printCnabProblems(err, print)
	}
	return writeItems(ctx, wr, in.Each(), wr.Skip, print)
}
