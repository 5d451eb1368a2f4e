package jobs

import (
	"context"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/cnab"
	"github.com/propfin/propfin/cnab/pagamento"
	"github.com/propfin/propfin/storage"
)

// Requests about members reverted after their file (docs/api.md,
// "Batches" and "Payment batches"; docs/jobs.md, batch:file): the next
// file of the account, whichever batch of the company it is for, carries
// after its own titles a request to drop every title reverted and not
// asked yet (cnab.Writer.Drop), and after its payments a request to cancel
// every payment reverted and not asked yet (pagamento.Writer.Cancel). The
// members are claimed in the file's transaction (storage.ClaimTicketDrops,
// storage.ClaimPaymentCancels): a file that is not stored asks nothing, a
// file stored asks once. One the layout refuses is left out of the file
// and released, to be asked again by a later file, and the report says
// why.

// DroppedTitle is a title a file asks the bank to drop, in the file job's
// report; Reason says why the layout refused it, for one left out.
type DroppedTitle struct {
	InvoiceID   int64  `json:"invoice_id"`
	BatchID     int64  `json:"batch_id"`
	NossoNumero string `json:"nosso_numero"`
	Reason      string `json:"reason,omitempty"`
}

// CancelledPayment is a payment a file asks the bank to cancel, in the
// file job's report; Reason says why the layout refused it, for one left
// out.
type CancelledPayment struct {
	TransactionID int64  `json:"transaction_id"`
	BatchID       int64  `json:"batch_id"`
	Reference     string `json:"reference"`
	Reason        string `json:"reason,omitempty"`
}

// requestList keeps the first maxFileWarnings items of a report's list and
// counts the others.
type requestList[T any] struct {
	items []T
	more  int
}

func (l *requestList[T]) add(v T) {
	if len(l.items) < maxFileWarnings {
		l.items = append(l.items, v)
	} else {
		l.more++
	}
}

// into puts the list in a report under key (an empty list rather than
// null), with how many were left out of it under key_not_listed.
func (l *requestList[T]) into(rep map[string]any, key string) {
	if l.items == nil {
		l.items = []T{}
	}
	rep[key] = l.items
	if l.more > 0 {
		rep[key+"_not_listed"] = l.more
	}
}

// writeTicketDrops writes, after the titles of batch b's file, the drop
// of every title of the account reverted and not asked yet. ids gets the
// invoice of each drop, so that the writer's warnings name it. The report:
// drops (how many the file carries), drop_titles (the first 1,000),
// drops_refused (those left out, with the layout's reasons).
func writeTicketDrops(ctx context.Context, tx pgx.Tx, b *storage.Batch, wr *cnab.Writer, ids *[]int64) (map[string]any, error) {
	var asked, refused requestList[DroppedTitle]
	var released []int64
	err := storage.ClaimTicketDrops(ctx, tx, b, func(d *storage.TicketDrop) error {
		*ids = append(*ids, d.InvoiceID)
		item := DroppedTitle{InvoiceID: d.InvoiceID, BatchID: d.BatchID, NossoNumero: d.NossoNumero}
		err := wr.Drop(cnab.Drop{OurNumber: d.OurNumber, DocumentNumber: d.DocumentNumber,
			Control: controlOf(d.InvoiceID), Amount: d.Amount, Due: cnabDate(d.Due)})
		if err != nil {
			item.Reason = problemsText(err)
			refused.add(item)
			released = append(released, d.MemberID)
			return nil
		}
		asked.add(item)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := storage.ReleaseTicketDrops(ctx, tx, b, released); err != nil {
		return nil, err
	}
	rep := map[string]any{"drops": wr.Drops()}
	asked.into(rep, "drop_titles")
	if len(released) > 0 {
		refused.into(rep, "drops_refused")
	}
	return rep, nil
}

// controlOf is a title's control (uso da empresa): its invoice's id, as
// the entry carried it.
func controlOf(invoiceID int64) string { return strconv.FormatInt(invoiceID, 10) }

// writePaymentCancels writes, after the payments of batch b's file, the
// cancellation of every payment of the account reverted and not asked
// yet that the file can carry: at a bank that takes PIX payments only in
// files of their own, a PIX file carries the PIX ones and another file
// the others. Each is the payment as it was sent, dated the day its file
// scheduled it for. ids gets the entry of each, so that the writer's
// warnings name it. The report: cancellations, cancelled_payments (the
// first 1,000), cancellations_refused (those left out, with the layout's
// reasons).
func writePaymentCancels(ctx context.Context, tx pgx.Tx, b *storage.Batch, p *paymentIssuer, wr *pagamento.Writer, ids *[]int64) (map[string]any, error) {
	var asked, refused requestList[CancelledPayment]
	var released []int64
	err := storage.ClaimPaymentCancels(ctx, tx, b, cancelMethods(p), func(c *storage.PaymentCancel) error {
		*ids = append(*ids, c.TransactionID)
		item := CancelledPayment{TransactionID: c.TransactionID, BatchID: c.BatchID, Reference: c.Reference}
		pay := p.payment(&c.PaymentMember)
		pay.Date = cnabDate(c.Day)
		if err := wr.Cancel(pay); err != nil {
			item.Reason = problemsText(err)
			refused.add(item)
			released = append(released, c.MemberID)
			return nil
		}
		asked.add(item)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := storage.ReleasePaymentCancels(ctx, tx, b, released); err != nil {
		return nil, err
	}
	rep := map[string]any{"cancellations": wr.Cancels()}
	asked.into(rep, "cancelled_payments")
	if len(released) > 0 {
		refused.into(rep, "cancellations_refused")
	}
	return rep, nil
}

// cancelMethods are the methods of the payments a file of the issuer's
// remittance can cancel: all (nil), or at a bank that takes PIX payments
// only in files of their own, those of the file's kind.
func cancelMethods(p *paymentIssuer) []string {
	switch {
	case !pagamento.PIXFileOnly(p.acc.Bank):
		return nil
	case p.rem.PIX:
		return []string{storage.MethodPIXAccount, storage.MethodPIXKey}
	}
	return []string{storage.MethodTransfer, storage.MethodBoleto}
}

// paymentFileIsPIX says whether a payment batch's file is a PIX file:
// when its payments are all PIX; with none, when the account's payments
// waiting for cancellation are all PIX (a file of cancellations only).
func paymentFileIsPIX(ctx context.Context, q storage.DBTX, b *storage.Batch, pixN, otherN int64) (bool, error) {
	if pixN+otherN > 0 {
		return otherN == 0, nil
	}
	pix, other, err := storage.PendingPaymentCancels(ctx, q, b.CompanyID, b.AccountID)
	return pix > 0 && other == 0, err
}

// pendingTicketDrops and pendingPaymentCancels count what the next file
// of a batch's account would ask the bank for besides its members.
func pendingTicketDrops(ctx context.Context, q storage.DBTX, b *storage.Batch) (int64, error) {
	return storage.PendingTicketDrops(ctx, q, b.CompanyID, b.AccountID)
}

func pendingPaymentCancels(ctx context.Context, q storage.DBTX, b *storage.Batch) (int64, error) {
	pix, other, err := storage.PendingPaymentCancels(ctx, q, b.CompanyID, b.AccountID)
	return pix + other, err
}
