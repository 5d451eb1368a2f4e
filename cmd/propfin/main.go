// Command propfin is the propfin binary: the API server, migrations, the
// all-in-one development mode, company and API key management and small tools for PIX,
// CNAB files and finance rules. This package only wires the others together.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// errReported means the command already told the user what went wrong
// (for example one line per invalid payload); main only sets the exit code.
var errReported = errors.New("reported")

// errHelpShown means the command printed its usage on request: exit 0.
var errHelpShown = errors.New("help shown")

// command is one subcommand: it reads its own flags from args and writes
// its output to stdout.
type command func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error

const usage = `usage: propfin <command> [arguments]

commands:
  serve      run the HTTP API
  worker     run jobs (and relay submitted jobs to Redis)
  scheduler  submit the scheduled jobs (--list prints the schedules)
  migrate    apply database migrations
  dev        run the whole system on embedded defaults
  company    manage companies (company create|list|update)
  apikey     manage API keys (apikey create|list|revoke)
  pix        PIX BR Code tools (validate, build, qr)
  cnab       boleto and CNAB tools (line, barcode, remessa)
  finance    finance rules (schedule)
  indices    price indices (import FILE: CSV or JSON months of IGP-M, IPCA, ...)
  bench      write a large data set and measure the API under a mixed load
`

func commands() map[string]command {
	return map[string]command{
		"serve":     runServe,
		"worker":    runWorker,
		"scheduler": runScheduler,
		"migrate":   runMigrate,
		"dev":       runDev,
		"company":   runCompany,
		"apikey":    runAPIKey,
		"pix":       runPix,
		"cnab":      runCnab,
		"finance":   runFinance,
		"indices":   runIndices,
		"bench":     runBench,
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run dispatches to a subcommand and turns its error into an exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stderr, usage)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	cmd, ok := commands()[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "propfin: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
	if err := cmd(ctx, args[1:], stdin, stdout, stderr); err != nil && !errors.Is(err, errHelpShown) {
		if !errors.Is(err, errReported) {
			fmt.Fprintf(stderr, "propfin %s: %v\n", args[0], err)
		}
		return 1
	}
	return 0
}
