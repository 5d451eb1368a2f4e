package retorno

import (
	"errors"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// sampleLines reads a sample of testdata as its lines, without their CR LF.
func sampleLines(t *testing.T, name string) []string {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n"), "\n")
}

// readAsArrived reads a file and returns its events, its errors' texts and its
// warnings; a refused file fails the test.
func readAsArrived(t *testing.T, data string) ([]Event, []string, []string) {
	t.Helper()
	rd, err := NewReader(strings.NewReader(data), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var evs []Event
	var errs []string
	for ev, err := range rd.All() {
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		evs = append(evs, ev)
	}
	return evs, errs, rd.Warnings()
}

// mapDetails changes each CNAB 240 detail record (type 3) with f.
func mapDetails(lines []string, f func(string) string) []string {
	out := append([]string(nil), lines...)
	for i, l := range out {
		if len(l) > 13 && l[7] == '3' {
			out[i] = f(l)
		}
	}
	return out
}

// withSegment writes seg as the segment letter (position 14) of a line.
func withSegment(l string, seg func(byte) byte) string {
	return l[:13] + string(seg(l[13])) + l[14:]
}

// TestLowerCaseSegments: CNAB 240 segment letters written in lower case
// (Caixa's files as some tools pass them on) are read as their upper case:
// the same events, collection and payments.
func TestLowerCaseSegments(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"104_240.ret", "001_240.ret", "237_240_pagamento.ret", "341_240_pagamento.ret"} {
		lines := sampleLines(t, name)
		want, wantErrs, _ := readAsArrived(t, strings.Join(lines, "\r\n"))
		lower := mapDetails(lines, func(l string) string {
			return withSegment(l, func(b byte) byte { return b | 0x20 })
		})
		got, errs, _ := readAsArrived(t, strings.Join(lower, "\r\n"))
		if len(want) == 0 || !reflect.DeepEqual(got, want) || !reflect.DeepEqual(errs, wantErrs) {
			t.Errorf("%s in lower case: %d events, errors %q; want the %d events of the file as written", name, len(got), errs, len(want))
		}
	}
}

// TestUnknownSegment: a detail record whose segment the batch does not
// have is an error naming its line and the segment, never skipped in
// silence: a file whose every detail is such gives one error per line.
func TestUnknownSegment(t *testing.T) {
	t.Parallel()
	lines := sampleLines(t, "104_240.ret")
	unknown := mapDetails(lines, func(l string) string {
		return withSegment(l, func(byte) byte { return 'K' })
	})
	evs, errs, _ := readAsArrived(t, strings.Join(unknown, "\r\n"))
	details := 0
	for _, l := range lines {
		if l[7] == '3' {
			details++
		}
	}
	if len(evs) != 0 || len(errs) != details {
		t.Fatalf("%d events and errors %q, want none and one error per detail (%d)", len(evs), errs, details)
	}
	if want := `line 3: segment 'K': not a segment of a collection batch (T and U are read, Y is skipped)`; errs[0] != want {
		t.Errorf("first error %q, want %q", errs[0], want)
	}
	pay := mapDetails(sampleLines(t, "237_240_pagamento.ret"), func(l string) string {
		if l[13] == 'B' {
			return withSegment(l, func(byte) byte { return 'K' })
		}
		return l
	})
	_, errs, _ = readAsArrived(t, strings.Join(pay, "\r\n"))
	if len(errs) == 0 || !strings.Contains(errs[0], `segment 'K': not a segment of a payment batch`) {
		t.Errorf("payment batch with segments K: errors %q, want one naming the segment", errs)
	}
	// the segments a batch may have besides those read are still skipped
	y := append([]string(nil), lines...)
	y = append(y[:4:4], append([]string{withSegment(lines[3], func(byte) byte { return 'Y' })}, y[4:]...)...)
	y[len(y)-1] = lines[len(lines)-1][:23] + "000000" + lines[len(lines)-1][29:] // no count to check
	if _, errs, _ := readAsArrived(t, strings.Join(y, "\r\n")); len(errs) != 0 {
		t.Errorf("a segment Y: errors %q, want none", errs)
	}
}

// TestByteOrderMark: a UTF-8 byte-order mark before the header (a file
// saved by a Windows editor) is skipped, with a warning: the same events.
func TestByteOrderMark(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"104_240.ret", "341_400.ret"} {
		data, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		want, _, _ := readAsArrived(t, string(data))
		got, errs, warn := readAsArrived(t, "\xef\xbb\xbf"+string(data))
		if len(want) == 0 || !reflect.DeepEqual(got, want) || errs != nil {
			t.Errorf("%s after a BOM: %d events, errors %q; want the %d events of the file", name, len(got), errs, len(want))
		}
		if w := "the file starts with a UTF-8 byte-order mark (EF BB BF): skipped"; len(warn) != 1 || warn[0] != w {
			t.Errorf("%s after a BOM: warnings %q, want %q", name, warn, w)
		}
	}
}

// TestBlanksPastTheLayout: lines longer than the layout by trailing
// blanks only (the header included) are read cut to the layout's length,
// with one warning for the file; anything else past the length is still
// an error naming what is there.
func TestBlanksPastTheLayout(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, blanks, warn string
	}{
		{"104_240.ret", " ", "lines had trailing blanks past the layout's 240 characters (the longest has 241): read as cut to 240"},
		{"341_400.ret", "  ", "lines had trailing blanks past the layout's 400 characters (the longest has 402): read as cut to 400"},
	} {
		lines := sampleLines(t, c.name)
		want, _, _ := readAsArrived(t, strings.Join(lines, "\r\n"))
		long := make([]string, len(lines))
		for i, l := range lines {
			long[i] = l + c.blanks
		}
		got, errs, warn := readAsArrived(t, strings.Join(long, "\r\n"))
		if len(want) == 0 || !reflect.DeepEqual(got, want) || errs != nil {
			t.Errorf("%s with blanks past the layout: %d events, errors %q; want the %d events of the file", c.name, len(got), errs, len(want))
		}
		if w := strconv.Itoa(len(lines)) + " " + c.warn; len(warn) != 1 || warn[0] != w {
			t.Errorf("%s: warnings %q, want %q", c.name, warn, w)
		}
		one := append([]string(nil), lines...)
		one[2] += c.blanks
		if _, _, warn := readAsArrived(t, strings.Join(one, "\r\n")); len(warn) != 1 || !strings.HasPrefix(warn[0], "1 line had trailing blanks past") {
			t.Errorf("%s, one line: warnings %q, want one in the singular", c.name, warn)
		}
		bad := append([]string(nil), lines...)
		bad[2] += "X"
		_, errs, _ = readAsArrived(t, strings.Join(bad, "\r\n"))
		if len(errs) == 0 || !strings.HasSuffix(errs[0], `records have `+strconv.Itoa(len(lines[0]))+` (past them: "X")`) {
			t.Errorf("%s with a letter past the layout: errors %q, want one naming it", c.name, errs)
		}
		bad = append([]string(nil), lines...)
		bad[0] += "X"
		if _, err := NewReader(strings.NewReader(strings.Join(bad, "\r\n")), Options{}); !errors.Is(err, ErrRefused) {
			t.Errorf("%s with a letter past the header: %v, want it refused", c.name, err)
		}
	}
}
