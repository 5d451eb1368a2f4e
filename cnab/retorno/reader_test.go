package retorno

import (
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// readOutcomes reads data and lists, in order, each event (as "line N
// code C") and each error (its text): what a caller sees.
func readOutcomes(t *testing.T, data string) []string {
	t.Helper()
	rd, err := NewReader(strings.NewReader(data), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for ev, err := range rd.All() {
		if err != nil {
			got = append(got, err.Error())
			continue
		}
		got = append(got, "line "+strconv.Itoa(ev.Line)+" code "+ev.Code)
	}
	return got
}

// TestTitleBeforeUnreadableLine: an Itaú CNAB 400 title (which waits for
// the PIX record that may follow it) is returned when the line after it
// cannot be read, whatever is wrong with that line, and the line's error
// comes after it: a line of another length, a detail with a bad date, and
// a line too long to read at all (which ends the file).
func TestTitleBeforeUnreadableLine(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/341_400.ret")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\r\n"), "\r\n")
	first := lines[1][108:110] // the first title's occurrence code
	badDate := lines[2][:146] + "999999" + lines[2][152:]
	cases := []struct {
		name string
		bad  string
		want []string
	}{
		{"a short line", lines[2][:399], []string{"line 2 code " + first, "line 3: has 399 characters, CNAB 400 records have 400"}},
		{"a bad date", badDate, []string{"line 2 code " + first, `line 3: detail: Vencimento "999999": must be a date DDMMAA or zeros`}},
		{"a line too long", strings.Repeat("1", 5000), []string{"line 2 code " + first,
			"line 3: longer than 4096 characters: not a CNAB file, or line breaks are missing"}},
	}
	for _, c := range cases {
		in := append([]string{lines[0], lines[1], c.bad}, lines[3:]...)
		got := readOutcomes(t, strings.Join(in, "\r\n"))
		if len(got) < len(c.want) || !reflect.DeepEqual(got[:len(c.want)], c.want) {
			t.Errorf("%s: read %q, want it to begin %q", c.name, got, c.want)
		}
	}
}

// TestWarningsGrammar: the warning about stripped trailing blanks speaks
// of one line in the singular and of several in the plural.
func TestWarningsGrammar(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/001_240.ret")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\r\n"), "\r\n")
	strip := func(n int) string {
		out := append([]string(nil), lines...)
		for i := 1; i <= n; i++ {
			out[i] = strings.TrimRight(out[i], " ")
		}
		return strings.Join(out, "\r\n")
	}
	shortest := func(n int) int {
		m := 240
		for i := 1; i <= n; i++ {
			m = min(m, len(strings.TrimRight(lines[i], " ")))
		}
		return m
	}
	for _, c := range []struct {
		n    int
		want string
	}{
		{1, "1 line had lost its trailing blanks (it has " + strconv.Itoa(shortest(1)) + " characters): read as if padded to 240"},
		{2, "2 lines had lost their trailing blanks (the shortest has " + strconv.Itoa(shortest(2)) + " characters): read as if padded to 240"},
	} {
		rd, err := NewReader(strings.NewReader(strip(c.n)), Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, err := range rd.All() {
			if err != nil {
				t.Fatalf("%d stripped: %v", c.n, err)
			}
		}
		if got := rd.Warnings(); len(got) != 1 || got[0] != c.want {
			t.Errorf("%d stripped: warnings %q, want %q", c.n, got, c.want)
		}
	}
}
