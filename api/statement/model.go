package statement

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/api/ptbr"
)

// Cents is an amount of money in centavos: 123456 is R$ 1.234,56. The
// documents hold every amount as a whole number of cents so that their
// sums are exact.
type Cents int64

var (
	hundred  = decimal.NewFromInt(100)
	maxCents = decimal.NewFromInt(math.MaxInt64)
	minCents = decimal.NewFromInt(math.MinInt64)
)

// CentsOf converts an amount in reais to cents. An amount with digits past
// the cent is an error, not rounded: the ledger's amounts are already
// rounded by its rules, and a stray fraction is a bug to see.
func CentsOf(reais decimal.Decimal) (Cents, error) {
	c := reais.Mul(hundred)
	if !c.IsInteger() {
		return 0, fmt.Errorf("amount %s has digits past the cent", reais)
	}
	if c.GreaterThan(maxCents) || c.LessThan(minCents) {
		return 0, fmt.Errorf("amount %s is out of range", reais)
	}
	return Cents(c.IntPart()), nil
}

// Party is a person or business named on a document.
type Party struct {
	Name  string
	TaxID string // CPF (11 digits) or CNPJ (14 characters), with or without punctuation; empty if unknown
}

// LineKind is what a statement line is to the owner.
type LineKind string

// The kinds of statement line, in the order a section shows them.
const (
	// Received: the owner's share of what a tenant paid.
	Received LineKind = "received"
	// Deduction: an amount debited to the owner (the administration fee,
	// commissions, IPTU, condominium, repairs, bank tariffs).
	Deduction LineKind = "deduction"
	// GuaranteedAdvanced: rent advanced to the owner under a guaranteed
	// transfer while the tenant had not paid.
	GuaranteedAdvanced LineKind = "guaranteed_advanced"
	// GuaranteedRecovered: an advance taken back once the tenant paid (or
	// the guarantee was undone).
	GuaranteedRecovered LineKind = "guaranteed_recovered"
	// Adjustment: a change to an entry of a month already closed (a
	// reversal, a late settlement), shown in the month it was made; it
	// names the month it corrects (Line.Corrects).
	Adjustment LineKind = "adjustment"
	// Transfer: money paid out to the owner (repasse), with where it went
	// (Line.Transfer).
	Transfer LineKind = "transfer"
)

// lineKinds are the kinds in the order a section shows them, with their
// names on the documents.
var lineKinds = []struct {
	kind  LineKind
	label string // the group's heading
	total string // the label of its total
}{
	{Received, "Recebido dos inquilinos", "Total recebido"},
	{Deduction, "Descontos", "Total de descontos"},
	{GuaranteedAdvanced, "Aluguel garantido adiantado", "Total adiantado"},
	{GuaranteedRecovered, "Aluguel garantido recuperado", "Total recuperado"},
	{Adjustment, "Ajustes de meses anteriores", "Total de ajustes"},
	{Transfer, "Repasses ao proprietário", "Total repassado"},
}

// OwnerStatement is an owner's statement of a month (prestação de contas),
// as plain values. Amounts are signed by their effect on the owner's
// balance: what the owner is credited is positive (received, advanced),
// what is taken from the balance negative (a deduction, a recovery, a
// transfer paid out).
type OwnerStatement struct {
	Company  Party // the property manager: its name heads the document
	Business Party // the business (CNPJ) whose books these are; optional, shown when it differs from Company
	Owner    Party
	Month    string    // "YYYY-MM"
	ClosedAt time.Time // when the month was closed; the zero time is not shown
	Opening  Cents     // the balance before the month
	Closing  Cents     // the balance after it: Opening + every line (+ Hidden.Amount when Hidden.InBalance)
	Sections []Section
	Hidden   Hidden
}

// Section is one contract or building of the owner on the statement.
type Section struct {
	Title   string // what names it: "Contrato 123", "Edifício Aurora"; required
	Address string // the property's address; optional
	Tenant  string // the tenant's name; optional
	Lines   []Line
}

// Line is one entry of the statement.
type Line struct {
	Date        time.Time // a calendar date, shown in its own location
	Description string
	Kind        LineKind
	Amount      Cents
	// Transfer is where a Transfer line's money went, ignored for the
	// other kinds. It may be nil (or empty): a transfer paid to an owner
	// whose record had no account nor PIX key is still money paid out, and
	// the documents say that no destination was recorded.
	Transfer *Destination
	// Corrects is the month ("YYYY-MM") an Adjustment line corrects, before
	// the statement's month; required for that kind, ignored otherwise.
	Corrects string
}

// Destination is the account or PIX key a transfer was paid to. Either
// PixKey or Bank (with Branch and Account) is given.
type Destination struct {
	PixKey  string
	Bank    string // the bank's code and name: "341 Itaú"
	Branch  string
	Account string
}

// Hidden is what the statement leaves out: the owner's entries of the
// month whose transaction item is not for the owner's report
// (owner_report false). The documents say how many there are and what
// they add up to, never what they are.
type Hidden struct {
	Count  int
	Amount Cents
	// InBalance says the hidden entries are part of the closing balance
	// (Closing = Opening + lines + Amount); when false they are counted
	// apart and the balance is Opening + lines.
	InBalance bool
}

// IncomeReport is an owner's income report of a calendar year (informe de
// rendimentos), from the closed statements of that year.
type IncomeReport struct {
	// Company heads the document: who issues it, the administrator (the
	// business the rent was received through, with its CNPJ, when there
	// is one only; else the property manager's name). It is not the
	// paying source of the rent: a company tenant is (PayerOf).
	Company  Party
	Owner    Party
	Year     int
	IssuedAt time.Time // when the report was made; the zero time is not shown
	// Notice, when given, is shown above the contracts: why the figures
	// are not the year's final ones (a correction on no closed
	// statement yet), in the owner's words.
	Notice    string
	Contracts []IncomeContract
}

// IncomeContract is one contract of the owner in the year.
type IncomeContract struct {
	Title string // what names the contract: "Contrato 123"; required
	// Source is the administrator the rent was received through: the
	// business, with its CNPJ, whose books hold the contract; empty: the
	// report's Company. The document shows each one's contracts together,
	// under its name when there are several. The paying source (fonte
	// pagadora) is the tenant when it is a company (PayerOf).
	Source  Party
	Tenant  Party
	Address string
	Start   time.Time // the contract's start; the zero time is not shown
	End     time.Time // its end; the zero time is "em vigor"
	// Months are January to December of the year.
	Months [12]IncomeMonth
}

// PayerKind is who paid a contract's rent, as the owner's income tax
// return declares it.
type PayerKind string

// The kinds of payer, by the tenant's tax id.
const (
	// PayerCompany: a tenant with a CNPJ. It is the paying source (fonte
	// pagadora) the owner declares the rent against, by its CNPJ, with
	// the income tax it withheld.
	PayerCompany PayerKind = "company"
	// PayerIndividual: a tenant with a CPF. Rent received from a person is
	// declared month by month through the carnê-leão.
	PayerIndividual PayerKind = "individual"
	// PayerUnknown: no tenant, or one without a CPF or CNPJ.
	PayerUnknown PayerKind = "unknown"
)

// PayerOf is the kind of payer a tenant is, by its tax id: 11 digits a
// CPF, 14 characters a CNPJ (ptbr.TaxIDLabel's reading).
func PayerOf(tenant Party) PayerKind {
	if strings.TrimSpace(tenant.TaxID) == "" {
		return PayerUnknown
	}
	switch ptbr.TaxIDLabel(tenant.TaxID) {
	case "CNPJ":
		return PayerCompany
	case "CPF":
		return PayerIndividual
	}
	return PayerUnknown
}

// IncomeMonth is one month of a contract: the rent the owner received
// (gross, the owner's share), the administration fee taken from it and
// the income tax withheld. The net is what is left; it is computed.
type IncomeMonth struct {
	Gross    Cents
	AdminFee Cents // positive: what was taken
	Withheld Cents // positive: the IR withheld (items of type duty)
}

// Net is the month's gross less its fee and the tax withheld.
func (m IncomeMonth) Net() Cents { return m.Gross - m.AdminFee - m.Withheld }

func (m IncomeMonth) plus(o IncomeMonth) IncomeMonth {
	return IncomeMonth{Gross: m.Gross + o.Gross, AdminFee: m.AdminFee + o.AdminFee, Withheld: m.Withheld + o.Withheld}
}

// errInvalid is matched by every validation error.
var errInvalid = errors.New("invalid document")

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errInvalid, fmt.Sprintf(format, args...))
}

func (m IncomeMonth) isZero() bool { return m == IncomeMonth{} }
