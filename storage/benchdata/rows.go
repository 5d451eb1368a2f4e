package benchdata

import (
	"fmt"
	"math/rand/v2"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// table is one COPY: the table, its columns, and the rows of one company
// in that order, handed to yield until it returns false.
type table struct {
	name    string
	columns []string
	rows    func(cp *companyPlan, yield func([]any) bool) error
}

// tables are written in this order, each after those it refers to.
var tables = []table{
	{"persons", []string{"company_id", "id", "name", "tax_id", "email", "phone", "zip_code", "street", "number",
		"district", "city", "state", "bank", "agency", "account", "account_digit", "account_type", "pix_key"}, personRows},
	{"buildings", []string{"company_id", "id", "reference", "title", "zip_code", "street", "number", "complement",
		"district", "city", "state"}, buildingRows},
	{"building_owners", []string{"company_id", "building_id", "person_id", "percentage"}, ownerRows},
	{"contracts", contractColumns, contractRows},
	{"contract_items", []string{"company_id", "contract_id", "mode", "item_id", "description", "calculate_mode", "amount"},
		contractItemRows},
	{"invoices", invoiceColumns, invoiceRows},
	{"invoice_items", []string{"company_id", "invoice_id", "kind", "item_id", "amount", "description", "owner_id",
		"payment_n"}, invoiceItemRows},
	{"invoice_payments", []string{"company_id", "invoice_id", "n", "split", "amount", "principal", "late_fee", "interest",
		"discount", "paid_at", "credit_at", "actor"}, paymentRows},
	{"invoice_history", []string{"company_id", "invoice_id", "actor", "origin", "note"}, historyRows},
	{"transactions", entryColumns, entryRows},
}

// personRows: the tenants (one per contract; with Closing, one in twenty
// a company), the owners (bank details and a PIX key, to be paid), and a
// few others.
func personRows(cp *companyPlan, yield func([]any) bool) error {
	for i := range cp.persons() {
		r := cp.rng(streamPerson, i)
		id := cp.firstPerson + int64(i)
		a := newAddress(r)
		email := fmt.Sprintf("cliente%d@exemplo.com.br", id)
		name, taxID := personName(r.IntN(27_000)), cpf(id*7919+int64(cp.seed))
		if cp.closing && i < cp.contracts {
			if company, _ := cp.closingDraws(i); company {
				name, taxID = companyName(i), cnpj(id*7919+int64(cp.seed))
			}
		}
		row := []any{cp.id, id, name, taxID, email,
			fmt.Sprintf("119%08d", r.IntN(100_000_000)), a.zip, a.street, a.number, a.district, a.city, a.state,
			nil, nil, nil, nil, nil, nil}
		if i >= cp.contracts && i < cp.contracts+cp.owners {
			row[12], row[13], row[14], row[15], row[16], row[17] = []string{"341", "237", "001", "104"}[r.IntN(4)],
				fmt.Sprint(1000+r.IntN(9000)), fmt.Sprint(10000+r.IntN(990000)), fmt.Sprint(r.IntN(10)), "checking", email
		}
		if !yield(row) {
			return nil
		}
	}
	return nil
}

// buildingRows: a property per contract, with its address.
func buildingRows(cp *companyPlan, yield func([]any) bool) error {
	for k := range cp.contracts {
		r := cp.rng(streamBuilding, k)
		a := newAddress(r)
		kind, complement := "Casa", any(nil)
		if r.Float64() < 0.7 {
			unit := fmt.Sprintf("%d%02d", 1+r.IntN(20), 1+r.IntN(8))
			kind, complement = "Apartamento "+unit, "Apto "+unit
		}
		if !yield([]any{cp.id, cp.firstBuilding + int64(k), fmt.Sprintf("IM%06d", k+1),
			fmt.Sprintf("%s - %s, %s", kind, a.street, a.number), a.zip, a.street, a.number, complement,
			a.district, a.city, a.state}) {
			return nil
		}
	}
	return nil
}

func ownerRows(cp *companyPlan, yield func([]any) bool) error {
	for k := range cp.contracts {
		p := cp.contract(k)
		for _, o := range p.owners {
			if !yield([]any{cp.id, p.buildingID, o.PersonID, numeric(o.Percentage)}) {
				return nil
			}
		}
	}
	return nil
}

var contractColumns = []string{"company_id", "id", "id2", "reference", "type", "active", "active_date", "building_id",
	"tenant_id", "billing_id", "status", "status_date", "payment_status", "payment_status_date", "user_id", "start_at",
	"end_at", "signed_at", "recurrency", "modality", "amount", "due_day", "due_date", "billing_timing", "proportional",
	"readjust_active", "readjust_indicator", "readjust_with", "readjust_at", "guarantee", "ticket_late_fee",
	"ticket_late_fee_item_id", "ticket_late_fee_percentage", "ticket_late_fee_interest", "ticket_discount",
	"ticket_discount_mode", "ticket_discount_percentage", "ticket_discount_fixed", "ticket_discount_days",
	"ticket_discount_action", "business_id", "account_id", "billing_method", "transfer_mode", "transfer_auto",
	"transfer_after_days", "dimob"}

// contractRows: the contracts, with the payment status their invoices
// give them on the data set's day (as the nightly run stores it).
func contractRows(cp *companyPlan, yield func([]any) bool) error {
	return cp.walk(func(p *contractPlan, _ []invoicePlan) bool {
		c := &p.c
		lf := &c.LateFee
		transferDays := 5
		if c.TransferMode == finance.TransferFixedDay {
			transferDays = 10
		}
		return yield([]any{cp.id, c.ID, c.ID2, c.Reference, string(c.Type), string(c.Active), c.StartAt.Time(),
			c.BuildingID, c.TenantID, c.BillingID, string(c.Status), c.StartAt.Time(), string(c.PaymentStatus),
			cp.today.Time(), cp.userID, c.StartAt.Time(), c.EndAt.Time(), p.signedAt.Time(), string(c.Recurrency),
			string(c.Modality), numeric(c.Amount), c.DueDay, c.DueDate.Time(), string(c.BillingTiming), c.Proportional,
			c.ReadjustActive, string(c.ReadjustIndicator), c.ReadjustWith, c.ReadjustAt.Time(), p.guarantee,
			lf.TicketLateFee, nullID(lf.TicketLateFeeItemID), nullDecimal(lf.TicketLateFee, lf.TicketLateFeePercentage),
			nullDecimal(lf.TicketLateFee, lf.TicketLateFeeInterest), lf.TicketDiscount, nullText(string(lf.TicketDiscountMode)),
			nullDecimal(lf.TicketDiscountMode == finance.DiscountPercentage, lf.TicketDiscountPercentage),
			nullDecimal(lf.TicketDiscountMode == finance.DiscountFixed, lf.TicketDiscountFixed),
			nullInt(lf.TicketDiscount, lf.TicketDiscountDays), nullText(string(p.action)), c.BusinessID, c.AccountID,
			c.BillingMethod, string(c.TransferMode), true, transferDays, cp.closing})
	})
}

func contractItemRows(cp *companyPlan, yield func([]any) bool) error {
	for k := range cp.contracts {
		p := cp.contract(k)
		for _, it := range p.items {
			if !yield([]any{cp.id, p.c.ID, string(it.Mode), it.ItemID, it.Description, string(it.CalculateMode),
				numeric(it.Amount)}) {
				return nil
			}
		}
	}
	return nil
}

var invoiceColumns = []string{"company_id", "id", "type", "payer_id", "contract_id", "building_id", "business_id",
	"account_id", "billing_id", "billing_method", "status", "paid", "paid_at", "credit_at", "paid_amount",
	"paid_late_fee", "paid_interest", "paid_discount", "description", "total", "date", "due_date", "period_initial",
	"period_final", "ticket_late_fee", "ticket_late_fee_item_id", "ticket_late_fee_percentage",
	"ticket_late_fee_interest", "ticket_discount", "ticket_discount_mode", "ticket_discount_fixed",
	"ticket_discount_percentage", "ticket_discount_days", "ticket_discount_action"}

// invoiceRows: the invoices as the nightly generation writes them, with
// what the payment, when there is one, wrote on them.
func invoiceRows(cp *companyPlan, yield func([]any) bool) error {
	return cp.walk(func(p *contractPlan, invoices []invoicePlan) bool {
		for i := range invoices {
			inv := &invoices[i]
			row := []any{cp.id, inv.ID, string(inv.Type), inv.PayerID, inv.ContractID, p.buildingID, inv.BusinessID,
				inv.AccountID, nullID(inv.BillingID), inv.BillingMethod, string(inv.Status), inv.Paid, nil, nil, nil, nil, nil, nil,
				inv.Description, numeric(inv.Total), inv.Date.Time(), inv.DueDate.Time(), inv.PeriodInitial.Time(),
				inv.PeriodFinal.Time(), inv.TicketLateFee, nullID(inv.TicketLateFeeItemID), numeric(inv.TicketLateFeePercentage),
				numeric(inv.TicketLateFeeInterest), inv.TicketDiscount, nullText(string(inv.TicketDiscountMode)),
				numeric(inv.TicketDiscountFixed), numeric(inv.TicketDiscountPercentage), inv.TicketDiscountDays,
				nullText(string(inv.TicketDiscountAction))}
			if inv.Paid {
				s := &inv.settlement
				row[12], row[13], row[14], row[15], row[16], row[17] = inv.PaidAt.Time(), inv.creditAt.Time(),
					numeric(s.Total), numeric(s.LateFee), numeric(s.Interest), numeric(s.Discount)
			}
			if !yield(row) {
				return false
			}
		}
		return true
	})
}

// invoiceItemRows: each invoice's lines, then, when paid, the settlement
// lines its posting wrote (late fee, interest, discount).
func invoiceItemRows(cp *companyPlan, yield func([]any) bool) error {
	var err error
	walkErr := cp.walk(func(p *contractPlan, invoices []invoicePlan) bool {
		for i := range invoices {
			inv := &invoices[i]
			for _, l := range inv.Items {
				if !yield([]any{cp.id, inv.ID, string(finance.LineLine), l.ItemID, numeric(l.Amount), nullText(l.Description),
					nullID(l.OwnerID), nil}) {
					return false
				}
			}
			if !inv.Paid {
				continue
			}
			var posting finance.Posting
			if posting, err = cp.posting(p, inv); err != nil {
				return false
			}
			for _, l := range posting.Lines {
				if !yield([]any{cp.id, inv.ID, string(l.Kind), l.ItemID, numeric(l.Amount), l.Description, nullID(l.OwnerID), 1}) {
					return false
				}
			}
		}
		return true
	})
	return firstError(walkErr, err)
}

// paymentRows: the row of each paid invoice's payment, the one part that
// settled it, as storage's posting writes it (invoice_payments).
func paymentRows(cp *companyPlan, yield func([]any) bool) error {
	return cp.walk(func(p *contractPlan, invoices []invoicePlan) bool {
		for i := range invoices {
			inv := &invoices[i]
			if !inv.Paid {
				continue
			}
			s := &inv.settlement
			if !yield([]any{cp.id, inv.ID, 1, fmt.Sprintf("invoice-%d-payment-1", inv.ID), numeric(s.Total), numeric(inv.Total),
				numeric(s.LateFee), numeric(s.Interest), numeric(s.Discount), inv.PaidAt.Time(), inv.creditAt.Time(),
				storage.ActorSystem}) {
				return false
			}
		}
		return true
	})
}

// historyRows: the history row the generation writes with each invoice.
func historyRows(cp *companyPlan, yield func([]any) bool) error {
	return cp.walk(func(p *contractPlan, invoices []invoicePlan) bool {
		for i := range invoices {
			if !yield([]any{cp.id, invoices[i].ID, storage.ActorJob, storage.OriginCreate,
				fmt.Sprintf("generated from contract %d", p.c.ID)}) {
				return false
			}
		}
		return true
	})
}

var entryColumns = []string{"company_id", "split", "invoice_id", "morph_key", "mode", "type", "account_id",
	"business_id", "plan_id", "item_id", "person_id", "building_id", "contract_id", "broker_id", "owner_id", "tenant_id",
	"extract", "date", "position", "amount", "percentage", "competence", "description", "paid", "due_date",
	"billing_method", "user_id"}

// entryRows: the ledger entries of every payment, as
// storage.PostInvoicePayment inserts them, then the business's bills.
func entryRows(cp *companyPlan, yield func([]any) bool) error {
	var err error
	walkErr := cp.walk(func(p *contractPlan, invoices []invoicePlan) bool {
		for i := range invoices {
			inv := &invoices[i]
			if !inv.Paid {
				continue
			}
			var posting finance.Posting
			if posting, err = cp.posting(p, inv); err != nil {
				return false
			}
			split := fmt.Sprintf("invoice-%d-payment-1", inv.ID)
			for n, e := range posting.Entries {
				if !yield(paymentEntry(cp, p, inv, split, n+1, e)) {
					return false
				}
			}
		}
		return true
	})
	if err := firstError(walkErr, err); err != nil {
		return err
	}
	return billRows(cp, yield) // after a refused row, yield refuses every row
}

// paymentEntry is one entry of a payment, with the columns
// storage.PostInvoicePayment sets: dated the day the money was credited,
// its competence the invoice's date, position its rank in the posting.
func paymentEntry(cp *companyPlan, p *contractPlan, inv *invoicePlan, split string, position int, e finance.Entry) []any {
	var pct any
	if !e.Percentage.IsZero() {
		pct = numeric(e.Percentage)
	}
	return []any{cp.id, split, inv.ID, "invoice", string(finance.ModeInvoice), string(e.Type), inv.AccountID,
		nullID(e.BusinessID), nullID(e.PlanID), nullID(e.ItemID), nullID(e.PersonID), p.buildingID, inv.ContractID,
		nullID(e.BrokerID), nullID(e.OwnerID), nullID(e.TenantID), string(e.Extract), inv.creditAt.Time(), position,
		numeric(e.Amount), pct, inv.Date.Time(), nullText(e.Description), true, inv.DueDate.Time(), inv.BillingMethod, nil}
}

// billRows: the business's own bills (utilities, services, bank tariffs),
// entered by its user as debits of the business, a few a month (one per
// 400 contracts, at least three); those due by the data set's day are
// mostly paid.
func billRows(cp *companyPlan, yield func([]any) bool) error {
	perMonth := max(3, cp.contracts/400)
	n := 0
	for m := cp.start; m <= finance.MonthOf(cp.today); m = m.Add(1) {
		for range perMonth {
			r := cp.rng(streamBill, n)
			n++
			date := finance.NewDate(m.Year(), m.Month(), 1+r.IntN(28))
			if date.After(cp.today) {
				continue
			}
			if !yield(billRow(cp, r, m, date)) {
				return nil
			}
		}
	}
	return nil
}

func billRow(cp *companyPlan, r *rand.Rand, m finance.Month, date finance.Date) []any {
	what := billDescriptions[r.IntN(len(billDescriptions))]
	plan, item := cp.plans.expenses, any(nil)
	if what == "Tarifas bancárias" {
		plan, item = cp.plans.tariffs, cp.tariff.ID
	}
	due := date.AddDays(10)
	paid := !due.After(cp.today) && r.Float64() < 0.9
	amount := decimal.New(int64(8000+r.IntN(592_000)), -2)
	return []any{cp.id, nil, nil, nil, "transaction", string(finance.Debit), cp.accounts[0], cp.businesses[0], plan,
		item, nil, nil, nil, nil, nil, nil, string(finance.PartyBusiness), date.Time(), 0, numeric(amount), nil,
		m.First().Time(), fmt.Sprintf("%s - %02d/%d", what, m.Month(), m.Year()), paid, due.Time(), "ticket", cp.userID}
}

func nullID(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}

func nullText(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// numeric is d as pgx writes a numeric column without parsing text.
func numeric(d decimal.Decimal) pgtype.Numeric {
	return pgtype.Numeric{Int: d.Coefficient(), Exp: d.Exponent(), Valid: true}
}

// nullDecimal is d when set, NULL otherwise.
func nullDecimal(set bool, d decimal.Decimal) any {
	if !set {
		return nil
	}
	return numeric(d)
}

func nullInt(set bool, n int) any {
	if !set {
		return nil
	}
	return n
}

func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
