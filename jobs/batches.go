package jobs

import (
	"context"
	"io"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/cnab/retorno"
	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// Batches (docs/api.md, "Batches"; docs/jobs.md, batch:file and
// batch:return). A kind of batch is a BatchKind: its rows are storage's
// (a storage.BatchType), what it does with the bank's formats is here. The
// two job kinds and the member operations are shared: a kind of batch
// plugs in its member changes, its remittance writer and its reading of
// return lines. Collection batches are TicketBatchKind (batches_ticket.go),
// payment batches PaymentBatchKind (batches_payment.go).

// BatchKind is one kind of batch.
type BatchKind struct {
	Type *storage.BatchType
	// Add adds members to a locked open batch, each checked against the
	// kind's rules and given what the bank gets (a title, a payment); the
	// actor writes the histories. Removing and reverting members are the
	// storage machinery's, the same for every kind.
	Add func(ctx context.Context, tx pgx.Tx, b *storage.Batch, actor storage.Actor, ids []int64) (storage.MemberAnswer, error)
	// WriteFile writes the remittance of a locked batch, numbered seq, to
	// w; a title the bank's layout refuses is an Invalid error naming it.
	// Sent, when set, then records that its members went in the file (a
	// closed batch's members are sent: the collection batch records
	// nothing more).
	WriteFile func(ctx context.Context, tx pgx.Tx, b *storage.Batch, seq int64, w io.Writer) (FileReport, error)
	Sent      func(ctx context.Context, tx pgx.Tx, b *storage.Batch) error
	// Pending counts what the next file of the batch's account asks the
	// bank for besides the batch's members (members of other batches
	// reverted since their file: titles to drop, payments to cancel), so
	// that a batch without members may still have a file that asks for
	// them alone.
	Pending func(ctx context.Context, q storage.DBTX, b *storage.Batch) (int64, error)
	// Refuse, when set, says why the batch's file cannot be written as
	// its members stand (an Invalid error naming each member that changed
	// since it was added, and what to do); nil when it can. It is asked
	// when the file is asked for, and again as the file is written.
	Refuse func(ctx context.Context, q storage.DBTX, b *storage.Batch) error
	// Events is the kind of return event it reads (titles or payments);
	// Apply acts on a part of a return file's lines (those not read
	// before), in tx, and says what it did with each.
	Events retorno.Kind
	Apply  func(ctx context.Context, tx pgx.Tx, rf *ReturnRead, lines []ReturnItem) ([]storage.ReturnLine, error)
	// Names is what a return line names its member by, as Apply matches
	// it (a title's nosso número, a payment's reference; "" for none):
	// the lines of one member are read in file order (returnChunksApart).
	Names func(ev *retorno.Event) string
	// MemberKey names the member of a return line in the job's report
	// ("invoice_id").
	MemberKey string
}

// batchKinds are the kinds of batch, by name.
var batchKinds = map[string]*BatchKind{}

func registerBatchKind(k *BatchKind) *BatchKind {
	batchKinds[k.Type.Name] = k
	return k
}

// BatchKindOf returns the kind of batch of a storage type.
func BatchKindOf(bt *storage.BatchType) *BatchKind { return batchKinds[bt.Name] }

// ChangeBatchMembers adds, removes or reverts members of a company's
// batch, in one transaction of db (a pool, or a transaction: a savepoint
// of it, as a check rolled back runs it): the batch is locked, its state checked
// (storage.CheckMemberOp: 409), and the kind's addition run, or the
// removal or reversal every kind shares (storage.RemoveMembers,
// storage.RevertMembers); every id is either changed or refused with its
// reason. NotFound for another company's batch.
func ChangeBatchMembers(ctx context.Context, db storage.Beginner, k *BatchKind, sc storage.Scope, batchID int64,
	op storage.MemberOp, ids []int64) (ans storage.MemberAnswer, err error) {
	err = pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		b, err := storage.LockBatch(ctx, tx, k.Type, sc.CompanyID, batchID)
		if err != nil {
			return err
		}
		if err := storage.CheckMemberOp(b, op); err != nil {
			return err
		}
		ans, err = changeMembers(ctx, tx, k, b, op, storage.ActorOf(sc), ids)
		return err
	})
	return ans, err
}

// changeMembers runs a member operation on a locked batch.
func changeMembers(ctx context.Context, tx pgx.Tx, k *BatchKind, b *storage.Batch, op storage.MemberOp, actor storage.Actor,
	ids []int64) (storage.MemberAnswer, error) {
	switch op {
	case storage.OpAdd:
		return k.Add(ctx, tx, b, actor, ids)
	case storage.OpRemove:
		return storage.RemoveMembers(ctx, tx, b, actor, ids)
	}
	return storage.RevertMembers(ctx, tx, b, actor, ids)
}

func checkBatchPayload(batch, idField string, id int64) []finance.Problem {
	var ps []finance.Problem
	if _, ok := batchKinds[batch]; !ok {
		ps = append(ps, finance.Problem{Field: "payload.batch", Message: "must be a kind of batch: " + batchKindNames()})
	}
	if id < 1 {
		ps = append(ps, finance.Problem{Field: "payload." + idField, Message: "must be 1 or more"})
	}
	return ps
}
