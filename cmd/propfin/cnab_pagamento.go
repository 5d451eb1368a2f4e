package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/propfin/propfin/cnab"
	"github.com/propfin/propfin/cnab/pagamento"
)

const cnabPagamentoUsage = `usage: propfin cnab pagamento [-o FILE] INPUT.json

Writes the CNAB 240 payment remittance (pagamento a fornecedores: transfers,
PIX by account or key, boletos) described by INPUT.json ("-" for standard
input) to standard output, or to FILE with -o, which may come before or
after INPUT.json. The input schema is in docs/cnab-pagamento.md. Problems
are printed one a line with the payment index and the field; any error
exits 1 and writes nothing. Warnings (a text truncated to its field, a
character replaced) are printed and the file is written.
`

// runCnabPagamento writes a payment remittance from its JSON description.
func runCnabPagamento(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var in pagamento.Input
	return runRemittance(ctx, remittanceCommand{
		name:  "cnab pagamento",
		usage: cnabPagamentoUsage,
		load: func(r io.Reader, print func(cnab.Problem)) error {
			var err error
			if in, err = pagamento.DecodeInput(r); err != nil {
				return printCnabProblems(err, print)
			}
			if in.Created.IsZero() {
				in.Created = time.Now()
			}
			return nil
		},
		write: func(ctx context.Context, w io.Writer, print func(cnab.Problem)) error {
			return writePagamento(ctx, w, &in, print)
		},
		problem: pagamentoProblem,
	}, args, stdin, stdout, stderr)
}

// writePagamento writes the remittance to w, passing problems and
// warnings to print; an invalid input returns errReported.
func writePagamento(ctx context.Context, w io.Writer, in *pagamento.Input, print func(cnab.Problem)) error {
	wr, err := pagamento.NewWriter(w, in.Remittance, print)
	if err != nil {
		return printCnabProblems(err, print)
	}
	return writeItems(ctx, wr, in.Each(), nil, print)
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
