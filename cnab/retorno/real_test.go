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
