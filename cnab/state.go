package cnab

import (
	"time"

	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/cnab/boleto"
)

// state is what the field tables read from while a record is filled: the
// remittance, the current title with the values derived from it, and the
// counters the sequence numbers and trailers need.
type state struct {
	rem     *Remittance
	spec    *spec
	version string
	created time.Time
	slip    boleto.Beneficiary

	t *Title
	// ProblemLog takes the problems of the current title (Index is its
	// index in the stream) or, with Index HeaderIndex, of the remittance.
	ProblemLog

	record      int   // number of the record being filled, in the file
	batch       int   // 240: number of the current batch, from 1
	batchRecord int   // 240: number of the detail record in the batch
	batchTitles int   // 240: titles and drops in the current batch
	batchTotal  int64 // 240: sum of the current batch's amounts
	titles      int   // titles written
	drops       int   // drops written
	total       int64 // sum of the titles' and drops' amounts, in cents

	// Values derived from the current title.
	amount    int64 // cents
	fine      int64 // hundredths of a percent
	interest  int64 // cents per day
	rate      int64 // monthly interest rate, hundredths of a percent
	discount  int64 // cents
	ourNumber string
	ourDigit  string
	payerDoc  string // digits only
	payerZIP  string // digits only
	benefDoc  string // digits only

	title Title // the current title; t points here
}

// hundredths converts d to an integer number of hundredths (cents for an
// amount, hundredths of a percent for a rate). It fails when d has more
// than two decimal places or too many digits: money is never rounded here.
func (s *state) hundredths(d decimal.Decimal, input string) int64 {
	if d.Sign() == 0 {
		return 0
	}
	if d.Sign() < 0 {
		s.Fail(input, "must not be negative")
		return 0
	}
	exp := d.Exponent()
	// The coefficient times 10^(exp+2) must stay within 17 digits, far
	// beyond any field (15 digits at most) yet safe in an int64.
	if n := d.NumDigits(); n > 17 || exp > 15 || n+int(exp)+2 > 17 {
		s.Fail(input, "too large")
		return 0
	}
	c := d.CoefficientInt64()
	for ; exp < -2; exp++ {
		if c%10 != 0 {
			s.Fail(input, "has more than two decimal places")
			return 0
		}
		c /= 10
	}
	for ; exp > -2; exp-- {
		c *= 10
	}
	return c
}

// Accessors shared by the tables.

func (s *state) benef() *Beneficiary { return &s.rem.Beneficiary }

// documentKind is the CNAB code of a CPF (1) or CNPJ (2).
func documentKind(doc string) int64 {
	if len(doc) == 14 {
		return 2
	}
	return 1
}
