package finance

import (
	"encoding/json"

	"github.com/shopspring/decimal"
)

// Contract is a financial contract (`/financial/contracts`) with the fields
// the rules read, named as in the API. Ids are 0 when not set.
type Contract struct {
	ID            int64          `json:"id,omitempty"`
	ID2           int64          `json:"id2,omitempty"`
	Type          ContractType   `json:"type"`
	Active        ContractActive `json:"active"`
	Status        ContractStatus `json:"status,omitempty"`
	PaymentStatus PaymentStatus  `json:"payment_status,omitempty"`
	BuildingID    int64          `json:"building_id,omitempty"`
	TenantID      int64          `json:"tenant_id,omitempty"`
	BillingID     int64          `json:"billing_id,omitempty"`
	BusinessID    int64          `json:"business_id,omitempty"`
	AccountID     int64          `json:"account_id,omitempty"`
	// BillingMethod is the contract's billing_method: how its owners are
	// paid (the spec's "payment type to owner"), which their transfers
	// carry. How the tenant pays is the billing profile's (ProfileMethod).
	BillingMethod string `json:"billing_method,omitempty"`
	// ProfileMethod is the billing_method of the contract's billing
	// profile (billing_id, /financial/billings): how its tenant is billed.
	// Empty when the contract has no profile or its profile names no
	// method. Not a contract field: storage reads it from the profile.
	ProfileMethod     string              `json:"-"`
	Reference         string              `json:"reference,omitempty"`
	StartAt           Date                `json:"start_at"`
	EndAt             Date                `json:"end_at"`
	Recurrency        Recurrency          `json:"recurrency"`
	RecurrencyAmount  int                 `json:"recurrency_amount,omitempty"`
	Modality          Modality            `json:"modality,omitempty"`
	Amount            decimal.Decimal     `json:"amount"`
	CurrentAmount     decimal.NullDecimal `json:"current_amount"`
	SignalAmount      decimal.Decimal     `json:"signal_amount"`
	DueDay            int                 `json:"due_day,omitempty"`
	DueDate           Date                `json:"due_date"`
	BillingTiming     BillingTiming       `json:"billing_timing,omitempty"`
	Proportional      bool                `json:"proportional"`
	UnifyFirstInvoice bool                `json:"unify_first_invoice"`
	ReadjustActive    bool                `json:"readjust_active"`
	ReadjustIndicator Indicator           `json:"readjust_indicator,omitempty"`
	ReadjustWith      int                 `json:"readjust_with,omitempty"`
	ReadjustAt        Date                `json:"readjust_at"`
	ReadjustedAt      Date                `json:"readjusted_at"`
	TransferMode      TransferMode        `json:"transfer_mode,omitempty"`
	// RentHistory are the contract's readjustments, each with the rent in
	// force before it (RentOn): what the periods before the last one bill.
	// Empty, every period bills the current rent.
	RentHistory []RentChange `json:"rent_history,omitempty"`
	LateFee
	// The termination's fine and date (docs/finance.md, "Termination"):
	// the fine as an amount, or as months of the current rent; whether the
	// contract exempts the tenant; the day the lease ends, set by the
	// termination.
	TerminationFee          decimal.NullDecimal `json:"termination_fee"`
	TerminationFeeMonths    int                 `json:"termination_fee_months,omitempty"`
	TerminationFeeExemption bool                `json:"termination_fee_exemption"`
	TerminationAt           Date                `json:"termination_at"`
}

// InvoiceMethod is the billing_method of the invoices the contract bills
// its tenant (generated, and the termination's final invoice): its
// billing profile's, or, when the contract has no profile or its profile
// names no method, the contract's own (docs/finance.md, "The other fields
// of a generated invoice").
func (c *Contract) InvoiceMethod() string {
	if c.ProfileMethod != "" {
		return c.ProfileMethod
	}
	return c.BillingMethod
}

// RentAmount is the value the rent line is billed from: current_amount
// when set (it moves with readjustments), otherwise amount.
func (c *Contract) RentAmount() decimal.Decimal {
	if c.CurrentAmount.Valid {
		return c.CurrentAmount.Decimal
	}
	return c.Amount
}

// LateFee holds the late-fee, interest and punctuality-discount settings
// that contracts carry and copy onto each invoice they generate.
// Percentages are in percent (2 means 2%); interest is percent a month.
type LateFee struct {
	TicketLateFee            bool            `json:"ticket_late_fee"`
	TicketLateFeeItemID      int64           `json:"ticket_late_fee_item_id,omitempty"`
	TicketLateFeePercentage  decimal.Decimal `json:"ticket_late_fee_percentage"`
	TicketLateFeeInterest    decimal.Decimal `json:"ticket_late_fee_interest"`
	TicketDiscount           bool            `json:"ticket_discount"`
	TicketDiscountMode       DiscountMode    `json:"ticket_discount_mode,omitempty"`
	TicketDiscountFixed      decimal.Decimal `json:"ticket_discount_fixed"`
	TicketDiscountPercentage decimal.Decimal `json:"ticket_discount_percentage"`
	TicketDiscountDays       int             `json:"ticket_discount_days"`
}

// ContractItem is a line a contract adds to its invoices
// (`/financial/contracts/{contract}/items`). StartAt and EndAt are read as
// months: the item applies to invoices whose competence month lies
// between them, both inclusive; a zero bound is open.
type ContractItem struct {
	ID             int64           `json:"id,omitempty"`
	Mode           ItemMode        `json:"mode,omitempty"`
	ItemID         int64           `json:"item_id"`
	ParentID       int64           `json:"parent_id,omitempty"`
	ContractID     int64           `json:"contract_id,omitempty"`
	Description    string          `json:"description,omitempty"`
	CalculateMode  CalculateMode   `json:"calculate_mode,omitempty"`
	Amount         decimal.Decimal `json:"amount"`
	Percentage     decimal.Decimal `json:"percentage"`
	PercentageMode PercentageMode  `json:"percentage_mode,omitempty"`
	StartAt        Date            `json:"start_at"`
	EndAt          Date            `json:"end_at"`
	// Item is the transaction item the lines are booked as (the `item`
	// relation), when known: an administration fee's lines (Fee) are not
	// in the invoice's total. Without it a line charges the payer.
	Item *TransactionItem `json:"item,omitempty"`
}

// TransactionItem is an entry of the company's item catalogue
// (`/financial/transactionItems`): what an invoice line is booked as.
type TransactionItem struct {
	ID                 int64               `json:"id"`
	Description        string              `json:"description"`
	Debit              Party               `json:"debit,omitempty"`
	Credit             Party               `json:"credit,omitempty"`
	Type               TransactionItemType `json:"type,omitempty"`
	Purpose            ContractType        `json:"purpose,omitempty"`
	Active             bool                `json:"active"`
	GuaranteedTransfer bool                `json:"guaranteed_transfer"`
	OwnerReport        bool                `json:"owner_report"`
	Readjust           bool                `json:"readjust"`
	FiscalNote         bool                `json:"fiscal_note"`
	Dimob              bool                `json:"dimob"`
	Blocked            bool                `json:"blocked"`
	// DebitPlanID and CreditPlanID are the chart-of-accounts entries
	// (plans) each side of the item is booked to; 0 when not set.
	DebitPlanID  int64 `json:"debit_plan_id,omitempty"`
	CreditPlanID int64 `json:"credit_plan_id,omitempty"`
}

// Invoice is an invoice (`/invoices`) with the fields the rules read and
// write. Status is the `invoiceStatus` view; empty means "derive it from
// Paid" (see InvoiceStatusAsOf).
type Invoice struct {
	ID            int64           `json:"id,omitempty"`
	ID2           string          `json:"id2,omitempty"`
	Type          InvoiceType     `json:"type"`
	PayerID       int64           `json:"payer_id,omitempty"`
	ContractID    int64           `json:"contract_id,omitempty"`
	BusinessID    int64           `json:"business_id,omitempty"`
	AccountID     int64           `json:"account_id,omitempty"`
	BillingID     int64           `json:"billing_id,omitempty"`
	BillingMethod string          `json:"billing_method,omitempty"`
	Paid          bool            `json:"paid"`
	PaidAt        Date            `json:"paid_at"`
	Status        InvoiceStatus   `json:"status,omitempty"`
	Description   string          `json:"description"`
	Total         decimal.Decimal `json:"total"`
	Date          Date            `json:"date"`
	DueDate       Date            `json:"due_date"`
	Items         []InvoiceItem   `json:"items"`
	PeriodInitial Date            `json:"period_initial"`
	PeriodFinal   Date            `json:"period_final"`
	// TicketDiscountAction says who bears the punctuality discount when the
	// payment is posted: the owner or the business.
	TicketDiscountAction DiscountAction `json:"ticket_discount_action,omitempty"`
	LateFee
}

// InvoiceItem is one line of an invoice. Kind is empty or `line` for the
// lines a client writes; the posting of a payment adds the settlement
// lines (late_fee, interest, discount). OwnerID names the owner a line to
// or from `owner` is booked to (0: the building's owners by their
// shares); BrokerID the broker of a line to or from `broker`.
type InvoiceItem struct {
	ID          int64           `json:"id,omitempty"`
	Kind        LineKind        `json:"kind,omitempty"`
	ItemID      int64           `json:"item_id"`
	Amount      decimal.Decimal `json:"amount"`
	Description string          `json:"description,omitempty"`
	OwnerID     int64           `json:"owner_id,omitempty"`
	BrokerID    int64           `json:"broker_id,omitempty"`
}

// invoiceJSON shadows the decimal fields of an invoice with the types
// the API writes them as: amounts as Money, rates as Percent.
type invoiceJSON struct {
	invoiceFields
	Total                    Money   `json:"total"`
	TicketLateFeePercentage  Percent `json:"ticket_late_fee_percentage"`
	TicketLateFeeInterest    Percent `json:"ticket_late_fee_interest"`
	TicketDiscountFixed      Money   `json:"ticket_discount_fixed"`
	TicketDiscountPercentage Percent `json:"ticket_discount_percentage"`
}

type invoiceFields Invoice // Invoice without its methods

func newInvoiceJSON(inv Invoice) invoiceJSON {
	return invoiceJSON{
		invoiceFields:            invoiceFields(inv),
		Total:                    Money(inv.Total),
		TicketLateFeePercentage:  Percent(inv.TicketLateFeePercentage),
		TicketLateFeeInterest:    Percent(inv.TicketLateFeeInterest),
		TicketDiscountFixed:      Money(inv.TicketDiscountFixed),
		TicketDiscountPercentage: Percent(inv.TicketDiscountPercentage),
	}
}

// MarshalJSON writes the invoice with the API's field names and its
// representation of values: total, ticket_discount_fixed and the item
// amounts as money (numbers with two decimal places), the late-fee and
// discount rates as numbers with two places (docs/api.md, "Money").
func (inv Invoice) MarshalJSON() ([]byte, error) {
	return json.Marshal(newInvoiceJSON(inv))
}

// UnmarshalJSON reads an invoice in the API's shape; amounts may be numbers
// or strings.
func (inv *Invoice) UnmarshalJSON(b []byte) error {
	// Start from the current values, so that fields absent from b are kept
	// as encoding/json does for plain structs.
	v := newInvoiceJSON(*inv)
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*inv = Invoice(v.invoiceFields)
	inv.Total = v.Total.Decimal()
	inv.TicketLateFeePercentage = v.TicketLateFeePercentage.Decimal()
	inv.TicketLateFeeInterest = v.TicketLateFeeInterest.Decimal()
	inv.TicketDiscountFixed = v.TicketDiscountFixed.Decimal()
	inv.TicketDiscountPercentage = v.TicketDiscountPercentage.Decimal()
	return nil
}

// MarshalJSON writes the line with its amount as money.
func (it InvoiceItem) MarshalJSON() ([]byte, error) {
	type plain InvoiceItem
	return json.Marshal(struct {
		plain
		Amount Money `json:"amount"`
	}{plain(it), Money(it.Amount)})
}
