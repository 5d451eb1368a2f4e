package retorno

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/propfin/propfin/cnab"
)

// readAll reads every event of data, failing the test on any error.
func readAll(t *testing.T, data []byte, opt Options) (Header, []Event) {
	t.Helper()
	rd, err := NewReader(bytes.NewReader(data), opt)
	if err != nil {
		t.Fatal(err)
	}
	var evs []Event
	for ev, err := range rd.All() {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		evs = append(evs, ev)
	}
	return rd.Header(), evs
}

// expected is the event the reader must return for a sample, apart from
// its line and descriptions.
func expected(f *sampleFile, s sample) Event {
	ev := Event{
		Bank: f.bank, Layout: f.width, Kind: f.kind,
		Code: s.code, Occurrence: s.class,
		OurNumber: s.nn, OurNumberDigit: s.dv, DocumentNumber: s.doc, Control: s.control, Wallet: s.wallet,
		Amount: Cents(s.amount), Paid: Cents(s.paid), Credited: Cents(s.credited), Tariff: Cents(s.tariff),
		Interest: Cents(s.interest), Fine: Cents(s.fine), Discount: Cents(s.discount), Abatement: Cents(s.abatement), IOF: Cents(s.iof),
		OtherExpenses: Cents(s.otherExp), OtherCredits: Cents(s.otherCred),
		Due: s.due, Date: s.date, CreditDate: s.credit, Payer: s.payer, Barcode: s.barcode,
		Channel: Channel{Code: s.channel},
	}
	for _, r := range s.reasons {
		ev.Reasons = append(ev.Reasons, Reason{Code: r})
	}
	return ev
}

func TestSampleEvents(t *testing.T) {
	t.Parallel()
	for _, f := range sampleFiles() {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(f.path())
			if err != nil {
				t.Fatal(err)
			}
			h, evs := readAll(t, data, Options{})
			if h.Bank != f.bank || h.Layout != f.width {
				t.Errorf("header: bank %s layout %d, want %s %d", h.Bank, h.Layout, f.bank, f.width)
			}
			if h.Company != "PROPFIN IMOVEIS LTDA" || h.Created != created {
				t.Errorf("header: company %q created %v", h.Company, h.Created)
			}
			if len(evs) != len(f.items) {
				t.Fatalf("%d events, want %d", len(evs), len(f.items))
			}
			for i, s := range f.items {
				got := evs[i]
				if got.Line < 2 {
					t.Errorf("event %d: line %d", i, got.Line)
				}
				if (got.Description == "") != (s.class == Unknown) {
					t.Errorf("event %d (%s): description %q for class %s", i, got.Code, got.Description, s.class)
				}
				for _, r := range got.Reasons {
					if r.Description == "" && s.class != Unknown && !f.undescribed {
						t.Errorf("event %d (%s): reason %s has no description", i, got.Code, r.Code)
					}
				}
				if got.Channel.Code != "" && got.Channel.Description == "" && !f.undescribed {
					t.Errorf("event %d (%s): channel %s has no description", i, got.Code, got.Channel.Code)
				}
				got.Line, got.Description, got.Channel.Description = 0, "", ""
				clearAccountFields(&got) // checked on the public files (real_test.go)
				for j := range got.Reasons {
					got.Reasons[j].Description = ""
				}
				if want := expected(f, s); !reflect.DeepEqual(got, want) {
					t.Errorf("event %d:\n got %+v\nwant %+v", i, got, want)
				}
			}
		})
	}
}

// clearAccountFields zeroes the fields the sample generators do not
// write: the accounts, the collecting bank, the payer's document and the
// title's kind, which TestRealFiles checks on files the banks wrote.
func clearAccountFields(ev *Event) {
	ev.Beneficiary = Account{}
	ev.CollectingBank, ev.CollectingAgency, ev.CollectingAgencyDigit = "", "", ""
	ev.PayerDocument, ev.PayerDocumentType = "", ""
	ev.WalletCode, ev.Species, ev.Modality, ev.Instalment, ev.Currency = "", "", "", "", ""
}

// TestSampleLines checks the line numbers events and errors carry.
func TestSampleLines(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/237_400.ret")
	if err != nil {
		t.Fatal(err)
	}
	_, evs := readAll(t, data, Options{})
	for i, ev := range evs {
		if ev.Line != i+2 {
			t.Errorf("event %d on line %d, want %d", i, ev.Line, i+2)
		}
	}
	data, err = os.ReadFile("testdata/001_240.ret")
	if err != nil {
		t.Fatal(err)
	}
	_, evs = readAll(t, data, Options{})
	for i, ev := range evs {
		if ev.Line != 3+2*i {
			t.Errorf("title %d starts on line %d, want %d (its segment T)", i, ev.Line, 3+2*i)
		}
	}
}

// TestReasonMeanings checks the meaning of rejection reasons, read from
// the table of the occurrence they came with.
func TestReasonMeanings(t *testing.T) {
	t.Parallel()
	cases := []struct {
		file, code string
		want       []Reason
	}{
		{"001_240.ret", "03", []Reason{{"08", "Nosso Número Inválido"}, {"48", "CEP Inválido"}}},
		{"001_240.ret", "06", []Reason{{"04", "Compensação Eletrônica"}}},
		{"001_240.ret", "09", []Reason{{"10", "Comandada Cliente Arquivo"}}},
		{"341_400.ret", "03", []Reason{{"08", "NOME DO PAGADOR: NÃO INFORMADO OU DESLOCADO"}, {"14", "NOSSO NÚMERO: NOSSO NÚMERO JÁ REGISTRADO NO CADASTRO DO BANCO OU FORA DA FAIXA"}}},
		{"237_400.ret", "03", []Reason{{"08", "Nosso número inválido"}, {"48", "CEP Inválido"}}},
		{"237_400.ret", "09", []Reason{{"10", "Baixa Comandada pelo cliente"}}},
		{"001_400.ret", "03", []Reason{{"09", "data de vencimento inválida"}}},
		{"237_240_pagamento.ret", "AG", []Reason{{"AG", "Agência/Conta Corrente/DV Inválido"}, {"AN", "Conta Corrente/DV/Conta de Pagamento do Favorecido Inválido"}}},
		{"341_240_pagamento.ret", "AM", []Reason{{"AM", "AGÊNCIA DO FAVORECIDO INVÁLIDA"}, {"AN", "CONTA CORRENTE DO FAVORECIDO INVÁLIDA"}}},
	}
	for _, c := range cases {
		data, err := os.ReadFile("testdata/" + c.file)
		if err != nil {
			t.Fatal(err)
		}
		_, evs := readAll(t, data, Options{})
		found := false
		for _, ev := range evs {
			if ev.Code == c.code {
				found = true
				if !reflect.DeepEqual(ev.Reasons, c.want) {
					t.Errorf("%s code %s: reasons %+v, want %+v", c.file, c.code, ev.Reasons, c.want)
				}
			}
		}
		if !found {
			t.Errorf("%s: no event with code %s", c.file, c.code)
		}
	}
}

func TestRefused(t *testing.T) {
	t.Parallel()
	sample := func(name string) string {
		data, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	itau := sample("341_400.ret")
	cases := []struct {
		name  string
		input string
		opt   Options
		want  string
	}{
		{"empty", "", Options{}, "empty"},
		{"short line", "0123\n", Options{}, "has 4 characters"},
		{"remittance 400", strings.Replace(itau, "02RETORNO", "01REMESSA", 1), Options{}, "remittance"},
		{"remittance 240", sample("001_240.ret")[:142] + "1" + sample("001_240.ret")[143:], Options{}, "remittance"},
		{"other bank", strings.Replace(itau, "341BANCO ITAU SA", "999BANCO XPTO SA", 1), Options{}, `bank "999" (BANCO XPTO SA), CNAB 400: not a return layout read here`},
		{"asked for another bank", itau, Options{Bank: "237"}, "bank 341"},
		{"asked for another layout", itau, Options{Layout: cnab.CNAB240}, "not CNAB 240"},
		{"not a header", strings.Repeat("1", 400) + "\n", Options{}, "not a CNAB 400 header"},
		{"no line breaks", strings.Repeat("0", 5000), Options{}, "longer than"},
	}
	for _, c := range cases {
		_, err := NewReader(strings.NewReader(c.input), c.opt)
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want ErrRefused saying %q", c.name, err, c.want)
		}
	}
}

// TestLineErrors checks that what cannot be read is reported with its
// line, and that reading goes on after it.
func TestLineErrors(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/341_400.ret")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\r\n")
	lines[2] = lines[2][:152] + "00000000001X0" + lines[2][165:] // amount of line 3
	lines[4] = lines[4][:200]                                    // line 5 cut short
	lines[5] = lines[5][:146] + "310299" + lines[5][152:]        // due date 31/02 on line 6
	in := strings.Join(lines[:len(lines)-2], "\r\n")             // no trailer
	rd, err := NewReader(strings.NewReader(in), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	events := 0
	for ev, err := range rd.All() {
		if err != nil {
			got = append(got, err.Error())
			continue
		}
		events++
		_ = ev
	}
	want := []string{
		`line 3: detail: Valor do título "00000000001X0": must be an amount in digits`,
		"line 5: has 200 characters, CNAB 400 records have 400",
		`line 6: detail: Vencimento "310299": must be a date DDMMAA or zeros`,
		"line 7: the file ends without its trailer (truncated?)",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if events != 2 {
		t.Errorf("%d events, want 2 (lines 2 and 4)", events)
	}
}

// TestLineEndings reads the same file with CR LF, LF, and without a
// final line break.
func TestLineEndings(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/237_400.ret")
	if err != nil {
		t.Fatal(err)
	}
	lf := strings.TrimSuffix(string(data), "\n")
	_, want := readAll(t, data, Options{})
	for name, in := range map[string]string{
		"LF":                      lf + "\n",
		"CR LF":                   strings.ReplaceAll(lf, "\n", "\r\n") + "\r\n",
		"no final newline":        lf,
		"trailing blank":          lf + "\n\n",
		"end-of-file mark":        lf + "\r\n\x1a", // Banrisul ends its files with 0x1A
		"CR":                      strings.ReplaceAll(lf, "\n", "\r") + "\r",
		"end-of-file byte at end": lf + "\x1a",
	} {
		_, got := readAll(t, []byte(in), Options{})
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: events differ", name)
		}
	}
}

// TestUTF8Names reads a file written in UTF-8, whose accented letters
// take two bytes, as if it were in one byte per character.
func TestUTF8Names(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/341_400.ret")
	if err != nil {
		t.Fatal(err)
	}
	in := strings.Replace(string(data), "MARIA DA SILVA", "MARIA DA SILVÃ", 1)
	_, evs := readAll(t, []byte(in), Options{})
	if evs[0].Payer != "MARIA DA SILVÃ" {
		t.Errorf("payer %q", evs[0].Payer)
	}
	latin1 := strings.Replace(string(data), "MARIA DA SILVA", "MARIA DA SILV\xc3", 1)
	_, evs = readAll(t, []byte(latin1), Options{})
	if evs[0].Payer != "MARIA DA SILVÃ" {
		t.Errorf("Latin-1 payer %q", evs[0].Payer)
	}
}

// TestTruncated240 reads a CNAB 240 file cut after a title's segments:
// the title is returned, then the missing trailer is reported.
func TestTruncated240(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/748_240.ret")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\r\n")
	rd, err := NewReader(strings.NewReader(strings.Join(lines[:6], "\r\n")), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for ev, err := range rd.All() {
		if err != nil {
			got = append(got, err.Error())
		} else {
			got = append(got, ev.Code)
		}
	}
	want := []string{"02", "06", "line 7: the file ends without its trailer (truncated?)"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestTrailerCount(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/001_240.ret")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\r\n"), "\r\n")
	n := len(lines)
	lines = append(lines[:4], lines[6:]...) // drop the second title
	rd, err := NewReader(strings.NewReader(strings.Join(lines, "\n")), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var last error
	for _, err := range rd.All() {
		if err != nil {
			last = err
		}
	}
	want := "counts " + strconv.Itoa(n) + " records, the file has " + strconv.Itoa(n-2)
	if last == nil || !strings.Contains(last.Error(), want) {
		t.Errorf("error %v, want one saying %q", last, want)
	}
}

func TestCents(t *testing.T) {
	t.Parallel()
	for c, want := range map[Cents]string{0: "0.00", 5: "0.05", 153512: "1535.12", -250: "-2.50"} {
		if got := c.String(); got != want {
			t.Errorf("%d: %q, want %q", c, got, want)
		}
		if got := c.Decimal().StringFixed(2); got != want {
			t.Errorf("%d: decimal %q, want %q", c, got, want)
		}
		// JSON: a number with two decimal places, never a string
		if got, err := json.Marshal(c); err != nil || string(got) != want {
			t.Errorf("%d: JSON %s, %v; want %s", c, got, err, want)
		}
	}
}

// TestPIXRejections reads a PIX rejected with FEBRABAN's PIX codes (G059
// PA to PN) at each bank that uses FEBRABAN's table.
func TestPIXRejections(t *testing.T) {
	t.Parallel()
	for _, bank := range []string{"001", "033", "237", "756"} {
		f := &sampleFile{bank: bank, width: cnab.CNAB240, kind: KindPayment, crlf: true, final: true,
			items: []sample{{code: "PJ", reasons: []string{"PJ", "PM"}, class: Rejected, payer: "JOSE ANTONIO",
				doc: "PIX-0001", amount: 32000, due: day(2026, 11, 23)}},
			build: payment240{bank: bank, aOurNumber: [2]int{135, 154}, jOurNumber: [2]int{203, 222}}.build,
		}
		_, evs := readAll(t, f.content(), Options{})
		if len(evs) != 1 {
			t.Fatalf("%s: %d events, want 1", bank, len(evs))
		}
		ev := evs[0]
		want := []Reason{{"PJ", "Chave não cadastrada no DICT"}, {"PM", "Chave de pagamento inválida"}}
		if ev.Occurrence != Rejected || ev.DocumentNumber != "PIX-0001" || !reflect.DeepEqual(ev.Reasons, want) {
			t.Errorf("%s: event %s %q %+v, want rejected PIX-0001 with %+v", bank, ev.Occurrence, ev.DocumentNumber, ev.Reasons, want)
		}
	}
}
