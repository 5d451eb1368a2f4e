package storage

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/propfin/propfin/finance"
)

// The collection remittance layouts an account may have, and why an
// account cannot send collection remittances (BatchType.AccountProblems of
// TicketBatch).

// remittanceLayouts are the banks and layouts package cnab writes
// collection remittances for, as an account names them (bank code and
// layout), each with the account columns its layout requires (the
// beneficiary's fields the bank's header and titles carry): the batches
// of an account must be writable. Package jobs's tests hold this table to
// cnab.Supported() and cnab.Required().
var remittanceLayouts = map[string]map[string][]string{
	"001": {
		"cnab240": {"agency", "agency_digit", "account", "account_digit", "wallet", "wallet_variation", "covenant"},
		"cnab400": {"agency", "agency_digit", "account", "account_digit", "wallet", "wallet_variation", "covenant"},
	},
	"033": {
		"cnab240": {"agency", "account", "account_digit", "wallet", "covenant", "transmission_code"},
		"cnab400": {"agency", "account", "account_digit", "wallet", "covenant", "transmission_code"},
	},
	"041": {
		"cnab240": {"agency", "account", "account_digit", "covenant"},
		"cnab400": {"agency", "covenant"},
	},
	"104": {
		"cnab240": {"agency", "agency_digit", "covenant"},
	},
	"237": {
		"cnab240": {"agency", "agency_digit", "account", "account_digit", "wallet", "covenant"},
		"cnab400": {"agency", "account", "account_digit", "wallet", "covenant"},
	},
	"341": {
		"cnab240": {"agency", "account", "account_digit", "wallet"},
		"cnab400": {"agency", "account", "account_digit", "wallet"},
	},
	"748": {
		"cnab240": {"agency", "account", "account_digit", "covenant", "station"},
		"cnab400": {"agency", "covenant", "station"},
	},
	"756": {
		"cnab240": {"agency", "agency_digit", "account", "account_digit", "covenant"},
		"cnab400": {"agency", "agency_digit", "account", "account_digit", "covenant"},
	},
}

// RemittanceLayouts lists the bank and layout pairs a collection batch's
// account may have, as "341/400", sorted.
func RemittanceLayouts() []string {
	var out []string
	for bank, layouts := range remittanceLayouts {
		for l := range layouts {
			out = append(out, bank+"/"+strings.TrimPrefix(l, "cnab"))
		}
	}
	slices.Sort(out)
	return out
}

// RemittanceRequired lists the account columns a collection account of
// bank in layout must have set (nil for a pair not written).
func RemittanceRequired(bank, layout string) []string {
	return slices.Clone(remittanceLayouts[bank][layout])
}

// remittanceAccountProblems says why an account cannot send collection
// remittances, by the column to fix: its bank and layout must be a pair
// written here, with the columns that layout requires; none when it can.
func remittanceAccountProblems(a AccountTerms) []finance.Problem {
	bank, layout := a.Get("bank"), a.Get("layout")
	layouts, known := remittanceLayouts[bank]
	switch {
	case bank == "" || layout == "":
		field := "bank"
		if bank != "" {
			field = "layout"
		}
		return []finance.Problem{{Field: field, Message: "the account needs its bank and its layout (cnab240 or cnab400) to send a remittance"}}
	case !known:
		return []finance.Problem{{Field: "bank", Message: fmt.Sprintf("bank %s has no collection remittance layout here; the banks are %s",
			bank, strings.Join(sortedBanks(), ", "))}}
	case layouts[layout] == nil:
		return []finance.Problem{{Field: "layout", Message: fmt.Sprintf("bank %s takes collection remittances in %s, not %s",
			bank, strings.Join(slices.Sorted(maps.Keys(layouts)), ", "), layout)}}
	}
	var ps []finance.Problem
	for _, col := range layouts[layout] {
		if a.Get(col) == "" {
			ps = append(ps, finance.Problem{Field: col, Message: fmt.Sprintf("required: bank %s's collection remittances in %s carry it", bank, layout)})
		}
	}
	return ps
}

func sortedBanks() []string {
	return slices.Sorted(maps.Keys(remittanceLayouts))
}
