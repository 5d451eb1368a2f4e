package retorno

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/propfin/propfin/pix"
)

// with400Record returns a CNAB 400 sample with rec (400 characters,
// sequence number included) inserted after line n (1-based).
func with400Record(t *testing.T, name string, n int, recs ...string) string {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\r\n")
	out := append(append(append([]string{}, lines[:n]...), recs...), lines[n:]...)
	return strings.Join(out, "\r\n")
}

// record400 is a CNAB 400 record: typ, then fields put at their 1-based
// positions, then the sequence number.
func record400(typ string, fields map[int]string) string {
	l := newLine(400).put(1, typ)
	for at, v := range fields {
		l.put(at, v)
	}
	return l.put(395, "000099").String()
}

func readEvents(t *testing.T, in string) ([]Event, []string) {
	t.Helper()
	rd, err := NewReader(strings.NewReader(in), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var evs []Event
	var errs []string
	for ev, err := range rd.All() {
		var le *LineError
		switch {
		case errors.As(err, &le):
			errs = append(errs, err.Error())
		case err != nil:
			t.Fatal(err)
		default:
			evs = append(evs, ev)
		}
	}
	return evs, errs
}

// TestItauPIXRecord reads Itaú's record type 3: the BR Code generated for
// the title before it, read for its key, location and txid, or the code
// of the error that kept the PIX charge from being generated.
func TestItauPIXRecord(t *testing.T) {
	t.Parallel()
	static, err := pix.BuildStatic(pix.Static{Key: "financeiro@propfin.com.br", Name: "PROPFIN IMOVEIS", City: "SAO PAULO", TxID: "ALUG0001"})
	if err != nil {
		t.Fatal(err)
	}
	dynamic, err := pix.BuildDynamic(pix.Dynamic{URL: "pix.itau.com.br/qr/v2/cobv/9d36b84f", Name: "PROPFIN IMOVEIS", City: "SAO PAULO"})
	if err != nil {
		t.Fatal(err)
	}
	// After the first title, the second, and the last.
	in := with400Record(t, "341_400.ret", 2, record400("3", map[int]string{2: static}))
	in = strings.Replace(in, "\r\n9201", "\r\n"+record400("3", map[int]string{392: "001"})+"\r\n9201", 1)
	lines := strings.Split(in, "\r\n")
	lines = append(lines[:4], append([]string{record400("3", map[int]string{2: dynamic})}, lines[4:]...)...)
	in = strings.Join(lines, "\r\n")
	evs, errs := readEvents(t, in)
	if len(errs) != 0 {
		t.Fatalf("errors: %v", errs)
	}
	want := map[int]*PIX{
		0:            {KeyType: "email", Key: "financeiro@propfin.com.br", TxID: "ALUG0001", QRCode: static},
		len(evs) - 1: {Error: "001"},
	}
	for i, ev := range evs {
		w := want[i]
		if i == 1 {
			w = &PIX{Location: "pix.itau.com.br/qr/v2/cobv/9d36b84f", QRCode: dynamic}
		}
		if !reflect.DeepEqual(ev.PIX, w) {
			t.Errorf("event %d (line %d): pix %+v, want %+v", i, ev.Line, ev.PIX, w)
		}
	}
}

// TestPIXRecordErrors: a PIX record that is malformed is named on its
// line and its title is still reported; one with no title before it is
// an error of its own.
func TestPIXRecordErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, file, rec string
		after           int
		events          int
		want            string
	}{
		{"key type not in the table", "033_400.ret", record400("29", map[int]string{3: "12345678909"}), 2, 5,
			`line 3: PIX record (type 2): Tipo de chave Pix "9": must be 1 (CPF), 2 (CNPJ), 3 (celular), 4 (e-mail) or 5 (chave aleatória)`},
		{"no title before it", "033_400.ret", record400("25", nil), 1, 5,
			"line 2: PIX record (type 2): no title detail before it"},
		{"not a BR Code", "341_400.ret", record400("3", map[int]string{2: "000201BROKEN"}), 2, 5,
			`line 3: PIX record (type 3): EMV QR Code "000201BROKEN": not a BR Code`},
	}
	for _, c := range cases {
		evs, errs := readEvents(t, with400Record(t, c.file, c.after, c.rec))
		if len(errs) != 1 || !strings.HasPrefix(errs[0], c.want) {
			t.Errorf("%s: errors %q, want one starting %q", c.name, errs, c.want)
		}
		if len(evs) != c.events {
			t.Errorf("%s: %d events, want %d", c.name, len(evs), c.events)
		}
	}
}

// TestUnreadableLineAfterTitle: an Itaú title waits for the record after
// it (a PIX record may follow); when that record cannot be read (a line
// longer than any layout), reading ends there with one fatal error
// naming the line, and nothing is read after it.
func TestUnreadableLineAfterTitle(t *testing.T) {
	t.Parallel()
	in := with400Record(t, "341_400.ret", 3, strings.Repeat("1", maxLine+100))
	rd, err := NewReader(strings.NewReader(in), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var errs []string
	for _, err := range rd.All() {
		if err != nil {
			errs = append(errs, err.Error())
		}
	}
	want := []string{"line 4: longer than 4096 characters: not a CNAB file, or line breaks are missing"}
	if !reflect.DeepEqual(errs, want) {
		t.Errorf("errors %q, want %q", errs, want)
	}
}
