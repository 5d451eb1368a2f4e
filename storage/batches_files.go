package storage

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
)

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
