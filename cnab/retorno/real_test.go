package retorno

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// The files in testdata/real are return files published by open-source
// libraries (testdata/real/README.md gives each one's source, commit and
// licence). The values expected of them are read position by position
// from the bank's manual, not from the reader's output.

// realWant is what one event of a real file must say.
type realWant struct {
	line                                     int
	code                                     string
	amount, paid, credited, tariff, interest Cents
	channel                                  Channel
	pix                                      *PIX
}

// readReal reads a real file's events by line, and its line errors.
func readReal(t *testing.T, name string) (map[int]Event, []error) {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "real", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd, err := NewReader(f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	evs := map[int]Event{}
	var errs []error
	for ev, err := range rd.All() {
		var le *LineError
		if errors.As(err, &le) {
			errs = append(errs, err)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		evs[ev.Line] = ev
	}
	return evs, errs
}

func checkReal(t *testing.T, name string, wants []realWant) {
	t.Helper()
	evs, errs := readReal(t, name)
	for _, err := range errs {
		t.Errorf("%s: %v", name, err)
	}
	for _, w := range wants {
		ev, ok := evs[w.line]
		if !ok {
			t.Errorf("%s: no event on line %d", name, w.line)
			continue
		}
		got := realWant{line: ev.Line, code: ev.Code, amount: ev.Amount, paid: ev.Paid, credited: ev.Credited,
			tariff: ev.Tariff, interest: ev.Interest, channel: ev.Channel, pix: ev.PIX}
		if !reflect.DeepEqual(got, w) {
			t.Errorf("%s line %d:\n got %+v %+v\nwant %+v %+v", name, w.line, got, got.pix, w, w.pix)
		}
	}
}

// TestItauPaidAndCredited: Itaú's CNAB 400 "valor principal" (254-266) is
// what was credited, net of the tariff (176-188); what the payer paid is
// their sum. A 40.00 title paid with a 2.10 tariff is paid 40.00 and
// credited 37.90; one paid late with 1.02 of interest (267-279) is paid
// 49.77 and credited 47.67. The channel is 393-394 (note 28).
func TestItauPaidAndCredited(t *testing.T) {
	t.Parallel()
	checkReal(t, "341_400_brcobranca.ret", []realWant{
		{line: 2, code: "06", amount: 4000, paid: 4000, credited: 3790, tariff: 210,
			channel: Channel{"B5", "OUTROS BANCOS – CORRESPONDENTE"}},
		{line: 14, code: "06", amount: 2100, paid: 2100, credited: 1890, tariff: 210,
			channel: Channel{"CP", "AGÊNCIA ITAÚ – POR DÉBITO EM CONTA CORRENTE, CHEQUE ITAÚ OU DINHEIRO"}},
		{line: 42, code: "06", amount: 4875, paid: 4977, credited: 4767, tariff: 210, interest: 102,
			channel: Channel{"CP", "AGÊNCIA ITAÚ – POR DÉBITO EM CONTA CORRENTE, CHEQUE ITAÚ OU DINHEIRO"}},
		// A write-off (09, baixa simples) pays nothing: its 254-266 is
		// reported as credited, and nothing is derived from it.
		{line: 53, code: "09", amount: 4000, credited: 210, tariff: 210},
	})
}

// TestSantanderPIXRecord: Santander's CNAB 400 record type 2 carries the
// PIX key's type (2), the key (3-79) and the txid (80-114) of the title
// before it; the file is read whole.
func TestSantanderPIXRecord(t *testing.T) {
	t.Parallel()
	checkReal(t, "033_400_pix_laravel-boleto.ret", []realWant{
		{line: 2, code: "02", amount: 10000, paid: 10000,
			pix: &PIX{KeyType: "evp", Key: "39a1178e-db6b-4407-bc7b-b674390acf5f", TxID: "id-da-transcao-pix"}},
	})
}

// accountWant is what a real file's header and one of its titles say of
// the accounts, the collecting bank, the payer's document and the kind of
// title, read position by position from the bank's manual.
type accountWant struct {
	file   string
	header Account
	line   int
	ev     Event // only the fields below are compared
}

func accountFields(ev Event) Event {
	return Event{Beneficiary: ev.Beneficiary, CollectingBank: ev.CollectingBank, CollectingAgency: ev.CollectingAgency,
		CollectingAgencyDigit: ev.CollectingAgencyDigit, PayerDocument: ev.PayerDocument, PayerDocumentType: ev.PayerDocumentType,
		WalletCode: ev.WalletCode, Species: ev.Species, Modality: ev.Modality, Instalment: ev.Instalment, Currency: ev.Currency,
		Channel: ev.Channel}
}

func TestRealAccountFields(t *testing.T) {
	t.Parallel()
	cases := []accountWant{
		{"341_400_brcobranca.ret", Account{Agency: "0730", Account: "03511", AccountDigit: "0"}, 2, Event{
			Beneficiary: Account{Agency: "0730", Account: "03511", AccountDigit: "0"}, WalletCode: "I",
			CollectingBank: "104", CollectingAgency: "1873", CollectingAgencyDigit: "9",
			Channel: Channel{"B5", "OUTROS BANCOS – CORRESPONDENTE"}}},
		{"001_400_brcobranca.ret", Account{Agency: "3325", AgencyDigit: "1", Account: "00028935", AccountDigit: "3", Code: "1622420"}, 2, Event{
			Beneficiary: Account{Agency: "3325", AgencyDigit: "1", Account: "00028935", AccountDigit: "3", Code: "1622420"},
			Modality:    "019", CollectingBank: "001", CollectingAgency: "1492", CollectingAgencyDigit: "3", Species: "00",
			Channel: Channel{"04", "gerenciador financeiro"}}},
		{"033_400_brcobranca.ret", Account{Agency: "0730", Account: "00035110"}, 2, Event{
			Beneficiary: Account{Agency: "0730", Account: "00035110"}, CollectingBank: "033", CollectingAgency: "18739"}},
		{"237_400_brcobranca.ret", Account{Code: "00000000000004540691"}, 2, Event{
			Beneficiary: Account{Agency: "01467", Account: "0019669", AccountDigit: "P"}, Instalment: "00",
			CollectingBank: "237", CollectingAgency: "04157"}},
		{"041_400_brcobranca.ret", Account{Agency: "0000", Code: "000000000"}, 2, Event{
			Beneficiary: Account{Agency: "1102", Code: "900015096"}, CollectingBank: "041", CollectingAgency: "1102"}},
		{"748_240_brcobranca.ret", Account{Agency: "00390", AgencyDigit: "0", Account: "000000004146", AccountDigit: "8", Code: "04346"}, 3, Event{
			Beneficiary: Account{Agency: "00390", Account: "000000004146", AccountDigit: "8"}, CollectingBank: "000",
			Currency: "09", PayerDocumentType: "cpf", PayerDocument: "44952927838"}},
		{"104_240_laravel-boleto.ret", Account{Agency: "01234", AgencyDigit: "2", Code: "043210"}, 3, Event{
			Beneficiary: Account{Agency: "00000", AgencyDigit: "0", Code: "043210"}, CollectingBank: "000",
			CollectingAgency: "01086", CollectingAgencyDigit: "0", Currency: "09",
			Channel: Channel{"02", "Por Conta"}}},
		// Sicoob's planilha 04.Retorno – CNAB400: banco recebedor 166-168,
		// agência recebedora 169-172 and its digit 173, espécie 174-175,
		// the payer's CPF/CNPJ 343-356 (without its type); no account in
		// the header.
		{"756_400_opencnabphp.ret", Account{}, 2, Event{
			CollectingBank: "104", CollectingAgency: "0667", CollectingAgencyDigit: "0", Species: "01",
			PayerDocument: "82347077287"}},
		{"033_240_laravel-boleto.ret", Account{}, 3, Event{
			Beneficiary:    Account{Agency: "4567", AgencyDigit: "5", Account: "011111111", AccountDigit: "9", Code: "0111111119"},
			CollectingBank: "033", CollectingAgency: "0353", CollectingAgencyDigit: "0", Currency: "00",
			PayerDocumentType: "cnpj", Channel: Channel{"03", "Liquidação no Guichê de Caixa em Dinheiro"}}},
	}
	for _, c := range cases {
		f, err := os.Open(filepath.Join("testdata", "real", c.file))
		if err != nil {
			t.Fatal(err)
		}
		rd, err := NewReader(f, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if h := rd.Header(); h.Beneficiary != c.header {
			t.Errorf("%s: header beneficiary %+v, want %+v", c.file, h.Beneficiary, c.header)
		}
		found := false
		for ev, err := range rd.All() {
			if err == nil && ev.Line == c.line {
				found = true
				if got := accountFields(ev); !reflect.DeepEqual(got, c.ev) {
					t.Errorf("%s line %d:\n got %+v\nwant %+v", c.file, c.line, got, c.ev)
				}
			}
		}
		f.Close()
		if !found {
			t.Errorf("%s: no event on line %d", c.file, c.line)
		}
	}
}
