package jobs

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/cnab"
	"github.com/propfin/propfin/cnab/pagamento"
	"github.com/propfin/propfin/cnab/retorno"
	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/pix"
	"github.com/propfin/propfin/storage"
)

// PaymentBatchKind is the payment batch (/financial/paymentBatch): its
// payable ledger entries get their payments when added (a transfer, a PIX
// to account data or to a key, a boleto by its barcode), go to the bank in
// a payment remittance (package cnab/pagamento), and are paid or failed by
// the bank's payment return files (cnab/retorno).
var PaymentBatchKind = registerBatchKind(&BatchKind{
	Type:      storage.PaymentBatch,
	Add:       addPayments,
	WriteFile: writePaymentFile,
	Sent:      paymentsSent,
	Pending:   pendingPaymentCancels,
	Events:    retorno.KindPayment,
	Apply:     applyPaymentReturn,
	Names:     paymentReference,
	MemberKey: "transaction_id",
})

// paymentsSent records that a batch's payments went in its file: nothing
// to write, since a payment added to a batch whose file is written is sent
// (storage.PaymentMatch, the members' state as read), so that a file of
// 100,000 payments writes no payment row.
func paymentsSent(context.Context, pgx.Tx, *storage.Batch) error { return nil }

// batchKindNames lists the kinds of batch, sorted, for messages.
func batchKindNames() string {
	return strings.Join(slices.Sorted(maps.Keys(batchKinds)), ", ")
}

// paymentIssuer makes the payments of one account: the remittance header
// the bank's layout takes (checked once) and the day payments are made
// from.
type paymentIssuer struct {
	acc    *storage.PaymentAccount
	rem    pagamento.Remittance
	today  finance.Date
	checks map[bool]*pagamento.Writer // the check writers, by PIX file
}

// newPaymentIssuer reads the account's payment remittance header, numbered
// seq and holding PIX payments only when pixFile, and checks it with the
// bank's layout: an account that cannot send payments is a 422 naming
// account_id with the layout's reasons.
func newPaymentIssuer(acc *storage.PaymentAccount, now time.Time, seq int64, pixFile bool) (*paymentIssuer, error) {
	if ps := storage.PaymentBatch.AccountProblems(acc.Terms()); len(ps) > 0 {
		return nil, finance.InvalidInput([]finance.Problem{{Field: "account_id",
			Message: "the account cannot send payment remittances: " + storage.ProblemsText(ps)}})
	}
	if p, refused := storage.PaymentBatch.AccountBusinessProblem(acc.ID, acc.Business()); refused {
		return nil, finance.InvalidInput([]finance.Problem{p})
	}
	p := &paymentIssuer{acc: acc, today: finance.NewDate(now.Year(), now.Month(), now.Day()), checks: map[bool]*pagamento.Writer{}}
	p.rem = pagamento.Remittance{Bank: acc.Bank, Sequence: int(seq), Created: now, PIX: pixFile,
		Payer: pagamento.Payer{Name: acc.BusinessName, Document: acc.BusinessTaxID, Agency: acc.Agency,
			AgencyDigit: acc.AgencyDigit, Account: acc.Account, AccountDigit: acc.AccountDigit,
			Covenant: acc.PaymentCovenant, Address: payerAddress(acc)}}
	if _, err := pagamento.NewWriter(io.Discard, p.rem, nil); err != nil {
		return nil, finance.InvalidInput([]finance.Problem{{Field: "account_id",
			Message: "the account cannot send a payment remittance: " + problemsText(err)}})
	}
	return p, nil
}

// payerAddress is the business's address as the batch headers print it:
// the parts the layout takes as they are (a house number of up to five
// digits, the 8-digit CEP, the state); the others are left out.
func payerAddress(acc *storage.PaymentAccount) pagamento.Address {
	a := pagamento.Address{Street: acc.Street, Complement: acc.Complement, District: acc.District, City: acc.City}
	if n := acc.Number; n != "" && len(n) <= 5 && cnab.OnlyDigits(n) == n {
		a.Number = n
	}
	if len(acc.ZIP) == 8 {
		a.ZIP = acc.ZIP
	}
	if len(acc.State) == 2 {
		a.State = acc.State
	}
	return a
}

// payDay is the day a payment due on due is made: its due day, or today
// when that is past (a bank does not take a payment dated in the past).
func (p *paymentIssuer) payDay(due finance.Date) finance.Date {
	if due.Before(p.today) {
		return p.today
	}
	return due
}

// payableMethods are the billing methods a payment batch pays by.
var payableMethods = []string{"ted", "deposit", "pix", "ticket"}

// member decides how a candidate is paid (docs/api.md, "Payment
// batches"): by its billing method and its payee's data. It returns the
// reason when it cannot be paid.
func (p *paymentIssuer) member(c *storage.PaymentCandidate) (storage.PaymentMember, string) {
	payee := &c.Payee
	m := storage.PaymentMember{TransactionID: c.ID, Reference: fmt.Sprintf("PAG-%d-%d", c.ID, c.Attempts+1),
		Amount: c.Amount.Add(c.Interest).Sub(c.Discount), Nominal: c.Amount, Discount: c.Discount, Surcharge: c.Interest,
		Due: c.Due, PayeeName: payee.Name, PayeeDocument: payee.TaxID}
	switch {
	case payee.ID == 0:
		return m, "names no payee: set its person_id, the person paid"
	case payee.TaxID == "":
		return m, fmt.Sprintf("its payee (person %d) has no tax_id: a payment names the payee's CPF or CNPJ", payee.ID)
	case !m.Amount.IsPositive():
		return m, fmt.Sprintf("its amount plus interest less discount is %s: there is nothing to pay", m.Amount.StringFixed(2))
	}
	withAccount := func(method string) {
		m.Method, m.Bank, m.ISPB, m.Agency, m.AgencyDigit = method, payee.Bank, payee.ISPB, payee.Agency, payee.AgencyDigit
		m.Account, m.AccountDigit, m.AccountType = payee.Account, payee.AccountDigit, payee.AccountType
	}
	switch c.BillingMethod {
	case "ted", "deposit":
		if !payee.HasAccount() {
			return m, fmt.Sprintf("is paid by %s, but its payee (person %d) has no bank account: bank, agency, account and account_digit",
				c.BillingMethod, payee.ID)
		}
		withAccount(storage.MethodTransfer)
	case "pix":
		switch {
		case payee.PIXKey != "":
			kt, err := pix.CheckKey(payee.PIXKey)
			if err != nil {
				return m, fmt.Sprintf("its payee's (person %d) pix_key is not a PIX key: %v", payee.ID, err)
			}
			m.Method, m.PIXKey, m.PIXKeyType = storage.MethodPIXKey, payee.PIXKey, string(keyTypeOf(kt))
		case payee.HasAccount():
			withAccount(storage.MethodPIXAccount)
		default:
			return m, fmt.Sprintf("is paid by pix, but its payee (person %d) has neither a pix_key nor a bank account", payee.ID)
		}
	case "ticket":
		switch {
		case c.Barcode == "" && isTransfer(c):
			return m, "is a transfer to an owner by ticket, a boleto, which pays no owner" + transferHint(c)
		case c.Barcode == "":
			return m, "is paid by ticket, but has no ticket_barcode: the boleto's barcode or digitable line"
		}
		m.Method, m.Barcode = storage.MethodBoleto, c.Barcode
	case "":
		return m, "has no billing_method: a payment batch pays by " + strings.Join(payableMethods, ", ") + transferHint(c)
	default:
		return m, fmt.Sprintf("is paid by %s: a payment batch pays by %s", c.BillingMethod, strings.Join(payableMethods, ", ")) +
			transferHint(c)
	}
	m.FileOrder = p.fileOrder(&m)
	return m, ""
}

// transferMethods are the billing methods a payment batch pays an
// owner's transfer by: to the owner's account or PIX key.
var transferMethods = []string{"ted", "deposit", "pix"}

// isTransfer reports whether a candidate is a transfer to an owner.
func isTransfer(c *storage.PaymentCandidate) bool {
	return c.Type == "transfer" && c.Mode == "transfer"
}

// transferHint is what the refusal of a transfer's billing method adds,
// nothing for another entry: the methods that pay an owner, and where
// to set one: on the transfer (while it is unpaid and in no batch) and on
// its contract, whose billing_method (how its owners are paid) the run
// copies onto the transfers it writes.
func transferHint(c *storage.PaymentCandidate) string {
	if !isTransfer(c) {
		return ""
	}
	hint := fmt.Sprintf("; a transfer to an owner is paid by %s: set its billing_method (PUT /transactions/%d)",
		strings.Join(transferMethods, ", "), c.ID)
	if c.ContractID != 0 {
		hint += fmt.Sprintf(", and contract %d's (how its owners are paid) for the transfers to come", c.ContractID)
	}
	return hint
}

// methodOrder is the order of the methods in a file.
var methodOrder = map[string]int16{storage.MethodBoleto: 0, storage.MethodPIXAccount: 1, storage.MethodPIXKey: 2,
	storage.MethodTransfer: 3}

// accountTypeOrder is the order of the credited accounts' types.
var accountTypeOrder = map[string]int16{"": 0, "checking": 0, "savings": 1, "payment": 2}

// fileOrder is where a payment goes in the file: what the bank's forma de
// lançamento depends on (the method; whether the credited account, or the
// boleto's bank, is the paying bank; the account's type; whether the
// payee is the payer), so that payments of one forma come together and
// each of the bank's batches opens once.
func (p *paymentIssuer) fileOrder(m *storage.PaymentMember) int16 {
	bank := m.Bank
	if m.Method == storage.MethodBoleto {
		bank = m.Barcode[:min(3, len(m.Barcode))]
	}
	order := methodOrder[m.Method] * 16
	if bank != p.acc.Bank {
		order += 8
	}
	order += accountTypeOrder[m.AccountType] * 2
	if cnab.OnlyDigits(m.PayeeDocument) != cnab.OnlyDigits(p.acc.BusinessTaxID) {
		order++
	}
	return order
}

// keyTypeOf is a PIX key's type as a payment remittance names it.
func keyTypeOf(kt pix.KeyType) pagamento.KeyType {
	switch kt {
	case pix.KeyPhone:
		return pagamento.KeyPhone
	case pix.KeyEmail:
		return pagamento.KeyEmail
	case pix.KeyEVP:
		return pagamento.KeyRandom
	}
	return pagamento.KeyDocument
}

// payment is a member as package cnab/pagamento takes it.
func (p *paymentIssuer) payment(m *storage.PaymentMember) pagamento.Payment {
	pay := pagamento.Payment{Reference: m.Reference, Amount: m.Amount, Date: cnabDate(p.payDay(m.Due)),
		Beneficiary: pagamento.Beneficiary{Name: m.PayeeName, Document: m.PayeeDocument}}
	account := pagamento.Account{Bank: m.Bank, ISPB: m.ISPB, Agency: m.Agency, AgencyDigit: m.AgencyDigit,
		Account: m.Account, AccountDigit: m.AccountDigit, Type: pagamento.AccountType(m.AccountType)}
	switch m.Method {
	case storage.MethodTransfer:
		pay.Kind, pay.Account = pagamento.KindTransfer, account
	case storage.MethodPIXAccount:
		pay.Kind, pay.Account = pagamento.KindPIX, account
	case storage.MethodPIXKey:
		pay.Kind, pay.PIXKey, pay.PIXKeyType = pagamento.KindPIXKey, m.PIXKey, pagamento.KeyType(m.PIXKeyType)
	case storage.MethodBoleto:
		pay.Kind, pay.Barcode, pay.Due = pagamento.KindBoleto, m.Barcode, cnabDate(m.Due)
		pay.Nominal, pay.Discount, pay.Surcharge = m.Nominal, m.Discount, m.Surcharge
	}
	return pay
}

// maxCheckBatches is how many of the bank's batches a check writer may
// open before it is replaced: a file numbers its batches with four digits,
// and payments checked in the order of a request change forma often.
const maxCheckBatches = 9000

// check has the bank's layout check a member's payment, in a remittance
// that takes it (a PIX file for a PIX) and is written nowhere.
func (p *paymentIssuer) check(m *storage.PaymentMember) error {
	pixFile := storage.IsPIX(m.Method)
	w := p.checks[pixFile]
	if w == nil || w.Batches() >= maxCheckBatches {
		rem := p.rem
		rem.PIX = pixFile
		var err error
		if w, err = pagamento.NewWriter(io.Discard, rem, nil); err != nil {
			return err
		}
		p.checks[pixFile] = w
	}
	return w.Write(p.payment(m))
}

// paymentRefusal says why an entry cannot join batch b; "" when it can
// (its payee's data and the bank's layout have their say after).
func paymentRefusal(b *storage.Batch, c *storage.PaymentCandidate) string {
	switch {
	case !c.Found:
		return "not found"
	case c.Void != 0:
		return fmt.Sprintf("is void: the payment it paid out was undone before it was paid (entry %d reverses it)", c.Void)
	case c.InBatch != 0:
		return fmt.Sprintf("is in payment batch %d", c.InBatch)
	case c.Paid:
		return "is paid"
	case !payable(c.Type, c.Mode):
		return fmt.Sprintf("is not payable: a payment batch pays bills (type debit, mode transaction) and transfers "+
			"(type and mode transfer), not %s and %s", c.Type, c.Mode)
	case c.AccountID != 0 && c.AccountID != b.AccountID && isTransfer(c):
		return fmt.Sprintf("is paid from account %d, not from the batch's account %d: add it to a batch of account %d, "+
			"or set its account_id (PUT /transactions/%d)", c.AccountID, b.AccountID, c.AccountID, c.ID)
	case c.AccountID != 0 && c.AccountID != b.AccountID:
		return fmt.Sprintf("is paid from account %d, not from the batch's account %d", c.AccountID, b.AccountID)
	}
	return ""
}

// payable reports whether an entry of type typ and mode mode is paid by a
// payment batch: a bill (a payable account) or a transfer to an owner
// (the nightly run's, written unpaid when the company pays its transfers
// by batch, or one written through the API).
func payable(typ, mode string) bool {
	return (typ == "debit" && mode == "transaction") || (typ == "transfer" && mode == "transfer")
}

// pixMix says why a payment cannot join a batch at a bank that takes PIX
// payments only in a file of their own, given what the batch holds; ""
// when it can.
func pixMix(bank, method string, pixN, otherN int64) string {
	switch {
	case !pagamento.PIXFileOnly(bank):
	case storage.IsPIX(method) && otherN > 0:
		return fmt.Sprintf("bank %s takes PIX payments in a file of their own, and this batch holds other payments: add it to a batch of PIX payments", bank)
	case !storage.IsPIX(method) && pixN > 0:
		return fmt.Sprintf("bank %s takes PIX payments in a file of their own, and this batch holds PIX payments: add it to another batch", bank)
	}
	return ""
}

// addPayments adds entries to a locked open batch: each is refused with
// its reason when it is not the company's, is paid or not payable (neither
// a bill nor a transfer), is paid
// from another account, is in another batch, when its payee's data does
// not allow its billing method, when the bank's layout refuses its payment
// (a wrong barcode, an account digit too long, ...), or, at a bank that
// takes PIX payments in files of their own, when it would mix PIX with
// other payments. An entry in this batch already is answered as added
// (adding again changes nothing). The others get their references and
// payments, and are added.
func addPayments(ctx context.Context, tx pgx.Tx, b *storage.Batch, _ storage.Actor, ids []int64) (storage.MemberAnswer, error) {
	var ans storage.MemberAnswer
	acc, err := storage.ReadPaymentAccount(ctx, tx, b.CompanyID, b.AccountID)
	if err != nil {
		return ans, err
	}
	now, err := storage.CompanyNow(ctx, tx, b.CompanyID)
	if err != nil {
		return ans, err
	}
	p, err := newPaymentIssuer(acc, now, 1, false)
	if err != nil {
		return ans, err
	}
	cands, err := storage.ReadPaymentCandidates(ctx, tx, b.CompanyID, ids)
	if err != nil {
		return ans, err
	}
	pixN, otherN, err := storage.PaymentMethods(ctx, tx, b)
	if err != nil {
		return ans, err
	}
	var members []storage.PaymentMember
	refused, already := map[int64]string{}, map[int64]*storage.PaymentCandidate{}
	for i := range cands {
		c := &cands[i]
		if c.Found && c.InBatch == b.ID {
			already[c.ID] = c
			continue
		}
		if reason := paymentRefusal(b, c); reason != "" {
			refused[c.ID] = reason
			continue
		}
		m, reason := p.member(c)
		if reason == "" {
			reason = pixMix(acc.Bank, m.Method, pixN, otherN)
		}
		if reason != "" {
			refused[c.ID] = reason
			continue
		}
		if err := p.check(&m); err != nil {
			refused[c.ID] = "bank " + acc.Bank + " cannot make its payment: " + problemsText(err)
			continue
		}
		if storage.IsPIX(m.Method) {
			pixN++
		} else {
			otherN++
		}
		members = append(members, m)
	}
	lost, err := storage.InsertPaymentMembers(ctx, tx, b, members)
	if err != nil {
		return ans, err
	}
	for _, id := range lost {
		refused[id] = "is in another payment batch (added meanwhile)"
	}
	byID := make(map[int64]*storage.PaymentMember, len(members))
	for i := range members {
		byID[members[i].TransactionID] = &members[i]
	}
	for _, id := range ids {
		if reason, no := refused[id]; no {
			ans.Refuse(id, "%s", reason)
			continue
		}
		if c := already[id]; c != nil {
			ans.Done = append(ans.Done, map[string]any{"id": id, "reference": c.InReference, "method": c.InMethod,
				"amount": finance.Money(c.InAmount), "already": true})
			continue
		}
		m := byID[id]
		ans.Done = append(ans.Done, map[string]any{"id": id, "reference": m.Reference, "method": m.Method,
			"amount": finance.Money(m.Amount)})
	}
	return ans, nil
}

// writePaymentFile writes a batch's payment remittance: the account's
// header (a PIX file when every payment is a PIX) and the payments added,
// grouped by method and destination (storage.EachPaymentMember), streamed
// from the database through the writer (the rows read on a goroutine of
// their own: pipe).
// Any payment the layout refuses (a boleto's due date past at a bank that
// refuses overdue boletos, ...) fails the file, with every problem named by
// its entry. After the payments, the file asks the bank to cancel the
// account's payments reverted since (writePaymentCancels). The report
// lists the layout's warnings, the bank's batches written and the
// cancellations.
func writePaymentFile(ctx context.Context, tx pgx.Tx, b *storage.Batch, seq int64, w io.Writer) (FileReport, error) {
	acc, err := storage.ReadPaymentAccount(ctx, tx, b.CompanyID, b.AccountID)
	if err != nil {
		return FileReport{}, err
	}
	now, err := storage.CompanyNow(ctx, tx, b.CompanyID)
	if err != nil {
		return FileReport{}, err
	}
	pixN, otherN, err := storage.PaymentMethods(ctx, tx, b)
	if err != nil {
		return FileReport{}, err
	}
	pixFile, err := paymentFileIsPIX(ctx, tx, b, pixN, otherN)
	if err != nil {
		return FileReport{}, err
	}
	p, err := newPaymentIssuer(acc, now, seq, pixFile)
	if err != nil {
		return FileReport{}, err
	}
	rem := newRemittance[pagamento.Payment](b.Type.Members)
	wr, err := pagamento.NewWriter(w, p.rem, rem.warn)
	if err != nil {
		return FileReport{}, finance.InvalidInput([]finance.Problem{{Field: "account_id",
			Message: "the account cannot send a payment remittance: " + problemsText(err)}})
	}
	rem.writer = wr
	err = pipe(func(yield func(*storage.PaymentMember) error) error {
		return storage.EachPaymentMember(ctx, tx, b, yield)
	}, func(m *storage.PaymentMember) error {
		rem.write(m.TransactionID, m.Amount, p.payment(m))
		return nil
	})
	if err != nil {
		return FileReport{}, err
	}
	rep, err := rem.close(func() (map[string]any, error) {
		return writePaymentCancels(ctx, tx, b, p, wr, &rem.ids)
	})
	if err != nil {
		return rep, err
	}
	rep.Details["pix_file"], rep.Details["bank_batches"] = p.rem.PIX, wr.Batches()
	return rep, nil
}
