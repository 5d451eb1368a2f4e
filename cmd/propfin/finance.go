package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"

	"github.com/propfin/propfin/finance"
)

const financeUsage = `usage: propfin finance <subcommand> [arguments]

subcommands:
  schedule CONTRACT.json --until YYYY-MM-DD [--rent-item ID]
      print, as a JSON array, the invoices the contract would generate with a
      due date up to --until. CONTRACT.json (- reads stdin) is a contract in
      the API's shape, with "items" (its contract items) and optionally
      "invoices" (those it already has, which are not generated again) and
      "billing" (its billing profile, as include[billing] gives it, whose
      billing_method the invoices are billed by). The invoices are written as
      the API's preview writes them: a late-fee or discount setting the
      contract leaves null (or does not give) is null.
      --rent-item is the transaction item of the rent line (default 1).
`

// runFinance is "propfin finance": the finance rules on files.
func runFinance(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, financeUsage)
		return errors.New("missing subcommand")
	}
	switch args[0] {
	case "schedule":
		return financeSchedule(args[1:], stdin, stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprint(stdout, financeUsage)
		return nil
	}
	fmt.Fprint(stderr, financeUsage)
	return fmt.Errorf("unknown subcommand %q", args[0])
}

// financeScheduleFile is the CLI's input: a contract with its items and
// existing invoices, who bears its punctuality discount and the settings
// it leaves unset.
type financeScheduleFile struct {
	Contract       finance.Contract
	Items          []finance.ContractItem
	Invoices       []finance.Invoice
	DiscountAction finance.DiscountAction
	// Unset are the late-fee and discount settings (of ticketSettings) the
	// contract leaves null or does not give: its invoices leave them null.
	Unset map[string]bool
}

// ticketSettings are the late-fee and discount settings a contract may
// leave null, and its invoices with it: the rule reads a null as zero,
// and the invoices show it as null, as the API writes them (docs/api.md,
// "invoicesCreate").
var ticketSettings = []string{"ticket_late_fee_percentage", "ticket_late_fee_interest", "ticket_discount_fixed",
	"ticket_discount_percentage", "ticket_discount_days"}

func financeSchedule(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("finance schedule", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, financeUsage) }
	until := fs.String("until", "", "last due date to schedule, YYYY-MM-DD")
	rentItem := fs.Int64("rent-item", 1, "transaction item id of the rent line")
	files, err := financeParseArgs(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return errReported // the flag package printed the problem
	}
	if len(files) != 1 {
		fmt.Fprint(stderr, financeUsage)
		return fmt.Errorf("want one contract file, got %d", len(files))
	}
	data, err := financeReadInput(files[0], stdin)
	if err != nil {
		return err
	}
	in, problems := decodeScheduleFile(data)
	untilDate, err := finance.ParseDate(*until)
	switch {
	case *until == "":
		problems = append(problems, finance.Problem{Field: "--until", Message: "required"})
	case err != nil:
		problems = append(problems, finance.Problem{Field: "--until", Message: err.Error()})
	}
	check := untilDate
	if check.IsZero() { // still validate the contract when --until is bad
		check = in.Contract.StartAt.AddDays(1)
	}
	s, err := finance.ScheduleInvoices(finance.ScheduleInput{
		Contract: in.Contract, Items: in.Items, Invoices: in.Invoices, RentItemID: *rentItem, Until: check,
	})
	var ps finance.Problems
	switch {
	case errors.As(err, &ps):
		problems = mergeProblems(problems, ps)
	case err != nil:
		return err
	}
	if len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintf(stderr, "%s: %s\n", p.Field, p.Message)
		}
		return errReported
	}
	if s.Skip != "" {
		fmt.Fprintf(stderr, "contract not billed: %s\n", s.Skip)
	}
	for i := range s.Invoices {
		s.Invoices[i].TicketDiscountAction = in.DiscountAction
	}
	return financeWriteJSON(stdout, s.Invoices, in.Unset)
}

// mergeProblems adds the rule's problems to the decoding ones, except for
// fields that could not be decoded at all (they would read "required").
func mergeProblems(decoded, rule finance.Problems) finance.Problems {
	seen := make(map[string]bool, len(decoded))
	for _, p := range decoded {
		seen[p.Field] = true
	}
	for _, p := range rule {
		if !seen[p.Field] {
			decoded = append(decoded, p)
		}
	}
	return decoded
}

// financeParseArgs parses flags before or after the file argument.
func financeParseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return positional, nil
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

func financeReadInput(name string, stdin io.Reader) ([]byte, error) {
	if name == "-" {
		data, err := io.ReadAll(stdin)
		if err != nil {
			return nil, fmt.Errorf("read stdin: %w", err)
		}
		return data, nil
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("read contract: %w", err)
	}
	return data, nil
}

// decodeScheduleFile reads the contract, its items and invoices field by
// field, so that every malformed field is reported, not only the first.
func decodeScheduleFile(data []byte) (financeScheduleFile, finance.Problems) {
	var (
		out      financeScheduleFile
		problems finance.Problems
		fields   map[string]json.RawMessage
	)
	if err := json.Unmarshal(data, &fields); err != nil {
		return out, finance.Problems{{Field: "contract", Message: "not a JSON object: " + err.Error()}}
	}
	out.Unset = map[string]bool{}
	for _, key := range ticketSettings {
		if raw, given := fields[key]; !given || string(bytes.TrimSpace(raw)) == "null" {
			out.Unset[key] = true
		}
	}
	for _, key := range sortedKeys(fields) {
		raw := fields[key]
		switch key {
		case "items":
			var list []json.RawMessage
			if err := json.Unmarshal(raw, &list); err != nil {
				problems = append(problems, finance.Problem{Field: "items", Message: "want an array"})
				continue
			}
			out.Items = make([]finance.ContractItem, len(list))
			for i, el := range list {
				problems = append(problems, decodeFields("items["+strconv.Itoa(i)+"].", el, &out.Items[i])...)
			}
		case "invoices":
			var list []json.RawMessage
			if err := json.Unmarshal(raw, &list); err != nil {
				problems = append(problems, finance.Problem{Field: "invoices", Message: "want an array"})
				continue
			}
			out.Invoices = make([]finance.Invoice, len(list))
			for i, el := range list {
				problems = append(problems, decodeFields("invoices["+strconv.Itoa(i)+"].", el, &out.Invoices[i])...)
			}
		case "billing":
			var profile struct {
				BillingMethod *string `json:"billing_method"`
			}
			if err := json.Unmarshal(raw, &profile); err != nil {
				problems = append(problems, finance.Problem{Field: "billing", Message: "want the billing profile, an object"})
				continue
			}
			if profile.BillingMethod != nil {
				out.Contract.ProfileMethod = *profile.BillingMethod
			}
		case "ticket_discount_action":
			var action *finance.DiscountAction
			switch err := json.Unmarshal(raw, &action); {
			case err != nil:
				problems = append(problems, finance.Problem{Field: key, Message: "want a string: business or owner"})
			case action != nil && *action != "" && !action.Valid():
				problems = append(problems, finance.Problem{Field: key, Message: fmt.Sprintf("must be business or owner; got %q", *action)})
			case action != nil:
				out.DiscountAction = *action
			}
		default:
			if err := decodeField(key, raw, &out.Contract); err != nil {
				problems = append(problems, finance.Problem{Field: key, Message: err.Error()})
			}
		}
	}
	return out, problems
}

// decodeFields decodes a JSON object into v one field at a time and
// reports each field that does not fit, prefixed.
func decodeFields(prefix string, data []byte, v any) finance.Problems {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return finance.Problems{{Field: prefix[:len(prefix)-1], Message: "want an object"}}
	}
	var problems finance.Problems
	for _, key := range sortedKeys(fields) {
		if err := decodeField(key, fields[key], v); err != nil {
			problems = append(problems, finance.Problem{Field: prefix + key, Message: err.Error()})
		}
	}
	return problems
}

// decodeField sets the one field named key of v from raw. Keys v does not
// have are ignored: the API's contracts and invoices carry many more
// fields than the rules read.
func decodeField(key string, raw json.RawMessage, v any) error {
	name, _ := json.Marshal(key)
	obj := bytes.Join([][]byte{[]byte("{"), name, []byte(":"), raw, []byte("}")}, nil)
	if err := json.Unmarshal(obj, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return fmt.Errorf("want %s, got %s", te.Type, te.Value)
		}
		return err
	}
	return nil
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// financeWriteJSON writes the invoices as a JSON array, each as the API
// writes an invoice: the settings unset null.
func financeWriteJSON(w io.Writer, invoices []finance.Invoice, unset map[string]bool) error {
	out := make([]json.RawMessage, len(invoices))
	for i, inv := range invoices {
		b, err := json.Marshal(inv)
		if err == nil {
			out[i], err = withNulls(b, unset)
		}
		if err != nil {
			return fmt.Errorf("encode invoices: %w", err)
		}
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return fmt.Errorf("encode invoices: %w", err)
	}
	if _, err := w.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("write invoices: %w", err)
	}
	return nil
}

// withNulls is the JSON object obj with the values of the keys of null
// written null, its keys in their order.
func withNulls(obj []byte, null map[string]bool) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("not a JSON object: %s", obj)
	}
	out := []byte{'{'}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		key, _ := json.Marshal(t)
		out = append(append(out, key...), ':')
		if k, _ := t.(string); null[k] {
			v = json.RawMessage("null")
		}
		out = append(out, v...)
	}
	return append(out, '}'), nil
}
