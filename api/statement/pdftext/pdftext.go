// Package pdftext reads back, for tests, the PDFs package statement
// writes: enough of PDF for what fpdf produces. Objects are found through
// the cross-reference table (so its offsets must be right), the page tree
// from the trailer's catalog, each page's content stream (inflated when
// FlateDecode) and the text it shows (Tj and TJ strings, Windows-1252 as
// the standard fonts' WinAnsiEncoding), and the document information
// dictionary. It is no general PDF reader: a file it cannot follow is an
// error, never a guess.
package pdftext

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/text/encoding/charmap"
)

// Text is the text of every page of data, pages joined by a space: what a
// test looks for amounts and names in.
func Text(data []byte) (string, error) {
	f, err := Parse(data)
	if err != nil {
		return "", err
	}
	pages, err := f.PageTexts()
	if err != nil {
		return "", err
	}
	return strings.Join(pages, " "), nil
}

// File is a read PDF.
type File struct {
	data    []byte
	objects map[int]pdfObject
	trailer string
}

// pdfObject is an indirect object: its dictionary (or other value) as
// text, and its stream, decoded, when it has one.
type pdfObject struct {
	dict   string
	stream []byte
}

var (
	startXRefRe = regexp.MustCompile(`startxref\s+(\d+)\s+%%EOF\s*$`)
	xrefHeadRe  = regexp.MustCompile(`^xref\s+(\d+) (\d+)\s+`)
	xrefEntryRe = regexp.MustCompile(`^(\d{10}) (\d{5}) ([nf])\s*`)
	objHeadRe   = regexp.MustCompile(`^(\d+) 0 obj\s*`)
	lengthRe    = regexp.MustCompile(`/Length (\d+)`)
	refRe       = regexp.MustCompile(`(\d+) 0 R`)
)

// Parse reads data: its header, its cross-reference table (every offset
// must start its object) and every object it lists, streams inflated; the
// trailer. Anything it cannot read is an error.
func Parse(data []byte) (*File, error) {
	if !bytes.HasPrefix(data, []byte("%PDF-1.")) {
		return nil, fmt.Errorf("no %%PDF-1.x header")
	}
	m := startXRefRe.FindSubmatch(data)
	if m == nil {
		return nil, fmt.Errorf("no startxref at the end")
	}
	xref, _ := strconv.Atoi(string(m[1]))
	if xref >= len(data) {
		return nil, fmt.Errorf("startxref %d past the end", xref)
	}
	rest := data[xref:]
	h := xrefHeadRe.FindSubmatch(rest)
	if h == nil {
		return nil, fmt.Errorf("no xref table at offset %d", xref)
	}
	first, _ := strconv.Atoi(string(h[1]))
	count, _ := strconv.Atoi(string(h[2]))
	rest = rest[len(h[0]):]
	f := &File{data: data, objects: map[int]pdfObject{}}
	for n := first; n < first+count; n++ {
		e := xrefEntryRe.FindSubmatch(rest)
		if e == nil {
			return nil, fmt.Errorf("xref entry %d unreadable", n)
		}
		rest = rest[len(e[0]):]
		if string(e[3]) == "f" {
			continue
		}
		off, _ := strconv.Atoi(string(e[1]))
		obj, err := f.object(n, off)
		if err != nil {
			return nil, err
		}
		f.objects[n] = obj
	}
	tr := bytes.Index(rest, []byte("trailer"))
	if tr < 0 {
		return nil, fmt.Errorf("no trailer")
	}
	f.trailer = string(rest[tr:])
	return f, nil
}

// object reads object n at offset off.
func (f *File) object(n, off int) (pdfObject, error) {
	if off >= len(f.data) {
		return pdfObject{}, fmt.Errorf("object %d: offset %d past the end", n, off)
	}
	b := f.data[off:]
	h := objHeadRe.FindSubmatch(b)
	if h == nil || string(h[1]) != strconv.Itoa(n) {
		return pdfObject{}, fmt.Errorf("object %d: offset %d does not start it", n, off)
	}
	b = b[len(h[0]):]
	end := bytes.Index(b, []byte("endobj"))
	s := bytes.Index(b, []byte("stream"))
	if s < 0 || (end >= 0 && end < s) {
		if end < 0 {
			return pdfObject{}, fmt.Errorf("object %d has no endobj", n)
		}
		return pdfObject{dict: string(b[:end])}, nil
	}
	dict := string(b[:s])
	b = b[s+len("stream"):]
	b = bytes.TrimPrefix(bytes.TrimPrefix(b, []byte("\r")), []byte("\n"))
	lm := lengthRe.FindStringSubmatch(dict)
	if lm == nil {
		return pdfObject{}, fmt.Errorf("object %d: a stream without /Length", n)
	}
	length, _ := strconv.Atoi(lm[1])
	if length > len(b) || !bytes.HasPrefix(bytes.TrimLeft(b[length:], "\r\n"), []byte("endstream")) {
		return pdfObject{}, fmt.Errorf("object %d: /Length %d does not end at endstream", n, length)
	}
	stream := b[:length]
	if strings.Contains(dict, "/FlateDecode") {
		r, err := zlib.NewReader(bytes.NewReader(stream))
		if err != nil {
			return pdfObject{}, fmt.Errorf("object %d: %w", n, err)
		}
		if stream, err = io.ReadAll(r); err != nil {
			return pdfObject{}, fmt.Errorf("object %d: inflating: %w", n, err)
		}
	}
	return pdfObject{dict: dict, stream: stream}, nil
}

// ref is the object named by "/key n 0 R" in dict.
func (f *File) ref(dict, key string) (pdfObject, error) {
	m := regexp.MustCompile(regexp.QuoteMeta(key) + `\s+(\d+) 0 R`).FindStringSubmatch(dict)
	if m == nil {
		return pdfObject{}, fmt.Errorf("no %s reference in %q", key, dict)
	}
	n, _ := strconv.Atoi(m[1])
	obj, ok := f.objects[n]
	if !ok {
		return pdfObject{}, fmt.Errorf("%s names object %d, which the xref table lacks", key, n)
	}
	return obj, nil
}

// pages is every page's dictionary, in the page tree's order.
func (f *File) pages() ([]pdfObject, error) {
	catalog, err := f.ref(f.trailer, "/Root")
	if err != nil {
		return nil, err
	}
	tree, err := f.ref(catalog.dict, "/Pages")
	if err != nil {
		return nil, err
	}
	kids := regexp.MustCompile(`(?s)/Kids\s*\[(.*?)\]`).FindStringSubmatch(tree.dict)
	if kids == nil {
		return nil, fmt.Errorf("page tree without /Kids: %q", tree.dict)
	}
	var pages []pdfObject
	for _, m := range refRe.FindAllStringSubmatch(kids[1], -1) {
		n, _ := strconv.Atoi(m[1])
		p, ok := f.objects[n]
		if !ok || !strings.Contains(p.dict, "/Type /Page") {
			return nil, fmt.Errorf("kid %d is not a page: %q", n, p.dict)
		}
		pages = append(pages, p)
	}
	if c := regexp.MustCompile(`/Count (\d+)`).FindStringSubmatch(tree.dict); c == nil || c[1] != strconv.Itoa(len(pages)) {
		return nil, fmt.Errorf("page tree /Count %v, %d kids", c, len(pages))
	}
	return pages, nil
}

// PageTexts is the text each page shows, in the page tree's order and
// each in the order it is drawn: every string shown, separated by a
// space.
func (f *File) PageTexts() ([]string, error) {
	pages, err := f.pages()
	if err != nil {
		return nil, err
	}
	var texts []string
	for i, p := range pages {
		content, err := f.ref(p.dict, "/Contents")
		if err != nil {
			return nil, fmt.Errorf("page %d: %w", i+1, err)
		}
		shown, err := showText(content.stream)
		if err != nil {
			return nil, fmt.Errorf("page %d: %w", i+1, err)
		}
		texts = append(texts, strings.Join(shown, " "))
	}
	return texts, nil
}

// showText lists the strings a content stream shows (Tj; TJ's strings
// joined), decoded from Windows-1252, within BT ... ET.
func showText(content []byte) ([]string, error) {
	var (
		shown   []string
		operand []string // the strings since the last operator
		inText  bool
	)
	dec := charmap.Windows1252.NewDecoder()
	for i := 0; i < len(content); {
		c := content[i]
		switch {
		case c == '(':
			s, n, err := literalString(content[i:])
			if err != nil {
				return nil, err
			}
			u, err := dec.Bytes(s)
			if err != nil {
				return nil, err
			}
			operand = append(operand, string(u))
			i += n
		case c == '[' || c == ']' || isSpace(c):
			i++
		case c == '%':
			for i < len(content) && content[i] != '\n' {
				i++
			}
		default:
			j := i
			for j < len(content) && !isSpace(content[j]) && !strings.ContainsRune("()[]/%", rune(content[j])) {
				j++
			}
			if j == i { // a name: skip its slash
				j++
			}
			switch tok := string(content[i:j]); tok {
			case "BT":
				inText = true
			case "ET":
				inText = false
			case "Tj", "TJ", "'", `"`:
				if !inText {
					return nil, fmt.Errorf("%s outside BT ... ET", tok)
				}
				if len(operand) > 0 {
					shown = append(shown, strings.Join(operand, ""))
				}
			}
			if !isNumber(content[i:j]) {
				operand = operand[:0]
			}
			i = j
		}
	}
	return shown, nil
}

// literalString reads a PDF literal string at the start of b, with its
// escapes and balanced parentheses, and returns it and its length in b.
func literalString(b []byte) ([]byte, int, error) {
	var out []byte
	depth := 0
	for i := 0; i < len(b); i++ {
		switch c := b[i]; c {
		case '(':
			if depth > 0 {
				out = append(out, c)
			}
			depth++
		case ')':
			depth--
			if depth == 0 {
				return out, i + 1, nil
			}
			out = append(out, c)
		case '\\':
			i++
			if i >= len(b) {
				return nil, 0, fmt.Errorf("string ends in a backslash")
			}
			switch e := b[i]; e {
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case '\n':
			case '0', '1', '2', '3', '4', '5', '6', '7':
				v, k := 0, 0
				for ; k < 3 && i+k < len(b) && b[i+k] >= '0' && b[i+k] <= '7'; k++ {
					v = v*8 + int(b[i+k]-'0')
				}
				out = append(out, byte(v))
				i += k - 1
			default:
				out = append(out, e)
			}
		default:
			out = append(out, c)
		}
	}
	return nil, 0, fmt.Errorf("unterminated string")
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == 0
}

func isNumber(b []byte) bool {
	_, err := strconv.ParseFloat(string(b), 64)
	return err == nil
}

// Info is the document information dictionary's entry key ("/Title"),
// decoded from the UTF-16BE text fpdf writes for UTF-8 metadata.
func (f *File) Info(key string) (string, error) {
	info, err := f.ref(f.trailer, "/Info")
	if err != nil {
		return "", err
	}
	i := strings.Index(info.dict, key+" (")
	if i < 0 {
		return "", fmt.Errorf("no %s in the information dictionary %q", key, info.dict)
	}
	s, _, err := literalString([]byte(info.dict[i+len(key)+1:]))
	if err != nil {
		return "", fmt.Errorf("%s: %w", key, err)
	}
	if !bytes.HasPrefix(s, []byte{0xFE, 0xFF}) || len(s)%2 != 0 {
		return string(s), nil
	}
	var r []rune
	for i := 2; i+1 < len(s); i += 2 {
		r = append(r, rune(s[i])<<8|rune(s[i+1]))
	}
	return string(r), nil
}
