package storage

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance"
)

// Batches (docs/api.md, "Batches"). A batch gathers what goes to a bank in
// one remittance file of one account: the invoices of a collection batch
// (batches_ticket.go), the payable ledger entries of a payment batch
// (batches_payment.go). What every kind of batch shares is here: the
// declaration of a kind (BatchType) and of its batches as a resource
// (created, read, described and deleted through the resource machinery,
// with the same columns and filters), the batch's row and its lock, and
// the answer of adding, removing and reverting members. Beside it, every
// kind shares its remittance files (batches_files.go), its bank return
// files (batches_returns.go), the requests about members reverted since
// their file (batches_drops.go) and the write rules (batches_rules.go).
// The bank formats are package jobs' (it may use package cnab); these
// files hold the rows.

// withValues plans a statement over arrays of ids or references with
// their values each time (an unnamed statement; its description cached).
// Every statement of a return file's chunk over its arrays takes it: a
// plan cached for any values does not know how long the arrays are, and
// chose, after a few chunks of a payment return, to scan the whole table
// and test each row against the 2,000 values of "= any($n)" one by one:
// seconds per statement instead of milliseconds. The DIMOB's statements
// take it too (dimob.go).
const withValues = pgx.QueryExecModeCacheDescribe

// BatchType declares one kind of batch to the shared machinery.
type BatchType struct {
	// Name is the kind's name in job payloads and in the shared tables
	// (batch_files.batch_type): "ticket", "payment".
	Name string
	// Resource is the registry name of its batches, Table their table.
	Resource, Table string
	// Members is the body key of its member lists (addInvoices:
	// {"invoices": [...]}) and the last segment of its members' route.
	Members string
	// MemberResource is the resource its members are listed through, and
	// MemberFilter that resource's special filter keeping a batch's.
	MemberResource, MemberFilter string
	// SequenceColumn is the accounts column counting the kind's file
	// sequence numbers: the next one to use.
	SequenceColumn string
	// FilePrefix starts the name of its remittance files.
	FilePrefix string
	// MemberTable holds the batches' members, MemberColumn the id of the
	// record each is; Label names a batch and Noun a member in messages
	// ("collection batch", "invoice").
	MemberTable, MemberColumn, Label, Noun string
	// Frozen are the member record's columns its place in a batch depends
	// on: while the record is added or sent they cannot change
	// (FrozenInBatch).
	Frozen []string
	// AccountProblems says why an account with the terms given cannot
	// send the kind's remittances, by the account column to fix; none
	// when it can. The batch's create, the writes of an account and the
	// kind's own work (jobs) all ask it.
	AccountProblems func(AccountTerms) []finance.Problem
	// Remitter is the part the account's business plays in the kind's
	// remittances ("payer", "beneficiary"): their header names it by its
	// name and CPF or CNPJ, which the batch's create and the kind's own
	// work check (BatchType.BusinessProblems).
	Remitter string
	// lockMembers reads the members of a locked batch among the records
	// ids (all of them when ids is nil), locking them, by record: what the
	// shared removal and reversal (RemoveMembers, RevertMembers) decide on.
	lockMembers func(ctx context.Context, tx pgx.Tx, b *Batch, ids []int64) (map[int64]batchMember, error)
	// takeOut writes that members leave a locked batch, removed from an
	// open one (OpRemove) or reverted in a closed one (OpRevert), with
	// what the kind changes beside; because, when not empty, says what
	// took them out besides the request (an agreement's end), for their
	// histories. The batch's count and total are the shared code's.
	takeOut func(ctx context.Context, tx pgx.Tx, b *Batch, op MemberOp, actor Actor, members []batchMember, because string) error
}

// BatchTypes are the kinds of batch, by name.
var BatchTypes = map[string]*BatchType{TicketBatch.Name: TicketBatch, PaymentBatch.Name: PaymentBatch}

// Batch is a batch's row as the shared machinery reads it.
type Batch struct {
	Type      *BatchType
	CompanyID int64
	ID        int64
	AccountID int64
	Open      bool // no file yet: members may be added and removed
	Titles    int64
	FileID    int64 // 0: none yet
}

// batchStatuses are a batch's states: open until its file is written.
var batchStatuses = []string{"open", "closed"}

// batchColumns are the columns every kind of batch has: its account (the
// bank account the file goes to, set on create), its status, how many
// titles it holds and their total, and its file's sequence number and
// name once written.
func batchColumns() []Column {
	return columns([]Column{
		{Name: "id", Type: Int, Filterable: true},
		{Name: "description", Type: String, Filterable: true, Writable: true},
		{Name: "account_id", Type: Int, Filterable: true, Writable: true, Required: true, CreateOnly: true, References: Accounts},
		{Name: "status", Type: String, Filterable: true, Enum: batchStatuses},
		{Name: "titles", Type: Int, Filterable: true},
		{Name: "total", Type: Decimal, Precision: 16, Scale: 2, Filterable: true},
		{Name: "file_sequence", Type: Int, Filterable: true},
		{Name: "file_name", Type: String, Filterable: true},
		{Name: "closed_at", Type: DateTime, Filterable: true},
	}, timestampColumns())
}

// batchFilters are the special filters every kind of batch has.
func batchFilters() []SpecialFilter {
	return []SpecialFilter{
		ColumnIn("accountIn", "account_id", Int),
		enumIn(ColumnIn("statusIn", "status", String), batchStatuses),
	}
}

// batchResource declares the batches of a kind: their shared columns and
// filters, their account, their members (items, the resource given), and
// the kind's rules.
func batchResource(bt *BatchType, members string) *Resource {
	return &Resource{
		Name: bt.Resource, Table: bt.Table, CustomFields: true,
		Columns: batchColumns(),
		Relations: []Relation{
			{Name: "account", Kind: BelongsTo, Resource: Accounts, Key: "account_id"},
			{Name: "items", Kind: HasMany, Resource: members, Key: "batch_id"},
		},
		Filters: batchFilters(),
		Hooks: Hooks{
			Before: []Hook{checkBatchAccount(bt), deleteBatch(bt)},
		},
	}
}

// LockBatch reads a batch of the company and locks its row for the rest
// of tx (FOR UPDATE): member changes and the writing of its file are
// serialised on it. NotFound for another company's batch or none.
func LockBatch(ctx context.Context, tx pgx.Tx, bt *BatchType, companyID, id int64) (*Batch, error) {
	return readBatch(ctx, tx, bt, companyID, id, " FOR UPDATE")
}

// GetBatch reads a batch of the company without locking it.
func GetBatch(ctx context.Context, q DBTX, bt *BatchType, companyID, id int64) (*Batch, error) {
	return readBatch(ctx, q, bt, companyID, id, "")
}

func readBatch(ctx context.Context, q DBTX, bt *BatchType, companyID, id int64, suffix string) (*Batch, error) {
	b := &Batch{Type: bt, CompanyID: companyID, ID: id}
	var status string
	var fileID *int64
	err := q.QueryRow(ctx, `SELECT account_id, status, titles, file_id FROM `+ident(bt.Table)+`
		WHERE company_id = $1 AND id = $2`+suffix, companyID, id).Scan(&b.AccountID, &status, &b.Titles, &fileID)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, recordNotFound(id)
	}
	if err != nil {
		return nil, translate(err, fmt.Sprintf("%s batch %d", bt.Name, id))
	}
	b.Open = status == "open"
	if fileID != nil {
		b.FileID = *fileID
	}
	return b, nil
}

// CountMembers moves a batch's count of titles and their total by n and
// amount (negative to take away).
func CountMembers(ctx context.Context, tx pgx.Tx, b *Batch, n int64, amount decimal.Decimal) error {
	_, err := tx.Exec(ctx, `UPDATE `+ident(b.Type.Table)+` SET titles = titles + $3, total = total + $4::numeric,
		updated_at = now() WHERE company_id = $1 AND id = $2`, b.CompanyID, b.ID, n, amount.String())
	if err != nil {
		return translate(err, fmt.Sprintf("count of %s batch %d", b.Type.Name, b.ID))
	}
	return nil
}

// MemberOp is a change of a batch's members: add, remove or revert.
type MemberOp string

// The member operations. Remove takes members out of a batch whose file
// is not written; revert takes them back after it.
const (
	OpAdd    MemberOp = "add"
	OpRemove MemberOp = "remove"
	OpRevert MemberOp = "revert"
)

// Past is the operation's past participle, the key of the ids it changed
// in its answer ("added").
func (op MemberOp) Past() string {
	switch op {
	case OpAdd:
		return "added"
	case OpRemove:
		return "removed"
	}
	return "reverted"
}

// CheckMemberOp refuses (409) an operation the batch's state does not
// allow: adding to or removing from a batch whose file is written,
// reverting in one whose file is not.
func CheckMemberOp(b *Batch, op MemberOp) error {
	switch {
	case op == OpRevert && b.Open:
		return finance.Errorf(finance.Conflict, "The batch's file is not written yet: take %s out with remove%s.", b.Type.Members, capitalized(b.Type.Members))
	case op != OpRevert && !b.Open:
		return finance.Errorf(finance.Conflict, "The batch's file is written: it is closed to changes; take %s back with revert%s.",
			b.Type.Members, capitalized(b.Type.Members))
	}
	return nil
}

// capitalized is s with its first letter in upper case (ASCII).
func capitalized(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// MemberAnswer is what a member operation did, id by id: the ids changed
// (each with what the kind says about it) and the ids refused, each with
// its reason. Ids appear in the order of the request within each list.
type MemberAnswer struct {
	Done    []map[string]any `json:"-"`
	Refused []Refusal        `json:"refused"`
}

// Refusal is an id a member operation did not change, and why.
type Refusal struct {
	ID     int64  `json:"id"`
	Reason string `json:"reason"`
}

// Refuse adds a refusal.
func (a *MemberAnswer) Refuse(id int64, format string, args ...any) {
	a.Refused = append(a.Refused, Refusal{ID: id, Reason: fmt.Sprintf(format, args...)})
}

// batchMember is a member of a batch as its removal and reversal read it:
// the record it is (an invoice, a ledger entry) and its row in the batch,
// its state there and its amount, whether the record is paid, and for a
// collection title the slip its invoice carries (for the history).
type batchMember struct {
	recordID           int64
	rowID              int64
	state              string
	amount             decimal.Decimal
	paid               bool
	barcode, digitable string
}

// RemoveMembers takes members out of a locked open batch (ids nil: all of
// them), as the kind writes it (BatchType.takeOut), and the batch's count
// and total go down. An id not in the batch is refused.
func RemoveMembers(ctx context.Context, tx pgx.Tx, b *Batch, actor Actor, ids []int64) (MemberAnswer, error) {
	return takeOutMembers(ctx, tx, b, OpRemove, actor, ids, "")
}

// RevertMembers takes back members sent in a locked batch's file, as the
// kind writes it (BatchType.takeOut): they may join another batch, and the
// batch's count and total go down. The bank still holds them until the
// next file of the account asks it to drop or cancel them (docs/api.md).
// A paid record, or one not sent in this batch, is refused.
func RevertMembers(ctx context.Context, tx pgx.Tx, b *Batch, actor Actor, ids []int64) (MemberAnswer, error) {
	return takeOutMembers(ctx, tx, b, OpRevert, actor, ids, "")
}

// takeOutMembers is RemoveMembers (op OpRemove) and RevertMembers (op
// OpRevert): every id is taken out or refused with its reason, in the
// order of ids. because says what took them out when it is not the
// batch's own request (BatchType.takeOut): an agreement's end takes its
// canceled installments out of their collection batches through it
// (takeOutOfTicketBatches).
func takeOutMembers(ctx context.Context, tx pgx.Tx, b *Batch, op MemberOp, actor Actor, ids []int64, because string) (MemberAnswer, error) {
	var ans MemberAnswer
	members, err := b.Type.lockMembers(ctx, tx, b, ids)
	if err != nil {
		return ans, err
	}
	if ids == nil && op == OpRemove {
		ids = sortedKeys(members)
	}
	var paidShort map[int64]int64
	if op == OpRevert {
		if paidShort, err = bankPaidShort(ctx, tx, b.CompanyID, members); err != nil {
			return ans, err
		}
	}
	var out []batchMember
	total := decimal.Zero
	for _, id := range ids {
		m, ok := members[id]
		switch {
		case !ok:
			ans.Refuse(id, "is not in this batch")
			continue
		case op == OpRevert && m.state != "added":
			ans.Refuse(id, "is %s in this batch, not sent", m.state)
			continue
		case op == OpRevert && m.paid:
			ans.Refuse(id, "is paid")
			continue
		case paidShort[m.rowID] != 0:
			ans.Refuse(id, "the bank reported it paid short (operator alert %d): the bank made the payment, and a revert "+
				"would ask it to cancel it; settle the rest with the bank and record the payment by hand", paidShort[m.rowID])
			continue
		}
		out = append(out, m)
		total = total.Add(m.amount)
		ans.Done = append(ans.Done, map[string]any{"id": id})
	}
	if len(out) == 0 {
		return ans, nil
	}
	if err := b.Type.takeOut(ctx, tx, b, op, actor, out, because); err != nil {
		return ans, err
	}
	return ans, CountMembers(ctx, tx, b, -int64(len(out)), total.Neg())
}

// bankPaidShort are the members of a payment batch a return file reported
// paid short (a short_payment alert names the member's row: the bank made
// the payment, and nothing was booked), by row id, with the alert's id.
// A collection title paid short is booked as a part, and names no row.
func bankPaidShort(ctx context.Context, tx pgx.Tx, companyID int64, members map[int64]batchMember) (map[int64]int64, error) {
	rows := make([]int64, 0, len(members))
	for _, m := range members {
		rows = append(rows, m.rowID)
	}
	r, err := tx.Query(ctx, `SELECT payment_id, max(id) FROM operator_alerts
		WHERE company_id = $1 AND kind = 'short_payment' AND payment_id = ANY ($2::bigint[]) GROUP BY payment_id`, companyID, rows)
	if err != nil {
		return nil, translate(err, "read the payments paid short")
	}
	out := map[int64]int64{}
	for r.Next() {
		var row, alert int64
		if err := r.Scan(&row, &alert); err != nil {
			r.Close()
			return nil, translate(err, "read the payments paid short")
		}
		out[row] = alert
	}
	return out, translate(r.Err(), "read the payments paid short")
}

// MaxMembersPerCall bounds the ids of one member operation.
const MaxMembersPerCall = 100_000
