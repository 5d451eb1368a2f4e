package finance

import (
	"fmt"
	"strings"

	"github.com/shopspring/decimal"
)

// Bounds of the amounts and rates the rules accept, as powers of ten:
// anything beyond is a typing error, and refusing it keeps every
// computation small.
const (
	maxAmountDigits  = 12 // money below one trillion
	maxPercentDigits = 4  // percentages below 10,000%
)

// below reports whether |d| < 10^digits, without allocating: a non-zero
// decimal of n digits and exponent e lies in [10^(n+e-1), 10^(n+e)).
func below(d decimal.Decimal, digits int) bool {
	return d.IsZero() || d.NumDigits()+int(d.Exponent()) <= digits
}

// Problem is one thing wrong with an input, named by its API field.
type Problem struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

func (p Problem) String() string { return p.Field + ": " + p.Message }

// Problems is every problem found in one input. It is the error returned
// by Validate and by the rules when their input is not usable.
type Problems []Problem

func (ps Problems) Error() string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.String()
	}
	return "invalid input: " + strings.Join(parts, "; ")
}

func (ps *Problems) add(field, format string, args ...any) {
	*ps = append(*ps, Problem{Field: field, Message: fmt.Sprintf(format, args...)})
}

// amount checks a money field: |d| below one trillion.
func (ps *Problems) amount(field string, d decimal.Decimal) {
	if !below(d, maxAmountDigits) {
		ps.add(field, "%s is out of range (at most 12 digits before the decimal point)", d)
	}
}

// percent checks a percentage field: |d| below 10,000%.
func (ps *Problems) percent(field string, d decimal.Decimal) {
	if !below(d, maxPercentDigits) {
		ps.add(field, "%s%% is out of range (below 10000%%)", d)
	}
}

// lateFee checks the late-fee and discount settings.
func (ps *Problems) lateFee(lf *LateFee) {
	if !lf.TicketDiscountMode.Valid() {
		ps.add("ticket_discount_mode", "must be fixed or percentage; got %q", lf.TicketDiscountMode)
	}
	if lf.TicketDiscountDays < 0 {
		ps.add("ticket_discount_days", "must not be negative; got %d", lf.TicketDiscountDays)
	}
	ps.percent("ticket_late_fee_percentage", lf.TicketLateFeePercentage)
	ps.percent("ticket_late_fee_interest", lf.TicketLateFeeInterest)
	ps.percent("ticket_discount_percentage", lf.TicketDiscountPercentage)
	ps.amount("ticket_discount_fixed", lf.TicketDiscountFixed)
}

func (ps Problems) err() error {
	if len(ps) == 0 {
		return nil
	}
	return ps
}

// Validate reports every problem that keeps the contract from being
// scheduled: missing required fields, values outside the spec's enums,
// inconsistent limits. It returns nil or a Problems.
func (c *Contract) Validate() error {
	var ps Problems
	if !c.Type.Valid() {
		ps.add("type", "must be one of rent, season, sale, subscription; got %q", c.Type)
	}
	if !c.Active.Valid() {
		ps.add("active", "must be one of active, pre_reserved, reserved, suspended, canceled, finished; got %q", c.Active)
	}
	if !c.Status.Valid() {
		ps.add("status", "not a contract status: %q", c.Status)
	}
	if !c.PaymentStatus.Valid() {
		ps.add("payment_status", "not a payment status: %q", c.PaymentStatus)
	}
	if !c.Recurrency.Valid() {
		ps.add("recurrency", "must be daily or monthly; got %q", c.Recurrency)
	}
	if !c.Modality.Valid() {
		ps.add("modality", "must be start, due_date or monthly; got %q", c.Modality)
	}
	if !c.BillingTiming.Valid() {
		ps.add("billing_timing", "must be pre or post; got %q", c.BillingTiming)
	}
	if !c.ReadjustIndicator.Valid() {
		ps.add("readjust_indicator", "not an indicator: %q", c.ReadjustIndicator)
	}
	if !c.TransferMode.Valid() {
		ps.add("transfer_mode", "not a transfer mode: %q", c.TransferMode)
	}
	ps.lateFee(&c.LateFee)
	if c.StartAt.IsZero() {
		ps.add("start_at", "required")
	}
	if c.DueDate.IsZero() {
		ps.add("due_date", "required (the first due date)")
	}
	if !c.EndAt.IsZero() && !c.StartAt.IsZero() && c.EndAt.Before(c.StartAt) {
		ps.add("end_at", "%s is before start_at %s", c.EndAt, c.StartAt)
	}
	if c.DueDay < 0 || c.DueDay > 31 {
		ps.add("due_day", "must be between 1 and 31; got %d", c.DueDay)
	}
	if c.RecurrencyAmount < 0 {
		ps.add("recurrency_amount", "must not be negative; got %d", c.RecurrencyAmount)
	}
	if c.Type == ContractSale && c.RecurrencyAmount == 0 {
		ps.add("recurrency_amount", "required for a sale (the number of installments)")
	}
	if c.SignalAmount.IsNegative() {
		ps.add("signal_amount", "must not be negative; got %s", c.SignalAmount)
	} else if c.Type == ContractSale && c.SignalAmount.GreaterThan(c.Amount) {
		ps.add("signal_amount", "%s is more than the sale's amount %s", c.SignalAmount, c.Amount)
	}
	if c.Amount.IsNegative() {
		ps.add("amount", "must not be negative; got %s", c.Amount)
	}
	ps.amount("amount", c.Amount)
	ps.amount("signal_amount", c.SignalAmount)
	if c.CurrentAmount.Valid {
		if c.CurrentAmount.Decimal.IsNegative() {
			ps.add("current_amount", "must not be negative; got %s", c.CurrentAmount.Decimal)
		}
		ps.amount("current_amount", c.CurrentAmount.Decimal)
	}
	ps.rentHistory(c.RentHistory)
	if c.RecurrencyAmount > maxInvoices {
		ps.add("recurrency_amount", "at most %d; got %d", maxInvoices, c.RecurrencyAmount)
	}
	if c.ReadjustWith < 0 {
		ps.add("readjust_with", "must not be negative; got %d", c.ReadjustWith)
	}
	return ps.err()
}

// validateItems reports the problems of contract items, named items[i].
func validateItems(items []ContractItem) Problems {
	var ps Problems
	for i, it := range items {
		f := func(name string) string { return fmt.Sprintf("items[%d].%s", i, name) }
		if !it.Mode.Valid() {
			ps.add(f("mode"), "must be item, commission or service; got %q", it.Mode)
		}
		if !it.CalculateMode.Valid() {
			ps.add(f("calculate_mode"), "must be fixed or percentage; got %q", it.CalculateMode)
		}
		if !it.PercentageMode.Valid() {
			ps.add(f("percentage_mode"), "must be rental_value, recurring_commission or first_commission; got %q", it.PercentageMode)
		}
		if it.ItemID <= 0 && it.Mode != ItemModeCommission {
			ps.add(f("item_id"), "required")
		}
		if !below(it.Amount, maxAmountDigits) {
			ps.amount(f("amount"), it.Amount)
		}
		if !below(it.Percentage, maxPercentDigits) {
			ps.percent(f("percentage"), it.Percentage)
		}
		if !it.StartAt.IsZero() && !it.EndAt.IsZero() && MonthOf(it.EndAt) < MonthOf(it.StartAt) {
			ps.add(f("end_at"), "%s is before start_at %s", it.EndAt, it.StartAt)
		}
	}
	return ps
}
