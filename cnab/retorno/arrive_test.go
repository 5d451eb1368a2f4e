package retorno

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestStrippedBlanks reads CNAB 240 files whose lines lost their trailing
// blanks on the way: they are read as if padded back, with one warning
// for the file, and give the events of the same file padded.
func TestStrippedBlanks(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"001_240_brcobranca.ret", "033_240_brcobranca.ret"} {
		data, err := os.ReadFile(filepath.Join("testdata", "real", name))
		if err != nil {
			t.Fatal(err)
		}
		rd, err := NewReader(strings.NewReader(string(data)), Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var got []Event
		for ev, err := range rd.All() {
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			got = append(got, ev)
		}
		warn := rd.Warnings()
		if len(warn) != 1 || !strings.Contains(warn[0], "lost their trailing blanks") {
			t.Errorf("%s: warnings %q, want one about trailing blanks", name, warn)
		}
		var padded []string
		for _, l := range strings.Split(strings.TrimRight(strings.ReplaceAll(string(data), "\r", ""), "\n"), "\n") {
			padded = append(padded, l+strings.Repeat(" ", 240-len(l)))
		}
		rd, err = NewReader(strings.NewReader(strings.Join(padded, "\n")), Options{})
		if err != nil {
			t.Fatal(err)
		}
		var want []Event
		for ev, err := range rd.All() {
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, ev)
		}
		if len(got) == 0 || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %d events, differing from the %d of the padded file", name, len(got), len(want))
		}
		if rd.Warnings() != nil {
			t.Errorf("%s padded: warnings %q", name, rd.Warnings())
		}
	}
}

// TestRecordCount: the trailer's count is compared with every record the
// file has. The public file has one line of 241 characters, the last a
// blank: read cut to 240, with a warning, and counted.
func TestRecordCount(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("testdata", "real", "001_240_laravel-boleto.ret"))
	if err != nil {
		t.Fatal(err)
	}
	evs, errs, warn := readAsArrived(t, string(data))
	if len(evs) != 5 || errs != nil {
		t.Errorf("%d events, errors %q; want 5 and none", len(evs), errs)
	}
	want := []string{"1 line had trailing blanks past the layout's 240 characters (it has 241): read as cut to 240"}
	if !reflect.DeepEqual(warn, want) {
		t.Errorf("warnings %q, want %q", warn, want)
	}
}

// TestAnotherBanksRecords: a file whose header names one bank and whose
// records follow another bank's layout is refused with one message.
func TestAnotherBanksRecords(t *testing.T) {
	t.Parallel()
	lines := func(name string) []string {
		data, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	}
	itau400, bb400 := lines("341_400.ret"), lines("001_400.ret")
	itau240, bradesco240 := lines("341_240.ret"), lines("237_240.ret")
	cases := []struct {
		name, in, want string
	}{
		{"CNAB 400", strings.Join(append(itau400[:1:1], bb400[1:]...), "\n"),
			`the header is of bank 341 (Itaú Unibanco) but line 2 is a record of type '7', which its layout does not have`},
		{"CNAB 240", strings.Join(append(itau240[:1:1], bradesco240[1:]...), "\n"),
			`the header is of bank 341 (Itaú Unibanco) but its records are of bank "237" (line 2)`},
	}
	for _, c := range cases {
		_, err := NewReader(strings.NewReader(c.in), Options{})
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
		}
	}
}
