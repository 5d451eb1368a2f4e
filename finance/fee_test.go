package finance

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

var (
	feeTxItem   = TransactionItem{ID: 5, Debit: PartyOwner, Credit: PartyBusiness, Type: TxItemCommission}
	condoTxItem = TransactionItem{ID: 2, Debit: PartyCustomer, Credit: PartyOwner}
	irrfTxItem  = TransactionItem{ID: 6, Debit: PartyOwner, Credit: PartyCustomer, Type: TxItemDuty}
)

// irrf is a contract item of a fixed 474.46 booked as irrfTxItem: the
// income tax a tenant company withholds on a rent of 8,000.00 of two
// owners at 50% (237.23 each, the monthly table of Lei 14.848/2024).
func irrf() ContractItem {
	item := irrfTxItem
	return ContractItem{Mode: ItemModeItem, ItemID: item.ID, Description: "IRRF retido", CalculateMode: CalculateFixed,
		Amount: dec("474.46"), Item: &item}
}

// TestScheduleWithholding: a contract item of an owner → customer item
// (the IRRF a tenant company withholds) is a line of every invoice it
// applies to, taken off the total; with the administration fee, the fee
// stays out of the total and is of the gross rent; a fixed withholding is
// not prorated; one the rent cannot cover is refused, not issued with a
// negative total. docs/finance.md, "Amounts".
func TestScheduleWithholding(t *testing.T) {
	t.Parallel()
	rent8000 := func(c *Contract) {
		c.Amount, c.StartAt, c.DueDate, c.DueDay = dec("8000.00"), MustDate("2025-01-01"), MustDate("2025-01-10"), 10
	}
	tests := []struct {
		name   string
		edit   func(*Contract)
		items  []ContractItem
		until  string
		expect []string
	}{
		{"rent 8,000.00, IRRF 474.46", rent8000, []ContractItem{irrf()}, "2025-02-10", []string{
			"2025-01-01..2025-01-31 due 2025-01-10 total 7525.54 [1:8000.00 6:474.46]",
			"2025-02-01..2025-02-28 due 2025-02-10 total 7525.54 [1:8000.00 6:474.46]",
		}},
		{"with the fee and a condominium", rent8000, []ContractItem{adminFee(ItemModeItem), irrf(),
			{ItemID: 2, Description: "Condomínio", CalculateMode: CalculateFixed, Amount: dec("350.00"), Item: &condoTxItem}}, "2025-01-10",
			[]string{"2025-01-01..2025-01-31 due 2025-01-10 total 7875.54 [1:8000.00 5:800.00 6:474.46 2:350.00]"}},
		{"a percentage of the rent follows the proration", func(c *Contract) {
			rent8000(c)
			c.StartAt, c.DueDate = MustDate("2025-01-16"), MustDate("2025-01-16")
		}, []ContractItem{func() ContractItem {
			it := irrf()
			it.CalculateMode, it.Percentage, it.PercentageMode = CalculatePercentage, dec("5.9308"), PercentRentalValue
			return it
		}()}, "2025-02-10", []string{
			// 8,000.00 × 16/31 = 4,129.03; 5.9308% of it 244.883… → 244.88
			"2025-01-16..2025-01-31 due 2025-01-16 total 3884.15 [1:4129.03 6:244.88]",
			"2025-02-01..2025-02-28 due 2025-02-10 total 7525.54 [1:8000.00 6:474.46]",
		}},
		{"a fixed withholding is not prorated", func(c *Contract) {
			rent8000(c)
			c.StartAt, c.DueDate = MustDate("2025-01-16"), MustDate("2025-01-16")
		}, []ContractItem{irrf()}, "2025-01-16", []string{"2025-01-16..2025-01-31 due 2025-01-16 total 3654.57 [1:4129.03 6:474.46]"}},
		{"months of the withholding: to January", rent8000, []ContractItem{func() ContractItem {
			it := irrf()
			it.EndAt = MustDate("2025-01-31")
			return it
		}()}, "2025-02-10", []string{
			"2025-01-01..2025-01-31 due 2025-01-10 total 7525.54 [1:8000.00 6:474.46]",
			"2025-02-01..2025-02-28 due 2025-02-10 total 8000.00 [1:8000.00]",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := rentContract()
			tc.edit(&c)
			got := briefs(schedule(t, c, tc.items, nil, tc.until))
			if !slices.Equal(got, tc.expect) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.expect, "\n"))
			}
		})
	}
	t.Run("more withheld than charged", func(t *testing.T) {
		c := rentContract()
		rent8000(&c)
		it := irrf()
		it.Amount = dec("8000.01")
		_, err := ScheduleInvoices(ScheduleInput{Contract: c, Items: []ContractItem{it}, RentItemID: 1, Until: MustDate("2025-01-10")})
		var ps Problems
		if !errors.As(err, &ps) || len(ps) != 1 || ps[0].Field != "items" ||
			!strings.Contains(ps[0].Message, "would charge the payer -0.01: its withholdings") {
			t.Errorf("got %v, want a problem on items naming the total -0.01", err)
		}
	})
}

// adminFee is a contract item of 10% of the rent booked as feeTxItem.
func adminFee(mode ItemMode) ContractItem {
	item := feeTxItem
	return ContractItem{Mode: mode, ItemID: item.ID, Description: "Taxa de administração", CalculateMode: CalculatePercentage,
		Percentage: dec("10"), PercentageMode: PercentRentalValue, Item: &item}
}

// TestScheduleAdministrationFee: a contract item of an owner → business
// item is a line of every invoice it applies to, 10% of the rent line
// (prorated with it, rounded to the cent), and not in the invoice's total;
// whatever its mode. docs/ledger.md, "Worked example".
func TestScheduleAdministrationFee(t *testing.T) {
	t.Parallel()
	condo := ContractItem{ItemID: 2, Description: "Condomínio", CalculateMode: CalculateFixed, Amount: dec("350.00"), Item: &condoTxItem}
	rent2000 := func(c *Contract) {
		c.Amount, c.StartAt, c.DueDate = dec("2000.00"), MustDate("2024-03-01"), MustDate("2024-03-10")
	}
	tests := []struct {
		name   string
		edit   func(*Contract)
		items  []ContractItem
		until  string
		expect []string
	}{
		{"the worked example: rent, condominium, 10% fee", rent2000, []ContractItem{condo, adminFee(ItemModeItem)}, "2024-03-10",
			[]string{"2024-03-01..2024-03-31 due 2024-03-10 total 2350.00 [1:2000.00 2:350.00 5:200.00]"}},
		{"declared as mode commission", rent2000, []ContractItem{condo, adminFee(ItemModeCommission)}, "2024-03-10",
			[]string{"2024-03-01..2024-03-31 due 2024-03-10 total 2350.00 [1:2000.00 2:350.00 5:200.00]"}},
		{"declared as mode service, no percentage_mode", rent2000, []ContractItem{condo, func() ContractItem {
			it := adminFee(ItemModeService)
			it.PercentageMode = ""
			return it
		}()}, "2024-03-10", []string{"2024-03-01..2024-03-31 due 2024-03-10 total 2350.00 [1:2000.00 2:350.00 5:200.00]"}},
		{"a fixed fee", rent2000, []ContractItem{condo, func() ContractItem {
			it := adminFee(ItemModeItem)
			it.CalculateMode, it.Amount = CalculateFixed, dec("150.00")
			return it
		}()}, "2024-03-10", []string{"2024-03-01..2024-03-31 due 2024-03-10 total 2350.00 [1:2000.00 2:350.00 5:150.00]"}},
		{"an odd rent: 10% of 1,859.13 = 185.913 → 185.91", func(c *Contract) { rent2000(c); c.Amount = dec("1859.13") },
			[]ContractItem{adminFee(ItemModeItem)}, "2024-03-10",
			[]string{"2024-03-01..2024-03-31 due 2024-03-10 total 1859.13 [1:1859.13 5:185.91]"}},
		{"half a cent rounds up: 10% of 1,500.05 = 150.005 → 150.01", func(c *Contract) { rent2000(c); c.Amount = dec("1500.05") },
			[]ContractItem{adminFee(ItemModeItem)}, "2024-03-10",
			[]string{"2024-03-01..2024-03-31 due 2024-03-10 total 1500.05 [1:1500.05 5:150.01]"}},
		// S1's contract: 1,500.00 from 2024-01-15, proportional
		{"a prorated first month: the fee follows the rent", nil, []ContractItem{adminFee(ItemModeItem)}, "2024-02-05", []string{
			"2024-01-15..2024-01-31 due 2024-01-15 total 822.58 [1:822.58 5:82.26]",
			"2024-02-01..2024-02-29 due 2024-02-05 total 1500.00 [1:1500.00 5:150.00]",
		}},
		{"a unified first invoice: the fee of each period", func(c *Contract) { c.UnifyFirstInvoice = true },
			[]ContractItem{adminFee(ItemModeItem)}, "2024-01-15",
			[]string{"2024-01-15..2024-02-29 due 2024-01-15 total 2322.58 [1:2322.58 5:232.26]"}},
		{"months of the fee: from March", nil, []ContractItem{func() ContractItem {
			it := adminFee(ItemModeItem)
			it.StartAt = MustDate("2024-03-01")
			return it
		}()}, "2024-03-05", []string{
			"2024-01-15..2024-01-31 due 2024-01-15 total 822.58 [1:822.58]",
			"2024-02-01..2024-02-29 due 2024-02-05 total 1500.00 [1:1500.00]",
			"2024-03-01..2024-03-31 due 2024-03-05 total 1500.00 [1:1500.00 5:150.00]",
		}},
		{"a commission of another item is still not billed", rent2000, []ContractItem{{Mode: ItemModeCommission, ItemID: 2,
			CalculateMode: CalculatePercentage, Percentage: dec("10"), Item: &condoTxItem}}, "2024-03-10",
			[]string{"2024-03-01..2024-03-31 due 2024-03-10 total 2000.00 [1:2000.00]"}},
		{"a fee's share of a commission base is not billed", rent2000, []ContractItem{func() ContractItem {
			it := adminFee(ItemModeCommission)
			it.PercentageMode = PercentRecurringCommission
			return it
		}()}, "2024-03-10", []string{"2024-03-01..2024-03-31 due 2024-03-10 total 2000.00 [1:2000.00]"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := rentContract()
			if tc.edit != nil {
				tc.edit(&c)
			}
			got := briefs(schedule(t, c, tc.items, nil, tc.until))
			if !slices.Equal(got, tc.expect) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.expect, "\n"))
			}
		})
	}
}

// TestContractItemLineProblem: the lines a contract's invoices may carry
// charge the payer or are an administration fee; anything else is named.
func TestContractItemLineProblem(t *testing.T) {
	t.Parallel()
	fee := adminFee(ItemModeItem)
	share := adminFee(ItemModeCommission)
	share.PercentageMode = PercentFirstCommission
	tests := []struct {
		name string
		it   ContractItem
		item TransactionItem
		want string // in the problem; "" for none
	}{
		{"charges the payer", ContractItem{}, condoTxItem, ""},
		{"an administration fee", fee, feeTxItem, ""},
		{"business to owner", ContractItem{}, TransactionItem{ID: 8, Debit: PartyBusiness, Credit: PartyOwner},
			"transaction item 8 debits business and credits owner: a line of the contract's invoices must charge the payer"},
		{"owner to broker", ContractItem{}, TransactionItem{ID: 8, Debit: PartyOwner, Credit: PartyBroker}, "debits owner and credits broker"},
		{"a withholding the owners bear (IRRF)", ContractItem{}, irrfTxItem, ""},
		{"business to customer", ContractItem{}, TransactionItem{ID: 8, Debit: PartyBusiness, Credit: PartyCustomer},
			"transaction item 8 debits business and credits customer: a line of the contract's invoices must charge the payer"},
		{"broker to customer", ContractItem{}, TransactionItem{ID: 8, Debit: PartyBroker, Credit: PartyCustomer}, "debits broker and credits customer"},
		{"customer to customer", ContractItem{}, TransactionItem{ID: 8, Debit: PartyCustomer, Credit: PartyCustomer}, "debits customer and credits customer"},
		{"no credit party", ContractItem{}, TransactionItem{ID: 8, Debit: PartyCustomer}, "needs both a debit and a credit party"},
		{"a fee as a share of a commission", share, feeTxItem, "percentage_mode must be rental_value or empty, not first_commission"},
	}
	for _, tc := range tests {
		got := tc.it.LineProblem(tc.item)
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want …%s…", tc.name, got, tc.want)
		}
	}
}

// TestTerminateChargesTheFee: the final invoice carries the fee on the
// prorated last rent, outside its total; the deposit is deducted from
// what the invoice charges, never from the fee.
func TestTerminateChargesTheFee(t *testing.T) {
	t.Parallel()
	in := leaseInput("2025-01-15")
	in.Items = append(slices.Clone(leaseItems), adminFee(ItemModeItem))
	got, err := Terminate(in)
	if err != nil {
		t.Fatal(err)
	}
	// 967.74 + 350.00 + 3,493.42 = 4,811.16; the fee 10% of 967.74 = 96.774 → 96.77
	if b := brief(*got.Final); b != "2025-01-01..2025-01-15 due 2025-02-05 total 4811.16 [1:967.74 2:350.00 5:96.77 3:3493.42]" {
		t.Errorf("final invoice %s", b)
	}
	in.Contract.SignalAmount = dec("5000.00")
	got, err = Terminate(in)
	if err != nil {
		t.Fatal(err)
	}
	if b := brief(*got.Final); b != "2025-01-01..2025-01-15 due 2025-02-05 total 0.00 [1:967.74 2:350.00 5:96.77 3:3493.42 4:-4811.16]" ||
		got.Deposit.Returned.StringFixed(2) != "188.84" {
		t.Errorf("final invoice %s, deposit returned %s; want the deposit to cover 4,811.16 and return 188.84", b, got.Deposit.Returned)
	}
}

// TestTerminateTakesTheWithholdingOff: the final invoice carries a
// withholding item's line, taken off its total and off what the deposit
// is deducted from.
func TestTerminateTakesTheWithholdingOff(t *testing.T) {
	t.Parallel()
	in := leaseInput("2025-01-15")
	in.Items = append(slices.Clone(leaseItems), irrf())
	got, err := Terminate(in)
	if err != nil {
		t.Fatal(err)
	}
	// 967.74 + 350.00 + 3,493.42 − 474.46 = 4,336.70
	if b := brief(*got.Final); b != "2025-01-01..2025-01-15 due 2025-02-05 total 4336.70 [1:967.74 2:350.00 6:474.46 3:3493.42]" {
		t.Errorf("final invoice %s", b)
	}
	in.Contract.SignalAmount = dec("5000.00")
	got, err = Terminate(in)
	if err != nil {
		t.Fatal(err)
	}
	if b := brief(*got.Final); b != "2025-01-01..2025-01-15 due 2025-02-05 total 0.00 [1:967.74 2:350.00 6:474.46 3:3493.42 4:-4336.70]" ||
		got.Deposit.Returned.StringFixed(2) != "663.30" {
		t.Errorf("final invoice %s, deposit returned %s; want the deposit to cover 4,336.70 and return 663.30", b, got.Deposit.Returned)
	}
}
