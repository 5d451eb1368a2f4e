package jobs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/cnab"
	"github.com/propfin/propfin/cnab/boleto"
	"github.com/propfin/propfin/cnab/retorno"
	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// TicketBatchKind is the collection batch (/financial/ticketBatch): its
// invoices get boletos (package cnab/boleto) when added, go to the bank in
// a collection remittance (package cnab), and are registered, rejected,
// written off or paid by the bank's return files (cnab/retorno).
var TicketBatchKind = registerBatchKind(&BatchKind{
	Type:      storage.TicketBatch,
	Add:       addTickets,
	WriteFile: writeTicketFile,
	Pending:   pendingTicketDrops,
	Refuse:    refusePartlyPaidTitles,
	Events:    retorno.KindTitle,
	Apply:     applyTicketReturn,
	Names:     titleNumber,
	MemberKey: "invoice_id",
})

// slipIssuer makes the titles of one account: the remittance header the
// bank's layout takes (checked once), the slip's beneficiary, the
// account's interest forms and the issue date.
type slipIssuer struct {
	acc      *storage.BankAccount
	rem      cnab.Remittance
	slip     boleto.Beneficiary
	perDay   bool // the layout takes interest as an amount per day
	monthly  bool // or as a monthly rate
	today    finance.Date
	warnings []FileWarning
}

// newSlipIssuer reads the account's remittance header and checks it with
// the bank's layout: an account that cannot send titles is a 422 naming
// account_id with the layout's reasons.
func newSlipIssuer(acc *storage.BankAccount, today finance.Date, seq int64) (*slipIssuer, error) {
	s := &slipIssuer{acc: acc, today: today}
	layout := layoutOf(acc.Layout)
	s.rem = cnab.Remittance{Bank: acc.Bank, Layout: layout, Sequence: int(seq), Created: today.Time(),
		Beneficiary: cnab.Beneficiary{Name: acc.BusinessName, Document: acc.BusinessTaxID, Agency: acc.Agency,
			AgencyDigit: acc.AgencyDigit, Account: acc.Account, AccountDigit: acc.AccountDigit, Wallet: acc.Wallet,
			WalletVariation: acc.WalletVariation, Covenant: acc.Covenant, TransmissionCode: acc.TransmissionCode,
			Station: acc.Station, Modality: acc.Modality}}
	s.slip = boleto.Beneficiary{Bank: acc.Bank, Agency: acc.Agency, AgencyDigit: acc.AgencyDigit, Account: acc.Account,
		AccountDigit: acc.AccountDigit, Wallet: acc.Wallet, Covenant: acc.Covenant, Station: acc.Station, Modality: acc.Modality}
	s.perDay, s.monthly = interestForms(acc.Bank, layout)
	if ps := storage.TicketBatch.AccountProblems(acc.Terms()); len(ps) > 0 {
		return nil, finance.InvalidInput([]finance.Problem{{Field: "account_id",
			Message: "the account cannot send collection remittances: " + storage.ProblemsText(ps)}})
	}
	if p, refused := storage.TicketBatch.AccountBusinessProblem(acc.ID, acc.Business()); refused {
		return nil, finance.InvalidInput([]finance.Problem{p})
	}
	if _, err := cnab.NewWriter(io.Discard, s.rem, nil); err != nil {
		return nil, finance.InvalidInput([]finance.Problem{{Field: "account_id",
			Message: "the account cannot send a remittance: " + problemsText(err)}})
	}
	return s, nil
}

// interestForms says how a layout takes the interest for late payment
// (docs/cnab.md, "Interest, fee, discount and protest per layout"): as an
// amount per day, a monthly rate, or either.
func interestForms(bank string, layout cnab.Layout) (perDay, monthly bool) {
	switch {
	case bank == "756" && layout == cnab.CNAB400:
		return false, true
	case bank == "041" && layout == cnab.CNAB400, layout == cnab.CNAB240 && bank != "341":
		return true, true
	}
	return true, false
}

// problemsText is a cnab error as people read it: each problem's field
// and message.
func problemsText(err error) string {
	var ps cnab.Problems
	if !errors.As(err, &ps) {
		return err.Error()
	}
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.Field + ": " + p.Message
	}
	return strings.Join(parts, "; ")
}

// ticketTerms are the amounts and terms a title carries for an invoice:
// the late fee in percent, the interest as an amount per day or a monthly
// rate, and the punctuality discount with its last day.
type ticketTerms struct {
	fine, perDay, monthly, discount decimal.Decimal
	until                           finance.Date
}

// termsOf computes a title's terms from the invoice's (docs/api.md,
// "Batches"). The bank charges the fee and the interest on the title's
// amount; when the invoice's late fee is on one item's lines
// (ticket_late_fee_item_id), the rate is scaled to that base, to two
// decimal places. Interest goes as the monthly rate where the layout
// takes one (the bank prorates it by day, as the rule does), else as an
// amount per day rounded to the cent. The discount is the rule's
// (finance.Settle on the last day it applies).
func (s *slipIssuer) termsOf(inv finance.Invoice) (ticketTerms, error) {
	var t ticketTerms
	if inv.TicketLateFee {
		late, err := finance.Settle(inv, inv.DueDate.AddDays(1))
		if err != nil {
			return t, err
		}
		base, whole := late.Base, late.Base.Equal(inv.Total)
		scaled := func(rate decimal.Decimal) decimal.Decimal {
			if whole || inv.Total.IsZero() {
				return rate
			}
			return rate.Mul(base).DivRound(inv.Total, 2)
		}
		t.fine = scaled(inv.TicketLateFeePercentage)
		rate := inv.TicketLateFeeInterest
		switch {
		case rate.IsZero():
		case s.monthly && (whole || !s.perDay):
			t.monthly = scaled(rate)
		default:
			t.perDay = finance.RoundCents(base.Mul(rate).Div(decimal.NewFromInt(3000)))
		}
	}
	if inv.TicketDiscount {
		last := inv.DueDate.AddDays(-inv.TicketDiscountDays)
		early, err := finance.Settle(inv, last)
		if err != nil {
			return t, err
		}
		if early.Discount.IsPositive() {
			t.discount, t.until = early.Discount, last
		}
	}
	return t, nil
}

// title is a batch member as package cnab takes it.
func (s *slipIssuer) title(invoiceID int64, document string, ourNumber int64, amount decimal.Decimal, due finance.Date,
	t ticketTerms, p *storage.TitlePayer) cnab.Title {
	issued := s.today
	if due.Before(issued) {
		issued = due // a title is not issued after it falls due
	}
	return cnab.Title{OurNumber: ourNumber, DocumentNumber: document, Control: strconv.FormatInt(invoiceID, 10),
		Kind: cnab.KindRecibo, Amount: amount, Issued: cnabDate(issued), Due: cnabDate(due),
		Payer: cnab.Payer{Name: p.Name, Document: p.Document, Address: p.Address, District: p.District, City: p.City,
			State: p.State, ZIP: p.ZIP},
		FinePercent: t.fine, InterestPerDay: t.perDay, InterestMonthlyPercent: t.monthly,
		Discount: t.discount, DiscountUntil: cnabDate(t.until)}
}

// payerOf is an invoice's payer as a title carries it: the street, number
// and complement in one address line.
func payerOf(p storage.TicketPayer) storage.TitlePayer {
	return storage.TitlePayer{Name: p.Name, Document: p.TaxID,
		Address:  strings.TrimSpace(strings.Join(nonEmpty(p.Street, p.Number, p.Complement), " ")),
		District: p.District, City: p.City, State: p.State, ZIP: p.ZIP}
}

// nonEmpty keeps the strings that are not blank.
func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			out = append(out, strings.TrimSpace(s))
		}
	}
	return out
}

// cnabDate is a date as package cnab takes it; the zero date is none.
func cnabDate(d finance.Date) cnab.Date {
	if d.IsZero() {
		return cnab.Date{}
	}
	y, m, day := d.Date()
	return cnab.Date{Year: y, Month: m, Day: day}
}

// sequenceOf is the sequence given to the bank's nosso número rule for
// the account's counter value n: n itself, but at Sicredi the eight
// digits YYBNNNNN (the year, byte 2: issued by the beneficiary, and n,
// at most 99,999).
func (s *slipIssuer) sequenceOf(n int64) (int64, error) {
	if s.acc.Bank != "748" {
		return n, nil
	}
	if n > 99999 {
		return 0, fmt.Errorf("the account's nosso número counter is at %d; Sicredi's number holds five digits", n)
	}
	return boleto.SicrediSequence(s.today.Year()%100, 2, int(n))
}

// addTickets adds invoices to a locked open batch: each is refused with
// its reason when it is not the company's, is paid or not billable, is
// not billed by ticket to the batch's account, is in a batch already, is
// overdue (a bank refuses a title already due), has a line that could
// never be posted for want of an owner, or when the bank's layout refuses
// its title (the payer's address, the fee's precision, ...). The others
// get their nosso números from the account's counter (taken together, in
// the order of the request), their barcodes and digitable lines, and are
// added.
func addTickets(ctx context.Context, tx pgx.Tx, b *storage.Batch, actor storage.Actor, ids []int64) (storage.MemberAnswer, error) {
	var ans storage.MemberAnswer
	acc, err := storage.ReadBankAccount(ctx, tx, b.CompanyID, b.AccountID)
	if err != nil {
		return ans, err
	}
	today, err := storage.CompanyToday(ctx, tx, b.CompanyID)
	if err != nil {
		return ans, err
	}
	s, err := newSlipIssuer(acc, today, 1)
	if err != nil {
		return ans, err
	}
	cands, err := storage.ReadTicketCandidates(ctx, tx, b.CompanyID, ids)
	if err != nil {
		return ans, err
	}
	next, err := storage.PeekNossoNumero(ctx, tx, b.CompanyID, b.AccountID)
	if err != nil {
		return ans, err
	}
	check, _ := cnab.NewWriter(io.Discard, s.rem, nil) // the header was checked by newSlipIssuer
	type accepted struct {
		c     *storage.TicketCandidate
		terms ticketTerms
	}
	var ok []accepted
	refused := map[int64]string{}
	for i := range cands {
		c := &cands[i]
		if reason := ticketRefusal(b, c, today); reason != "" {
			refused[c.Invoice.ID] = reason
			continue
		}
		terms, err := s.termsOf(c.Invoice)
		if err != nil {
			refused[c.Invoice.ID] = "its terms cannot be computed: " + err.Error()
			continue
		}
		seq, err := s.sequenceOf(next + int64(len(ok)))
		if err == nil {
			payer := payerOf(c.Payer)
			err = check.Write(s.title(c.Invoice.ID, documentOf(c), seq, c.Invoice.Total, c.Invoice.DueDate, terms, &payer))
		}
		if err != nil {
			refused[c.Invoice.ID] = "bank " + acc.Bank + " cannot carry its title: " + problemsText(err)
			continue
		}
		ok = append(ok, accepted{c, terms})
	}
	var members []storage.TicketMember
	if len(ok) > 0 {
		first, err := storage.TakeNossoNumeros(ctx, tx, b.CompanyID, b.AccountID, int64(len(ok)))
		if err != nil {
			return ans, err
		}
		for k, a := range ok {
			m, err := s.member(a.c, first+int64(k), a.terms)
			if err != nil {
				refused[a.c.Invoice.ID] = "its boleto cannot be made: " + err.Error()
				continue
			}
			members = append(members, m)
		}
	}
	lost, err := storage.InsertTicketMembers(ctx, tx, b, actor, members)
	if err != nil {
		return ans, err
	}
	for _, id := range lost {
		refused[id] = "is in another collection batch (added meanwhile)"
	}
	byID := make(map[int64]*storage.TicketMember, len(members))
	for i := range members {
		byID[members[i].InvoiceID] = &members[i]
	}
	for _, id := range ids {
		if reason, no := refused[id]; no {
			ans.Refuse(id, "%s", reason)
			continue
		}
		m := byID[id]
		ans.Done = append(ans.Done, map[string]any{"id": id, "our_number": m.OurNumber,
			"nosso_numero": m.NossoNumero, "nosso_numero_digit": m.Digit,
			"ticket_barcode": m.Barcode, "ticket_digitable": m.Digitable})
	}
	return ans, nil
}

// documentOf is the title's document number (seu número): the invoice's
// id2, or its id.
func documentOf(c *storage.TicketCandidate) string {
	if c.ID2 != "" {
		return c.ID2
	}
	return strconv.FormatInt(c.Invoice.ID, 10)
}

// billableStatuses are the statuses of an invoice a boleto may be issued
// for.
var billableStatuses = []string{"unpaid", "overdue"}

// ticketRefusal says why an invoice cannot join batch b on the company's
// day today; "" when it can (the bank's layout has its say after).
func ticketRefusal(b *storage.Batch, c *storage.TicketCandidate, today finance.Date) string {
	inv := &c.Invoice
	switch {
	case !c.Found:
		return "not found"
	case c.InBatch == b.ID:
		return "is in this batch already"
	case c.InBatch != 0:
		return fmt.Sprintf("is in collection batch %d", c.InBatch)
	case inv.Paid:
		return "is paid"
	case !slices.Contains(billableStatuses, c.Status):
		return "is " + c.Status
	case inv.BillingMethod != "ticket":
		return "is billed by " + inv.BillingMethod + ", not ticket"
	case inv.AccountID != b.AccountID:
		return fmt.Sprintf("is billed to account %d, not to the batch's account %d", inv.AccountID, b.AccountID)
	case inv.DueDate.Before(today):
		return fmt.Sprintf("is overdue (due %s): a bank refuses a title already due; move its due_date to today or later first",
			inv.DueDate)
	case c.Ownerless != "":
		return "could never be paid: " + c.Ownerless
	}
	return ""
}

// member is an accepted invoice's title with its counter value n: the
// nosso número, barcode and digitable line by the bank's rule.
func (s *slipIssuer) member(c *storage.TicketCandidate, n int64, t ticketTerms) (storage.TicketMember, error) {
	inv := &c.Invoice
	seq, err := s.sequenceOf(n)
	if err != nil {
		return storage.TicketMember{}, err
	}
	nn, err := boleto.NewNossoNumero(s.slip, seq)
	if err != nil {
		return storage.TicketMember{}, err
	}
	cents, err := boleto.Cents(inv.Total)
	if err != nil {
		return storage.TicketMember{}, err
	}
	bc, err := boleto.New(s.slip, nn, cents, inv.DueDate.Time())
	if err != nil {
		return storage.TicketMember{}, err
	}
	return storage.TicketMember{InvoiceID: inv.ID, Document: documentOf(c), Payer: payerOf(c.Payer),
		OurNumber: seq, NossoNumero: nn.Number, Digit: nn.Digit,
		Barcode: bc.String(), Digitable: bc.Line(), Amount: inv.Total, Due: inv.DueDate,
		FinePercent: t.fine, InterestPerDay: t.perDay, InterestMonthlyPercent: t.monthly,
		Discount: t.discount, DiscountUntil: t.until,
		PreviousBarcode: c.Barcode, PreviousDigitable: c.Digitable}, nil
}

// writeTicketFile writes a batch's collection remittance: the account's
// header and the titles added, in nosso número order, streamed from the
// batch's rows (as fixed when added) through the writer, the rows read on
// a goroutine of their own (pipe; a few hundred titles in memory at a
// time). Any title the layout refuses (a file too full) fails the file,
// with every problem named by its invoice. After the titles, the file
// asks the bank to drop the account's titles reverted since
// (writeTicketDrops). The report lists the layout's warnings and the
// drops.
func writeTicketFile(ctx context.Context, tx pgx.Tx, b *storage.Batch, seq int64, w io.Writer) (FileReport, error) {
	acc, err := storage.ReadBankAccount(ctx, tx, b.CompanyID, b.AccountID)
	if err != nil {
		return FileReport{}, err
	}
	today, err := storage.CompanyToday(ctx, tx, b.CompanyID)
	if err != nil {
		return FileReport{}, err
	}
	s, err := newSlipIssuer(acc, today, seq)
	if err != nil {
		return FileReport{}, err
	}
	if err := refusePartlyPaidTitles(ctx, tx, b); err != nil {
		return FileReport{}, err
	}
	rem := newRemittance[cnab.Title](b.Type.Members)
	wr, err := cnab.NewWriter(w, s.rem, rem.warn)
	if err != nil {
		return FileReport{}, finance.InvalidInput([]finance.Problem{{Field: "account_id",
			Message: "the account cannot send a remittance: " + problemsText(err)}})
	}
	rem.writer = wr
	err = pipe(func(yield func(*storage.TicketTitle) error) error {
		return storage.EachTicketTitle(ctx, tx, b, yield)
	}, func(t *storage.TicketTitle) error {
		rem.write(t.InvoiceID, t.Amount, s.titleOf(t))
		return nil
	})
	if err != nil {
		return FileReport{}, err
	}
	return rem.close(func() (map[string]any, error) {
		return writeTicketDrops(ctx, tx, b, wr, &rem.ids)
	})
}

// refusePartlyPaidTitles fails the file of batch b while one of its
// titles is of an invoice paid in part since it was added: its slip would
// charge the whole total (docs/api.md, "Part payments"). Each is named,
// with what was paid and what to do.
func refusePartlyPaidTitles(ctx context.Context, q storage.DBTX, b *storage.Batch) error {
	titles, err := storage.PartlyPaidTitles(ctx, q, b)
	if err != nil || len(titles) == 0 {
		return err
	}
	ps := make([]finance.Problem, len(titles))
	for i, t := range titles {
		ps[i] = finance.Problem{Field: b.Type.Members + "." + strconv.FormatInt(t.InvoiceID, 10), Message: fmt.Sprintf(
			"is partially_paid (%s of its %s paid since it was added): its title would charge the whole total; remove it "+
				"from the batch (removeInvoices) and collect its balance by a PIX code (POST /invoices/%d/pixCode)",
			decimal.Decimal(t.Paid).StringFixed(2), decimal.Decimal(t.Total).StringFixed(2), t.InvoiceID)}
	}
	return finance.InvalidInput(ps)
}

// titleOf is a batch's title, as read for its file, as package cnab takes
// it.
func (s *slipIssuer) titleOf(t *storage.TicketTitle) cnab.Title {
	terms := ticketTerms{fine: t.FinePercent, perDay: t.InterestPerDay, monthly: t.InterestMonthlyPercent,
		discount: t.Discount, until: t.DiscountUntil}
	return s.title(t.InvoiceID, t.DocumentNumber, t.OurNumber, t.Amount, t.Due, terms, &t.Payer)
}
