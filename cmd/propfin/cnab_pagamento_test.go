package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func pagamentoTestdata(name string) string {
	return filepath.Join("..", "..", "cnab", "pagamento", "testdata", name)
}

func TestCnabPagamentoGolden(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"001", "001_pix", "033", "033_pix", "237", "237_pix", "341", "341_pix", "756", "756_pix"} {
		want, err := os.ReadFile(pagamentoTestdata(name + ".rem"))
		if err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{"cnab", "pagamento", pagamentoTestdata(name + ".json")}, nil, &stdout, &stderr)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, stderr.String())
		}
		if !bytes.Equal(stdout.Bytes(), want) {
			t.Errorf("%s: output differs from the golden file", name)
		}
		if wantWarn := name == "001_pix"; strings.Contains(stderr.String(), "warning: payment 0: kind: bank 001") != wantWarn {
			t.Errorf("%s: stderr %q, want the Banco do Brasil PIX notice: %v", name, stderr.String(), wantWarn)
		}
	}
}

func TestCnabPagamentoProblems(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, input string
		want        []string
	}{
		{"invalid payment", `{"bank":"341","sequence":1,"created":"2026-11-20T10:00:00Z",
			"payer":{"name":"P","document":"11222333000181","agency":"1","account":"2","account_digit":"3"},
			"payments":[
			 {"kind":"transfer","reference":"OK","amount_cents":1,"date":"2026-11-23","beneficiary":{"name":"B","document":"52998224725"},
			  "account":{"bank":"001","agency":"1","account":"2","account_digit":"3"}},
			 {"kind":"transfer","reference":"","amount":"1.001","date":"2026-11-23","beneficiary":{"name":"B","document":"52998224725"},
			  "account":{"bank":"001","agency":"1","account":"2","account_digit":"3"}}]}`,
			[]string{"error: payment 1: reference:", "error: payment 1: amount:"}},
		{"unknown field", `{"bank":"341","payments":[{"kind":"boleto","colour":1}]}`,
			[]string{"error: remittance: sequence:"}},
		{"unknown payment field", `{"bank":"341","sequence":1,"created":"2026-11-20T10:00:00Z",
			"payer":{"name":"P","document":"11222333000181","agency":"1","account":"2","account_digit":"3"},
			"payments":[{"kind":"boleto","colour":1}]}`,
			[]string{"error: payment 0: colour: unknown field"}},
		{"bad JSON", `{"bank":`, []string{"error: remittance:"}},
		{"CPF/CNPJ key of another holder", `{"bank":"001","sequence":1,"created":"2026-11-20T10:00:00Z","pix":true,
			"payer":{"name":"P","document":"11222333000181","agency":"1","account":"2","account_digit":"3","covenant":"1"},
			"payments":[{"kind":"pix_key","reference":"K","amount":"10.00","date":"2026-11-23",
			  "beneficiary":{"name":"B","document":"60746948000112"},"pix_key":"529.982.247-25","pix_key_type":"document"}]}`,
			[]string{"error: payment 0: pix_key: a CPF/CNPJ key belongs to its holder"}},
		{"Banco do Brasil overdue boleto", `{"bank":"001","sequence":1,"created":"2026-11-20T10:00:00Z",
			"payer":{"name":"P","document":"11222333000181","agency":"1","account":"2","account_digit":"3","covenant":"1"},
			"payments":[{"kind":"boleto","reference":"B","amount":"1500.00","date":"2026-12-11","due":"2026-12-10",
			  "beneficiary":{"name":"B","document":"60746948000112"},"barcode":"34199165600001500001091234567881234512345000"}]}`,
			[]string{"error: payment 0: date: bank 001 refuses overdue boletos"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), []string{"cnab", "pagamento", "-"}, strings.NewReader(c.input), &stdout, &stderr)
			if code != 1 {
				t.Fatalf("exit %d, want 1", code)
			}
			if stdout.Len() != 0 {
				t.Errorf("wrote %d bytes for invalid input", stdout.Len())
			}
			for _, w := range c.want {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr %q does not contain %q", stderr.String(), w)
				}
			}
		})
	}
}
