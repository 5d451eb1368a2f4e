package finance

import (
	"fmt"

	"github.com/shopspring/decimal"
)

// defaultCandidates are the indices compared by highest_index and
// lowest_index when ReadjustOptions names none.
var defaultCandidates = [...]Indicator{IGPM, IPCA, INPC}

// ReadjustOptions are the company's readjustment settings.
type ReadjustOptions struct {
	// AllowReduction lets a negative accumulated variation lower the rent.
	// Without it the rent is kept (outcome kept).
	AllowReduction bool
	// Candidates are the indices highest_index and lowest_index choose
	// from, in order of preference on a tie; nil means IGP-M, IPCA, INPC.
	Candidates []Indicator
}

// ReadjustOutcome is what Readjust decided.
type ReadjustOutcome string

// Readjustment outcomes.
const (
	ReadjustNotDue  ReadjustOutcome = "not_due"    // inactive, or readjust_at still ahead
	ReadjustWaiting ReadjustOutcome = "waiting"    // a needed month is not published yet
	ReadjustApplied ReadjustOutcome = "readjusted" // the rent moves to NewAmount
	ReadjustKept    ReadjustOutcome = "kept"       // negative variation, reductions not allowed
)

// IndexMonth names a month of an index.
type IndexMonth struct {
	Indicator Indicator `json:"indicator"`
	Month     Month     `json:"month"`
}

// Readjustment is the answer of Readjust.
type Readjustment struct {
	Outcome ReadjustOutcome `json:"outcome"`
	// ReadjustAt is the readjustment date this answer is about: the
	// contract's readjust_at, or start_at (or readjusted_at) plus
	// readjust_with months when it is not set.
	ReadjustAt Date `json:"readjust_at"`
	// Indicator is the index used; for highest_index and lowest_index,
	// the one chosen.
	Indicator Indicator `json:"indicator"`
	// Months are the readjust_with months accumulated, oldest first.
	Months []Month `json:"months"`
	// Missing lists the index months not published yet (outcome waiting).
	Missing []IndexMonth `json:"missing"`
	// Factor is the exact product of (1 + variation/100) over Months.
	Factor decimal.Decimal `json:"factor"`
	// Variation is the accumulated variation in percent, (Factor-1)×100.
	Variation decimal.Decimal `json:"variation"`
	// OldAmount is the rent before; NewAmount the rent after, rounded to
	// the cent (equal to OldAmount unless the outcome is readjusted).
	OldAmount decimal.Decimal `json:"old_amount"`
	NewAmount decimal.Decimal `json:"new_amount"`
	// NextReadjustAt is readjust_at after this readjustment (ReadjustAt
	// plus readjust_with months); zero unless readjusted or kept.
	NextReadjustAt Date `json:"next_readjust_at"`
	// ContractStatus is the contract status to store: readjust while
	// waiting, progress once a waiting contract is readjusted, otherwise
	// the contract's own.
	ContractStatus ContractStatus `json:"contract_status"`
}

// Readjust says whether the contract's rent is due for readjustment on
// today and, when it is, the factor and the new amount. Months are read
// from idx; a month not there means "not published yet".
func Readjust(c Contract, idx Indices, today Date, opt ReadjustOptions) (Readjustment, error) {
	if today.IsZero() {
		return Readjustment{}, Problems{{Field: "today", Message: "required"}}
	}
	old := c.RentAmount()
	r := Readjustment{Outcome: ReadjustNotDue, OldAmount: old, NewAmount: old, ContractStatus: c.Status}
	if !c.ReadjustActive {
		return r, nil
	}
	if err := validateReadjust(&c); err != nil {
		return Readjustment{}, err
	}
	with := c.ReadjustWith
	if with == 0 {
		with = 12
	}
	r.ReadjustAt = c.ReadjustAt
	if r.ReadjustAt.IsZero() {
		from := c.StartAt
		if !c.ReadjustedAt.IsZero() {
			from = c.ReadjustedAt
		}
		r.ReadjustAt = from.AddMonths(with)
	}
	if today.Before(r.ReadjustAt) {
		return r, nil
	}
	last := MonthOf(r.ReadjustAt).Add(-1)
	first := last.Add(1 - with)
	for m := first; m <= last; m++ {
		r.Months = append(r.Months, m)
	}
	r.Indicator, r.Factor, r.Missing = choose(c.ReadjustIndicator, idx, first, last, opt)
	if len(r.Missing) > 0 {
		r.Outcome, r.ContractStatus, r.Indicator, r.Factor = ReadjustWaiting, StatusReadjust, c.ReadjustIndicator, decimal.Decimal{}
		return r, nil
	}
	r.Variation = r.Factor.Sub(one).Mul(hundred)
	r.NextReadjustAt = r.ReadjustAt.AddMonths(with)
	if c.Status == StatusReadjust {
		r.ContractStatus = StatusProgress
	}
	if r.Factor.LessThan(one) && !opt.AllowReduction {
		r.Outcome = ReadjustKept
		return r, nil
	}
	r.Outcome = ReadjustApplied
	r.NewAmount = RoundCents(old.Mul(r.Factor))
	return r, nil
}

func validateReadjust(c *Contract) error {
	var ps Problems
	switch c.ReadjustIndicator {
	case "":
		ps.add("readjust_indicator", "required when readjust_active")
	default:
		if !c.ReadjustIndicator.Valid() {
			ps.add("readjust_indicator", "not an indicator: %q", c.ReadjustIndicator)
		}
	}
	if c.ReadjustWith < 0 || c.ReadjustWith > 120 {
		ps.add("readjust_with", "must be between 1 and 120 months (0 means 12); got %d", c.ReadjustWith)
	}
	ps.amount("amount", c.Amount)
	if c.CurrentAmount.Valid {
		ps.amount("current_amount", c.CurrentAmount.Decimal)
	}
	if c.ReadjustAt.IsZero() && c.StartAt.IsZero() && c.ReadjustedAt.IsZero() {
		ps.add("readjust_at", "required when start_at and readjusted_at are not set")
	}
	return ps.err()
}

// choose accumulates the indicator's months, or, for highest_index and
// lowest_index, every candidate's, and picks the highest or lowest factor.
func choose(ind Indicator, idx Indices, first, last Month, opt ReadjustOptions) (Indicator, decimal.Decimal, []IndexMonth) {
	candidates := []Indicator{ind}
	if ind == HighestIndex || ind == LowestIndex {
		candidates = opt.Candidates
		if len(candidates) == 0 {
			candidates = defaultCandidates[:]
		}
	}
	var (
		best        Indicator
		bestFactor  decimal.Decimal
		missing     []IndexMonth
		haveOneBest bool
	)
	for _, cand := range candidates {
		f, miss := idx[cand].Accumulate(first, last)
		for _, m := range miss {
			missing = append(missing, IndexMonth{Indicator: cand, Month: m})
		}
		if len(miss) > 0 {
			continue
		}
		better := !haveOneBest ||
			ind == LowestIndex && f.LessThan(bestFactor) ||
			ind != LowestIndex && f.GreaterThan(bestFactor)
		if better {
			best, bestFactor, haveOneBest = cand, f, true
		}
	}
	return best, bestFactor, missing
}

// String writes "2024-01" so that missing months read well in messages.
func (im IndexMonth) String() string { return fmt.Sprintf("%s %s", im.Indicator, im.Month) }
