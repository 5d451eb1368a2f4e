package finance

// The enums of the API, with the spec's values exactly. Each has Valid,
// which accepts the empty string only where the field is optional.

// ContractType is the contract's `type`.
type ContractType string

// Contract types.
const (
	ContractRent         ContractType = "rent"
	ContractSeason       ContractType = "season"
	ContractSale         ContractType = "sale"
	ContractSubscription ContractType = "subscription"
)

// Valid reports whether t is one of the spec's contract types.
func (t ContractType) Valid() bool {
	switch t {
	case ContractRent, ContractSeason, ContractSale, ContractSubscription:
		return true
	}
	return false
}

// ContractActive is the contract's `active` (activity status).
type ContractActive string

// Contract activity statuses.
const (
	ActiveActive      ContractActive = "active"
	ActivePreReserved ContractActive = "pre_reserved"
	ActiveReserved    ContractActive = "reserved"
	ActiveSuspended   ContractActive = "suspended"
	ActiveCanceled    ContractActive = "canceled"
	ActiveFinished    ContractActive = "finished"
)

// Valid reports whether a is one of the spec's activity statuses.
func (a ContractActive) Valid() bool {
	switch a {
	case ActiveActive, ActivePreReserved, ActiveReserved, ActiveSuspended, ActiveCanceled, ActiveFinished:
		return true
	}
	return false
}

// ContractStatus is the contract's `status`.
type ContractStatus string

// Contract statuses.
const (
	StatusProgress    ContractStatus = "progress"
	StatusClosing     ContractStatus = "closing"
	StatusReadjust    ContractStatus = "readjust"
	StatusRenew       ContractStatus = "renew"
	StatusNoInvoices  ContractStatus = "no_invoices"
	StatusSuspended   ContractStatus = "suspended"
	StatusPending     ContractStatus = "pending"
	StatusFinished    ContractStatus = "finished"
	StatusCanceled    ContractStatus = "canceled"
	StatusTerminating ContractStatus = "terminating"
	StatusOnNotice    ContractStatus = "on_notice"
	StatusTerminated  ContractStatus = "terminated"
)

// Valid reports whether s is empty or one of the spec's contract statuses.
func (s ContractStatus) Valid() bool {
	switch s {
	case "", StatusProgress, StatusClosing, StatusReadjust, StatusRenew, StatusNoInvoices, StatusSuspended,
		StatusPending, StatusFinished, StatusCanceled, StatusTerminating, StatusOnNotice, StatusTerminated:
		return true
	}
	return false
}

// PaymentStatus is the contract's `payment_status`.
type PaymentStatus string

// Contract payment statuses; docs/finance.md gives the exact boundaries.
const (
	PaymentNothing   PaymentStatus = "nothing"
	PaymentOK        PaymentStatus = "ok"
	PaymentDue5Days  PaymentStatus = "due_5_days"
	PaymentDue10Days PaymentStatus = "due_10_days"
	Payment5Days     PaymentStatus = "5_days"
	Payment30Days    PaymentStatus = "30_days"
	PaymentMonth     PaymentStatus = "month"
	Payment3Months   PaymentStatus = "3_months"
)

// Valid reports whether p is empty or one of the spec's payment statuses.
func (p PaymentStatus) Valid() bool {
	switch p {
	case "", PaymentNothing, PaymentOK, PaymentDue5Days, PaymentDue10Days, Payment5Days, Payment30Days, PaymentMonth, Payment3Months:
		return true
	}
	return false
}

// Recurrency is the contract's `recurrency`.
type Recurrency string

// Recurrencies.
const (
	Daily   Recurrency = "daily"
	Monthly Recurrency = "monthly"
)

// Valid reports whether r is one of the spec's recurrencies.
func (r Recurrency) Valid() bool { return r == Daily || r == Monthly }

// Modality is the contract's `modality`: how billing periods are cut.
type Modality string

// Modalities.
const (
	// ModalityStart: periods run from the contract's start day to the day
	// before the same day of the next month.
	ModalityStart Modality = "start"
	// ModalityDueDate: periods run from the due day to the day before the
	// next due day.
	ModalityDueDate Modality = "due_date"
	// ModalityMonthly: periods are calendar months.
	ModalityMonthly Modality = "monthly"
)

// Valid reports whether m is empty (meaning start) or a spec modality.
func (m Modality) Valid() bool {
	switch m {
	case "", ModalityStart, ModalityDueDate, ModalityMonthly:
		return true
	}
	return false
}

// BillingTiming is the contract's `billing_timing`.
type BillingTiming string

// Billing timings.
const (
	// BillingPre bills a period ahead: due on its first due day on or
	// after the period's start.
	BillingPre BillingTiming = "pre"
	// BillingPost bills a period in arrears: due on its first due day
	// after the period's end.
	BillingPost BillingTiming = "post"
)

// Valid reports whether b is empty (meaning the contract type's default,
// DefaultBillingTiming) or a billing timing.
func (b BillingTiming) Valid() bool { return b == "" || b == BillingPre || b == BillingPost }

// DefaultBillingTiming is the billing_timing of a contract of type t that
// does not set one (docs/finance.md, "Billing timing by contract type"):
// post for a rent, since Lei 8.245/91 art. 20 forbids demanding rent in
// advance; pre for a season rent (art. 49 allows it) and a subscription
// (a service, paid for the period ahead); pre for a sale, whose
// installments are due on their dates whatever the timing. An unknown
// type is treated as a rent.
func DefaultBillingTiming(t ContractType) BillingTiming {
	switch t {
	case ContractSeason, ContractSale, ContractSubscription:
		return BillingPre
	}
	return BillingPost
}

// Indicator is the contract's `readjust_indicator`: a price index or a
// rule choosing among several.
type Indicator string

// Readjustment indicators.
const (
	IGPM         Indicator = "IGP-M"
	INCCM        Indicator = "INCC-M"
	INPC         Indicator = "INPC"
	IVAR         Indicator = "IVAR"
	IPCBR        Indicator = "IPC-BR"
	IPCA         Indicator = "IPCA"
	IPCFIPE      Indicator = "IPC-FIPE"
	HighestIndex Indicator = "highest_index"
	LowestIndex  Indicator = "lowest_index"
)

// Valid reports whether i is empty or one of the spec's indicators.
func (i Indicator) Valid() bool {
	switch i {
	case "", IGPM, INCCM, INPC, IVAR, IPCBR, IPCA, IPCFIPE, HighestIndex, LowestIndex:
		return true
	}
	return false
}

// TransferMode is the contract's `transfer_mode` (payment to the owner).
type TransferMode string

// Transfer modes.
const (
	TransferManually       TransferMode = "manually"
	TransferAfterReceive   TransferMode = "after_receive"
	TransferFixedDayOrNext TransferMode = "fixed_day_or_next"
	TransferFixedDay       TransferMode = "fixed_day"
)

// Valid reports whether t is empty or one of the spec's transfer modes.
func (t TransferMode) Valid() bool {
	switch t {
	case "", TransferManually, TransferAfterReceive, TransferFixedDayOrNext, TransferFixedDay:
		return true
	}
	return false
}

// ItemMode is a contract item's `mode`.
type ItemMode string

// Contract item modes.
const (
	ItemModeItem       ItemMode = "item"
	ItemModeCommission ItemMode = "commission"
	ItemModeService    ItemMode = "service"
)

// Valid reports whether m is empty (meaning item) or a spec item mode.
func (m ItemMode) Valid() bool {
	return m == "" || m == ItemModeItem || m == ItemModeCommission || m == ItemModeService
}

// CalculateMode is a contract item's `calculate_mode`.
type CalculateMode string

// Calculate modes.
const (
	CalculateFixed      CalculateMode = "fixed"
	CalculatePercentage CalculateMode = "percentage"
)

// Valid reports whether c is empty (meaning fixed) or a calculate mode.
func (c CalculateMode) Valid() bool {
	return c == "" || c == CalculateFixed || c == CalculatePercentage
}

// PercentageMode is a contract item's `percentage_mode`: what a
// percentage item is a percentage of.
type PercentageMode string

// Percentage modes.
const (
	PercentRentalValue         PercentageMode = "rental_value"
	PercentRecurringCommission PercentageMode = "recurring_commission"
	PercentFirstCommission     PercentageMode = "first_commission"
)

// Valid reports whether p is empty or a spec percentage mode.
func (p PercentageMode) Valid() bool {
	switch p {
	case "", PercentRentalValue, PercentRecurringCommission, PercentFirstCommission:
		return true
	}
	return false
}

// DiscountMode is `ticket_discount_mode`.
type DiscountMode string

// Discount modes.
const (
	DiscountFixed      DiscountMode = "fixed"
	DiscountPercentage DiscountMode = "percentage"
)

// Valid reports whether d is empty or a discount mode.
func (d DiscountMode) Valid() bool { return d == "" || d == DiscountFixed || d == DiscountPercentage }

// InvoiceType is the invoice's `type`.
type InvoiceType string

// Invoice types.
const (
	InvoiceSingle   InvoiceType = "single"
	InvoiceContract InvoiceType = "contract"
)

// Valid reports whether t is empty or one of the spec's invoice types.
func (t InvoiceType) Valid() bool { return t == "" || t == InvoiceSingle || t == InvoiceContract }

// InvoiceStatus is the status of an invoice as the transaction filter
// `invoiceStatus` sees it.
type InvoiceStatus string

// Invoice statuses.
const (
	InvoicePaid          InvoiceStatus = "paid"
	InvoiceUnpaid        InvoiceStatus = "unpaid"
	InvoiceOverdue       InvoiceStatus = "overdue"
	InvoiceInProtest     InvoiceStatus = "in_protest"
	InvoiceRefunded      InvoiceStatus = "refunded"
	InvoicePartiallyPaid InvoiceStatus = "partially_paid"
	InvoiceCanceled      InvoiceStatus = "canceled"
	InvoiceUncollectible InvoiceStatus = "uncollectible"
	// InvoiceRenegotiated: replaced by the installments of an agreement
	// (docs/finance.md, "Renegotiation agreements"); no longer owed as it is.
	InvoiceRenegotiated InvoiceStatus = "renegotiated"
)

// Valid reports whether s is empty or one of the spec's invoice statuses.
func (s InvoiceStatus) Valid() bool {
	switch s {
	case "", InvoicePaid, InvoiceUnpaid, InvoiceOverdue, InvoiceInProtest, InvoiceRefunded,
		InvoicePartiallyPaid, InvoiceCanceled, InvoiceUncollectible, InvoiceRenegotiated:
		return true
	}
	return false
}

// EventStatus is a calendar event's `status`.
type EventStatus string

// Event statuses.
const (
	EventCancelled      EventStatus = "cancelled"
	EventConcluded      EventStatus = "concluded"
	EventScheduled      EventStatus = "scheduled"
	EventRecurrent      EventStatus = "recurrent"
	EventLate           EventStatus = "late"
	EventFiveDaysLate   EventStatus = "five_days_late"
	EventThirtyDaysLate EventStatus = "thirty_days_late"
)

// Valid reports whether s is one of the spec's event statuses.
func (s EventStatus) Valid() bool {
	switch s {
	case EventCancelled, EventConcluded, EventScheduled, EventRecurrent, EventLate, EventFiveDaysLate, EventThirtyDaysLate:
		return true
	}
	return false
}

// TransactionItemType is a transaction item's `type`.
type TransactionItemType string

// Transaction item types.
const (
	TxItemDefault          TransactionItemType = "default"
	TxItemCommission       TransactionItemType = "commission"
	TxItemSingleCommission TransactionItemType = "single_commission"
	TxItemRent             TransactionItemType = "rent"
	TxItemTariff           TransactionItemType = "tariff"
	TxItemFee              TransactionItemType = "fee"
	TxItemDiscount         TransactionItemType = "discount"
	TxItemDuty             TransactionItemType = "duty"
	TxItemIPTU             TransactionItemType = "iptu"
)

// Party is a transaction item's `debit` or `credit` side.
type Party string

// Parties.
const (
	PartyBusiness Party = "business"
	PartyOwner    Party = "owner"
	PartyCustomer Party = "customer"
	PartyBroker   Party = "broker"
)

// DiscountAction is `ticket_discount_action`: who bears the punctuality
// discount.
type DiscountAction string

// Discount actions.
const (
	DiscountByBusiness DiscountAction = "business"
	DiscountByOwner    DiscountAction = "owner"
)

// Valid reports whether a is empty or a discount action.
func (a DiscountAction) Valid() bool {
	return a == "" || a == DiscountByBusiness || a == DiscountByOwner
}

// LineKind is the `kind` of an invoice line.
type LineKind string

// Line kinds: the lines a client writes, and the settlement lines the
// posting of a payment adds.
const (
	LineLine     LineKind = "line"
	LineLateFee  LineKind = "late_fee"
	LineInterest LineKind = "interest"
	LineDiscount LineKind = "discount"
)

// EntryType is a ledger entry's `type` on its party's statement.
type EntryType string

// Entry types. A transfer is money paid out of a bank account to the
// party of the statement: it is a debit on that statement (the manager no
// longer holds the amount for the party) whose other side is the bank
// account (account_id), so one transfer entry balances by itself.
const (
	Debit    EntryType = "debit"
	Credit   EntryType = "credit"
	Transfer EntryType = "transfer"
)

// EntryMode is a ledger entry's `mode`.
type EntryMode string

// The modes the posting writes, those of the owners' transfers, and an
// entry of its own (a bill, a bank's tariff).
const (
	// ModeTransaction is an entry of its own, no part of a payment's
	// posting: a bill, a bank's tariff reported apart (BankFee).
	ModeTransaction EntryMode = "transaction"
	ModeInvoice     EntryMode = "invoice"
	ModeChargeback  EntryMode = "chargeback"
	// ModeTransfer pays a party out (type transfer).
	ModeTransfer EntryMode = "transfer"
	// ModeGuaranteedRent is the owners' share the business advances under
	// a guaranteed transfer, before the tenant pays.
	ModeGuaranteedRent EntryMode = "guaranteed_rent"
)
