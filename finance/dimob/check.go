package dimob

import (
	"fmt"
	"strings"

	"github.com/shopspring/decimal"
)

// Options holds what the package needs from its caller.
type Options struct {
	// ValidTaxID reports whether a bare CPF (11 digits) or CNPJ (14
	// characters) has the right check digits: pix.ValidTaxID, the one
	// CPF/CNPJ rule of propfin. It is required.
	ValidTaxID func(string) bool
}

// Bounds of the layout.
const (
	maxRecords     = 9_999_999 // the 7-digit sequence of R02 and R04
	firstYear      = 2000      // a sanity bound on the calendar year
	firstLeaseYear = 1950      // the program's oldest rental contract date
	nameWidth      = 60
	addressWidth   = 60
	declarantAddr  = 120
	contractWidth  = 6
	receiptWidth   = 10
	notResident    = "NDP" // a tenant not resident in Brazil (CPF/CNPJ 2 fields)
)

// maxAmount is the first amount an R$ field cannot hold: 12 digits of
// reais and 2 of cents.
var maxAmount = decimal.New(1, 12)

var monthNames = [12]string{"January", "February", "March", "April", "May", "June",
	"July", "August", "September", "October", "November", "December"}

// The amounts of a month, in the order of Month's fields.
const (
	rentAmount = iota
	commissionAmount
	taxAmount
)

// monthFields name each month's amounts as problems do, field
// ("months[2].rent") and what ("March rent"), made once rather than for
// each of a declaration's rentals.
var monthFields = func() (f [12][3]struct{ field, what string }) {
	for m, name := range monthNames {
		for k, amount := range [3][2]string{{"rent", "rent"}, {"commission", "commission"}, {"tax_withheld", "tax withheld"}} {
			f[m][k].field, f[m][k].what = fmt.Sprintf("months[%d].%s", m, amount[0]), name+" "+amount[1]
		}
	}
	return f
}()

// Check lists every problem of a declaration: the blocking ones, which
// keep Write from writing the file, and warnings. It never stops at the
// first one. docs/dimob.md lists them all.
func (o Options) Check(d Declaration) Problems {
	if o.ValidTaxID == nil {
		panic("dimob: Options.ValidTaxID is nil (pass pix.ValidTaxID)")
	}
	c := checker{Options: o, year: d.Declarant.Year}
	c.declarant(d.Declarant)
	c.rentals(d.Rentals)
	c.sales(d.Sales)
	if len(d.Rentals) == 0 && len(d.Sales) == 0 && d.LeftOut == 0 {
		c.at("declaration", "", "").warn("rentals", "no rental and no sale: a company without operations in the year does not file a DIMOB")
	}
	return c.ps
}

type checker struct {
	Options
	year int
	ps   Problems
}

func (c *checker) at(record, contract, owner string) at {
	return at{ps: &c.ps, record: record, contract: contract, owner: owner}
}

func (c *checker) declarant(d Declarant) {
	a := c.at("declarant", "", "")
	c.taxID(a, "cnpj", d.CNPJ, cnpjOnly)
	c.name(a, "name", d.Name)
	c.taxID(a, "responsible_cpf", d.ResponsibleCPF, cpfOnly)
	c.text(a, "address", d.Address, declarantAddr)
	c.uf(a, "uf", d.UF)
	c.municipality(a, "municipality", d.Municipality, d.UF)
	if d.Year < firstYear || d.Year > 9999 {
		a.block("year", "%d is not a calendar year the DIMOB reports (4 digits, %d or later)", d.Year, firstYear)
	}
	c.receipt(a, d)
	c.special(a, d.Special)
}

func (c *checker) receipt(a at, d Declarant) {
	n := strings.TrimSpace(d.ReceiptNumber)
	switch {
	case d.Amended && n == "":
		a.block("receipt_number", "required for an amended declaration: the receipt number of the declaration it replaces")
	case d.Amended && (!isDigits(n) || len(n) > receiptWidth):
		a.block("receipt_number", "%q is not a receipt number (at most %d digits)", n, receiptWidth)
	case !d.Amended && n != "":
		a.warn("receipt_number", "%q given for an original declaration: not written (set amended to replace a declaration)", n)
	}
}

func (c *checker) special(a at, s *SpecialSituation) {
	if s == nil {
		return
	}
	if !s.Code.Valid() {
		a.block("special.code", "%d is not a special situation (1 extinction, 2 merger, 3 incorporation, 4 total split)", s.Code)
	}
	switch {
	case s.Date.IsZero():
		a.block("special.date", "required: the day of the event")
	case s.Date.Year() != c.year:
		a.block("special.date", "%s is not in the calendar year %d", s.Date, c.year)
	}
}

func (c *checker) rentals(rs []Rental) {
	if len(rs) > maxRecords {
		c.at("rentals", "", "").block("rentals", "%d rentals: the file's sequence holds %d", len(rs), maxRecords)
	}
	seen := make(map[[2]string]int, len(rs))
	for i, r := range rs {
		a := c.at(fmt.Sprintf("rentals[%d]", i), r.Contract.Number, label(r.Owner))
		c.rental(a, r)
		key := [2]string{strings.TrimSpace(r.Contract.Number), r.Owner.TaxID}
		if j, dup := seen[key]; dup && key[1] != "" {
			a.block("owner.tax_id", "contract %s and this owner are already in rentals[%d]: one record per contract and owner, with the months summed", key[0], j)
		} else {
			seen[key] = i
		}
	}
}

func (c *checker) rental(a at, r Rental) {
	c.contract(a, r.Contract, firstLeaseYear)
	c.party(a, "owner", r.Owner, false)
	c.party(a, "tenant", r.Tenant, true)
	if r.Owner.TaxID != "" && r.Owner.TaxID == r.Tenant.TaxID {
		a.warn("tenant.tax_id", "the tenant is the owner (%s)", r.Owner.TaxID)
	}
	c.property(a, r.Property)
	c.months(a, r)
}

func (c *checker) months(a at, r Rental) {
	paid := false
	for m, month := range r.Months {
		f := &monthFields[m]
		c.amount(a, f[rentAmount].field, f[rentAmount].what, month.Rent)
		c.amount(a, f[commissionAmount].field, f[commissionAmount].what, month.Commission)
		c.amount(a, f[taxAmount].field, f[taxAmount].what, month.TaxWithheld)
		if netNegative(month) && !month.Rent.IsNegative() {
			a.warn(f[rentAmount].field, "%s: the owner's net is negative (%s = rent %s less commission %s and tax withheld %s)",
				monthNames[m], month.Net().StringFixed(2), month.Rent.StringFixed(2), month.Commission.StringFixed(2), month.TaxWithheld.StringFixed(2))
		}
		if month.TaxWithheld.IsPositive() && len(r.Tenant.TaxID) == 11 {
			a.warn(f[taxAmount].field, "%s: tax withheld by a tenant with a CPF (only a company withholds income tax on rent)", monthNames[m])
		}
		paid = paid || !month.Rent.IsZero() || !month.Commission.IsZero() || !month.TaxWithheld.IsZero()
	}
	if !paid {
		a.warn("months", "nothing was paid in %d: a rental without amounts in the year need not be declared", c.year)
	}
}

// netNegative reports whether the month's net is negative, comparing
// rather than subtracting when no tax was withheld (most months).
func netNegative(m Month) bool {
	if m.TaxWithheld.IsZero() {
		return m.Rent.Cmp(m.Commission) < 0
	}
	return m.Net().IsNegative()
}

func (c *checker) sales(ss []Sale) {
	if len(ss) > maxRecords {
		c.at("sales", "", "").block("sales", "%d sales: the file's sequence holds %d", len(ss), maxRecords)
	}
	for i, s := range ss {
		a := c.at(fmt.Sprintf("sales[%d]", i), s.Contract.Number, label(s.Seller))
		c.contract(a, s.Contract, c.year)
		c.party(a, "buyer", s.Buyer, false)
		c.party(a, "seller", s.Seller, false)
		if s.Buyer.TaxID != "" && s.Buyer.TaxID == s.Seller.TaxID {
			a.warn("buyer.tax_id", "the buyer is the seller (%s)", s.Buyer.TaxID)
		}
		c.amount(a, "amount", "the sale's amount", s.Amount)
		if s.Amount.IsZero() {
			a.warn("amount", "the sale's amount is zero")
		}
		c.amount(a, "commission", "the commission", s.Commission)
		c.property(a, s.Property)
	}
}

// label names a party in a problem: its name, or its tax id without one.
func label(p Party) string {
	if n := strings.TrimSpace(p.Name); n != "" {
		return n
	}
	return p.TaxID
}

func (c *checker) contract(a at, k Contract, firstYear int) {
	n := strings.TrimSpace(k.Number)
	switch {
	case n == "":
		a.block("contract.number", "required")
	case !fits(n, contractWidth):
		a.block("contract.number", "%q is longer than the %d characters the layout holds", n, contractWidth)
	}
	switch {
	case k.Date.IsZero():
		a.block("contract.date", "required")
	case k.Date.Year() < firstYear || k.Date.Year() > c.year:
		a.block("contract.date", "%s is not between %d and the calendar year %d", k.Date, firstYear, c.year)
	}
}

// taxID kinds: what a field may hold.
type taxIDKind int

const (
	cpfOrCNPJ taxIDKind = iota
	cpfOnly
	cnpjOnly
	cpfCNPJOrNotResident
)

func (c *checker) taxID(a at, field, id string, kind taxIDKind) {
	want := map[taxIDKind]string{cpfOrCNPJ: "CPF or CNPJ", cpfOnly: "CPF", cnpjOnly: "CNPJ", cpfCNPJOrNotResident: "CPF or CNPJ"}[kind]
	switch {
	case id == "":
		a.block(field, "required: the %s", want)
	case kind == cpfCNPJOrNotResident && id == notResident:
	case kind == cpfOnly && len(id) != 11, kind == cnpjOnly && len(id) != 14, !c.ValidTaxID(id):
		a.block(field, "%q is not a valid %s (bare: 11 digits for a CPF, 14 characters for a CNPJ)", id, want)
	}
}

func (c *checker) party(a at, role string, p Party, tenant bool) {
	kind := cpfOrCNPJ
	if tenant {
		kind = cpfCNPJOrNotResident
	}
	c.taxID(a, role+".tax_id", p.TaxID, kind)
	c.name(a, role+".name", p.Name)
}

func (c *checker) name(a at, field, s string) { c.text(a, field, s, nameWidth) }

// text checks a text field: required, written in ASCII, and cut to the
// field's width (a warning: the record is still right).
func (c *checker) text(a at, field, s string, width int) {
	f, replaced := fold(s)
	switch {
	case f == "":
		a.block(field, "required")
		return
	case len(f) > width:
		a.warn(field, "%q is cut to the %d characters the layout holds", f, width)
	}
	if replaced {
		a.warn(field, "characters with no ASCII spelling are written as spaces: %q", f)
	}
}

func (c *checker) uf(a at, field, uf string) {
	switch {
	case uf == "":
		a.block(field, "required: the state, two capital letters (SP, RJ, ...)")
	case !validUF(uf):
		a.block(field, "%q is not a state (two capital letters: SP, RJ, ...)", uf)
	}
}

// municipality checks a 4-digit RFB code: known, and in the state given.
func (c *checker) municipality(a at, field, code, uf string) {
	m, ok := lookupSIAFI(code)
	switch {
	case code == "":
		a.block(field, "required: the 4-digit RFB/SIAFI code of the municipality (not the IBGE code)")
	case !ok:
		a.block(field, "%q is not an RFB/SIAFI municipality code (4 digits; the IBGE code has 7)", code)
	case validUF(uf) && m.UF != uf:
		a.block(field, "%s is %s (%s), not in %s", code, m.Name, m.UF, uf)
	}
}

func (c *checker) property(a at, p Property) {
	c.text(a, "property.address", p.Address, addressWidth)
	if cep := bareCEP(p.CEP); len(cep) != 8 || !isDigits(cep) {
		a.block("property.cep", "%q is not a CEP (8 digits)", p.CEP)
	}
	c.uf(a, "property.uf", p.UF)
	c.municipality(a, "property.municipality", p.Municipality, p.UF)
}

// amount checks an R$ field: not negative, in cents, and below 10^12.
// An amount of at most two decimal places and at most 12 digits of reais
// (every amount read from the ledger) is passed without arithmetic.
func (c *checker) amount(a at, field, what string, d decimal.Decimal) {
	if e := d.Exponent(); d.Sign() >= 0 && e >= -2 && int(e)+d.NumDigits() <= 12 {
		return
	}
	switch {
	case d.IsNegative():
		a.block(field, "%s %s is negative", what, money(d))
	case !d.Round(2).Equal(d):
		a.block(field, "%s %s has more than two decimal places", what, d.String())
	case d.GreaterThanOrEqual(maxAmount):
		a.block(field, "%s %s does not fit the layout's 12 digits of reais", what, money(d))
	}
}

// money writes an amount as problems print it: in reais and cents
// (-3.40, not -3.4), or every digit of one finer than a cent.
func money(d decimal.Decimal) string {
	if d.Round(2).Equal(d) {
		return d.StringFixed(2)
	}
	return d.String()
}

// cepPunctuation is what a CEP is often written with besides its digits.
var cepPunctuation = strings.NewReplacer("-", "", ".", "", " ", "")

// bareCEP drops the hyphen, dots and blanks a CEP is often written with.
func bareCEP(s string) string { return cepPunctuation.Replace(s) }
