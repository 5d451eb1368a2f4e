package jobs

import (
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/cnab"
	"github.com/propfin/propfin/cnab/pagamento"
	"github.com/propfin/propfin/cnab/retorno"
	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// TestPaymentBanksAreWritten holds the banks a payment batch's account may
// be at (storage) to the banks package cnab/pagamento writes, and the
// account columns storage requires of each to the payer's fields its
// payment header requires (the payer's covenant is the account's
// payment_covenant).
func TestPaymentBanksAreWritten(t *testing.T) {
	t.Parallel()
	if got, want := storage.PaymentBanks(), pagamento.Supported(); !slices.Equal(got, want) {
		t.Errorf("storage's payment banks %v, cnab/pagamento writes %v", got, want)
	}
	for _, bank := range pagamento.Supported() {
		want := pagamento.Required(bank)
		for i, f := range want {
			if f == "covenant" {
				want[i] = "payment_covenant"
			}
		}
		if got := storage.PaymentRequired(bank); !slices.Equal(got, want) {
			t.Errorf("bank %s: storage.PaymentRequired = %v, pagamento.Required = %v", bank, got, want)
		}
	}
}

// TestBatchBusinessRuleIsTheWriters holds the rule a batch's create
// checks its account's business by (storage's BusinessProblems, on name
// and tax_id) to the file writers': for every bank and layout, the
// payment writer refuses payer.name or payer.document, and the collection
// writer beneficiary.name or beneficiary.document, exactly when storage
// names name or tax_id, for names and documents of every form.
func TestBatchBusinessRuleIsTheWriters(t *testing.T) {
	t.Parallel()
	documents := []string{"11222333000181", "11.222.333/0001-81", "12ABC34501DE35", "12abc34501de35", "12.ABC.345/01DE-35",
		"52998224725", "529.982.247-25", "11222333000182", "52998224724", "", " ", "123", "1122233300018", "112223330001811",
		"00000000000000", "11111111111", "CNPJ 11222333000181", "１1222333000181"}
	created := time.Date(2026, 11, 24, 10, 30, 0, 0, time.UTC)
	// fields is what a writer's error says of the business: "name" and
	// "tax_id" for its problems on prefix+"name" and prefix+"document".
	fields := func(err error, prefix string) []string {
		var ps cnab.Problems
		errors.As(err, &ps)
		var out []string
		for _, p := range ps {
			switch p.Field {
			case prefix + "name":
				out = append(out, "name")
			case prefix + "document":
				out = append(out, "tax_id")
			}
		}
		return out
	}
	for _, name := range []string{"Imobiliária Conceição", "", "  "} {
		for _, doc := range documents {
			biz := storage.AccountBusiness{ID: 1, Name: name, TaxID: doc}
			for _, bank := range pagamento.Supported() {
				_, err := pagamento.NewWriter(io.Discard, pagamento.Remittance{Bank: bank, Sequence: 1, Created: created,
					Payer: pagamento.Payer{Name: name, Document: doc}}, nil)
				if got, want := problemFields(storage.PaymentBatch.BusinessProblems(biz)), fields(err, "payer."); !slices.Equal(got, want) {
					t.Errorf("payments at %s of %q, %q: storage names %v, the writer %v", bank, name, doc, got, want)
				}
			}
			for _, pair := range cnab.Supported() {
				bank, layout, _ := strings.Cut(pair, "/")
				_, err := cnab.NewWriter(io.Discard, cnab.Remittance{Bank: bank, Layout: layoutOf("cnab" + layout), Sequence: 1,
					Created: created, Beneficiary: cnab.Beneficiary{Name: name, Document: doc}}, nil)
				if got, want := problemFields(storage.TicketBatch.BusinessProblems(biz)), fields(err, "beneficiary."); !slices.Equal(got, want) {
					t.Errorf("collection at %s of %q, %q: storage names %v, the writer %v", pair, name, doc, got, want)
				}
			}
		}
	}
}

// problemFields are the fields problems name, in order.
func problemFields(ps []finance.Problem) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Field)
	}
	return out
}

// testIssuer is a payment issuer of a Bradesco CNAB 240 account on
// 2026-11-24.
func testIssuer(t *testing.T) *paymentIssuer {
	t.Helper()
	acc := &storage.PaymentAccount{BankAccount: storage.BankAccount{Bank: "237", Layout: "cnab240", Agency: "1234",
		Account: "12345", AccountDigit: "6", BusinessName: "Imobiliária", BusinessTaxID: "11222333000181"},
		PaymentCovenant: "123456", Number: "s/n", ZIP: "0130110", State: "SP"}
	p, err := newPaymentIssuer(acc, time.Date(2026, 11, 24, 10, 30, 0, 0, time.UTC), 1, false)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPaymentMethod: how an entry is paid, from its billing method and
// its payee's data, or why it cannot be.
func TestPaymentMethod(t *testing.T) {
	t.Parallel()
	p := testIssuer(t)
	account := storage.Payee{ID: 7, Name: "Construtora", TaxID: "60746948000112", Bank: "001", Agency: "3456",
		Account: "123456", AccountDigit: "8"}
	withKey := func(key string) storage.Payee { q := account; q.PIXKey = key; return q }
	none := storage.Payee{ID: 8, Name: "Sem Banco", TaxID: "12345678909"}
	for _, c := range []struct {
		name    string
		method  string
		payee   storage.Payee
		barcode string
		amount  string
		want    string // the method, or the start of the reason
		keyType string
	}{
		{"ted to an account", "ted", account, "", "100.00", storage.MethodTransfer, ""},
		{"deposit to an account", "deposit", account, "", "100.00", storage.MethodTransfer, ""},
		{"ted without an account", "ted", none, "", "100.00", "is paid by ted, but its payee (person 8) has no bank account", ""},
		{"pix to an e-mail key", "pix", withKey("a@example.com"), "", "100.00", storage.MethodPIXKey, "email"},
		{"pix to a phone key", "pix", withKey("+5511987654321"), "", "100.00", storage.MethodPIXKey, "phone"},
		{"pix to a CNPJ key", "pix", withKey("60746948000112"), "", "100.00", storage.MethodPIXKey, "document"},
		{"pix to a random key", "pix", withKey("123e4567-e12b-12d1-a456-426655440000"), "", "100.00", storage.MethodPIXKey, "random"},
		{"pix to an account", "pix", account, "", "100.00", storage.MethodPIXAccount, ""},
		{"pix to nothing", "pix", none, "", "100.00", "is paid by pix, but its payee (person 8) has neither", ""},
		{"boleto", "ticket", none, "34191090080101527124806378950000195160000015000", "100.00", storage.MethodBoleto, ""},
		{"boleto without barcode", "ticket", none, "", "100.00", "is paid by ticket, but has no ticket_barcode", ""},
		{"cash", "cash", account, "", "100.00", "is paid by cash: a payment batch pays by ted, deposit, pix, ticket", ""},
		{"no method", "", account, "", "100.00", "has no billing_method", ""},
		{"no payee", "ted", storage.Payee{}, "", "100.00", "names no payee", ""},
		{"payee without tax id", "ted", storage.Payee{ID: 9, Name: "X"}, "", "100.00", "its payee (person 9) has no tax_id", ""},
		{"nothing to pay", "ted", account, "", "5.00", "its amount plus interest less discount is 0.00", ""},
		// a transfer to an owner: its contract's billing_method, how the owners are paid
		{"a transfer by ted", "ted", account, "", "100.00", storage.MethodTransfer, ""},
		{"a transfer by ticket", "ticket", account, "", "100.00", "is a transfer to an owner by ticket, a boleto, which pays no owner; " +
			"a transfer to an owner is paid by ted, deposit, pix: set its billing_method (PUT /transactions/42), and contract 7's " +
			"(how its owners are paid) for the transfers to come", ""},
		{"a transfer by cash", "cash", account, "", "100.00", "is paid by cash: a payment batch pays by ted, deposit, pix, ticket; " +
			"a transfer to an owner is paid by ted, deposit, pix: set its billing_method (PUT /transactions/42), and contract 7's", ""},
		{"a transfer without a method", "", account, "", "100.00", "has no billing_method: a payment batch pays by ted, deposit, pix, " +
			"ticket; a transfer to an owner is paid by", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			typ, mode := "debit", "transaction"
			if strings.HasPrefix(c.name, "a transfer") {
				typ, mode = "transfer", "transfer"
			}
			cand := &storage.PaymentCandidate{ID: 42, Found: true, Type: typ, Mode: mode, ContractID: 7, BillingMethod: c.method,
				Amount: decimal.RequireFromString(c.amount), Due: finance.NewDate(2026, 11, 30), Barcode: c.barcode,
				Payee: c.payee, Attempts: 1}
			if c.name == "nothing to pay" {
				cand.Discount = decimal.RequireFromString("5.00")
			}
			m, reason := p.member(cand)
			got := m.Method
			if reason != "" {
				got = reason
			}
			if !strings.HasPrefix(got, c.want) {
				t.Fatalf("got %q, want %q", got, c.want)
			}
			if reason == "" && (m.Reference != "PAG-42-2" || m.PIXKeyType != c.keyType || m.PayeeDocument != c.payee.TaxID) {
				t.Errorf("member %+v", m)
			}
		})
	}
}

// TestPaymentOf: a member as cnab/pagamento takes it, dated its due day
// or today when that is past, with a boleto's amounts.
func TestPaymentOf(t *testing.T) {
	t.Parallel()
	p := testIssuer(t)
	m := storage.PaymentMember{Reference: "PAG-1-1", Method: storage.MethodBoleto, Amount: decimal.RequireFromString("152.00"),
		Nominal: decimal.RequireFromString("150.00"), Surcharge: decimal.RequireFromString("2.00"),
		Due: finance.NewDate(2026, 11, 20), PayeeName: "Água", PayeeDocument: "33000167000101", Barcode: "123"}
	pay := p.payment(&m)
	if pay.Kind != pagamento.KindBoleto || pay.Date != (cnab.Date{Year: 2026, Month: 11, Day: 24}) ||
		pay.Due != (cnab.Date{Year: 2026, Month: 11, Day: 20}) || !pay.Nominal.Equal(m.Nominal) || !pay.Surcharge.Equal(m.Surcharge) {
		t.Errorf("boleto due in the past: %+v", pay)
	}
	m = storage.PaymentMember{Reference: "PAG-2-1", Method: storage.MethodPIXKey, Amount: decimal.RequireFromString("10.00"),
		Due: finance.NewDate(2026, 12, 1), PIXKey: "a@example.com", PIXKeyType: "email"}
	if pay := p.payment(&m); pay.Kind != pagamento.KindPIXKey || pay.Date != (cnab.Date{Year: 2026, Month: 12, Day: 1}) ||
		pay.PIXKeyType != pagamento.KeyEmail {
		t.Errorf("pix by key due later: %+v", pay)
	}
	if a := p.rem.Payer.Address; a.Number != "" || a.ZIP != "" || a.State != "SP" {
		t.Errorf("the payer's address keeps only what the layout takes: %+v", a)
	}
}

// TestPIXMix: at Bradesco and Itaú a batch holds PIX or other payments;
// elsewhere both.
func TestPIXMix(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		bank, method string
		pix, other   int64
		refused      bool
	}{
		{"237", storage.MethodPIXKey, 0, 1, true},
		{"237", storage.MethodTransfer, 1, 0, true},
		{"237", storage.MethodPIXAccount, 3, 0, false},
		{"341", storage.MethodBoleto, 0, 2, false},
		{"341", storage.MethodPIXKey, 0, 2, true},
		{"001", storage.MethodPIXKey, 0, 2, false},
		{"756", storage.MethodTransfer, 5, 0, false},
	} {
		if got := pixMix(c.bank, c.method, c.pix, c.other) != ""; got != c.refused {
			t.Errorf("bank %s, %s into %d PIX and %d others: refused %v, want %v", c.bank, c.method, c.pix, c.other, got, c.refused)
		}
	}
}

// TestPaymentReturnOutcomes: what a return line does to a payment, by the
// bank's occurrence and the payment's state.
func TestPaymentReturnOutcomes(t *testing.T) {
	t.Parallel()
	paid := retorno.Event{Code: "00", Occurrence: retorno.Paid, Description: "Crédito ou Débito Efetivado",
		Date: cnab.Date{Year: 2026, Month: 11, Day: 24}, Amount: 15000, Paid: 15200, Interest: 200, Barcode: "3419..."}
	// the file is of 2026-11-30, a day the company's zone has not come to
	// (a zone ahead), and today is 2026-11-28
	days := paymentDays{file: finance.NewDate(2026, 11, 30), today: finance.NewDate(2026, 11, 28)}
	paidA := retorno.Event{Code: "00", Occurrence: retorno.Paid, Due: cnab.Date{Year: 2026, Month: 11, Day: 23}, Amount: 15000}
	refused := retorno.Event{Code: "AG", Occurrence: retorno.Rejected, Description: "Agência/Conta Corrente/DV Inválido"}
	scheduled := retorno.Event{Code: "BD", Occurrence: retorno.Scheduled, OurNumber: "777"}
	changed := retorno.Event{Code: "BE", Occurrence: retorno.InstructionConfirmed}
	itauCancelled := retorno.Event{Bank: "341", Code: "CE", Occurrence: retorno.Rejected, Description: "PAGAMENTO CANCELADO"}
	match := func(state string) storage.PaymentMatch {
		return storage.PaymentMatch{MemberID: 1, BatchID: 2, TransactionID: 3, State: state, Amount: decimal.RequireFromString("150.00")}
	}
	for _, c := range []struct {
		name    string
		ev      retorno.Event
		m       storage.PaymentMatch
		seen    bool
		outcome string
		kind    string // the change made, "" for none
		message string // a part of the message
	}{
		{"boleto paid", paid, match("sent"), false, OutcomePaid, storage.PaymentPaid, "interest 2.00"},
		{"paid without date or real amount", paidA, match("sent"), false, OutcomePaid, storage.PaymentPaid, "the amount sent is taken"},
		{"reverted paid all the same", paid, match("reverted"), false, OutcomePaid, storage.PaymentPaid, "reverted in batch 2"},
		{"void transfer paid all the same", paid, func() storage.PaymentMatch { m := match("reverted"); m.Void = 7; return m }(), false,
			OutcomePaid, storage.PaymentPaid, "the transfer was void (entry 7 reverses it): the payment is recorded all the same"},
		{"a paid entry is not paid again, void or not", paid, func() storage.PaymentMatch {
			m := match("reverted")
			m.Void, m.Paid = 7, true
			return m
		}(), false, storage.PaymentAlreadyPaid, "", "check for a payment made twice"},
		{"paid twice", paid, match("paid"), false, storage.PaymentAlreadyPaid, "", "check for a payment made twice"},
		{"entry paid by hand", paid, func() storage.PaymentMatch { m := match("sent"); m.Paid = true; return m }(), false,
			storage.PaymentAlreadyPaid, "", "nothing was done"},
		{"in another batch since", paid, func() storage.PaymentMatch { m := match("failed"); m.OtherBatch = 9; return m }(), false,
			storage.PaymentNotSettled, "", "payment batch 9"},
		{"entry deleted", paid, func() storage.PaymentMatch { m := match("sent"); m.TransactionID = 0; return m }(), false,
			storage.PaymentNotSettled, "", "deleted"},
		{"refused", refused, match("sent"), false, OutcomeFailed, storage.PaymentFailed, "AG Agência"},
		{"refused once paid", refused, match("paid"), false, storage.OutcomeRecorded, "", "is paid in batch 2"},
		{"scheduled", scheduled, match("sent"), false, OutcomeScheduled, storage.PaymentScheduled, "BD"},
		{"a change confirmed", changed, match("sent"), false, storage.OutcomeRecorded, "", "BE"},
		{"a second line on it", paid, match("sent"), true, storage.OutcomeRecorded, "", "an earlier line"},
		{"paid short", retorno.Event{Code: "00", Occurrence: retorno.Paid, Date: cnab.Date{Year: 2026, Month: 11, Day: 24},
			Amount: 15000, Paid: 14999}, match("sent"), false, storage.PaymentShortPaid, "",
			"the bank paid 149.99 on 2026-11-24, 0.01 less than the 150.00 due"},
		{"a boleto paid short of its interest", retorno.Event{Code: "00", Occurrence: retorno.Paid, Date: cnab.Date{Year: 2026, Month: 11, Day: 24},
			Amount: 15000, Paid: 15100, Interest: 200, Barcode: "3419..."}, match("sent"), false, storage.PaymentShortPaid, "",
			"1.00 less than the 152.00 due (the batch sent 150.00; the bank reports discount 0.00, interest 2.00)"},
		{"a boleto paid less its discount", retorno.Event{Code: "00", Occurrence: retorno.Paid, Date: cnab.Date{Year: 2026, Month: 11, Day: 24},
			Amount: 15000, Paid: 14500, Discount: 300, Abatement: 200, Barcode: "3419..."}, match("sent"), false, OutcomePaid,
			storage.PaymentPaid, "paid 145.00 on 2026-11-24; the batch sent 150.00; the bank reports discount 5.00, interest 0.00"},
		{"paid after the file's date", retorno.Event{Code: "00", Occurrence: retorno.Paid, Date: cnab.Date{Year: 2026, Month: 12, Day: 1},
			Amount: 15000}, match("sent"), false, storage.PaymentNotSettled, "",
			"the bank's payment date 2026-12-01 is after 2026-11-30, the file's own date"},
		{"paid without a date, scheduled after the file's date", retorno.Event{Code: "00", Occurrence: retorno.Paid,
			Due: cnab.Date{Year: 2026, Month: 12, Day: 11}, Amount: 15000}, match("sent"), false, storage.PaymentNotSettled, "",
			"the line gives no date of payment, and the date it was scheduled for, taken for it, is too late: " +
				"the bank's payment date 2026-12-11 is after 2026-11-30, the file's own date"},
		{"paid after today", retorno.Event{Code: "00", Occurrence: retorno.Paid, Date: cnab.Date{Year: 2026, Month: 11, Day: 29},
			Amount: 15000}, match("sent"), false, storage.PaymentNotSettled, "",
			"the bank's payment date 2026-11-29 is after today (2026-11-28 in the company's time zone)"},
		{"Itaú's CE of a cancellation asked", itauCancelled, func() storage.PaymentMatch { m := match("reverted"); m.CancelBatch = 4; return m }(),
			false, OutcomeCancelled, storage.PaymentCancelled, "the cancellation asked by the file of payment batch 4 is confirmed: CE PAGAMENTO CANCELADO"},
		{"Itaú's CE of a payment no cancellation was asked for", itauCancelled, match("sent"), false, OutcomeFailed,
			storage.PaymentFailed, "CE PAGAMENTO CANCELADO"},
		{"another bank's CE", retorno.Event{Bank: "237", Code: "CE", Occurrence: retorno.Rejected, Description: "Código de Barras - Campo Livre Inválido"},
			func() storage.PaymentMatch { m := match("reverted"); m.CancelBatch = 4; return m }(), false, OutcomeFailed, storage.PaymentFailed, "CE Código"},
		{"no occurrence code", retorno.Event{Occurrence: retorno.Unknown}, match("sent"), false, storage.OutcomeRecorded, "",
			"no occurrence code (positions 231-240 blank)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var l storage.ReturnLine
			m := c.m
			e, changes := paymentEvent(&l, &c.ev, &m, days, c.seen)
			if l.Outcome != c.outcome || changes != (c.kind != "") || (changes && e.Kind != c.kind) ||
				!strings.Contains(l.Message, c.message) {
				t.Fatalf("outcome %q (%q), change %v %q; want %q, %q, %q", l.Outcome, l.Message, changes, e.Kind,
					c.outcome, c.kind, c.message)
			}
		})
	}
	var l storage.ReturnLine
	m := match("sent")
	e, _ := paymentEvent(&l, &paid, &m, days, false)
	if !e.Parts || !e.Interest.Equal(decimal.RequireFromString("2.00")) || !e.Paid.Equal(decimal.RequireFromString("152.00")) ||
		l.Difference == nil || l.Difference.StringFixed(2) != "2.00" || e.PaidAt != finance.NewDate(2026, 11, 24) {
		t.Errorf("the boleto's payment: %+v, line %+v", e, l)
	}
}

// TestPaymentRefusalWords: a payment's code is the first of its codes,
// and the message and the payment's info tell each code once.
func TestPaymentRefusalWords(t *testing.T) {
	t.Parallel()
	ev := retorno.Event{Code: "AM", Occurrence: retorno.Rejected, Description: "Agência Mantenedora da Conta Corrente do Favorecido Inválida",
		Reasons: []retorno.Reason{{Code: "AM", Description: "Agência Mantenedora da Conta Corrente do Favorecido Inválida"},
			{Code: "AN", Description: "Conta Corrente/DV do Favorecido Inválido"}, {Code: "ZZ"}}}
	m := storage.PaymentMatch{MemberID: 1, BatchID: 2, TransactionID: 3, State: "sent", Amount: decimal.RequireFromString("150.00")}
	var l storage.ReturnLine
	e, _ := paymentEvent(&l, &ev, &m, paymentDays{today: finance.NewDate(2026, 11, 28)}, false)
	want := "AM Agência Mantenedora da Conta Corrente do Favorecido Inválida; AN Conta Corrente/DV do Favorecido Inválido; " +
		"ZZ (a code the bank's table does not list)"
	if l.Outcome != OutcomeFailed || l.Message != want || e.Info != want {
		t.Errorf("outcome %q, message %q, info %q; want %q", l.Outcome, l.Message, e.Info, want)
	}
}

// TestPaymentCheckManyBatches: payments checked in an order that changes
// the bank's forma at every one (a TED, a credit in account, ...) are all
// taken, however many: the check never runs out of the four-digit batch
// numbers a file has.
func TestPaymentCheckManyBatches(t *testing.T) {
	t.Parallel()
	p := testIssuer(t)
	for i := range 2*maxCheckBatches + 10 {
		bank := "001"
		if i%2 == 1 {
			bank = "237"
		}
		m := storage.PaymentMember{Reference: "PAG-1-1", Method: storage.MethodTransfer, Amount: decimal.RequireFromString("10.00"),
			Due: finance.NewDate(2026, 11, 30), PayeeName: "Construtora", PayeeDocument: "60746948000112",
			Bank: bank, Agency: "3456", Account: "123456", AccountDigit: "8"}
		if err := p.check(&m); err != nil {
			t.Fatalf("payment %d: %v", i, err)
		}
	}
}

// TestFileOrder: payments of one forma de lançamento share a place in the
// file, payments of different formas do not, and boletos come first.
func TestFileOrder(t *testing.T) {
	t.Parallel()
	p := testIssuer(t) // Bradesco, business 11222333000181
	order := func(method, bank, accountType, document, barcode string) int16 {
		return p.fileOrder(&storage.PaymentMember{Method: method, Bank: bank, AccountType: accountType,
			PayeeDocument: document, Barcode: barcode})
	}
	const itau = "34191090080101527124806378950000195160000015000"
	ted := order(storage.MethodTransfer, "001", "checking", "60746948000112", "")
	if got := order(storage.MethodTransfer, "341", "", "11144477735", ""); got != ted {
		t.Errorf("two TEDs to other payees at other banks: places %d and %d", ted, got)
	}
	places := map[string]int16{
		"a TED":                           ted,
		"a boleto of Itaú":                order(storage.MethodBoleto, "", "", "60746948000112", itau),
		"a boleto of Bradesco":            order(storage.MethodBoleto, "", "", "60746948000112", "237"+itau[3:]),
		"a PIX by key":                    order(storage.MethodPIXKey, "", "", "39053344705", ""),
		"a PIX to account data":           order(storage.MethodPIXAccount, "260", "payment", "39053344705", ""),
		"a credit at Bradesco":            order(storage.MethodTransfer, "237", "checking", "11144477735", ""),
		"a credit to savings at Bradesco": order(storage.MethodTransfer, "237", "savings", "11144477735", ""),
		"a TED to the company itself":     order(storage.MethodTransfer, "001", "checking", "11.222.333/0001-81", ""),
	}
	seen := map[int16]string{}
	for name, place := range places {
		if other, ok := seen[place]; ok {
			t.Errorf("%s and %s share place %d", name, other, place)
		}
		seen[place] = name
	}
	if places["a boleto of Itaú"] >= ted || places["a boleto of Bradesco"] >= ted {
		t.Errorf("boletos (%d, %d) after transfers (%d)", places["a boleto of Itaú"], places["a boleto of Bradesco"], ted)
	}
}

// TestPaymentRefusalOfAnotherAccount: an entry paid from another account
// than the batch's is refused; a transfer's refusal says where it can go,
// and that its account_id may be changed.
func TestPaymentRefusalOfAnotherAccount(t *testing.T) {
	t.Parallel()
	b := &storage.Batch{Type: storage.PaymentBatch, ID: 5, AccountID: 9}
	for _, c := range []struct {
		typ, mode string
		account   int64
		want      string
	}{
		{"debit", "transaction", 3, "is paid from account 3, not from the batch's account 9"},
		{"transfer", "transfer", 3, "is paid from account 3, not from the batch's account 9: add it to a batch of account 3, " +
			"or set its account_id (PUT /transactions/42)"},
		{"transfer", "transfer", 9, ""},
		{"transfer", "transfer", 0, ""},
	} {
		cand := &storage.PaymentCandidate{ID: 42, Found: true, Type: c.typ, Mode: c.mode, AccountID: c.account}
		if got := paymentRefusal(b, cand); got != c.want {
			t.Errorf("%s from account %d: %q, want %q", c.typ, c.account, got, c.want)
		}
	}
}
