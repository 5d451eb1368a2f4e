package api

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/propfin/propfin/storage"
)

// pageLinks builds the relative page URLs of a list: the other query
// parameters are kept as sent, page is replaced.
type pageLinks struct {
	path string
	rest []string // raw pairs other than page
}

func newPageLinks(path, rawQuery string) pageLinks {
	l := pageLinks{path: path}
	for _, pair := range strings.Split(rawQuery, "&") {
		if pair == "" || pair == "page" || strings.HasPrefix(pair, "page=") {
			continue
		}
		l.rest = append(l.rest, escapeRaw(pair))
	}
	return l
}

// escapeRaw keeps a raw query pair as sent but percent-encodes every byte
// that is not printable ASCII, and the characters JSON would have to
// escape, so that page URLs are always plain ASCII.
func escapeRaw(pair string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(pair); i++ {
		c := pair[i]
		if c > 0x20 && c < 0x7f && c != '"' && c != '\\' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&0xf])
	}
	return b.String()
}

func (l pageLinks) appendURL(b []byte, page int) []byte {
	b = append(b, '"')
	b = append(b, l.path...)
	b = append(b, '?')
	for _, pair := range l.rest {
		b = append(b, pair...)
		b = append(b, '&')
	}
	b = append(b, "page="...)
	b = strconv.AppendInt(b, int64(page), 10)
	return append(b, '"')
}

// pageEnvelope writes the paginated envelope of the spec, plus total and
// last_page when the query asked for them.
func pageEnvelope(links pageLinks, q storage.ListQuery, page storage.Page) []byte {
	return appendPageEnvelope(make([]byte, 0, 256+len(page.Records)*256), links, q, page)
}

// pageBuffers keeps the buffers list pages were written into: a page of
// records with includes is often 100 KB, and a new buffer for each (grown
// by doubling) is garbage the collector pays for again and again.
var pageBuffers = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledPage is the largest buffer kept for the next page.
const maxPooledPage = 1 << 20

// writePage writes the page's envelope through a pooled buffer.
func writePage(w http.ResponseWriter, links pageLinks, q storage.ListQuery, page storage.Page) {
	buf := pageBuffers.Get().(*[]byte)
	body := appendPageEnvelope((*buf)[:0], links, q, page)
	writeRaw(w, http.StatusOK, body)
	if cap(body) <= maxPooledPage {
		*buf = body[:0]
		pageBuffers.Put(buf)
	}
}

// appendPageEnvelope appends the page's envelope to b.
func appendPageEnvelope(b []byte, links pageLinks, q storage.ListQuery, page storage.Page) []byte {
	b = append(b, `{"return":true,"status":200,"current_page":`...)
	b = strconv.AppendInt(b, int64(q.Page), 10)
	b = append(b, `,"first_page_url":`...)
	b = links.appendURL(b, 1)
	b = append(b, `,"next_page_url":`...)
	if page.HasNext {
		b = links.appendURL(b, q.Page+1)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"prev_page_url":`...)
	if q.Page > 1 {
		b = links.appendURL(b, q.Page-1)
	} else {
		b = append(b, "null"...)
	}
	pathJSON, _ := json.Marshal(links.path)
	b = append(b, `,"path":`...)
	b = append(b, pathJSON...)
	b = append(b, `,"per_page":`...)
	b = strconv.AppendInt(b, int64(q.PerPage), 10)
	b = appendFromTo(b, q, len(page.Records))
	if page.Total != nil {
		b = append(b, `,"total":`...)
		b = strconv.AppendInt(b, *page.Total, 10)
		b = append(b, `,"last_page":`...)
		b = strconv.AppendInt(b, lastPage(*page.Total, q.PerPage), 10)
	}
	b = append(b, `,"data":[`...)
	for i, rec := range page.Records {
		if i > 0 {
			b = append(b, ',')
		}
		b = rec.AppendJSON(b)
	}
	return append(b, "]}"...)
}

func appendFromTo(b []byte, q storage.ListQuery, n int) []byte {
	if n == 0 {
		return append(b, `,"from":null,"to":null`...)
	}
	from := int64(q.Page-1)*int64(q.PerPage) + 1
	b = append(b, `,"from":`...)
	b = strconv.AppendInt(b, from, 10)
	b = append(b, `,"to":`...)
	return strconv.AppendInt(b, from+int64(n)-1, 10)
}

func lastPage(total int64, perPage int) int64 {
	if total == 0 {
		return 1
	}
	return (total + int64(perPage) - 1) / int64(perPage)
}
