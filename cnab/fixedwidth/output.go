package fixedwidth

import (
	"bufio"
	"io"
	"slices"
)

// Output buffers the records of a file on their way to an io.Writer. The
// records of one item (a title, a payment) wait in the buffer until the
// writer knows whether the item is valid, and are then committed or
// dropped, so that nothing of a rejected item is ever written.
type Output struct {
	out *bufio.Writer
	eol string
	buf []byte // records not yet committed, line endings included
	err error  // the first write error
}

// NewOutput returns an Output to w whose records end with eol.
func NewOutput(w io.Writer, eol string) Output {
	return Output{out: bufio.NewWriterSize(w, 64<<10), eol: eol}
}

// Line adds a record holding a copy of template, and its line ending, and
// returns the record for filling.
func (o *Output) Line(template []byte) []byte {
	start := len(o.buf)
	o.buf = append(o.buf, template...)
	o.buf = append(o.buf, o.eol...)
	return o.buf[start : start+len(template)]
}

// LineOf adds a record of width bytes, and its line ending, and returns
// the record for filling; its bytes are unspecified until then, so the
// caller must fill every one of them.
func (o *Output) LineOf(width int) []byte {
	start := len(o.buf)
	o.buf = slices.Grow(o.buf, width+len(o.eol))[:start+width]
	o.buf = append(o.buf, o.eol...)
	return o.buf[start : start+width]
}

// Commit writes the records added since the last Commit or Drop.
func (o *Output) Commit() {
	if o.err == nil && len(o.buf) > 0 {
		_, o.err = o.out.Write(o.buf)
	}
	o.buf = o.buf[:0]
}

// Drop forgets the records added since the last Commit or Drop.
func (o *Output) Drop() { o.buf = o.buf[:0] }

// Finish commits the last records, without the last line ending unless
// finalEOL and followed by eof, and flushes. It returns the first write
// error.
func (o *Output) Finish(finalEOL bool, eof string) error {
	if !finalEOL && len(o.buf) >= len(o.eol) {
		o.buf = o.buf[:len(o.buf)-len(o.eol)]
	}
	o.buf = append(o.buf, eof...)
	o.Commit()
	if o.err == nil {
		o.err = o.out.Flush()
	}
	return o.err
}

// Err returns the first write error.
func (o *Output) Err() error { return o.err }
