package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCnabRemessaGolden(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"341_400", "104_240"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), []string{"cnab", "remessa", "../../cnab/testdata/" + name + ".json"}, nil, &stdout, &stderr)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			want, err := os.ReadFile("../../cnab/testdata/" + name + ".rem")
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(stdout.Bytes(), want) {
				t.Errorf("output differs from the golden file")
			}
			if !strings.Contains(stderr.String(), "warning: remittance: beneficiary.name: truncated") {
				t.Errorf("stderr %q: want the truncation warning", stderr.String())
			}
		})
	}
}

// TestCnabOutputFile checks -o before and after the input of both
// remittance writers, as README's synopsis gives them (`propfin cnab
// remessa INPUT.json [-o F]`, `propfin cnab pagamento INPUT.json [-o F]`).
func TestCnabOutputFile(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ command, input, golden string }{
		{"remessa", "../../cnab/testdata/237_400.json", "../../cnab/testdata/237_400.rem"},
		{"pagamento", pagamentoTestdata("237_pix.json"), pagamentoTestdata("237_pix.rem")},
	} {
		input, err := os.ReadFile(c.input)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := os.ReadFile(c.golden)
		for name, args := range map[string]func(out string) []string{
			"-o first": func(out string) []string { return []string{"-o", out, "-"} },
			"-o after": func(out string) []string { return []string{"-", "-o", out} },
		} {
			t.Run(c.command+" "+name, func(t *testing.T) {
				t.Parallel()
				out := filepath.Join(t.TempDir(), "out.rem")
				var stdout, stderr bytes.Buffer
				code := run(context.Background(), append([]string{"cnab", c.command}, args(out)...), bytes.NewReader(input), &stdout, &stderr)
				if code != 0 {
					t.Fatalf("exit %d: %s", code, stderr.String())
				}
				got, err := os.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) || stdout.Len() != 0 {
					t.Errorf("file differs from the golden file, or stdout not empty (%d bytes)", stdout.Len())
				}
			})
		}
	}
}

// TestCnabRemessaCaixaSevenDigits checks that a 7-digit Caixa code is one
// line on standard error, naming the layout it needs.
func TestCnabRemessaCaixaSevenDigits(t *testing.T) {
	t.Parallel()
	input, err := os.ReadFile("../../cnab/testdata/104_240.json")
	if err != nil {
		t.Fatal(err)
	}
	in := strings.Replace(string(input), `"covenant": "123456"`, `"covenant": "1234567"`, 1)
	if in == string(input) {
		t.Fatal("the sample's covenant was not found")
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"cnab", "remessa", "-"}, strings.NewReader(in), &stdout, &stderr); code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	if n := strings.Count(stderr.String(), "beneficiary.covenant"); n != 1 || !strings.Contains(stderr.String(), "layout 107 (batch 067)") {
		t.Errorf("stderr %q: want one line on beneficiary.covenant naming layout 107", stderr.String())
	}
	if n := strings.Count(stderr.String(), "beneficiary.name"); n > 1 {
		t.Errorf("stderr %q: the name's warning %d times", stderr.String(), n)
	}
}

func TestCnabRemessaProblems(t *testing.T) {
	t.Parallel()
	input, err := os.ReadFile("../../cnab/testdata/237_400.json")
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(input), `"zip": "01001000"`, `"zip": "0100"`, 1)
	bad = strings.Replace(bad, `"name": "João da Silva Araújo"`, `"name": ""`, 1)
	dir := t.TempDir()
	out := filepath.Join(dir, "out.rem")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"cnab", "remessa", "-o", out, "-"}, strings.NewReader(bad), &stdout, &stderr)
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	for _, want := range []string{"error: title 0: payer.name: required", "error: title 1: payer.zip: want the 8-digit CEP"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr %q: want %q", stderr.String(), want)
		}
	}
	if stdout.Len() != 0 {
		t.Errorf("wrote %d bytes to stdout", stdout.Len())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left %d files behind for bad input", len(entries))
	}
}

func TestCnabRemessaBadJSON(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"unknown field": `{"bank":"237","layout":400,"colour":"blue"}`,
		"not JSON":      `bank=237`,
		"title type":    `{"bank":"237","layout":400,"sequence":1,"created":"2025-03-03T09:00:00Z","beneficiary":{"name":"A","document":"11222333000181","agency":"1","account":"1","account_digit":"1","wallet":"09","covenant":"1"},"titles":[{"our_number":"one"}]}`,
	}
	for name, in := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			if code := run(context.Background(), []string{"cnab", "remessa", "-"}, strings.NewReader(in), &stdout, &stderr); code != 1 {
				t.Fatalf("exit %d, want 1", code)
			}
			if stdout.Len() != 0 || stderr.Len() == 0 {
				t.Errorf("stdout %d bytes, stderr %q", stdout.Len(), stderr.String())
			}
		})
	}
}

func TestCnabRemessaUsage(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"cnab", "remessa"}, nil, &stdout, &stderr); code != 1 {
		t.Errorf("no input: exit %d, want 1", code)
	}
	if !strings.Contains(stderr.String(), "usage: propfin cnab remessa") {
		t.Errorf("stderr %q: want the usage", stderr.String())
	}
	if code := run(context.Background(), []string{"cnab", "remessa", "missing.json"}, nil, &stdout, &stderr); code != 1 {
		t.Errorf("missing file: exit %d, want 1", code)
	}
	stderr.Reset()
	if code := run(context.Background(), []string{"cnab", "remessa", "a.json", "b.json"}, nil, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "usage: propfin cnab remessa") {
		t.Errorf("two inputs: exit %d, stderr %q; want 1 and the usage", code, stderr.String())
	}
}

// TestCnabRemessaIndexes checks that a title that does not decode keeps
// the later titles' indexes in step with the input.
func TestCnabRemessaIndexes(t *testing.T) {
	t.Parallel()
	input, err := os.ReadFile("../../cnab/testdata/237_400.json")
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(input), `"our_number": 1,`, `"our_number": "one",`, 1)
	bad = strings.Replace(bad, `"zip": "01001000"`, `"zip": "0100"`, 1)
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"cnab", "remessa", "-"}, strings.NewReader(bad), &stdout, &stderr); code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	for _, want := range []string{"error: title 0: our_number: want a whole number", "error: title 1: payer.zip"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr %q: want %q", stderr.String(), want)
		}
	}
}
