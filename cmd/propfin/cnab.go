package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/propfin/propfin/cnab/boleto"
)

const cnabUsage = `usage: propfin cnab <subcommand> [arguments]

subcommands:
  line [-formatted] BARCODE   print the 47-digit digitable line of a 44-digit barcode
  barcode LINE                print the 44-digit barcode of a 47-digit digitable line
  remessa [-o FILE] INPUT.json
                              write a collection remittance (CNAB 240/400) from JSON
  pagamento [-o FILE] INPUT.json
                              write a payment remittance (CNAB 240) from JSON
  retorno [--bank N --layout 240|400] FILE
                              read a return file; print one JSON event per line

Spaces and punctuation in BARCODE and LINE are ignored, so a line can be
pasted as printed: propfin cnab barcode 34191.09008 01015.271248 ...
`

// runCnab dispatches the boleto and CNAB tools.
func runCnab(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, cnabUsage)
		return errReported
	}
	switch sub, rest := args[0], args[1:]; sub {
	case "line":
		return runCnabLine(rest, stdout, stderr)
	case "barcode":
		return runCnabBarcode(rest, stdout, stderr)
	case "remessa":
		return runCnabRemessa(ctx, rest, stdin, stdout, stderr)
	case "pagamento":
		return runCnabPagamento(ctx, rest, stdin, stdout, stderr)
	case "retorno":
		return runCnabRetorno(ctx, rest, stdin, stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprint(stderr, cnabUsage)
		return nil
	default:
		return fmt.Errorf("unknown subcommand %q (subcommands: %s)", sub, strings.Join(cnabSubcommands(), ", "))
	}
}

// cnabSubcommands lists the subcommands for the unknown-subcommand error.
func cnabSubcommands() []string {
	return []string{"line", "barcode", "remessa", "pagamento", "retorno"}
}

// runCnabLine prints the digitable line of a barcode.
func runCnabLine(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("cnab line", flag.ContinueOnError)
	fs.SetOutput(stderr)
	formatted := fs.Bool("formatted", false, "print the line with its dots and spaces, as on the slip")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: propfin cnab line [-formatted] BARCODE")
		fs.PrintDefaults()
	}
	input, err := cnabInput(fs, args)
	if errors.Is(err, errHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	bc, err := boleto.ParseBarcode(input)
	if err != nil {
		return err
	}
	if *formatted {
		fmt.Fprintln(stdout, bc.FormattedLine())
	} else {
		fmt.Fprintln(stdout, bc.Line())
	}
	return nil
}

// runCnabBarcode prints the barcode of a digitable line.
func runCnabBarcode(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("cnab barcode", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: propfin cnab barcode LINE")
		fs.PrintDefaults()
	}
	input, err := cnabInput(fs, args)
	if errors.Is(err, errHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	bc, err := boleto.ParseLine(input)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, bc.String())
	return nil
}

// errHelp means the usage was asked for and printed: exit status 0.
var errHelp = errors.New("help")

// cnabInput parses the flags and joins the remaining arguments, so that a
// line pasted unquoted (several arguments) reads as one.
func cnabInput(fs *flag.FlagSet, args []string) (string, error) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return "", errHelp
		}
		return "", errReported // the flag package already printed the problem
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return "", errReported
	}
	return strings.Join(fs.Args(), " "), nil
}

// parseFileArgs parses the flags of a command that takes one file, before
// or after it (`cnab remessa IN.json -o OUT` as `cnab remessa -o OUT
// IN.json`), and returns the file. A missing file or a second one prints
// the usage and is errReported; -h is errHelp.
func parseFileArgs(fs *flag.FlagSet, args []string) (string, error) {
	parse := func(args []string) error {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return errHelp
			}
			return errReported // the flag package printed the problem
		}
		return nil
	}
	if err := parse(args); err != nil {
		return "", err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return "", errReported
	}
	path, rest := fs.Arg(0), fs.Args()[1:]
	if err := parse(rest); err != nil {
		return "", err
	}
	if fs.NArg() != 0 {
		fs.Usage()
		return "", errReported
	}
	return path, nil
}
