package api

import (
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/propfin/propfin/finance"
)

// utf8Reader passes a body through and fails, with a 422 on body naming
// the byte, at the first byte that is not UTF-8: encoding/json would read
// it as U+FFFD without a word. A character cut between two reads is
// checked once the rest of it has arrived.
type utf8Reader struct {
	r      io.Reader
	offset int64 // bytes checked before held
	held   []byte
	buf    [2 * utf8.UTFMax]byte // a held character and what completes it
}

func checkUTF8(r io.Reader) *utf8Reader { return &utf8Reader{r: r} }

func (u *utf8Reader) Read(p []byte) (int, error) {
	n, err := u.r.Read(p)
	if bad := u.check(p[:n]); bad >= 0 {
		return 0, notUTF8(bad)
	}
	if errors.Is(err, io.EOF) && len(u.held) > 0 {
		return 0, notUTF8(u.offset + 1)
	}
	return n, err
}

// check checks chunk, the bytes that follow those already checked, and
// holds back a character it ends inside of. It returns the position
// (counted from 1) of the first byte that is not UTF-8, or -1.
func (u *utf8Reader) check(chunk []byte) int64 {
	if len(u.held) > 0 {
		take := min(len(chunk), utf8.UTFMax-len(u.held))
		joined := append(u.buf[:0:len(u.buf)], u.held...)
		joined = append(joined, chunk[:take]...)
		if !utf8.FullRune(joined) {
			u.held = append(u.buf[len(u.buf)/2:len(u.buf)/2], joined...)
			return -1
		}
		r, size := utf8.DecodeRune(joined)
		if r == utf8.RuneError && size == 1 {
			return u.offset + 1
		}
		chunk = chunk[size-len(u.held):]
		u.offset += int64(size)
		u.held = nil
	}
	end := len(chunk)
	for i := len(chunk) - 1; i >= 0 && i >= len(chunk)-utf8.UTFMax; i-- {
		if utf8.RuneStart(chunk[i]) {
			if !utf8.FullRune(chunk[i:]) {
				end = i
			}
			break
		}
	}
	if !utf8.Valid(chunk[:end]) {
		for i := 0; i < end; {
			r, size := utf8.DecodeRune(chunk[i:end])
			if r == utf8.RuneError && size == 1 {
				return u.offset + int64(i) + 1
			}
			i += size
		}
	}
	u.offset += int64(end)
	if end < len(chunk) {
		u.held = append(u.buf[len(u.buf)/2:len(u.buf)/2], chunk[end:]...)
	}
	return -1
}

func notUTF8(at int64) error {
	return finance.InvalidInput([]finance.Problem{{Field: "body", Message: fmt.Sprintf("must be valid UTF-8: byte %d is not", at)}})
}
