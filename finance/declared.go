package finance

// An owner's rent income as the informe de rendimentos and the DIMOB both
// declare it (docs/ledger.md, "Rent income: one rule for the informe and
// the DIMOB"). The owner fills the income-tax return from the informe and
// the Receita crosses it with the DIMOB, so the two give the same amounts
// for the same owner, contract and month: they count the same entries, as
// the same figure, on the same day. Storage reads by this rule (the
// entries' modes, the items' figures) and dates the entries by the day
// the tenant paid.

// Declared is which figure of an owner's rent income an entry adds to.
type Declared int

// The figures, as the informe names them (the DIMOB's rent, commission and
// tax withheld).
const (
	// Undeclared: no rent income (the condominium and the IPTU the tenant
	// reimburses, repairs, tariffs).
	Undeclared Declared = iota
	// DeclaredRent is the rent the tenant paid: the rent, the late fee and
	// interest on it (taxed with the rent), less a punctuality discount
	// the owner bears.
	DeclaredRent
	// DeclaredCommission is the administration fee taken from it.
	DeclaredCommission
	// DeclaredTax is the income tax a tenant company withheld from it.
	DeclaredTax
)

// DeclaredModes are the modes of the owner's entries that count: a
// tenant's payment (invoice) and what undoes it (chargeback: a reversal, a
// refund). Left out: the guaranteed rent the business advances
// (guaranteed_rent) and the entries that settle it (guaranteed_transfer_id
// set: the business recovering its money), transfers, brokers'
// commissions, and entries written by hand (transaction), which are no
// payment of the tenant's.
var DeclaredModes = []EntryMode{ModeInvoice, ModeChargeback}

// DeclaredAs is the figure an owner's entry of item adds to, by the item's
// type: duty is the tax withheld; commission and single_commission the
// administration fee; rent, fee and discount the rent. An item of any
// other type (default, iptu, tariff) is declared only when the company
// marked it dimob: as the administration fee when the business is on one
// of its sides, else as rent. The item's owner_report says whether the
// owner's statement lists its entries; it changes neither what the owner
// received nor what is declared.
func DeclaredAs(item TransactionItem) Declared {
	switch item.Type {
	case TxItemDuty:
		return DeclaredTax
	case TxItemCommission, TxItemSingleCommission:
		return DeclaredCommission
	case TxItemRent, TxItemFee, TxItemDiscount:
		return DeclaredRent
	}
	switch {
	case !item.Dimob:
		return Undeclared
	case item.Debit == PartyBusiness || item.Credit == PartyBusiness:
		return DeclaredCommission
	}
	return DeclaredRent
}
