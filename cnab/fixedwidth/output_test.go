package fixedwidth

import (
	"bytes"
	"errors"
	"testing"
)

func TestOutput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		finalEOL bool
		eof      string
		want     string
	}{
		{"final line ending", true, "", "AB\r\n12\r\nZZ\r\n"},
		{"no final line ending", false, "", "AB\r\n12\r\nZZ"},
		{"end-of-file mark", false, "\x1a", "AB\r\n12\r\nZZ\x1a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var b bytes.Buffer
			o := NewOutput(&b, "\r\n")
			copy(o.Line([]byte("A_")), "AB")
			o.Commit()
			copy(o.LineOf(2), "12")
			o.Commit()
			copy(o.Line([]byte("XX")), "YY")
			o.Drop()
			if b.Len() != 0 {
				t.Errorf("%d bytes written before Finish", b.Len())
			}
			copy(o.LineOf(2), "ZZ")
			if err := o.Finish(tt.finalEOL, tt.eof); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Errorf("got %q, want %q", b.String(), tt.want)
			}
		})
	}
}

type failingWriter struct{ n int }

var errDisk = errors.New("disk full")

func (w *failingWriter) Write(p []byte) (int, error) {
	w.n++
	return 0, errDisk
}

func TestOutputKeepsTheFirstError(t *testing.T) {
	t.Parallel()
	w := &failingWriter{}
	o := NewOutput(w, "\n")
	big := make([]byte, 70<<10) // past the buffer, so that Commit writes
	o.Line(big)
	o.Commit()
	if !errors.Is(o.Err(), errDisk) {
		t.Fatalf("Err = %v, want the writer's error", o.Err())
	}
	o.Line([]byte("more"))
	o.Commit()
	if err := o.Finish(true, ""); !errors.Is(err, errDisk) || w.n != 1 {
		t.Errorf("Finish = %v after %d writes; want the first error and no more writes", err, w.n)
	}
}
