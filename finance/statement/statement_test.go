package statement

import (
	"fmt"
	"strings"
	"testing"

	"github.com/propfin/propfin/finance"
)

var (
	march = finance.NewMonth(2024, 3)
	april = finance.NewMonth(2024, 4)
)

// entry is a shorthand for an owner's entry of the worked month
// (docs/ledger.md, "Owner statements"): contract 1 of building 1.
func entry(id int64, date string, typ finance.EntryType, mode finance.EntryMode, cents int64, description string) Entry {
	return Entry{ID: id, Date: finance.MustDate(date), Type: typ, Mode: mode, Cents: cents, Description: description,
		ContractID: 1, BuildingID: 1, InvoiceID: 1, ItemID: 10, ItemType: "default"}
}

// ownerAMarch are owner A's (60%) entries of March 2024 in the worked
// month: the guaranteed rent advanced and paid out on the 15th, a repair on
// the 20th, the late payment credited on the 26th with the guarantee's
// settlement, and the transfer of the 28th.
func ownerAMarch() []Entry {
	repair := entry(20, "2024-03-20", finance.Debit, "transaction", 15000, "Reparo hidráulico")
	repair.InvoiceID, repair.ItemType = 0, "default"
	guarantee := entry(16, "2024-03-15", finance.Credit, finance.ModeGuaranteedRent, 129000, "Repasse garantido: Aluguel 03/2024")
	settle := entry(30, "2024-03-26", finance.Debit, finance.ModeInvoice, 129000, "Compensação de repasse garantido")
	settle.Guaranteed = true
	first := entry(17, "2024-03-15", finance.Transfer, finance.ModeTransfer, 129000, "Repasse: Aluguel 03/2024")
	first.BillingMethod, first.ItemID, first.ItemType = "pix", 0, ""
	second := entry(40, "2024-03-28", finance.Transfer, finance.ModeTransfer, 3525, "Repasse: Aluguel 03/2024")
	second.BillingMethod, second.ItemID, second.ItemType = "ted", 0, ""
	return []Entry{
		entry(22, "2024-03-26", finance.Credit, finance.ModeInvoice, 120000, "Aluguel"),
		entry(25, "2024-03-26", finance.Credit, finance.ModeInvoice, 21000, "Condomínio"),
		entry(27, "2024-03-26", finance.Debit, finance.ModeInvoice, 12000, "Taxa de administração"),
		entry(31, "2024-03-26", finance.Credit, finance.ModeInvoice, 2820, "Multa por atraso"),
		entry(34, "2024-03-26", finance.Credit, finance.ModeInvoice, 705, "Juros de mora (15 dias)"),
		repair, guarantee, settle, first, second,
	}
}

var payeeA = Payee{Bank: "341", Agency: "1234", Account: "56789", AccountDigit: "0", PixKey: "ana@example.com"}

// lines writes a statement's lines as "section date description cents
// [corrects] [destination]", one a line, hidden ones marked.
func lines(s Statement) string {
	var b strings.Builder
	for _, l := range s.Lines {
		fmt.Fprintf(&b, "%s %s %s %d", l.Section, l.Date, l.Description, l.Cents)
		if l.IsAdjustment() {
			fmt.Fprintf(&b, " corrects %s (%s)", l.CorrectsMonth, l.Kind)
		}
		if l.Destination != "" {
			fmt.Fprintf(&b, " to %s", l.Destination)
		}
		if l.Hidden {
			b.WriteString(" hidden")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// TestWorkedMonth: owner A's statements of March and April 2024, line by
// line, with the totals of each section and the balances.
func TestWorkedMonth(t *testing.T) {
	t.Parallel()
	got := Build(Input{Month: march, Entries: ownerAMarch(), Payee: payeeA})
	want := `income 2024-03-26 Aluguel 120000
income 2024-03-26 Condomínio 21000
income 2024-03-26 Multa por atraso 2820
income 2024-03-26 Juros de mora (15 dias) 705
deductions 2024-03-20 Reparo hidráulico -15000
deductions 2024-03-26 Taxa de administração -12000
guarantee 2024-03-15 Repasse garantido: Aluguel 03/2024 129000
guarantee 2024-03-26 Compensação de repasse garantido -129000
transfers 2024-03-15 Repasse: Aluguel 03/2024 -129000 to PIX ana@example.com
transfers 2024-03-28 Repasse: Aluguel 03/2024 -3525 to Banco 341, agência 1234, conta 56789-0
`
	if l := lines(got); l != want {
		t.Errorf("March lines:\n%s\nwant\n%s", l, want)
	}
	wantTotals := Totals{Income: 144525, Deductions: -27000, Guarantee: 0, Transfers: -132525, Shown: 10}
	if got.Totals != wantTotals || got.Opening != 0 || got.Closing != -15000 {
		t.Errorf("March: totals %+v, opening %d, closing %d; want %+v, 0, -15000", got.Totals, got.Opening, got.Closing, wantTotals)
	}

	// April: the payment undone on 2024-04-02 reverses March's entries of
	// the invoice, and an IPTU debit dated 2024-03-31 is written after
	// March was closed; both correct March.
	var reversals []Entry
	for _, e := range ownerAMarch() {
		if e.Mode != finance.ModeInvoice {
			continue
		}
		r := e
		r.ID, r.ReversesID, r.ReversedDate, r.Date, r.Mode = e.ID+100, e.ID, e.Date, finance.MustDate("2024-04-02"), finance.ModeChargeback
		r.Guaranteed = e.Guaranteed
		r.Type = map[finance.EntryType]finance.EntryType{finance.Debit: finance.Credit, finance.Credit: finance.Debit}[e.Type]
		reversals = append(reversals, r)
	}
	iptu := entry(200, "2024-03-31", finance.Debit, "transaction", 8000, "IPTU 2024, parcela 3")
	iptu.ItemType = "iptu"
	got = Build(Input{Month: april, Opening: -15000, Entries: reversals, Late: []Entry{iptu}, Payee: payeeA})
	want = `adjustments 2024-03-31 IPTU 2024, parcela 3 -8000 corrects 2024-03 (deductions)
adjustments 2024-04-02 Estorno: Aluguel -120000 corrects 2024-03 (income)
adjustments 2024-04-02 Estorno: Condomínio -21000 corrects 2024-03 (income)
adjustments 2024-04-02 Estorno: Taxa de administração 12000 corrects 2024-03 (deductions)
adjustments 2024-04-02 Estorno: Compensação de repasse garantido 129000 corrects 2024-03 (guarantee)
adjustments 2024-04-02 Estorno: Multa por atraso -2820 corrects 2024-03 (income)
adjustments 2024-04-02 Estorno: Juros de mora (15 dias) -705 corrects 2024-03 (income)
`
	if l := lines(got); l != want {
		t.Errorf("April lines:\n%s\nwant\n%s", l, want)
	}
	if got.Totals.Adjustments != -11525 || got.Closing != -26525 {
		t.Errorf("April: totals %+v, closing %d; want adjustments -11525, closing -26525", got.Totals, got.Closing)
	}
}

// TestKinds: where each entry goes.
func TestKinds(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		e    Entry
		want Section
	}{
		{"a credit of a payment", Entry{Type: finance.Credit, Mode: finance.ModeInvoice}, Income},
		{"a manual credit", Entry{Type: finance.Credit, Mode: "transaction"}, Income},
		{"the administration fee", Entry{Type: finance.Debit, Mode: finance.ModeInvoice}, Deductions},
		{"a commission", Entry{Type: finance.Debit, Mode: "commission"}, Deductions},
		{"an IPTU the tenant pays (customer → owner)", Entry{Type: finance.Credit, Mode: finance.ModeInvoice, ItemType: "iptu"}, Income},
		{"an IPTU the owner pays (owner → business)", Entry{Type: finance.Debit, Mode: "transaction", ItemType: "iptu"}, Deductions},
		{"a guaranteed rent", Entry{Type: finance.Credit, Mode: finance.ModeGuaranteedRent}, Guarantee},
		{"a guarantee recovered", Entry{Type: finance.Debit, Mode: finance.ModeInvoice, Guaranteed: true}, Guarantee},
		{"a transfer", Entry{Type: finance.Transfer, Mode: finance.ModeTransfer}, Transfers},
		{"a credit reversed", Entry{Type: finance.Debit, Mode: finance.ModeChargeback}, Income},
		{"a debit reversed", Entry{Type: finance.Credit, Mode: finance.ModeChargeback}, Deductions},
		{"a recovery reversed", Entry{Type: finance.Credit, Mode: finance.ModeChargeback, Guaranteed: true}, Guarantee},
	}
	for _, c := range cases {
		if got := c.e.Kind(); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

// TestHiddenLines: an item the owner's report leaves out is not shown,
// is counted apart, and is in the balance; a reversal of an entry of the
// same month is not an adjustment.
func TestHiddenLines(t *testing.T) {
	t.Parallel()
	fee := entry(1, "2024-03-05", finance.Debit, "transaction", 350, "Tarifa de TED")
	fee.Hidden = true
	rent := entry(2, "2024-03-06", finance.Credit, finance.ModeInvoice, 80000, "Aluguel")
	undone := entry(3, "2024-03-09", finance.Debit, finance.ModeChargeback, 80000, "Aluguel")
	undone.ReversesID, undone.ReversedDate = 2, rent.Date
	s := Build(Input{Month: march, Opening: 1000, Entries: []Entry{fee, rent, undone}})
	if s.Totals.HiddenCount != 1 || s.Totals.HiddenCents != -350 || s.Totals.Shown != 2 || s.Totals.Income != 0 {
		t.Errorf("totals %+v", s.Totals)
	}
	if s.Closing != 650 {
		t.Errorf("closing %d, want 650 (1000 - 350)", s.Closing)
	}
	for _, l := range s.Shown() {
		if l.Hidden || l.IsAdjustment() {
			t.Errorf("shown line %+v", l)
		}
	}
	if g := s.Groups(); len(g) != 1 || len(g[0].Lines) != 2 {
		t.Errorf("groups %+v", g)
	}
}

// TestGroups: the shown lines per building and contract, in id order,
// each with its totals.
func TestGroups(t *testing.T) {
	t.Parallel()
	a := entry(1, "2024-03-05", finance.Credit, finance.ModeInvoice, 1000, "Aluguel")
	a.BuildingID, a.ContractID = 7, 70
	b := entry(2, "2024-03-05", finance.Credit, finance.ModeInvoice, 2000, "Aluguel")
	b.BuildingID, b.ContractID = 3, 30
	c := entry(3, "2024-03-07", finance.Debit, finance.ModeInvoice, 100, "Taxa")
	c.BuildingID, c.ContractID = 7, 70
	none := entry(4, "2024-03-08", finance.Debit, "transaction", 50, "Diversos")
	none.BuildingID, none.ContractID = 0, 0
	groups := Build(Input{Month: march, Entries: []Entry{a, b, c, none}}).Groups()
	var got []string
	for _, g := range groups {
		got = append(got, fmt.Sprintf("%d/%d: %d lines, income %d, deductions %d", g.BuildingID, g.ContractID, len(g.Lines),
			g.Totals.Income, g.Totals.Deductions))
	}
	want := "0/0: 1 lines, income 0, deductions -50; 3/30: 1 lines, income 2000, deductions 0; 7/70: 2 lines, income 1000, deductions -100"
	if strings.Join(got, "; ") != want {
		t.Errorf("groups:\n%s\nwant\n%s", strings.Join(got, "; "), want)
	}
}

func TestPayeeDestination(t *testing.T) {
	t.Parallel()
	cases := []struct {
		p      Payee
		method string
		want   string
	}{
		{payeeA, "pix", "PIX ana@example.com"},
		{payeeA, "ted", "Banco 341, agência 1234, conta 56789-0"},
		{Payee{PixKey: "+5511987654321"}, "ted", "PIX +5511987654321"},
		{Payee{Bank: "001", Agency: "12", AgencyDigit: "X", Account: "9"}, "pix", "Banco 001, agência 12-X, conta 9"},
		{Payee{}, "pix", ""},
	}
	for _, c := range cases {
		if got := c.p.Destination(c.method); got != c.want {
			t.Errorf("%+v by %s: %q, want %q", c.p, c.method, got, c.want)
		}
	}
}

// TestParseDestination: what Destination writes reads back as the payee
// it was written from (the part it names), and reads back to the same
// text; anything else is no destination.
func TestParseDestination(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		p      Payee
		method string
		want   Payee
	}{
		{payeeA, "pix", Payee{PixKey: "ana@example.com"}},
		{payeeA, "ted", Payee{Bank: "341", Agency: "1234", Account: "56789", AccountDigit: "0"}},
		{Payee{PixKey: "+5511987654321"}, "ted", Payee{PixKey: "+5511987654321"}},
		{Payee{Bank: "001", Agency: "12", AgencyDigit: "X", Account: "9"}, "pix", Payee{Bank: "001", Agency: "12", AgencyDigit: "X", Account: "9"}},
		{Payee{Bank: "237", Account: "4", AccountDigit: "AB"}, "ted", Payee{Bank: "237", Account: "4", AccountDigit: "AB"}},
	} {
		text := c.p.Destination(c.method)
		got, ok := ParseDestination(text)
		if !ok || got != c.want || got.Destination(c.method) != text {
			t.Errorf("%q: %+v %v, want %+v", text, got, ok, c.want)
		}
	}
	for _, text := range []string{"", "PIX ", "pix ana@example.com", "Banco 341", "Banco 34, conta 1", "Banco 341, conta 1, agência 2",
		"Banco 341, agência 1234, conta 56789-0 "} {
		if p, ok := ParseDestination(text); ok {
			t.Errorf("%q read as %+v", text, p)
		}
	}
}

// FuzzParseDestination: a text read as a destination is what Destination
// writes of it.
func FuzzParseDestination(f *testing.F) {
	for _, s := range []string{"PIX ana@example.com", "Banco 341, agência 1234-5, conta 56789-0", "Banco 001, conta 9", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		p, ok := ParseDestination(text)
		if ok && p.Destination("pix") != text {
			t.Errorf("%q read as %+v, which writes %q", text, p, p.Destination("pix"))
		}
	})
}
