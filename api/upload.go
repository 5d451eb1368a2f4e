package api

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"

	"github.com/propfin/propfin/finance"
)

// The upload of a bank's return file (POST {batch}/returnFile): the raw
// body, or the field file of a multipart form. The file is read as it
// arrives, and refused at the first line the return reader would refuse as
// too long (a file without line breaks is refused after 4 KiB, not read
// whole first); a Content-Length over maxReturnBody is refused unread.

// maxReturnBody bounds an uploaded return file: a CNAB 240 return of
// 100,000 titles (two segments each) is about 48 MB.
const maxReturnBody = 64 << 20

// maxReturnLine is the length at which a line is too long for the return
// reader of package cnab/retorno (its maxLine, with which
// TestReturnLineLimit keeps it): a line of that many bytes or more, line
// break not counted, is not read.
const maxReturnLine = 4096

// maxAccountField bounds the form field account_id: far more than an id.
const maxAccountField = 64

// returnUpload is an uploaded return file: its bytes, its name when the
// form gives one, and the account named.
type returnUpload struct {
	content   []byte
	name      string
	account   string // as given
	accountID int64
}

// readReturnUpload reads the file of a return upload (raw or multipart)
// and account_id, and reports every problem of the request at once.
func readReturnUpload(w http.ResponseWriter, r *http.Request) (*returnUpload, error) {
	up := &returnUpload{account: r.URL.Query().Get("account_id")}
	body, err := openBody(w, r, maxReturnBody)
	if err != nil {
		return nil, err
	}
	var problems []finance.Problem
	mediaType, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mediaType == "multipart/form-data" {
		problems, err = readMultipartReturn(body, params["boundary"], r.ContentLength, up)
	} else {
		up.content, err = readAll(limitLines(body), r.ContentLength)
	}
	if err != nil {
		return nil, err
	}
	if up.account != "" {
		if id, err := strconv.ParseInt(up.account, 10, 64); err != nil || id < 1 {
			problems = append(problems, finance.Problem{Field: "account_id", Message: "must be a positive integer id"})
		} else {
			up.accountID = id
		}
	}
	if len(up.content) == 0 {
		problems = append(problems, finance.Problem{Field: "file", Message: "is required: the return file as the body, or the form field file"})
	}
	if len(problems) > 0 {
		return nil, finance.InvalidInput(problems)
	}
	return up, nil
}

// readMultipartReturn reads the parts file and account_id of a form. Any
// other part is a problem naming it, read past without being kept, and so
// is a part given twice. size, when known, is the body's length: the file
// is read into a buffer of that size.
func readMultipartReturn(body io.Reader, boundary string, size int64, up *returnUpload) ([]finance.Problem, error) {
	if boundary == "" {
		return nil, finance.InvalidInput([]finance.Problem{{Field: "body", Message: "a multipart body needs its boundary"}})
	}
	mr := multipart.NewReader(body, boundary)
	var problems []finance.Problem
	seen := map[string]bool{}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return problems, nil
		}
		if err != nil {
			return nil, uploadError(err)
		}
		name := part.FormName()
		switch {
		case name != "file" && name != "account_id":
			problems = append(problems, finance.Problem{Field: name, Message: "unknown field"})
		case seen[name]:
			problems = append(problems, finance.Problem{Field: name, Message: "is given more than once"})
		case name == "file":
			up.content, err = readAll(limitLines(part), size)
			up.name = part.FileName()
		default:
			var account []byte
			account, err = io.ReadAll(io.LimitReader(part, maxAccountField+1))
			up.account = strings.TrimSpace(string(account))
		}
		seen[name] = true
		if err != nil {
			return nil, uploadError(err)
		}
		if _, err := io.Copy(io.Discard, part); err != nil { // what was not kept
			return nil, uploadError(err)
		}
	}
}

// uploadError is a multipart body that could not be read: the coded error
// of the body's reader (its limit, a line too long), or a malformed form
// (422).
func uploadError(err error) error {
	var coded *finance.Error
	if errors.As(err, &coded) {
		return coded
	}
	return finance.InvalidInput([]finance.Problem{{Field: "body", Message: "is not a readable multipart form: " + err.Error()}})
}

// lineLimiter passes a return file through and fails, with a 422 on file,
// at the first line of maxReturnLine bytes or more.
type lineLimiter struct {
	r    io.Reader
	line int // the line being read, from 1
	run  int // its bytes read so far
}

func limitLines(r io.Reader) *lineLimiter { return &lineLimiter{r: r, line: 1} }

func (l *lineLimiter) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for rest := p[:n]; ; {
		i := bytes.IndexByte(rest, '\n')
		length := i // of the line read so far, line break not counted
		if i < 0 {
			length = len(rest)
		}
		if l.run+length >= maxReturnLine {
			return 0, finance.InvalidInput([]finance.Problem{{Field: "file", Message: fmt.Sprintf(
				"line %d: longer than %d characters: not a CNAB file, or line breaks are missing", l.line, maxReturnLine)}})
		}
		if i < 0 {
			l.run += len(rest)
			return n, err
		}
		l.line, l.run, rest = l.line+1, 0, rest[i+1:]
	}
}
