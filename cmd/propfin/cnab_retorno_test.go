package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

const retornoTestdata = "../../cnab/retorno/testdata/"

// runRetorno runs propfin cnab retorno and returns its exit code, the
// JSON objects printed and standard error.
func runRetorno(t *testing.T, stdin string, args ...string) (int, []map[string]any, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), append([]string{"cnab", "retorno"}, args...), strings.NewReader(stdin), &stdout, &stderr)
	var events []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		if line == "" {
			continue
		}
		var ev map[string]any
		dec := json.NewDecoder(strings.NewReader(line))
		dec.UseNumber() // amounts as written
		if err := dec.Decode(&ev); err != nil {
			t.Fatalf("not a JSON line: %q: %v", line, err)
		}
		events = append(events, ev)
	}
	return code, events, stderr.String()
}

func TestCnabRetornoPrintsEvents(t *testing.T) {
	t.Parallel()
	code, events, stderr := runRetorno(t, "", retornoTestdata+"237_400.ret")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	want := []struct{ code, occurrence string }{
		{"02", "entry_confirmed"}, {"06", "paid"}, {"09", "written_off"}, {"03", "rejected"}, {"99", "unknown"},
	}
	if len(events) != len(want) {
		t.Fatalf("%d events, want %d", len(events), len(want))
	}
	for i, w := range want {
		if events[i]["code"] != w.code || events[i]["occurrence"] != w.occurrence || events[i]["bank"] != "237" {
			t.Errorf("event %d: %v", i, events[i])
		}
	}
	paid := events[1]
	// amounts are money as the API writes it: numbers with two decimal places
	if paid["paid"] != json.Number("1535.12") || paid["interest"] != json.Number("35.12") || paid["fine"] != json.Number("0.00") ||
		paid["credit_date"] != "2026-11-20" || paid["our_number_digit"] != "P" {
		t.Errorf("paid title: %v", paid)
	}
	reasons, _ := events[3]["reasons"].([]any)
	if len(reasons) != 2 || reasons[0].(map[string]any)["description"] != "Nosso número inválido" {
		t.Errorf("rejected title's reasons: %v", events[3]["reasons"])
	}
}

func TestCnabRetornoFlagsAndStdin(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(retornoTestdata + "001_240_pagamento.ret")
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"-", "--bank", "001", "--layout", "240"},
		{"--bank", "001", "-layout", "240", "-"},
	} {
		code, events, stderr := runRetorno(t, string(data), args...)
		if code != 0 || len(events) != 5 || events[0]["kind"] != "payment" {
			t.Errorf("%v: exit %d, %d events, stderr %q", args, code, len(events), stderr)
		}
	}
}

func TestCnabRetornoRefuses(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{retornoTestdata + "341_400.ret", "--bank", "237"}, "the header is of bank 341 (Itaú Unibanco), not 237"},
		{[]string{retornoTestdata + "341_400.ret", "--layout", "240"}, "the file is CNAB 400, not CNAB 240"},
		{[]string{retornoTestdata + "341_400.ret", "--layout", "300"}, "--layout 300: want 240 or 400"},
		{[]string{retornoTestdata + "no-such-file.ret"}, "no such file"},
		{[]string{}, "usage: propfin cnab retorno"},
		{[]string{"a.ret", "b.ret"}, "usage: propfin cnab retorno"},
	}
	for _, c := range cases {
		code, events, stderr := runRetorno(t, "", c.args...)
		if code != 1 || len(events) != 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %d events, stderr %q; want exit 1 and %q", c.args, code, len(events), stderr, c.want)
		}
	}
}

// TestCnabRetornoBadLine prints the events of the lines it can read and
// names the one it cannot.
func TestCnabRetornoBadLine(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(retornoTestdata + "341_400.ret")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\r\n")
	lines[2] = lines[2][:146] + "999999" + lines[2][152:]
	code, events, stderr := runRetorno(t, strings.Join(lines, "\n"), "-")
	if code != 1 || len(events) != 4 {
		t.Errorf("exit %d, %d events; want 1 and 4", code, len(events))
	}
	if want := `propfin cnab retorno: line 3: detail: Vencimento "999999": must be a date DDMMAA or zeros`; !strings.Contains(stderr, want) {
		t.Errorf("stderr %q, want %q", stderr, want)
	}
}

// TestCnabRetornoAmountsChannelPIX prints the amounts, the channel and the
// PIX charge under the same names for every layout, and the warning of a
// file whose trailing blanks were stripped.
func TestCnabRetornoAmountsChannelPIX(t *testing.T) {
	t.Parallel()
	code, events, stderr := runRetorno(t, "", retornoTestdata+"real/341_400_brcobranca.ret")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	ev := events[0]
	channel, _ := ev["channel"].(map[string]any)
	if ev["paid"] != json.Number("40.00") || ev["credited"] != json.Number("37.90") || ev["tariff"] != json.Number("2.10") || channel["code"] != "B5" {
		t.Errorf("Itaú title: %v", ev)
	}
	code, events, stderr = runRetorno(t, "", retornoTestdata+"real/033_400_pix_laravel-boleto.ret")
	if code != 0 || stderr != "" || len(events) != 1 {
		t.Fatalf("exit %d, stderr %q, %d events", code, stderr, len(events))
	}
	if px, _ := events[0]["pix"].(map[string]any); px["txid"] != "id-da-transcao-pix" || px["key_type"] != "evp" {
		t.Errorf("Santander title's pix: %v", events[0]["pix"])
	}
	code, events, stderr = runRetorno(t, "", retornoTestdata+"real/001_240_brcobranca.ret")
	if code != 0 || len(events) == 0 || !strings.Contains(stderr, "warning: ") || !strings.Contains(stderr, "trailing blanks") {
		t.Errorf("stripped file: exit %d, %d events, stderr %q", code, len(events), stderr)
	}
}

// TestCnabRetornoPayerDocument: the payer's CPF, written zero-filled in
// the 15 digits of segment T, is printed in its 11 digits, with its type.
func TestCnabRetornoPayerDocument(t *testing.T) {
	t.Parallel()
	code, events, stderr := runRetorno(t, "", retornoTestdata+"real/748_240_brcobranca.ret")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	for _, ev := range events {
		if ev["line"] == json.Number("3") {
			if ev["payer_document"] != "44952927838" || ev["payer_document_type"] != "cpf" {
				t.Errorf("line 3: payer_document %v (%v), want the CPF 44952927838", ev["payer_document"], ev["payer_document_type"])
			}
			return
		}
	}
	t.Fatalf("no event of line 3 among %d", len(events))
}
