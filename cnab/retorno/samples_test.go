package retorno

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/propfin/propfin/cnab"
)

// The sample return files in testdata are written by the generators
// below, each from its bank's document with the positions spelled out
// here (independently of the reader's tables), and checked into the
// repository. TestSamplesUpToDate fails when a generator and its file
// differ; go test -run TestSamplesUpToDate -update rewrites them.
var update = flag.Bool("update", false, "rewrite the sample return files in testdata")

// sample is one title or payment of a sample file, and the event the
// reader must return for it.
type sample struct {
	code    string
	reasons []string
	class   Occurrence

	nn, dv, doc, control, wallet, payer, barcode string
	// channel is the paid title's liquidation channel code.
	channel string

	amount, paid, credited, tariff, interest, fine, discount, abatement, iof, otherExp, otherCred int64

	due, date, credit cnab.Date
}

func day(y, m, d int) cnab.Date { return cnab.Date{Year: y, Month: time.Month(m), Day: d} }

// line is a record being built: spaces, then the fields put in place.
type line []byte

func newLine(width int) line { return line(bytes.Repeat([]byte(" "), width)) }

// put writes s at the 1-based position start.
func (l line) put(start int, s string) line {
	copy(l[start-1:], s)
	return l
}

// num writes v zero-padded in start..end.
func (l line) num(start, end int, v int64) line {
	s := strconv.FormatInt(v, 10)
	return l.put(start, strings.Repeat("0", end-start+1-len(s))+s)
}

// digits writes s zero-padded on the left in start..end.
func (l line) digits(start, end int, s string) line {
	return l.put(start, strings.Repeat("0", end-start+1-len(s))+s)
}

func (l line) date6(start int, d cnab.Date) line {
	if d.IsZero() {
		return l.put(start, "000000")
	}
	return l.put(start, fmt.Sprintf("%02d%02d%02d", d.Day, d.Month, d.Year%100))
}

func (l line) date8(start int, d cnab.Date) line {
	if d.IsZero() {
		return l.put(start, "00000000")
	}
	return l.put(start, fmt.Sprintf("%02d%02d%04d", d.Day, d.Month, d.Year))
}

func (l line) dateYMD(start int, d cnab.Date) line {
	if d.IsZero() {
		return l.put(start, "00000000")
	}
	return l.put(start, fmt.Sprintf("%04d%02d%02d", d.Year, d.Month, d.Day))
}

func (l line) String() string { return string(l) }

// sampleFile is one sample return file: how it is written and what it
// holds.
type sampleFile struct {
	name  string
	bank  string
	width cnab.Layout
	kind  Kind
	crlf  bool // CR LF line endings (LF otherwise)
	final bool // whether the last line ends with a line break
	build func(items []sample) []string
	items []sample
	// undescribed: the bank's document gives no meaning for the
	// reason codes of this layout.
	undescribed bool
}

// content returns the file's bytes and records where each item starts.
func (f *sampleFile) content() []byte {
	lines := f.build(f.items)
	eol := "\n"
	if f.crlf {
		eol = "\r\n"
	}
	out := strings.Join(lines, eol)
	if f.final {
		out += eol
	}
	return []byte(out)
}

func (f *sampleFile) path() string { return filepath.Join("testdata", f.name) }

func TestSamplesUpToDate(t *testing.T) {
	for _, f := range sampleFiles() {
		got := f.content()
		if *update {
			if err := os.WriteFile(f.path(), got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(f.path())
		if err != nil {
			t.Fatalf("%v (run go test -run TestSamplesUpToDate -update)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from its generator (run go test -run TestSamplesUpToDate -update)", f.name)
		}
	}
}

// collectionSamples are the titles of every collection sample file: one
// of each kind of occurrence. The codes are the bank's; fields a layout
// does not carry are cleared by the file's mask.
func collectionSamples(codes map[Occurrence]string, reasons map[Occurrence][]string) []sample {
	return []sample{
		{
			code: codes[EntryConfirmed], reasons: reasons[EntryConfirmed], class: EntryConfirmed,
			nn: "12345678", dv: "1", doc: "ALUG-0001", control: "INV-2026-0001", wallet: "1",
			payer: "MARIA DA SILVA", amount: 150000, tariff: 250,
			due: day(2026, 12, 10), date: day(2026, 11, 20),
		},
		{
			code: codes[Paid], reasons: reasons[Paid], class: Paid,
			nn: "12345679", dv: "2", doc: "ALUG-0002", control: "INV-2026-0002", wallet: "1",
			payer: "JOAO PEREIRA", amount: 150000, paid: 153512, credited: 153262, tariff: 250,
			interest: 3512, discount: 0, abatement: 0, iof: 0,
			due: day(2026, 11, 10), date: day(2026, 11, 19), credit: day(2026, 11, 20),
		},
		{
			code: codes[WrittenOff], reasons: reasons[WrittenOff], class: WrittenOff,
			nn: "12345680", dv: "3", doc: "COND-0042", control: "INV-2026-0003", wallet: "1",
			payer: "CONDOMINIO SOL", amount: 98000, discount: 1000, abatement: 500,
			due: day(2026, 10, 5), date: day(2026, 11, 18),
		},
		{
			code: codes[Rejected], reasons: reasons[Rejected], class: Rejected,
			nn: "12345681", dv: "4", doc: "ALUG-0004", control: "INV-2026-0004", wallet: "1",
			payer: "ANA SOUZA", amount: 120000,
			due: day(2026, 12, 15), date: day(2026, 11, 20),
		},
		{
			code: "99", class: Unknown,
			nn: "12345682", dv: "5", doc: "ALUG-0005", control: "INV-2026-0005", wallet: "1",
			payer: "PEDRO LIMA", amount: 50000,
			due: day(2026, 12, 20), date: day(2026, 11, 20),
		},
	}
}

// mask clears, in every sample, the fields a layout does not carry.
func mask(items []sample, fields ...string) []sample {
	out := make([]sample, len(items))
	for i, s := range items {
		for _, f := range fields {
			switch f {
			case "dv":
				s.dv = ""
			case "doc":
				s.doc = ""
			case "control":
				s.control = ""
			case "wallet":
				s.wallet = ""
			case "payer":
				s.payer = ""
			case "credited":
				s.credited = 0
			case "iof":
				s.iof = 0
			case "otherExp":
				s.otherExp = 0
			case "otherCred":
				s.otherCred = 0
			case "credit":
				s.credit = cnab.Date{}
			case "tariff":
				s.tariff = 0
			}
		}
		out[i] = s
	}
	return out
}

// withChannel gives the paid samples a liquidation channel code.
func withChannel(items []sample, code string) []sample {
	for i := range items {
		if items[i].class == Paid {
			items[i].channel = code
		}
	}
	return items
}

// withNN replaces the nosso número and digit of each sample by the
// bank's form.
func withNN(items []sample, nn func(i int) (string, string)) []sample {
	out := make([]sample, len(items))
	for i, s := range items {
		s.nn, s.dv = nn(i)
		out[i] = s
	}
	return out
}

func reasonField(rs []string) string { return strings.Join(rs, "") }
