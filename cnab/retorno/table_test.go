package retorno

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// allRecords lists every record table with its layout's width.
func allRecords() map[string]struct {
	rec   *record
	width int
} {
	out := map[string]struct {
		rec   *record
		width int
	}{}
	add := func(name string, r *record, w int) {
		if r != nil {
			out[name] = struct {
				rec   *record
				width int
			}{r, w}
		}
	}
	for k, l := range layouts {
		prefix := fmt.Sprintf("%s/%d", k.bank, k.width)
		for typ, r := range l.details {
			add(fmt.Sprintf("%s detail %c", prefix, typ), r, int(k.width))
		}
		add(prefix+" segment T", l.segT, 240)
		add(prefix+" segment U", l.segU, 240)
		add(prefix+" header", l.headerAccount, int(k.width))
		if p := l.payment; p != nil {
			add(prefix+" payment header", p.headerAccount, 240)
			add(prefix+" payment A", p.segA, 240)
			add(prefix+" payment B", p.segB, 240)
			add(prefix+" payment J", p.segJ, 240)
		}
	}
	return out
}

// TestTables checks every record table: fields inside the record, in
// order and not overlapping, of the width their kind reads, one field
// per event field, and an occurrence code in every record that starts
// an event.
func TestTables(t *testing.T) {
	t.Parallel()
	for name, r := range allRecords() {
		last := 0
		seen := map[slot]string{}
		for _, f := range r.rec.fields {
			if f.start < 1 || f.end > r.width || f.start > f.end {
				t.Errorf("%s: %s %d-%d outside 1-%d", name, f.name, f.start, f.end, r.width)
			}
			if f.start <= last {
				t.Errorf("%s: %s starts at %d, before the end of the previous field (%d)", name, f.name, f.start, last)
			}
			last = f.end
			if prev, ok := seen[f.to]; ok && f.to != 0 {
				t.Errorf("%s: %s and %s fill the same event field", name, prev, f.name)
			}
			seen[f.to] = f.name
			w := f.width()
			ok := true
			switch f.kind {
			case kindCode:
				ok = w == 2
			case kindMoney:
				ok = slices.Contains([]int{7, 13, 15}, w)
			case kindDate6:
				ok = w == 6
			case kindDate8, kindDateYMD:
				ok = w == 8
			case kindReasons, kindCodes:
				ok = w%2 == 0
			case kindReasons3:
				ok = w%3 == 0
			}
			if !ok {
				t.Errorf("%s: %s is %d wide, not a width %s reads", name, f.name, w, f.kind)
			}
			switch f.kind {
			case kindText, kindDigits, kindDocType:
				if fields := textFieldsOf(&Event{}); fields[f.to] == nil {
					t.Errorf("%s: %s is read as text into slot %d, which is no text field", name, f.name, f.to)
				}
			}
		}
	}
	for k, l := range layouts {
		for typ, r := range l.details {
			if !hasSlot(r, toCode) {
				t.Errorf("%s/%d detail %c has no occurrence code", k.bank, k.width, typ)
			}
		}
		if l.segT != nil && !hasSlot(l.segT, toCode) {
			t.Errorf("%s/%d segment T has no occurrence code", k.bank, k.width)
		}
		if p := l.payment; p != nil && (!hasSlot(p.segA, toReasons) || !hasSlot(p.segJ, toReasons)) {
			t.Errorf("%s/%d payment segments without occurrence codes", k.bank, k.width)
		}
		if (l.width == 400) != (l.details != nil) || (l.width == 240) != (l.segT != nil && l.segU != nil) {
			t.Errorf("%s/%d: records do not match the layout", k.bank, k.width)
		}
	}
	want := []string{
		"001/240+pagamento", "001/400", "033/240+pagamento", "033/400", "041/240", "041/400", "104/240",
		"237/240+pagamento", "237/400", "341/240+pagamento", "341/400", "748/240", "748/400",
		"756/240+pagamento", "756/400",
	}
	if got := Supported(); !slices.Equal(got, want) {
		t.Errorf("Supported() = %v, want %v", got, want)
	}
	if Document("341", 400) == "" || Document("104", 400) != "" {
		t.Errorf("Document: %q, %q", Document("341", 400), Document("104", 400))
	}
}

// TestRecordTexts checks every record's plan: each text field is found
// in the record's texts as it is in the line.
func TestRecordTexts(t *testing.T) {
	t.Parallel()
	records := allRecords()
	for k, l := range layouts {
		if l.headerAccount != nil {
			records[fmt.Sprintf("%s/%d header", k.bank, k.width)] = struct {
				rec   *record
				width int
			}{l.headerAccount, int(k.width)}
		}
	}
	for name, r := range records {
		if !r.rec.planned {
			t.Errorf("%s: not planned", name)
			continue
		}
		line := make([]byte, r.width)
		for i := range line {
			line[i] = byte('!' + i%94)
		}
		var buf []byte
		texts := r.rec.texts(line, &buf)
		for _, f := range r.rec.fields {
			if !f.kind.textual() {
				continue
			}
			if f.at < 0 || f.at+f.width() > len(texts) {
				t.Errorf("%s: %s at %d, outside the %d characters of its texts", name, f.name, f.at, len(texts))
			} else if got, want := f.inTexts(texts), string(f.inLine(line)); got != want {
				t.Errorf("%s: %s reads %q from its texts, %q from the line", name, f.name, got, want)
			}
		}
	}
}

func hasSlot(r *record, s slot) bool {
	for _, f := range r.fields {
		if f.to == s {
			return true
		}
	}
	return false
}

// TestEveryCodeClassified checks that every table entry has a class and
// a description.
func TestEveryCodeClassified(t *testing.T) {
	t.Parallel()
	check := func(name string, codes occTable) {
		for c, o := range codes {
			if o.class == "" || o.class == Unknown || o.text == "" || len(c) != 2 {
				t.Errorf("%s code %q: %+v", name, c, o)
			}
		}
	}
	for k, l := range layouts {
		check(fmt.Sprintf("%s/%d", k.bank, k.width), l.codes)
		if l.payment != nil {
			check(fmt.Sprintf("%s/%d payments", k.bank, k.width), l.payment.codes)
		}
	}
}

// TestParseCents reads amounts as the layouts write them, eight digits at
// a time where it can, and agrees with a reading digit by digit on
// amounts of every width, with blanks and other characters anywhere.
func TestParseCents(t *testing.T) {
	t.Parallel()
	cases := []struct {
		raw  string
		want Cents
		ok   bool
	}{
		{"0000000150000", 150000, true},
		{"000000000000000", 0, true},
		{"999999999999999", 999999999999999, true},
		{"1234567890123", 1234567890123, true},
		{"             ", 0, true},
		{"       153262", 153262, true},
		{"", 0, true},
		{"00000001500 0", 0, false},
		{"0000000150000 ", 0, false},
		{"000000015:000", 0, false},
		{"0000/00150000", 0, false},
		{"-000000150000", 0, false},
	}
	for _, c := range cases {
		for _, got := range []func() (Cents, bool){
			func() (Cents, bool) { return parseCents(c.raw) },
			func() (Cents, bool) { return parseCents([]byte(c.raw)) },
		} {
			if v, ok := got(); v != c.want || ok != c.ok {
				t.Errorf("parseCents(%q) = %d, %v, want %d, %v", c.raw, v, ok, c.want, c.ok)
			}
		}
	}
	byDigit := func(raw string) (Cents, bool) {
		var v int64
		digits := false
		for i := 0; i < len(raw); i++ {
			switch c := raw[i]; {
			case c >= '0' && c <= '9':
				v, digits = v*10+int64(c-'0'), true
			case c != ' ' || digits:
				return 0, false
			}
		}
		return Cents(v), true
	}
	chars := []byte("0123456789 /:@\x00\xff")
	r := rand.New(rand.NewPCG(1, 2))
	for range 100_000 {
		b := make([]byte, r.IntN(17))
		for i := range b {
			b[i] = byte('0' + r.IntN(10))
			if r.IntN(8) == 0 {
				b[i] = chars[r.IntN(len(chars))]
			}
		}
		for i := 0; i < len(b) && r.IntN(2) == 0; i++ {
			b[i] = ' '
		}
		want, wantOK := byDigit(string(b))
		if got, ok := parseCents(b); got != want || ok != wantOK {
			t.Fatalf("parseCents(%q) = %d, %v, want %d, %v", b, got, ok, want, wantOK)
		}
	}
}

// TestAppendReasons: blanks are no reason, nor are zeros in a field of
// several codes; a code with anything else is one, a blank between its
// zeros included (Santander's "0 0"). The shortcut for fields without
// reasons agrees with reading the codes one by one.
func TestAppendReasons(t *testing.T) {
	t.Parallel()
	cases := []struct {
		raw   string
		width int
		want  []string
	}{
		{"        ", 2, nil},
		{"00000000", 2, nil},
		{"00  0000", 2, nil},
		{"0  0", 2, nil},
		{"00", 2, []string{"00"}},
		{"  ", 2, nil},
		{"  0100  ", 2, []string{"01"}},
		{"0 0000000", 3, []string{"0 0"}},
		{"0000 0000", 3, []string{"0 0"}},
		{"000 0 000", 3, nil},
		{"A01   0 0", 3, []string{"A01", "0 0"}},
	}
	for _, c := range cases {
		var got []string
		for _, r := range appendReasons(nil, c.raw, c.width) {
			got = append(got, r.Code)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("appendReasons(%q, %d) = %q, want %q", c.raw, c.width, got, c.want)
		}
	}
	oneByOne := func(raw string, width int) []string {
		var out []string
		for i := 0; i+width <= len(raw); i += width {
			code := strings.TrimSpace(raw[i : i+width])
			if code != "" && (len(raw) == width || strings.Trim(code, "0") != "") {
				out = append(out, code)
			}
		}
		return out
	}
	chars := []byte("0 0 0 1A")
	r := rand.New(rand.NewPCG(3, 4))
	for range 50_000 {
		width := 2 + r.IntN(2)
		b := make([]byte, width*(1+r.IntN(5)))
		for i := range b {
			b[i] = chars[r.IntN(len(chars))]
		}
		var got []string
		for _, rs := range appendReasons(nil, string(b), width) {
			got = append(got, rs.Code)
		}
		if want := oneByOne(string(b), width); !slices.Equal(got, want) {
			t.Fatalf("appendReasons(%q, %d) = %q, want %q", b, width, got, want)
		}
	}
}

// TestCodeIndex: every layout's index of its occurrence codes finds each
// code of the table, with its entry, and no code the table does not have.
func TestCodeIndex(t *testing.T) {
	t.Parallel()
	probes := []string{"", "0", "1", "001", " 1", "1 ", "a1", "zz", "é1"}
	for _, a := range "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ" {
		for _, b := range "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ" {
			probes = append(probes, string(a)+string(b))
		}
	}
	check := func(name string, x *codeIndex, table occTable) {
		for code, want := range table {
			probes = append(probes, code)
			if got, ok := x.lookup(code); !ok || !reflect.DeepEqual(got, want) {
				t.Errorf("%s: code %q: %+v, %v; want %+v", name, code, got, ok, want)
			}
		}
		for _, code := range probes {
			if _, in := table[code]; !in {
				if got, ok := x.lookup(code); ok {
					t.Errorf("%s: code %q, not in the table, found: %+v", name, code, got)
				}
			}
		}
	}
	for k, l := range layouts {
		check(fmt.Sprintf("%s/%d", k.bank, k.width), &l.codeIndex, l.codes)
		if p := l.payment; p != nil {
			check(fmt.Sprintf("%s/%d payments", k.bank, k.width), &p.codeIndex, p.codes)
		}
	}
}
