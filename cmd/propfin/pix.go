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
	"strings"

	"github.com/propfin/propfin/pix"
)

const pixUsage = `usage: propfin pix <subcommand> [arguments]

subcommands:
  validate [--json] PAYLOAD   check a PIX copy-and-paste payload; - reads one per line from stdin
  build --key K --name N --city C [--amount A] [--txid T] [--description D]
                              print a static payload (accents are removed from N, C and D)
  build --url U --name N --city C [--amount A]
                              print a dynamic payload
  qr PAYLOAD -o FILE.png [--size PIXELS]
                              draw a payload as a QR code PNG (-o - writes to stdout)
`

// runPix is "propfin pix": BR Code validation, building and QR images.
func runPix(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, pixUsage)
		return errors.New("missing subcommand")
	}
	switch args[0] {
	case "validate":
		return pixValidate(ctx, args[1:], stdin, stdout, stderr)
	case "build":
		return pixBuild(args[1:], stdout, stderr)
	case "qr":
		return pixQR(args[1:], stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprint(stdout, pixUsage)
		return nil
	}
	fmt.Fprint(stderr, pixUsage)
	return fmt.Errorf("unknown subcommand %q", args[0])
}

// parseInterspersed parses flags placed before or after the positional
// arguments ("qr PAYLOAD -o file.png") and returns the positional ones.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

func newPixFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("pix "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, pixUsage) }
	return fs
}

// pixResult is one payload's result in --json output.
type pixResult struct {
	Line     int          `json:"line,omitempty"`
	Valid    bool         `json:"valid"`
	Payload  pix.Payload  `json:"payload"`
	Problems pix.Problems `json:"problems"`
}

func pixValidate(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newPixFlagSet("validate", stderr)
	asJSON := fs.Bool("json", false, "print the parsed fields and problems as JSON")
	positional, err := parseInterspersed(fs, args)
	if err != nil {
		return errReported
	}
	if len(positional) != 1 {
		fs.Usage()
		return errors.New("validate takes one payload, or - for one payload per line on stdin")
	}
	if positional[0] != "-" {
		return reportPayload(stdout, positional[0], 0, *asJSON)
	}
	r := bufio.NewReader(stdin)
	invalid := false
	for line := 1; ; line++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		payload, long, err := readPayloadLine(r)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("reading payloads from stdin: %w", err)
		}
		if payload == "" && !long {
			continue
		}
		if long {
			err = printResult(stdout, line, *asJSON, pix.Payload{}, pix.Problems{{
				Code: pix.CodeTooLong, Field: pix.FieldPayload, Message: fmt.Sprintf(
					"the payload has more than %d bytes; at most %d characters are allowed", maxPayloadLine, pix.MaxLength)}})
		} else {
			err = reportPayload(stdout, payload, line, *asJSON)
		}
		if err != nil {
			if !errors.Is(err, errReported) {
				return err
			}
			invalid = true
		}
	}
	if invalid {
		return errReported
	}
	return nil
}

// maxPayloadLine is the longest stdin line validated as it is; a longer
// one is reported too long without being held in memory whole.
const maxPayloadLine = 1 << 20

// readPayloadLine reads one line without its line ending ("\n" or
// "\r\n"). A line longer than maxPayloadLine is read to its end but
// returned empty, with long set. It returns io.EOF only when no line is
// left.
func readPayloadLine(r *bufio.Reader) (line string, long bool, err error) {
	var buf []byte
	read := 0
	for {
		chunk, err := r.ReadSlice('\n')
		read += len(chunk)
		if !long {
			buf = append(buf, chunk...)
			long = len(buf) > maxPayloadLine+len("\r\n")
			if long {
				buf = nil
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if errors.Is(err, io.EOF) && read > 0 {
			err = nil // a last line without a line ending
		}
		line = strings.TrimSuffix(strings.TrimSuffix(string(buf), "\n"), "\r")
		if len(line) > maxPayloadLine {
			line, long = "", true
		}
		return line, long, err
	}
}

// reportPayload validates one payload and prints its result: "valid", or
// one line per problem; with line > 0 (stdin), one line in all, prefixed
// with the line number. It returns errReported when the payload is invalid.
func reportPayload(w io.Writer, payload string, line int, asJSON bool) error {
	p, probs := pix.Validate(payload)
	return printResult(w, line, asJSON, p, probs)
}

// printResult prints one payload's result as reportPayload describes.
func printResult(w io.Writer, line int, asJSON bool, p pix.Payload, probs pix.Problems) error {
	var err error
	switch {
	case asJSON:
		if probs == nil {
			probs = pix.Problems{}
		}
		var b []byte
		b, err = json.Marshal(pixResult{Line: line, Valid: len(probs) == 0, Payload: p, Problems: probs})
		if err == nil {
			_, err = fmt.Fprintf(w, "%s\n", b)
		}
	case line > 0 && len(probs) > 0:
		parts := make([]string, len(probs))
		for i, pr := range probs {
			parts[i] = pr.String()
		}
		_, err = fmt.Fprintf(w, "line %d: invalid: %s\n", line, strings.Join(parts, "; "))
	case line > 0:
		_, err = fmt.Fprintf(w, "line %d: valid\n", line)
	case len(probs) > 0:
		err = printProblems(w, probs)
	default:
		_, err = fmt.Fprintln(w, "valid")
	}
	if err != nil {
		return fmt.Errorf("writing result: %w", err)
	}
	if len(probs) > 0 {
		return errReported
	}
	return nil
}

func printProblems(w io.Writer, probs pix.Problems) error {
	for _, pr := range probs {
		if _, err := fmt.Fprintln(w, pr.String()); err != nil {
			return err
		}
	}
	return nil
}

func pixBuild(args []string, stdout, stderr io.Writer) error {
	fs := newPixFlagSet("build", stderr)
	key := fs.String("key", "", "PIX key: CPF or CNPJ without punctuation, e-mail, +55 phone or random key")
	url := fs.String("url", "", "charge location URL without https:// (dynamic payload)")
	name := fs.String("name", "", "receiver name, at most 25 characters")
	city := fs.String("city", "", "receiver city, at most 15 characters")
	amount := fs.String("amount", "", "amount with a dot and at most two decimals, such as 1234.50")
	txid := fs.String("txid", "", "transaction id, at most 25 letters and digits (default ***)")
	description := fs.String("description", "", "description shown to the payer")
	positional, err := parseInterspersed(fs, args)
	if err != nil {
		return errReported
	}
	if len(positional) > 0 {
		return fmt.Errorf("build takes only flags, not %q", positional[0])
	}
	var payload string
	if *url != "" {
		if *key != "" || *txid != "" || *description != "" {
			return errors.New("--url builds a dynamic payload: --key, --txid and --description do not apply")
		}
		payload, err = pix.BuildDynamic(pix.Dynamic{URL: *url, Name: pix.Fold(*name), City: pix.Fold(*city), Amount: *amount})
	} else {
		payload, err = pix.BuildStatic(pix.Static{Key: *key, Name: pix.Fold(*name), City: pix.Fold(*city),
			Amount: *amount, TxID: *txid, Description: pix.Fold(*description)})
	}
	if err != nil {
		return reportBuildError(stderr, err)
	}
	_, err = fmt.Fprintln(stdout, payload)
	return err
}

// reportBuildError prints problems one a line, or returns other errors.
func reportBuildError(stderr io.Writer, err error) error {
	var probs pix.Problems
	if !errors.As(err, &probs) {
		return err
	}
	if perr := printProblems(stderr, probs); perr != nil {
		return perr
	}
	return errReported
}

func pixQR(args []string, stdout, stderr io.Writer) error {
	fs := newPixFlagSet("qr", stderr)
	out := fs.String("o", "", "PNG file to write; - for stdout")
	size := fs.Int("size", 512, "largest side of the image, in pixels")
	positional, err := parseInterspersed(fs, args)
	if err != nil {
		return errReported
	}
	if len(positional) != 1 || *out == "" {
		fs.Usage()
		return errors.New("qr takes one payload and -o FILE.png")
	}
	image, err := pix.QRPNG(positional[0], *size)
	if err != nil {
		return reportBuildError(stderr, err)
	}
	if *out == "-" {
		_, err = stdout.Write(image)
		return err
	}
	if err := os.WriteFile(*out, image, 0o644); err != nil {
		return fmt.Errorf("writing QR code: %w", err)
	}
	fmt.Fprintf(stderr, "wrote %s (%d bytes)\n", *out, len(image))
	return nil
}
