package retorno

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// pageCheck is one field of what a file was read to say, and what the page
// says it is.
type pageCheck struct{ what, got, want string }

// TestHandWrittenReturnOfTheDocs reads the return files docs/cnab-retorno.md
// shows how to write by hand ("Writing a return file by hand") and checks
// that each is read as the page says: one Itaú CNAB 400 title paid, one
// Bradesco CNAB 240 title paid, and a Bradesco CNAB 240 payment return
// paying one payment and refusing the other, with the amounts, dates and
// codes the page gives.
func TestHandWrittenReturnOfTheDocs(t *testing.T) {
	t.Parallel()
	page, err := os.ReadFile("../../docs/cnab-retorno.md")
	if err != nil {
		t.Fatal(err)
	}
	examples := []struct {
		name, marker string
		width        int
		checks       func(h Header, evs []Event) []pageCheck
	}{
		{"Itaú CNAB 400", "hand-written return", 400, itauChecks},
		{"Bradesco CNAB 240", "hand-written return, CNAB 240", 240, bradesco240Checks},
		{"Bradesco CNAB 240 payments", "hand-written payment return", 240, bradescoPaymentChecks},
	}
	for _, ex := range examples {
		t.Run(ex.name, func(t *testing.T) {
			t.Parallel()
			file := handWrittenBlock(t, string(page), ex.marker)
			for i, l := range strings.Split(strings.TrimSuffix(file, "\n"), "\n") {
				if len(l) != ex.width {
					t.Errorf("line %d of the page's file has %d characters, want %d", i+1, len(l), ex.width)
				}
			}
			h, evs := readPage(t, file)
			for _, c := range ex.checks(h, evs) {
				if c.got != c.want {
					t.Errorf("%s: %q, want %q (the page says so)", c.what, c.got, c.want)
				}
			}
		})
	}
}

// readPage reads a file the page gives: every line must be read.
func readPage(t *testing.T, file string) (Header, []Event) {
	t.Helper()
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
	if w := rd.Warnings(); len(w) > 0 {
		t.Errorf("the page's file is read with warnings: %v", w)
	}
	return rd.Header(), events
}

// itauChecks: one Itaú title paid at agency 0810, account 53678-9.
func itauChecks(h Header, evs []Event) []pageCheck {
	if len(evs) != 1 {
		return []pageCheck{{"events", strconv.Itoa(len(evs)), "1"}}
	}
	ev := evs[0]
	return []pageCheck{
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
		{"due", ev.Due.String(), "2026-11-10"},
		{"paid on", ev.Date.String(), "2026-11-16"},
		{"credited on", ev.CreditDate.String(), "2026-11-17"},
	}
}

// bradesco240Checks: one Bradesco title paid at agency 1234-5, account
// 98765-4, the same amounts and dates as the Itaú file's.
func bradesco240Checks(h Header, evs []Event) []pageCheck {
	if len(evs) != 1 {
		return []pageCheck{{"events", strconv.Itoa(len(evs)), "1"}}
	}
	ev := evs[0]
	return []pageCheck{
		{"bank", h.Bank, "237"},
		{"layout", fmt.Sprint(h.Layout), "240"},
		{"header's agency", h.Beneficiary.Agency + "-" + h.Beneficiary.AgencyDigit, "01234-5"},
		{"header's account", h.Beneficiary.Account + "-" + h.Beneficiary.AccountDigit, "000000098765-4"},
		{"covenant", h.Covenant, "00000000000004567890"},
		{"created", h.Created.String(), "2026-11-17"},
		{"kind", string(ev.Kind), string(KindTitle)},
		{"code", ev.Code, "06"},
		{"occurrence", string(ev.Occurrence), string(Paid)},
		{"nosso número", ev.OurNumber, "00000000001"},
		{"its digit", ev.OurNumberDigit, "1"},
		{"wallet", ev.Wallet, "009"},
		{"account", ev.Beneficiary.Account + "-" + ev.Beneficiary.AccountDigit, "000000098765-4"},
		{"payer", ev.Payer, "MARIA DA SILVA"},
		{"amount", ev.Amount.String(), "1500.00"},
		{"paid", ev.Paid.String(), "1535.00"},
		{"credited", ev.Credited.String(), "1532.50"},
		{"tariff", ev.Tariff.String(), "2.50"},
		{"interest", ev.Interest.String(), "35.00"},
		{"channel", ev.Channel.Code + " " + ev.Channel.Description, "04 Compensação Eletrônica"},
		{"due", ev.Due.String(), "2026-11-10"},
		{"paid on", ev.Date.String(), "2026-11-16"},
		{"credited on", ev.CreditDate.String(), "2026-11-17"},
	}
}

// bradescoPaymentChecks: two payments, PAG-1-1 paid 1,290.00 on
// 2026-11-25 and PAG-2-1 (860.00) refused with AM and AN.
func bradescoPaymentChecks(h Header, evs []Event) []pageCheck {
	if len(evs) != 2 {
		return []pageCheck{{"events", strconv.Itoa(len(evs)), "2"}}
	}
	paid, refused := evs[0], evs[1]
	return []pageCheck{
		{"bank", h.Bank, "237"},
		{"header's account", h.Beneficiary.Agency + "-" + h.Beneficiary.AgencyDigit + " " +
			h.Beneficiary.Account + "-" + h.Beneficiary.AccountDigit, "01234-5 000000098765-4"},
		{"created", h.Created.String(), "2026-11-25"},
		{"first: kind", string(paid.Kind), string(KindPayment)},
		{"first: reference", paid.DocumentNumber, "PAG-1-1"},
		{"first: code", paid.Code, "00"},
		{"first: occurrence", string(paid.Occurrence), string(Paid)},
		{"first: payee", paid.Payer, "CONSTRUTORA HORIZONTE LTDA"},
		{"first: bank's number", paid.OurNumber, "00000000000000012345"},
		{"first: amount", paid.Amount.String(), "1290.00"},
		{"first: scheduled for", paid.Due.String(), "2026-11-25"},
		{"first: paid", paid.Paid.String(), "1290.00"},
		{"first: paid on", paid.Date.String(), "2026-11-25"},
		{"second: reference", refused.DocumentNumber, "PAG-2-1"},
		{"second: code", refused.Code, "AM"},
		{"second: occurrence", string(refused.Occurrence), string(Rejected)},
		{"second: reasons", reasonCodes(refused.Reasons), "AM AN"},
		{"second: payee", refused.Payer, "JARDINAGEM VERDE LTDA"},
		{"second: amount", refused.Amount.String(), "860.00"},
		{"second: paid", refused.Paid.String(), "0.00"},
		{"second: paid on", refused.Date.String(), ""},
	}
}

// reasonCodes lists the codes of reasons, space-separated.
func reasonCodes(rs []Reason) string {
	codes := make([]string, len(rs))
	for i, r := range rs {
		codes[i] = r.Code
	}
	return strings.Join(codes, " ")
}

// handWrittenBlock is the code block between the page's markers of name
// (`<!-- name: begin -->`, `<!-- name: end -->`).
func handWrittenBlock(t *testing.T, page, name string) string {
	t.Helper()
	begin, end := "<!-- "+name+": begin -->", "<!-- "+name+": end -->"
	_, rest, ok := strings.Cut(page, begin)
	block, _, ok2 := strings.Cut(rest, end)
	if !ok || !ok2 {
		t.Fatalf("docs/cnab-retorno.md has no %s between its markers", name)
	}
	block = strings.TrimSpace(block)
	block = strings.TrimPrefix(block, "```")
	block = strings.TrimSuffix(block, "```")
	return strings.TrimLeft(block, "\n")
}
