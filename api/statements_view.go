package api

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/propfin/propfin/api/statement"
	rules "github.com/propfin/propfin/finance/statement"
	"github.com/propfin/propfin/storage"
)

// A closed statement (finance/statement's lines, as storage reads them)
// as the page's view model (api/statement's OwnerStatement). The two
// vocabularies: a stored line's section is where the close put it
// (income, deductions, guarantee, transfers, adjustments); the page's
// sections are the owner's contracts and buildings, and its line kinds
// what each line is:
//
//	income       received
//	deductions   deduction
//	guarantee    guaranteed_advanced when it credits the owner (the advance,
//	             or a recovery reversed), guaranteed_recovered when it debits
//	             (the recovery, or an advance reversed)
//	transfers    transfer, with the destination read back from its text
//	adjustments  adjustment, correcting its month
//
// The lines left out of the report are in the balance (closing = opening
// + every line, hidden ones included), so Hidden.InBalance is true. The
// page's totals must equal the stored ones: a statement whose lines do
// not add up to its stored totals is refused, not shown.

// ownerStatementOf is the page's view of a closed statement. It is
// headed by the business whose books it states, with its CNPJ: the legal
// entity that administers the owner's property and holds the owner's
// money, and the one that issues the statement; a statement of entries of
// no business is headed by the company's name.
func ownerStatementOf(p storage.StatementPage) (statement.OwnerStatement, error) {
	issuer := statement.Party{Name: p.CompanyName}
	if p.BusinessName != "" {
		issuer = statement.Party{Name: p.BusinessName, TaxID: p.BusinessTaxID}
	}
	doc := statement.OwnerStatement{
		Company:  issuer,
		Owner:    statement.Party{Name: p.OwnerName, TaxID: p.OwnerTaxID},
		Month:    p.Month.String(),
		ClosedAt: p.ClosedOn.Time(),
		Opening:  statement.Cents(p.Opening),
		Closing:  statement.Cents(p.Closing),
		Hidden: statement.Hidden{Count: p.Totals.HiddenCount, Amount: statement.Cents(p.Totals.HiddenCents),
			InBalance: true},
	}
	sections := map[placeKey]int{}
	var keys []placeKey
	for i, l := range p.Lines {
		line, err := statementLineOf(l)
		if err != nil {
			return doc, fmt.Errorf("line %d (%q): %w", i+1, l.Description, err)
		}
		key := placeOf(l)
		n, ok := sections[key]
		if !ok {
			n = len(doc.Sections)
			sections[key] = n
			keys = append(keys, key)
			doc.Sections = append(doc.Sections, placeSection(p, key, l.BuildingID))
		}
		doc.Sections[n].Lines = append(doc.Sections[n].Lines, line)
	}
	order := make([]int, len(keys))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return keys[a].compare(keys[b]) })
	sorted := make([]statement.Section, len(order))
	for i, n := range order {
		sorted[i] = doc.Sections[n]
	}
	doc.Sections = sorted
	return doc, reconcile(doc, p.Totals)
}

// statementLineOf is a stored line in the page's kinds.
func statementLineOf(l rules.Line) (statement.Line, error) {
	out := statement.Line{Date: l.Date.Time(), Description: l.Description, Amount: statement.Cents(l.Cents)}
	switch l.Section {
	case rules.Income:
		out.Kind = statement.Received
	case rules.Deductions:
		out.Kind = statement.Deduction
	case rules.Guarantee:
		out.Kind = statement.GuaranteedAdvanced
		if l.Cents < 0 {
			out.Kind = statement.GuaranteedRecovered
		}
	case rules.Transfers:
		out.Kind = statement.Transfer
		if l.Destination != "" {
			payee, ok := rules.ParseDestination(l.Destination)
			if !ok {
				return out, fmt.Errorf("transfer destination %q is not one the close writes", l.Destination)
			}
			out.Transfer = &statement.Destination{PixKey: payee.PixKey, Bank: payee.Bank,
				Branch: withCheckDigit(payee.Agency, payee.AgencyDigit), Account: withCheckDigit(payee.Account, payee.AccountDigit)}
		}
	case rules.Adjustments:
		out.Kind, out.Corrects = statement.Adjustment, l.CorrectsMonth.String()
	default:
		return out, fmt.Errorf("section %q is unknown", l.Section)
	}
	return out, nil
}

func withCheckDigit(n, digit string) string {
	if n == "" || digit == "" {
		return n
	}
	return n + "-" + digit
}

// placeKey is the contract, else the building, a line is shown under;
// neither is the section of the lines that name no property.
type placeKey struct{ contract, building int64 }

func placeOf(l rules.Line) placeKey {
	if l.ContractID != 0 {
		return placeKey{contract: l.ContractID}
	}
	return placeKey{building: l.BuildingID}
}

// compare orders the sections: contracts, then buildings, by id; the
// lines of no property last.
func (k placeKey) compare(o placeKey) int {
	rank := func(k placeKey) int {
		switch {
		case k.contract != 0:
			return 0
		case k.building != 0:
			return 1
		}
		return 2
	}
	return cmp.Or(cmp.Compare(rank(k), rank(o)), cmp.Compare(k.contract, o.contract), cmp.Compare(k.building, o.building))
}

// placeSection is the heading of the section of key: the contract's
// number and its building's title ("Contrato 1001 · Edifício Aurora"),
// the building's address and the tenant; a building alone by its title;
// "Outros lançamentos" for the lines of no property. building is the
// building named by the section's first line, for a contract without one.
func placeSection(p storage.StatementPage, key placeKey, building int64) statement.Section {
	if key.contract == 0 && key.building == 0 {
		return statement.Section{Title: "Outros lançamentos"}
	}
	var sec statement.Section
	if key.contract != 0 {
		c, ok := p.Contracts[key.contract]
		number := key.contract
		if ok && c.Number != 0 {
			number = c.Number
		}
		sec.Title, sec.Tenant = "Contrato "+strconv.FormatInt(number, 10), c.TenantName
		if c.BuildingID != 0 {
			building = c.BuildingID
		}
	} else {
		building = key.building
	}
	b, ok := p.Buildings[building]
	if ok {
		sec.Address = addressText(b.Address)
	}
	switch {
	case key.contract == 0 && b.Title != "":
		sec.Title = b.Title
	case key.contract == 0:
		sec.Title = "Imóvel " + strconv.FormatInt(building, 10)
	case b.Title != "":
		sec.Title += " · " + b.Title
	}
	return sec
}

// addressText writes an address on one line: "Rua das Flores, 10, ap. 31
// - Centro, São Paulo/SP, CEP 01310-100"; the parts it lacks are left out.
func addressText(a storage.Address) string {
	join := func(sep string, parts ...string) string {
		var out []string
		for _, p := range parts {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
		return strings.Join(out, sep)
	}
	city := join("/", a.City, a.State)
	zip := a.ZipCode
	if len(zip) == 8 {
		zip = "CEP " + zip[:5] + "-" + zip[5:]
	}
	return join(", ", join(" - ", join(", ", a.Street, a.Number, a.Complement), a.District), city, zip)
}

// reconcile checks that the page adds up to what the close stored: its
// closing balance (statement.OwnerStatement.Totals), each stored section's
// total from the page's kinds, and the number of lines shown.
func reconcile(doc statement.OwnerStatement, stored rules.Totals) error {
	t, err := doc.Totals()
	if err != nil {
		return err
	}
	kind := map[statement.LineKind]int64{}
	for _, k := range t.Kinds {
		kind[k.Kind] = int64(k.Amount)
	}
	page := rules.Totals{Income: kind[statement.Received], Deductions: kind[statement.Deduction],
		Guarantee: kind[statement.GuaranteedAdvanced] + kind[statement.GuaranteedRecovered],
		Transfers: kind[statement.Transfer], Adjustments: kind[statement.Adjustment], Shown: t.Lines,
		HiddenCount: stored.HiddenCount, HiddenCents: stored.HiddenCents}
	if page != stored {
		return fmt.Errorf("the statement's lines add up to %+v, its stored totals are %+v", page, stored)
	}
	return nil
}
