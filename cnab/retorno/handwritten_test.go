package retorno

import (
	"os"
	"strings"
	"testing"
)

// TestHandWrittenReturnOfTheDocs reads the return file docs/cnab-retorno.md
// shows how to write by hand ("Writing a return file by hand") and checks
// that it is read as the page says: one Itaú title paid, with the amounts
// and dates the page gives.
func TestHandWrittenReturnOfTheDocs(t *testing.T) {
	page, err := os.ReadFile("../../docs/cnab-retorno.md")
	if err != nil {
		t.Fatal(err)
	}
	file := handWrittenBlock(t, string(page))
	for i, l := range strings.Split(strings.TrimSuffix(file, "\n"), "\n") {
		if len(l) != 400 {
			t.Errorf("line %d of the page's file has %d characters, want 400", i+1, len(l))
		}
	}
	rd, err := NewReader(strings.NewReader(file), Options{})
	if err != nil {
		t.Fatalf("the page's file is refused: %v", err)
	}
	var events []Event
	for ev, err := range rd.All() {
		if err != nil {
			t.Fatalf("the page's file: %v", err)
		}
		events = append(events, ev)
	}
	if len(events) != 1 {
		t.Fatalf("%d events, want 1", len(events))
	}
	ev := events[0]
	h := rd.Header()
	checks := []struct{ what, got, want string }{
		{"bank", h.Bank, "341"},
		{"occurrence", string(ev.Occurrence), string(Paid)},
		{"nosso número", ev.OurNumber, "00000001"},
		{"its digit", ev.OurNumberDigit, "9"},
		{"wallet", ev.Wallet, "109"},
		{"agency", ev.Beneficiary.Agency, "0810"},
		{"account", ev.Beneficiary.Account + "-" + ev.Beneficiary.AccountDigit, "53678-9"},
		{"amount", ev.Amount.String(), "1500.00"},
		{"paid", ev.Paid.String(), "1535.00"},
		{"credited", ev.Credited.String(), "1532.50"},
		{"tariff", ev.Tariff.String(), "2.50"},
		{"interest", ev.Interest.String(), "35.00"},
		{"due", ev.Due.String(), "2026-12-10"},
		{"paid on", ev.Date.String(), "2026-12-15"},
		{"credited on", ev.CreditDate.String(), "2026-12-16"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: %q, want %q (the page says so)", c.what, c.got, c.want)
		}
	}
}

// handWrittenBlock is the code block between the page's markers.
func handWrittenBlock(t *testing.T, page string) string {
	t.Helper()
	const begin, end = "<!-- hand-written return: begin -->", "<!-- hand-written return: end -->"
	_, rest, ok := strings.Cut(page, begin)
	block, _, ok2 := strings.Cut(rest, end)
	if !ok || !ok2 {
		t.Fatal("docs/cnab-retorno.md has no hand-written return between its markers")
	}
	block = strings.TrimSpace(block)
	block = strings.TrimPrefix(block, "```")
	block = strings.TrimSuffix(block, "```")
	return strings.TrimLeft(block, "\n")
}
