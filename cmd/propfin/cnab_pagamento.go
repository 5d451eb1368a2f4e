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
	"github.com/propfin/propfin/cnab/pagamento"
)

const cnabPagamentoUsage = `usage: propfin cnab pagamento [-o FILE] INPUT.json

Writes the CNAB 240 payment remittance (pagamento a fornecedores: transfers,
PIX by account or key, boletos) described by INPUT.json ("-" for standard
input) to standard output, or to FILE with -o. The input schema is in
docs/cnab-pagamento.md. Problems are printed one a line with the payment
index and the field; any error exits 1 and writes nothing. Warnings (a text
truncated to its field, a character replaced) are printed and the file is
written.
`

// runCnabPagamento writes a payment remittance from its JSON description.
func runCnabPagamento(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("cnab pagamento", flag.ContinueOnError)
	fs.SetOutput(stderr)
	outPath := fs.String("o", "", "write the remittance to `FILE` instead of standard output")
	fs.Usage = func() {
		fmt.Fprint(stderr, cnabPagamentoUsage)
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
	in, err := readPagamentoInput(fs.Arg(0), stdin, stderr)
	if err != nil {
		return err
	}
	if in.Created.IsZero() {
		in.Created = time.Now()
	}
	// Check everything first, so that nothing is written for bad input.
	if err := writePagamento(ctx, io.Discard, in, stderr, true); err != nil {
		return err
	}
	if *outPath == "" {
		return writePagamento(ctx, stdout, in, stderr, false)
	}
	return writePagamentoFile(ctx, *outPath, in, stderr)
}

func readPagamentoInput(path string, stdin io.Reader, stderr io.Writer) (pagamento.Input, error) {
	r := stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return pagamento.Input{}, err
		}
		defer f.Close()
		r = f
	}
	in, err := pagamento.DecodeInput(r)
	if err != nil {
		return in, printPagamentoProblems(err, func(p cnab.Problem) { fmt.Fprintln(stderr, pagamentoProblem(p)) })
	}
	return in, nil
}

// writePagamento writes the remittance to w. When report is set, problems
// and warnings are printed to stderr and an invalid input returns
// errReported.
func writePagamento(ctx context.Context, w io.Writer, in pagamento.Input, stderr io.Writer, report bool) error {
	print := func(p cnab.Problem) {
		if report {
			fmt.Fprintln(stderr, pagamentoProblem(p))
		}
	}
	wr, err := pagamento.NewWriter(w, in.Remittance, print)
	if err != nil {
		return printPagamentoProblems(err, print)
	}
	bad := false
	for p, err := range in.Each() {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err == nil {
			err = wr.Write(p)
		}
		if err != nil {
			if rerr := printPagamentoProblems(err, print); !errors.Is(rerr, errReported) {
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

// pagamentoProblem prints a problem naming the payment rather than the
// "title" of a collection remittance.
func pagamentoProblem(p cnab.Problem) string {
	where := "remittance"
	if p.Title != cnab.HeaderIndex {
		where = fmt.Sprintf("payment %d", p.Title)
	}
	return fmt.Sprintf("%s: %s: %s: %s", p.Severity, where, p.Field, p.Message)
}

// printPagamentoProblems prints a Problems error line by line and returns
// errReported; any other error is returned as it is.
func printPagamentoProblems(err error, print func(cnab.Problem)) error {
	var ps cnab.Problems
	if !errors.As(err, &ps) {
		return err
	}
	for _, p := range ps {
		print(p)
	}
	return errReported
}

// writePagamentoFile writes to a temporary file beside path and renames it
// into place, so that path never holds a partial remittance.
func writePagamentoFile(ctx context.Context, path string, in pagamento.Input, stderr io.Writer) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := writePagamento(ctx, tmp, in, stderr, false); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
