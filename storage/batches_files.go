package storage

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"
)

// The remittance files of the batches (docs/storage.md, "Remittance
// files"): the file's sequence number (NSA), its row and its content,
// stored gzipped as it is written.

// BatchFile is a batch's remittance file as stored: its number, name and
// length, what it carries, and (read with its content) the bytes as
// stored, which WriteTo and Content give back as the bank takes them.
type BatchFile struct {
	ID        int64
	Sequence  int64
	Name      string
	Size      int64 // the file's length, in bytes
	Titles    int64
	Total     decimal.Decimal
	CreatedAt time.Time

	stored   []byte // batch_files.content
	encoding string // batch_files.content_encoding
}

// TakeFileSequence allocates the next file sequence number (NSA) of the
// batch's account for its kind: one UPDATE ... RETURNING, which holds the
// account's row lock until tx ends, so that two files of the account
// written at once get consecutive numbers, in the order they take it, and
// a number is never used twice (a file rolled back gives its number back
// with everything else).
func TakeFileSequence(ctx context.Context, tx pgx.Tx, b *Batch) (seq int64, bank string, err error) {
	col := ident(b.Type.SequenceColumn)
	var bankText *string
	err = tx.QueryRow(ctx, `UPDATE accounts SET `+col+` = `+col+` + 1, updated_at = now()
		WHERE company_id = $1 AND id = $2 RETURNING `+col+` - 1, bank`, b.CompanyID, b.AccountID).Scan(&seq, &bankText)
	if err != nil {
		return 0, "", translate(err, fmt.Sprintf("file sequence of account %d", b.AccountID))
	}
	if bankText != nil {
		bank = *bankText
	}
	return seq, bank, nil
}

// SaveBatchFile stores the remittance file of a locked batch, its content
// as written (compressed), and closes the batch (status closed, its
// file's number and name). The file's name is the kind's prefix, the
// bank, the account and the NSA (cobranca-341-7-000012.REM).
func SaveBatchFile(ctx context.Context, tx pgx.Tx, b *Batch, jobID int64, bank string, f *BatchFile, content *FileContent) error {
	what := fmt.Sprintf("file of %s batch %d", b.Type.Name, b.ID)
	f.Name = fmt.Sprintf("%s-%s-%d-%06d.REM", b.Type.FilePrefix, bank, b.AccountID, f.Sequence)
	stored, err := content.gzipped()
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	f.Size = content.Size()
	err = tx.QueryRow(ctx, `INSERT INTO batch_files (company_id, batch_type, batch_id, account_id, sequence, name,
		content, content_encoding, size, titles, total, job_id)
		VALUES ($1, $2, $3, $4, $5, $6, $7, 'gzip', $8, $9, $10::numeric, $11)
		RETURNING id, created_at`, b.CompanyID, b.Type.Name, b.ID, b.AccountID, f.Sequence, f.Name,
		stored, f.Size, f.Titles, f.Total.String(), nullID(jobID)).Scan(&f.ID, &f.CreatedAt)
	if err != nil {
		return translate(err, what)
	}
	_, err = tx.Exec(ctx, `UPDATE `+ident(b.Type.Table)+` SET status = 'closed', file_id = $3, file_sequence = $4,
		file_name = $5, closed_at = $6, updated_at = now() WHERE company_id = $1 AND id = $2`,
		b.CompanyID, b.ID, f.ID, f.Sequence, f.Name, f.CreatedAt)
	if err != nil {
		return translate(err, what+": close the batch")
	}
	b.Open, b.FileID = false, f.ID
	return nil
}

// ReadBatchFile reads a stored remittance file of the company, with its
// content when withContent.
func ReadBatchFile(ctx context.Context, q DBTX, companyID, fileID int64, withContent bool) (*BatchFile, error) {
	f := &BatchFile{ID: fileID}
	content := "NULL::bytea"
	if withContent {
		content = "content"
	}
	var total string
	err := q.QueryRow(ctx, `SELECT sequence, name, size, `+content+`, content_encoding, titles, total::text, created_at
		FROM batch_files WHERE company_id = $1 AND id = $2`, companyID, fileID).Scan(&f.Sequence, &f.Name, &f.Size,
		&f.stored, &f.encoding, &f.Titles, &total, &f.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, recordNotFound(fileID)
	}
	if err != nil {
		return nil, translate(err, fmt.Sprintf("batch file %d", fileID))
	}
	if f.Total, err = decimal.NewFromString(total); err != nil {
		return nil, fmt.Errorf("batch file %d: total: %w", fileID, err)
	}
	return f, nil
}

// FileContent is a remittance file's bytes on their way to batch_files,
// gzipped (its fastest level) as they are written: a remittance is mostly
// blanks, zeros and the same payers' data, and comes to about a tenth, so
// the file is never held whole, the compression runs while the titles are
// still read, and PostgreSQL stores the tenth as it is (migration 0023:
// no TOAST compression on top). Write to it, then hand it to
// SaveBatchFile.
type FileContent struct {
	zw   *gzip.Writer
	buf  bytes.Buffer
	size int64
}

// NewFileContent returns an empty file.
func NewFileContent() *FileContent {
	c := &FileContent{}
	c.zw, _ = gzip.NewWriterLevel(&c.buf, gzip.BestSpeed) // a level gzip has: no error
	return c
}

// Write adds p to the file.
func (c *FileContent) Write(p []byte) (int, error) {
	n, err := c.zw.Write(p)
	c.size += int64(n)
	return n, err
}

// Size is the file's length so far, in bytes.
func (c *FileContent) Size() int64 { return c.size }

// gzipped ends the file and returns it compressed.
func (c *FileContent) gzipped() ([]byte, error) {
	if err := c.zw.Close(); err != nil {
		return nil, err
	}
	return c.buf.Bytes(), nil
}

// The encodings of batch_files.content.
const (
	encodingIdentity = "identity" // the file as it is (stored before migration 0023)
	encodingGzip     = "gzip"
)

// WriteTo writes the file's bytes, as the bank takes them, to w; the file
// must have been read with its content. A stored file that does not read
// back whole (its gzip checksum or length wrong) is an error, found at
// its end.
func (f *BatchFile) WriteTo(w io.Writer) (int64, error) {
	if f.encoding == encodingIdentity {
		n, err := w.Write(f.stored)
		return int64(n), err
	}
	zr, err := gzip.NewReader(bytes.NewReader(f.stored))
	if err != nil {
		return 0, fmt.Errorf("batch file %d: %w", f.ID, err)
	}
	n, err := io.Copy(w, zr)
	if err == nil && n != f.Size {
		err = fmt.Errorf("batch file %d: %d bytes read back, %d stored", f.ID, n, f.Size)
	}
	return n, err
}

// Content returns the file's bytes, as the bank takes them; the file must
// have been read with its content.
func (f *BatchFile) Content() ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(int(f.Size))
	_, err := f.WriteTo(&buf)
	return buf.Bytes(), err
}
