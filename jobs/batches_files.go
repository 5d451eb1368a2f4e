package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/cnab"
	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// The remittance files of the batches (docs/jobs.md, batch:file): the job
// kind that writes a batch's file, and what every kind's writer shares
// while its titles are written.

// FileReport is what a remittance carries: its titles and their total
// (money: a number with two decimal places in the result), the warnings
// of the bank's layout (texts truncated, characters replaced), and what
// the kind adds.
type FileReport struct {
	Titles   int64          `json:"titles"`
	Total    finance.Money  `json:"total"`
	Warnings []FileWarning  `json:"warnings"`
	Details  map[string]any `json:"details,omitempty"`
}

// FileWarning is a warning of the remittance writer about one title (its
// member's id; 0 for the file's header).
type FileWarning struct {
	ID      int64  `json:"id,omitempty"`
	Field   string `json:"field"`
	Message string `json:"message"`
}

// maxFileWarnings bounds the warnings a file job reports, and the
// problems of the titles a layout refuses.
const maxFileWarnings = 1000

// titleWriter is a kind's remittance writer (cnab.Writer,
// pagamento.Writer) as a file job drives it: the titles (or payments) one
// at a time, then the trailers.
type titleWriter[T any] interface {
	Write(T) error
	Close() error
}

// remittance is a kind's file while its titles are written, what every
// kind's WriteFile shares: it names by member what the bank's layout says
// of each title (its warnings; the problems of a title refused, as
// "invoices.41"), and counts the titles and their total. Made with
// newRemittance, its warn is given to the writer's constructor, and the
// writer to it.
type remittance[T any] struct {
	writer   titleWriter[T]
	members  string  // the members' body key, which names a title refused
	ids      []int64 // the member of each title, by the writer's index
	total    decimal.Decimal
	warnings []FileWarning
	problems []finance.Problem
}

func newRemittance[T any](members string) *remittance[T] {
	return &remittance[T]{members: members, warnings: []FileWarning{}}
}

// warn takes a warning of the writer: its title's member is named by the
// index the writer gives (none for the header and trailers).
func (r *remittance[T]) warn(p cnab.Problem) {
	if len(r.warnings) >= maxFileWarnings {
		return
	}
	fw := FileWarning{Field: p.Field, Message: p.Message}
	if p.Title >= 0 && p.Title < len(r.ids) {
		fw.ID = r.ids[p.Title]
	}
	r.warnings = append(r.warnings, fw)
}

// write writes the title of member id, of amount. A title the layout
// refuses is kept as a problem and the titles after it are still checked,
// so that the file's failure names them all.
func (r *remittance[T]) write(id int64, amount decimal.Decimal, title T) {
	r.ids = append(r.ids, id)
	if err := r.writer.Write(title); err != nil && len(r.problems) < maxFileWarnings {
		r.problems = append(r.problems, finance.Problem{Field: r.members + "." + strconv.FormatInt(id, 10),
			Message: problemsText(err)})
	}
	r.total = r.total.Add(amount)
}

// close ends the file after its titles: a title refused is an Invalid
// error and the file is not to be stored. Then after, when given, writes
// what follows the titles (the requests about members reverted since
// their file, appended to r.ids so that warnings name them) and gives the
// report's details; then the writer's trailers, which a file too full
// refuses (Invalid too). The report counts the titles alone.
func (r *remittance[T]) close(after func() (map[string]any, error)) (FileReport, error) {
	if len(r.problems) > 0 {
		return FileReport{}, finance.InvalidInput(r.problems)
	}
	rep := FileReport{Titles: int64(len(r.ids)), Total: finance.Money(r.total)}
	if after != nil {
		var err error
		if rep.Details, err = after(); err != nil {
			return FileReport{}, err
		}
	}
	if err := r.writer.Close(); err != nil {
		return FileReport{}, finance.InvalidInput([]finance.Problem{{Field: r.members, Message: problemsText(err)}})
	}
	rep.Warnings = r.warnings
	return rep, nil
}

// KindBatchFile writes a batch's remittance file.
const KindBatchFile = "batch:file"

// BatchFilePayload names the batch: its kind and id. Once per batch.
type BatchFilePayload struct {
	Batch string `json:"batch"`
	ID    int64  `json:"id"`
}

// Check implements Checker.
func (p BatchFilePayload) Check() []finance.Problem {
	return checkBatchPayload(p.Batch, "id", p.ID)
}

// UniqueKey implements Keyed: one file job per batch.
func (p BatchFilePayload) UniqueKey() string { return p.Batch + ":" + strconv.FormatInt(p.ID, 10) }

// NewBatchFile is the submission of a batch's file job.
func NewBatchFile(bt *storage.BatchType, id int64) Submission {
	raw, _ := json.Marshal(BatchFilePayload{Batch: bt.Name, ID: id}) // plain values: cannot fail
	return Submission{Kind: KindBatchFile, Payload: raw}
}

// BatchFileResult is the result of a batch:file job.
type BatchFileResult struct {
	Batch    string `json:"batch"`
	BatchID  int64  `json:"batch_id"`
	FileID   int64  `json:"file_id"`
	Sequence int64  `json:"sequence"`
	Name     string `json:"name"`
	Bytes    int    `json:"bytes"`
	FileReport
}

// BatchFileKind declares batch:file: in one transaction (one chunk) the
// batch is locked, the account's next file sequence number taken, the
// kind's remittance written to memory, stored with its number, and the
// batch closed. A batch whose file exists answers that file: a job run
// again writes nothing. A title the layout refuses fails the job at once
// with every problem; nothing is stored and the number is not used.
func BatchFileKind() *Kind {
	return Define(KindBatchFile, Options{Queue: QueueCritical, SucceededEvent: storage.EventBatchFileReady}, runBatchFile)
}

func runBatchFile(ctx context.Context, r *Run, p BatchFilePayload) (any, error) {
	k := batchKinds[p.Batch]
	outputs, err := r.Chunks(ctx, 1, 1, func(ctx context.Context, tx pgx.Tx, _ int) (any, int64, error) {
		res, err := writeBatchFile(ctx, tx, k, r.CompanyID(), p.ID, r.Job.ID)
		return res, 1, err
	})
	if err != nil {
		var coded *finance.Error
		if errors.As(err, &coded) && (coded.Code == finance.Invalid || coded.Code == finance.NotFound) {
			return nil, permanent(err)
		}
		return nil, err
	}
	return outputs[0], nil
}

// CheckSomethingToSend refuses (422 naming the members) the file of a
// batch without members when its account has nothing else to ask the bank
// for (BatchKind.Pending), and the file of a batch the kind refuses as its
// members stand (BatchKind.Refuse).
func CheckSomethingToSend(ctx context.Context, q storage.DBTX, k *BatchKind, b *storage.Batch) error {
	if k.Refuse != nil {
		if err := k.Refuse(ctx, q, b); err != nil {
			return err
		}
	}
	if b.Titles > 0 {
		return nil
	}
	if k.Pending != nil {
		n, err := k.Pending(ctx, q, b)
		if err != nil || n > 0 {
			return err
		}
	}
	return finance.InvalidInput([]finance.Problem{{Field: k.Type.Members,
		Message: "the batch has none, and its account has nothing reverted to drop or cancel: there is nothing to send"}})
}

// writeBatchFile writes and stores the file of batch id, or reads the one
// stored.
func writeBatchFile(ctx context.Context, tx pgx.Tx, k *BatchKind, companyID, id, jobID int64) (*BatchFileResult, error) {
	b, err := storage.LockBatch(ctx, tx, k.Type, companyID, id)
	if err != nil {
		return nil, err
	}
	res := &BatchFileResult{Batch: k.Type.Name, BatchID: id}
	if b.FileID != 0 {
		f, err := storage.ReadBatchFile(ctx, tx, companyID, b.FileID, false)
		if err != nil {
			return nil, err
		}
		res.FileID, res.Sequence, res.Name, res.Bytes = f.ID, f.Sequence, f.Name, int(f.Size)
		res.Titles, res.Total, res.Warnings = f.Titles, finance.Money(f.Total), []FileWarning{}
		return res, nil
	}
	seq, bank, err := storage.TakeFileSequence(ctx, tx, b)
	if err != nil {
		return nil, err
	}
	// checked under the account's row lock, which TakeFileSequence holds:
	// no other file of the account takes what is pending meanwhile
	if err := CheckSomethingToSend(ctx, tx, k, b); err != nil {
		return nil, err
	}
	content := storage.NewFileContent()
	rep, err := k.WriteFile(ctx, tx, b, seq, content)
	if err != nil {
		return nil, err
	}
	f := &storage.BatchFile{Sequence: seq, Titles: rep.Titles, Total: rep.Total.Decimal()}
	if err := storage.SaveBatchFile(ctx, tx, b, jobID, bank, f, content); err != nil {
		return nil, err
	}
	if k.Sent != nil {
		if err := k.Sent(ctx, tx, b); err != nil {
			return nil, err
		}
	}
	res.FileID, res.Sequence, res.Name, res.Bytes, res.FileReport = f.ID, seq, f.Name, int(f.Size), rep
	return res, nil
}
