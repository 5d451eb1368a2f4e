package api

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/jobs"
)

// TestReturnUploadProblems: a multipart upload names every problem at
// once: an unknown field and the missing file, a part given twice, a bad
// account_id beside the missing file.
func TestReturnUploadProblems(t *testing.T) {
	t.Parallel()
	e := setup(t)
	type part struct{ name, value string }
	cases := []struct {
		name     string
		parts    []part
		problems []finance.Problem
	}{
		{"an unknown field and no file", []part{{"attachment", "x"}}, []finance.Problem{
			{Field: "attachment", Message: "unknown field"},
			{Field: "file", Message: "is required: the return file as the body, or the form field file"}}},
		{"account_id twice and no file", []part{{"account_id", "1"}, {"account_id", "2"}}, []finance.Problem{
			{Field: "account_id", Message: "is given more than once"},
			{Field: "file", Message: "is required: the return file as the body, or the form field file"}}},
		{"a bad account_id and no file", []part{{"account_id", "abc"}}, []finance.Problem{
			{Field: "account_id", Message: "must be a positive integer id"},
			{Field: "file", Message: "is required: the return file as the body, or the form field file"}}},
		{"the file twice", []part{{"file", "A"}, {"file", "B"}}, []finance.Problem{
			{Field: "file", Message: "is given more than once"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var form bytes.Buffer
			mw := multipart.NewWriter(&form)
			for _, p := range c.parts {
				if err := mw.WriteField(p.name, p.value); err != nil {
					t.Fatal(err)
				}
			}
			mw.Close()
			status, _, body := e.raw(t, http.MethodPost, "/financial/ticketBatch/returnFile", e.keyA, mw.FormDataContentType(), form.Bytes())
			if got := envelopeProblems(t, body); status != http.StatusUnprocessableEntity || !slices.Equal(got, c.problems) {
				t.Errorf("%d %s, want 422 with %v", status, body, c.problems)
			}
		})
	}
}

// envelopeProblems reads the errors of an error envelope.
func envelopeProblems(t *testing.T, raw []byte) []finance.Problem {
	t.Helper()
	var body errorBody
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatalf("not the envelope: %v\n%s", err, raw)
	}
	return body.Errors
}

// TestReturnLineLimit: the upload refuses a return file at the first line
// the return reader refuses as too long, and none it reads: the same
// limit, with its line, whichever way the bytes arrive.
func TestReturnLineLimit(t *testing.T) {
	t.Parallel()
	header := strings.Repeat("0", 240)
	cases := []struct {
		name  string
		file  string
		line  int // the line refused, 0 for none
		whole bool
	}{
		{"a first line of 4095 bytes", strings.Repeat("0", maxReturnLine-1) + "\n", 0, true},
		{"a first line of 4096 bytes", strings.Repeat("0", maxReturnLine) + "\n", 1, true},
		{"a first line of 4095 bytes and a CR", strings.Repeat("0", maxReturnLine-1) + "\r\n", 1, true},
		{"a last line of 4095 bytes without a break", strings.Repeat("0", maxReturnLine-1), 0, true},
		{"a last line of 4096 bytes without a break", strings.Repeat("0", maxReturnLine), 1, true},
		{"no line break at all", strings.Repeat("0", 1<<20), 1, true},
		{"the third line too long", header + "\r\n" + header + "\r\n" + strings.Repeat("1", 5000) + "\r\n", 3, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, read := range []func(io.Reader) io.Reader{func(r io.Reader) io.Reader { return r }, iotest.OneByteReader, iotest.HalfReader} {
				_, err := io.ReadAll(limitLines(read(strings.NewReader(c.file))))
				want := fmt.Sprintf("line %d: longer than %d characters", c.line, maxReturnLine)
				switch got := problemText(err); {
				case c.line == 0 && err != nil:
					t.Errorf("refused: %s", got)
				case c.line > 0 && !strings.Contains(got, want):
					t.Errorf("%s, want a refusal of %q", got, want)
				}
			}
			if !c.whole {
				return
			}
			// the reader itself, through the upload's check
			got := problemText(jobs.CheckReturnFile(context.Background(), nil, 0, jobs.TicketBatchKind, []byte(c.file), nil))
			if tooLong := strings.Contains(got, "longer than"); tooLong != (c.line > 0) {
				t.Errorf("the return reader: %s; the upload refuses: %v", got, c.line > 0)
			}
		})
	}
}

// TestBodyRefusedFromHeader: a Content-Length over the route's limit is a
// 413 in the envelope answered from the headers, so a client that asked
// Expect: 100-continue gets no 100 Continue and need not send the body.
func TestBodyRefusedFromHeader(t *testing.T) {
	t.Parallel()
	e := setup(t)
	host := strings.TrimPrefix(e.url, "http://")
	cases := []struct {
		path  string
		limit int64
	}{
		{"/buildings/categories", maxBodyBytes},
		{"/financial/settings", maxSettingsBodyBytes},
		{"/pix/validate", maxPixBody},
		{"/financial/ticketBatch/returnFile", maxReturnBody},
	}
	for _, c := range cases {
		method := http.MethodPost
		if c.path == "/financial/settings" {
			method = http.MethodPut
		}
		conn, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		conn.SetDeadline(time.Now().Add(time.Minute)) //nolint:errcheck // a guard against a hang, not a measure
		fmt.Fprintf(conn, "%s %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\n"+
			"Content-Length: %d\r\nExpect: 100-continue\r\n\r\n", method, c.path, host, e.keyA, c.limit+1)
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		body, _ := io.ReadAll(res.Body)
		conn.Close()
		want := fmt.Sprintf(`{"return":false,"status":413,"message":"The body is larger than %d bytes.","errors":[]}`, c.limit)
		if res.StatusCode != http.StatusRequestEntityTooLarge || string(body) != want {
			t.Errorf("%s %s declaring %d bytes: %d %s, want 413 before the body", method, c.path, c.limit+1, res.StatusCode, body)
		}
	}
}

// TestPixBodyRead: POST /pix/validate reads its body as it arrives and
// stops at the first limit or problem, named where it is.
func TestPixBodyRead(t *testing.T) {
	t.Parallel()
	var many strings.Builder
	many.WriteString(`{"payloads":[`)
	for i := range jobs.MaxPixPayloads + 5 {
		if i > 0 {
			many.WriteByte(',')
		}
		many.WriteString(`"x"`)
	}
	many.WriteString(`]}`)
	manyLines := strings.Repeat("\"x\"\n", jobs.MaxPixPayloads+5)
	const tooMany = "holds more than 100000 payloads; at most 100000"
	cases := []struct {
		name, body string
		ndjson     bool
		problems   []finance.Problem
	}{
		{"too many", many.String(), false, []finance.Problem{{Field: "payloads", Message: tooMany}}},
		{"too many lines", manyLines, true, []finance.Problem{{Field: "payloads", Message: tooMany}}},
		{"not strings", `{"payloads":["a",1,{"b":[2]},null,"c"]}`, false, []finance.Problem{
			{Field: "payloads.1", Message: "must be a string"}, {Field: "payloads.2", Message: "must be a string"},
			{Field: "payloads.3", Message: "must be a string"}}},
		{"an unknown field", `{"payloads":["a"],"note":"x"}`, false, []finance.Problem{{Field: "note", Message: "unknown field: the body " + pixShape.Message}}},
		{"the key twice", `{"payloads":["a"],"PAYLOADS":["b"]}`, false, []finance.Problem{{Field: "payloads", Message: "is given more than once"}}},
		{"not an array", `{"payloads":"a"}`, false, []finance.Problem{{Field: "payloads", Message: "must be an array of strings"}}},
		{"null", `{"payloads":null}`, false, []finance.Problem{{Field: "payloads", Message: "must hold at least one payload"}}},
		{"an array", `["a"]`, false, []finance.Problem{pixShape}},
		{"NaN", `{"payloads":["a",NaN]}`, false, []finance.Problem{{Field: "body", Message: "is not valid JSON at byte 18: NaN is not a JSON number"}}},
		{"trailing data", `{"payloads":["a"]}  x`, false, []finance.Problem{{Field: "body", Message: "holds more after the JSON object, from byte 21"}}},
		{"a second object", `{"payloads":["a"]} {}`, false, []finance.Problem{{Field: "body", Message: "holds more after the JSON object, from byte 20"}}},
		{"truncated", `{"payloads":["a"`, false, []finance.Problem{{Field: "body", Message: "ends at byte 16, before the JSON object is complete"}}},
		{"a byte order mark", "\xef\xbb\xbf{\"payloads\":[\"a\"]}", false, []finance.Problem{{Field: "body", Message: startsWithBOM}}},
		{"empty", ``, false, []finance.Problem{{Field: "body", Message: "is empty: it must be a JSON object"}}},
		{"not UTF-8", "{\"payloads\":[\"a\xff\"]}", false, []finance.Problem{{Field: "body", Message: "must be valid UTF-8: byte 16 is not"}}},
		{"a line not a string", "\"a\"\n\n{\"x\":1}\n", true, []finance.Problem{{Field: "line 3", Message: "must be a JSON string"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, read := range []func(io.Reader) io.Reader{func(r io.Reader) io.Reader { return r }, iotest.OneByteReader} {
				_, err := readPixPayloads(c.ndjson, checkUTF8(read(strings.NewReader(c.body))))
				var coded *finance.Error
				if !errors.As(err, &coded) || coded.Code != finance.Invalid || !slices.Equal(coded.Problems, c.problems) {
					t.Errorf("%s, want %v", problemText(err), c.problems)
				}
			}
		})
	}
}

// problemText is the fields and messages of a coded error's problems.
func problemText(err error) string {
	var coded *finance.Error
	if !errors.As(err, &coded) {
		return fmt.Sprint(err)
	}
	return fmt.Sprint(coded.Problems)
}

// TestUTF8Reader: a character cut between reads is checked whole; the
// first byte that is not UTF-8 is named, at the end of the body too.
func TestUTF8Reader(t *testing.T) {
	t.Parallel()
	cases := []struct {
		text string
		bad  string // the problem, "" for none
	}{
		{"plain", ""},
		{"ação 😀 ¥ €", ""},
		{"a\xffb", "must be valid UTF-8: byte 2 is not"},
		{"ação\xc3", "must be valid UTF-8: byte 7 is not"},
		{"😀\xf0\x9f\x98", "must be valid UTF-8: byte 5 is not"},
		{"é\xe9t", "must be valid UTF-8: byte 3 is not"},
		{"\xed\xa0\x80", "must be valid UTF-8: byte 1 is not"}, // a surrogate
	}
	for _, c := range cases {
		for _, read := range []func(io.Reader) io.Reader{func(r io.Reader) io.Reader { return r }, iotest.OneByteReader, iotest.HalfReader} {
			got, err := io.ReadAll(checkUTF8(read(strings.NewReader(c.text))))
			var coded *finance.Error
			switch {
			case c.bad == "" && (err != nil || string(got) != c.text):
				t.Errorf("%q: %q %v", c.text, got, err)
			case c.bad != "" && (!errors.As(err, &coded) || coded.Problems[0].Message != c.bad):
				t.Errorf("%q: %v, want %q", c.text, err, c.bad)
			}
		}
	}
}
