package finance

import (
	"fmt"
	"testing"
)

// TestDeclaredAs: an owner's entry is declared by its item's type, its
// owner_report aside; an item of another type only with dimob, as the
// administration fee when the business is on a side.
func TestDeclaredAs(t *testing.T) {
	t.Parallel()
	item := func(debit, credit Party, typ TransactionItemType, dimob bool) TransactionItem {
		return TransactionItem{Debit: debit, Credit: credit, Type: typ, Dimob: dimob}
	}
	for _, c := range []struct {
		name string
		item TransactionItem
		want Declared
	}{
		{"the rent", item(PartyCustomer, PartyOwner, TxItemRent, true), DeclaredRent},
		{"the rent, without dimob", item(PartyCustomer, PartyOwner, TxItemRent, false), DeclaredRent},
		{"the late fee and interest", item(PartyCustomer, PartyOwner, TxItemFee, true), DeclaredRent},
		{"the late fee and interest, without dimob", item(PartyCustomer, PartyOwner, TxItemFee, false), DeclaredRent},
		{"a punctuality discount the owner bears", item(PartyOwner, PartyCustomer, TxItemDiscount, false), DeclaredRent},
		{"the late fee passed on to the business (type fee)", item(PartyOwner, PartyBusiness, TxItemFee, false), DeclaredRent},
		{"the administration fee", item(PartyOwner, PartyBusiness, TxItemCommission, false), DeclaredCommission},
		{"the letting fee", item(PartyOwner, PartyBusiness, TxItemSingleCommission, true), DeclaredCommission},
		{"the IRRF withheld", item(PartyOwner, PartyCustomer, TxItemDuty, false), DeclaredTax},
		{"an administration fee of type default with dimob", item(PartyOwner, PartyBusiness, TxItemDefault, true), DeclaredCommission},
		{"a charge of type default with dimob", item(PartyCustomer, PartyOwner, TxItemDefault, true), DeclaredRent},
		{"the condominium", item(PartyCustomer, PartyOwner, TxItemDefault, false), Undeclared},
		{"a repair debited to the owner, credited to the business", item(PartyOwner, PartyBusiness, TxItemDefault, false), Undeclared},
		{"the IPTU", item(PartyCustomer, PartyOwner, TxItemIPTU, false), Undeclared},
		{"a tariff", item(PartyOwner, PartyBusiness, TxItemTariff, false), Undeclared},
		{"no item", TransactionItem{}, Undeclared},
	} {
		for _, report := range []bool{false, true} {
			it := c.item
			it.OwnerReport = report
			if got := DeclaredAs(it); got != c.want {
				t.Errorf("%s (owner_report %v): %d, want %d", c.name, report, got, c.want)
			}
		}
	}
	if fmt.Sprint(DeclaredModes) != "[invoice chargeback]" {
		t.Errorf("declared modes %v", DeclaredModes)
	}
}
