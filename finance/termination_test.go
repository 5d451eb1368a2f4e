package finance

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/shopspring/decimal"
)

// leaseContract is the contract of the termination examples in
// docs/finance.md: a 30-month lease of 2,000.00 a month from 2024-01-01 to
// 2026-06-30 (912 days), calendar-month periods billed in arrears, due
// on the 5th, a condominium of 350.00 with every rent, and a fine of 3
// rents.
func leaseContract() Contract {
	return Contract{
		ID: 9, Type: ContractRent, Active: ActiveActive, Status: StatusProgress,
		TenantID: 40, BusinessID: 1, AccountID: 2, BillingMethod: "ticket",
		StartAt: MustDate("2024-01-01"), EndAt: MustDate("2026-06-30"), Recurrency: Monthly, Modality: ModalityMonthly,
		Amount: dec("2000.00"), DueDay: 5, DueDate: MustDate("2024-02-05"), BillingTiming: BillingPost,
		TerminationFeeMonths: 3,
	}
}

var (
	leaseItems   = []ContractItem{{ID: 1, ItemID: 2, Description: "Condomínio", CalculateMode: CalculateFixed, Amount: dec("350.00")}}
	fineItem     = TransactionItem{ID: 3, Debit: PartyCustomer, Credit: PartyOwner}
	depositItem  = TransactionItem{ID: 4, Debit: PartyCustomer, Credit: PartyOwner}
	leaseParties = Parties{PayerID: 40, BusinessID: 1, BuildingID: 30,
		Owners: []Share{{PersonID: 41, Percentage: dec("60")}, {PersonID: 42, Percentage: dec("40")}}}
)

// monthInvoice is the contract's invoice of month m ("2024-12"), with the
// status given (paid when status is paid).
func monthInvoice(id int64, m string, status InvoiceStatus) TerminationInvoice {
	month, err := ParseMonth(m)
	if err != nil {
		panic(err)
	}
	return TerminationInvoice{ID: id, Status: status, Paid: status == InvoicePaid, Total: dec("2350.00"),
		Date: month.First(), DueDate: dayInMonth(month.Add(1), 5), PeriodInitial: month.First(), PeriodFinal: month.Last()}
}

// leaseInvoices are the contract's invoices of 2024 (January to November
// paid, December unpaid) and January 2025 (unpaid), as the nightly run
// generated them by 2025-01-10.
func leaseInvoices() []TerminationInvoice {
	var out []TerminationInvoice
	for m := 1; m <= 11; m++ {
		out = append(out, monthInvoice(int64(m), NewMonth(2024, 1).Add(m-1).String(), InvoicePaid))
	}
	return append(out, monthInvoice(12, "2024-12", InvoiceOverdue), monthInvoice(13, "2025-01", InvoiceUnpaid))
}

func leaseInput(at string) TerminationInput {
	fine, deposit := fineItem, depositItem
	return TerminationInput{Contract: leaseContract(), Items: leaseItems, Invoices: leaseInvoices(), RentItemID: 1,
		At: MustDate(at), Requester: RequesterTenant, Today: MustDate("2024-12-20"),
		FineItem: &fine, DepositItem: &deposit, Parties: leaseParties}
}

// termination is the answer of Terminate in a comparable form.
type termination struct {
	status                ContractStatus
	reason                FineReason
	base, fine            string
	term, remaining       int
	canceled, open, after []int64
	final                 string // brief(Final), "" for none
	deposit, returned     string
	unserved, refund      string
	fineOwners            string
	due, description      string
}

func terminationOf(t Termination) termination {
	out := termination{status: t.Status, reason: t.Fine.Reason, base: t.Fine.Base.StringFixed(2), fine: t.Fine.Amount.StringFixed(2),
		term: t.Fine.TermDays, remaining: t.Fine.RemainingDays, canceled: t.Canceled, open: t.Open, after: t.PaidAfter,
		deposit: t.Deposit.Deducted.StringFixed(2), returned: t.Deposit.Returned.StringFixed(2), refund: t.RefundDue.StringFixed(2)}
	if t.Final != nil {
		out.final = brief(*t.Final)
		out.due, out.description = t.Final.DueDate.String(), t.Final.Description
	}
	if t.Unserved != nil {
		out.unserved = t.Unserved.Amount.StringFixed(2)
	}
	for _, o := range t.FineOwners {
		out.fineOwners += o.Amount.StringFixed(2) + " "
	}
	return out
}

// TestTerminateExamples: the examples of docs/finance.md, "Termination",
// with their numbers to the cent. The days are the calendar's: the term
// 2024-01-01 to 2026-06-30 has 366 + 365 + 181 = 912 days; terminated on
// 2024-12-31 (month 12 served) 546 are left (2025: 365, 2026 to June 30:
// 181), so 3 rents of 2,000.00 give 6,000.00 × 546 / 912 = 3,592.105… →
// 3,592.11 (by whole months it would be 6,000.00 × 18/30 = 3,600.00); on
// 2025-01-15, 381 days are served and 531 left: 6,000.00 × 531 / 912 =
// 3,493.421… → 3,493.42, and January's rent is 2,000.00 × 15/31 =
// 967.741… → 967.74.
func TestTerminateExamples(t *testing.T) {
	t.Parallel()
	deposit := func(in *TerminationInput) { in.Contract.SignalAmount = dec("2000.00") }
	cases := []struct {
		name   string
		at     string
		change func(*TerminationInput)
		want   termination
	}{
		{"T1 month 12, 3 rents", "2024-12-31", nil, termination{
			status: StatusTerminating, reason: FineEarlyReturn, base: "6000.00", fine: "3592.11", term: 912, remaining: 546,
			canceled: []int64{13}, open: []int64{12}, after: []int64{},
			final:   ".. due 2025-01-05 total 3592.11 [3:3592.11]",
			deposit: "0.00", returned: "0.00", refund: "0.00", fineOwners: "2155.27 1436.84 ",
			due: "2025-01-05", description: "Rescisão do contrato em 31/12/2024"}},
		{"T2 mid-month, deposit", "2025-01-15", deposit, termination{
			status: StatusTerminating, reason: FineEarlyReturn, base: "6000.00", fine: "3493.42", term: 912, remaining: 531,
			canceled: []int64{13}, open: []int64{12}, after: []int64{},
			final:   "2025-01-01..2025-01-15 due 2025-02-05 total 2811.16 [1:967.74 2:350.00 3:3493.42 4:-2000.00]",
			deposit: "2000.00", returned: "0.00", refund: "0.00", fineOwners: "2096.06 1397.36 ",
			due: "2025-02-05", description: "Rescisão do contrato em 15/01/2025"}},
		{"T3 exempt by the request", "2025-01-15", func(in *TerminationInput) { deposit(in); in.Exemption = true }, termination{
			status: StatusTerminating, reason: FineExempt, base: "6000.00", fine: "0.00", term: 912, remaining: 531,
			canceled: []int64{13}, open: []int64{12}, after: []int64{},
			final:   "2025-01-01..2025-01-15 due 2025-02-05 total 0.00 [1:967.74 2:350.00 4:-1317.74]",
			deposit: "1317.74", returned: "682.26", refund: "682.26",
			due: "2025-02-05", description: "Rescisão do contrato em 15/01/2025"}},
		{"T3' exempt by the contract", "2025-01-15", func(in *TerminationInput) { in.Contract.TerminationFeeExemption = true }, termination{
			status: StatusTerminating, reason: FineExempt, base: "6000.00", fine: "0.00", term: 912, remaining: 531,
			canceled: []int64{13}, open: []int64{12}, after: []int64{},
			final:   "2025-01-01..2025-01-15 due 2025-02-05 total 1317.74 [1:967.74 2:350.00]",
			deposit: "0.00", returned: "0.00", refund: "0.00",
			due: "2025-02-05", description: "Rescisão do contrato em 15/01/2025"}},
		{"T4 owner-requested", "2025-01-15", func(in *TerminationInput) { in.Requester = RequesterOwner }, termination{
			status: StatusTerminating, reason: FineOwnerRequested, base: "6000.00", fine: "0.00", term: 912, remaining: 531,
			canceled: []int64{13}, open: []int64{12}, after: []int64{},
			final:   "2025-01-01..2025-01-15 due 2025-02-05 total 1317.74 [1:967.74 2:350.00]",
			deposit: "0.00", returned: "0.00", refund: "0.00",
			due: "2025-02-05", description: "Rescisão do contrato em 15/01/2025"}},
		{"T5 mutual", "2025-01-15", func(in *TerminationInput) { in.Requester = RequesterMutual }, termination{
			status: StatusTerminating, reason: FineMutual, base: "6000.00", fine: "0.00", term: 912, remaining: 531,
			canceled: []int64{13}, open: []int64{12}, after: []int64{},
			final:   "2025-01-01..2025-01-15 due 2025-02-05 total 1317.74 [1:967.74 2:350.00]",
			deposit: "0.00", returned: "0.00", refund: "0.00",
			due: "2025-02-05", description: "Rescisão do contrato em 15/01/2025"}},
		{"T6 on the term's last day: June billed whole", "2026-06-30", func(in *TerminationInput) { in.Invoices = nil }, termination{
			status: StatusTerminating, reason: FineAfterTerm, base: "6000.00", fine: "0.00", term: 912, remaining: 0,
			canceled: []int64{}, open: []int64{}, after: []int64{},
			final:   "2026-06-01..2026-06-30 due 2026-07-05 total 2350.00 [1:2000.00 2:350.00]",
			deposit: "0.00", returned: "0.00", refund: "0.00",
			due: "2026-07-05", description: "Rescisão do contrato em 30/06/2026"}},
		{"T6' after the term: nothing to bill, the deposit returned", "2026-08-31",
			func(in *TerminationInput) { deposit(in); in.Invoices = nil }, termination{
				status: StatusTerminating, reason: FineAfterTerm, base: "6000.00", fine: "0.00", term: 912, remaining: 0,
				canceled: []int64{}, open: []int64{}, after: []int64{},
				deposit: "0.00", returned: "2000.00", refund: "2000.00"}},
		{"T7 no term", "2025-01-15", func(in *TerminationInput) { in.Contract.EndAt = Date{} }, termination{
			status: StatusTerminating, reason: FineNoTerm, base: "6000.00", fine: "0.00",
			canceled: []int64{13}, open: []int64{12}, after: []int64{},
			final:   "2025-01-01..2025-01-15 due 2025-02-05 total 1317.74 [1:967.74 2:350.00]",
			deposit: "0.00", returned: "0.00", refund: "0.00",
			due: "2025-02-05", description: "Rescisão do contrato em 15/01/2025"}},
		{"T8 a fine as an amount, a term from recurrency_amount", "2024-12-31", func(in *TerminationInput) {
			in.Contract.EndAt, in.Contract.RecurrencyAmount = Date{}, 30
			in.Contract.TerminationFee = decimal.NewNullDecimal(dec("5000.00"))
		}, termination{
			status: StatusTerminating, reason: FineEarlyReturn, base: "5000.00", fine: "2993.42", term: 912, remaining: 546,
			canceled: []int64{13}, open: []int64{12}, after: []int64{},
			final:   ".. due 2025-01-05 total 2993.42 [3:2993.42]",
			deposit: "0.00", returned: "0.00", refund: "0.00", fineOwners: "1796.06 1197.36 ",
			due: "2025-01-05", description: "Rescisão do contrato em 31/12/2024"}},
		{"T9 no fine set", "2024-12-31", func(in *TerminationInput) { in.Contract.TerminationFeeMonths = 0 }, termination{
			status: StatusTerminating, reason: FineNone, base: "0.00", fine: "0.00", term: 912, remaining: 546,
			canceled: []int64{13}, open: []int64{12}, after: []int64{},
			deposit: "0.00", returned: "0.00", refund: "0.00"}},
		{"T10 January paid ahead (pre), February paid too", "2025-01-15", func(in *TerminationInput) {
			in.Contract.BillingTiming = BillingPre
			in.Invoices = []TerminationInvoice{monthInvoice(13, "2025-01", InvoicePaid), monthInvoice(14, "2025-02", InvoicePaid),
				monthInvoice(15, "2025-03", InvoiceUnpaid)}
		}, termination{
			status: StatusTerminating, reason: FineEarlyReturn, base: "6000.00", fine: "3493.42", term: 912, remaining: 531,
			canceled: []int64{15}, open: []int64{}, after: []int64{14},
			final:   ".. due 2025-02-05 total 3493.42 [3:3493.42]",
			deposit: "0.00", returned: "0.00", unserved: "1032.26", refund: "3382.26", fineOwners: "2096.06 1397.36 ",
			due: "2025-02-05", description: "Rescisão do contrato em 15/01/2025"}},
		{"T11 terminated in the past: due on the next due day", "2024-12-31", func(in *TerminationInput) {
			in.Today = MustDate("2025-03-10")
		}, termination{
			status: StatusTerminated, reason: FineEarlyReturn, base: "6000.00", fine: "3592.11", term: 912, remaining: 546,
			canceled: []int64{13}, open: []int64{12}, after: []int64{},
			final:   ".. due 2025-04-05 total 3592.11 [3:3592.11]",
			deposit: "0.00", returned: "0.00", refund: "0.00", fineOwners: "2155.27 1436.84 ",
			due: "2025-04-05", description: "Rescisão do contrato em 31/12/2024"}},
		{"a renegotiated invoice is owed through its agreement, not kept open", "2024-12-31", func(in *TerminationInput) {
			in.Invoices[len(in.Invoices)-2].Status = InvoiceRenegotiated
		}, termination{
			status: StatusTerminating, reason: FineEarlyReturn, base: "6000.00", fine: "3592.11", term: 912, remaining: 546,
			canceled: []int64{13}, open: []int64{}, after: []int64{},
			final:   ".. due 2025-01-05 total 3592.11 [3:3592.11]",
			deposit: "0.00", returned: "0.00", refund: "0.00", fineOwners: "2155.27 1436.84 ",
			due: "2025-01-05", description: "Rescisão do contrato em 31/12/2024"}},
		{"T12 a fine of the business: no owner's share", "2024-12-31", func(in *TerminationInput) {
			in.FineItem = &TransactionItem{ID: 5, Debit: PartyCustomer, Credit: PartyBusiness}
		}, termination{
			status: StatusTerminating, reason: FineEarlyReturn, base: "6000.00", fine: "3592.11", term: 912, remaining: 546,
			canceled: []int64{13}, open: []int64{12}, after: []int64{},
			final:   ".. due 2025-01-05 total 3592.11 [5:3592.11]",
			deposit: "0.00", returned: "0.00", refund: "0.00",
			due: "2025-01-05", description: "Rescisão do contrato em 31/12/2024"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := leaseInput(c.at)
			if c.change != nil {
				c.change(&in)
			}
			got, err := Terminate(in)
			if err != nil {
				t.Fatal(err)
			}
			if g := terminationOf(got); !equalTermination(g, c.want) {
				t.Errorf("got\n%+v\nwant\n%+v", g, c.want)
			}
			if got.Final != nil && !sumLines(got.Final.Items).Equal(got.Final.Total) {
				t.Errorf("the final invoice's total %s is not the sum of its lines", got.Final.Total)
			}
		})
	}
}

func equalTermination(a, b termination) bool {
	return a.status == b.status && a.reason == b.reason && a.base == b.base && a.fine == b.fine && a.term == b.term &&
		a.remaining == b.remaining && slices.Equal(a.canceled, b.canceled) && slices.Equal(a.open, b.open) &&
		slices.Equal(a.after, b.after) && a.final == b.final && a.deposit == b.deposit && a.returned == b.returned &&
		a.unserved == b.unserved && a.refund == b.refund && a.fineOwners == b.fineOwners && a.due == b.due &&
		a.description == b.description
}

// TestTerminateProratesByThePeriodsDays: a period cut by the termination
// bills the rent by its days over the days of the period it was cut from,
// the actual days of that month or period, as the schedule prorates a
// period end_at cuts.
func TestTerminateProratesByThePeriodsDays(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		modality Modality
		start    string
		at       string
		want     string
	}{
		{"calendar month of 29 days", ModalityMonthly, "2024-01-01", "2024-02-10", "2024-02-01..2024-02-10 [1:689.66]"},    // 2000 × 10/29
		{"calendar month of 31 days", ModalityMonthly, "2024-01-01", "2024-03-31", "2024-03-01..2024-03-31 [1:2000.00]"},   // whole
		{"from the start day", ModalityStart, "2024-01-15", "2024-02-01", "2024-01-15..2024-02-01 [1:1161.29]"},            // 2000 × 18/31
		{"first period partial and cut", ModalityMonthly, "2024-01-10", "2024-01-20", "2024-01-10..2024-01-20 [1:709.68]"}, // 2000 × 11/31
	} {
		t.Run(c.name, func(t *testing.T) {
			in := leaseInput(c.at)
			in.Items, in.Invoices = nil, nil
			in.Contract.Modality, in.Contract.StartAt, in.Contract.TerminationFeeMonths = c.modality, MustDate(c.start), 0
			got, err := Terminate(in)
			if err != nil {
				t.Fatal(err)
			}
			if got.Final == nil {
				t.Fatal("no final invoice")
			}
			f := got.Final
			g := f.PeriodInitial.String() + ".." + f.PeriodFinal.String() + " [" + fmt.Sprint(f.Items[0].ItemID) + ":" + f.Items[0].Amount.StringFixed(2) + "]"
			if len(f.Items) != 1 || g != c.want {
				t.Errorf("%s, want %s", brief(*f), c.want)
			}
		})
	}
}

// TestTerminateBillsByTheProfile: the final invoice is billed to the
// tenant as the generated ones are, by the billing profile's method,
// the contract's own (how its owners are paid) only when the profile
// names none.
func TestTerminateBillsByTheProfile(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ profile, own, want string }{
		{"ticket", "ted", "ticket"},
		{"", "ted", "ted"},
	} {
		in := leaseInput("2024-12-31")
		in.Contract.ProfileMethod, in.Contract.BillingMethod = c.profile, c.own
		got, err := Terminate(in)
		if err != nil {
			t.Fatal(err)
		}
		if got.Final == nil || got.Final.BillingMethod != c.want {
			t.Errorf("profile %q, contract %q: final invoice %+v, want billing_method %q", c.profile, c.own, got.Final, c.want)
		}
	}
}

// TestTerminateProblems: what keeps a contract from being terminated is
// named by its field, every problem at once.
func TestTerminateProblems(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		change func(*TerminationInput)
		fields []string
	}{
		{"before the start", func(in *TerminationInput) { in.At = MustDate("2023-12-31") }, []string{"termination_at"}},
		{"no date", func(in *TerminationInput) { in.At = Date{} }, []string{"termination_at"}},
		{"unknown requester", func(in *TerminationInput) { in.Requester = "landlord" }, []string{"requester"}},
		{"already terminated", func(in *TerminationInput) { in.Contract.Status = StatusTerminated }, []string{"status"}},
		{"terminating", func(in *TerminationInput) { in.Contract.Status = StatusTerminating }, []string{"status"}},
		{"finished", func(in *TerminationInput) { in.Contract.Status = StatusFinished }, []string{"status"}},
		{"not active", func(in *TerminationInput) { in.Contract.Active = ActiveReserved }, []string{"active"}},
		{"a sale", func(in *TerminationInput) { in.Contract.Type, in.Contract.RecurrencyAmount = ContractSale, 30 }, []string{"type"}},
		{"no fine item", func(in *TerminationInput) { in.FineItem = nil }, []string{"termination_fee_item_id"}},
		{"a fine item not charging the payer", func(in *TerminationInput) {
			in.FineItem = &TransactionItem{ID: 6, Debit: PartyOwner, Credit: PartyBusiness}
		}, []string{"termination_fee_item_id"}},
		{"no deposit item", func(in *TerminationInput) { in.Contract.SignalAmount, in.DepositItem = dec("500"), nil },
			[]string{"termination_deposit_item_id"}},
		{"a boleto at the bank", func(in *TerminationInput) { in.Invoices[12].InBatch = true }, []string{"invoices"}},
		{"a building without owners", func(in *TerminationInput) { in.Parties.Owners = nil }, []string{"building_id"}},
		{"negative months", func(in *TerminationInput) { in.Contract.TerminationFeeMonths = -1 }, []string{"termination_fee_months"}},
		{"two at once", func(in *TerminationInput) { in.At, in.Requester = Date{}, "" }, []string{"requester", "termination_at"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := leaseInput("2024-12-31")
			c.change(&in)
			_, err := Terminate(in)
			var ps Problems
			if !errors.As(err, &ps) {
				t.Fatalf("err %v, want Problems", err)
			}
			var fields []string
			for _, p := range ps {
				fields = append(fields, p.Field)
			}
			if !slices.Equal(fields, c.fields) {
				t.Errorf("problems %v, want fields %v", ps, c.fields)
			}
		})
	}
}

// TestScheduleStopsAtTermination: a terminating or terminated contract is
// billed up to the installment before the one whose periods reach
// termination_at (the final invoice's); termination_at alone, on a
// contract in progress, stops nothing; a terminated contract without it
// is not billed.
func TestScheduleStopsAtTermination(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		status ContractStatus
		at     string
		last   string // the last period scheduled, "" for none
		skip   SkipReason
	}{
		{StatusTerminating, "2025-01-15", "2024-12-01..2024-12-31", ""},
		{StatusTerminated, "2025-01-15", "2024-12-01..2024-12-31", ""},
		{StatusTerminating, "2024-12-31", "2024-11-01..2024-11-30", ""},
		{StatusProgress, "2025-01-15", "2026-06-01..2026-06-30", ""},
		{StatusTerminated, "", "", SkipFinished},
	} {
		k := leaseContract()
		k.Status = c.status
		if c.at != "" {
			k.TerminationAt = MustDate(c.at)
		}
		s, err := ScheduleInvoices(ScheduleInput{Contract: k, RentItemID: 1, Until: MustDate("2027-12-31")})
		if err != nil {
			t.Fatal(err)
		}
		last := ""
		if n := len(s.Invoices); n > 0 {
			last = s.Invoices[n-1].PeriodInitial.String() + ".." + s.Invoices[n-1].PeriodFinal.String()
		}
		if last != c.last || s.Skip != c.skip {
			t.Errorf("%s at %q: last %q skip %q, want %q %q", c.status, c.at, last, s.Skip, c.last, c.skip)
		}
	}
}
