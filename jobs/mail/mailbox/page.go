package mailbox

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/http"
	"net/mail"
	"slices"
	"strconv"
	"strings"
)

// Handler serves the box's page under prefix (such as "/dev/mail"): the
// messages, newest first, at prefix; one message, its headers and text,
// at prefix/{id}; its HTML part at prefix/{id}/html, in a sandbox that
// runs no script and loads nothing; the message as sent at prefix/{id}/raw.
func (s *Server) Handler(prefix string) http.Handler {
	prefix = strings.TrimRight(prefix, "/")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		rest, ok := strings.CutPrefix(r.URL.Path, prefix)
		if !ok {
			http.NotFound(w, r)
			return
		}
		rest = strings.Trim(rest, "/")
		if rest == "" {
			s.serveList(w, prefix)
			return
		}
		idText, part, _ := strings.Cut(rest, "/")
		id, err := strconv.Atoi(idText)
		m, found := s.Message(id)
		if err != nil || !found {
			http.Error(w, "no such message (the box keeps the last "+strconv.Itoa(s.opts.Keep)+")", http.StatusNotFound)
			return
		}
		switch part {
		case "":
			s.serveMessage(w, prefix, m)
		case "html":
			serveHTMLPart(w, m)
		case "raw":
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Write(m.Raw) //nolint:errcheck // the client went away
		default:
			http.NotFound(w, r)
		}
	})
}

var pageTemplates = template.Must(template.New("list").Parse(`<!doctype html>
<html lang="pt-BR"><head><meta charset="utf-8"><title>Mensagens enviadas</title>
<style>body{font:15px/1.4 system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse}
td,th{padding:.3em .8em;border-bottom:1px solid #ddd;text-align:left}pre{white-space:pre-wrap;background:#f6f6f6;padding:1em}</style>
</head><body>
<h1>Mensagens enviadas</h1>
<p>As mensagens que o propfin enviou pelo servidor SMTP de <code>propfin dev</code> ({{.Count}}; as últimas {{.Keep}} são guardadas, só na memória).</p>
{{if .Messages}}<table><tr><th>#</th><th>Quando</th><th>Para</th><th>Assunto</th></tr>
{{range .Messages}}<tr><td>{{.ID}}</td><td>{{.At.Format "2006-01-02 15:04:05"}}</td><td>{{range .To}}{{.}} {{end}}</td>
<td><a href="{{$.Prefix}}/{{.ID}}">{{if .Subject}}{{.Subject}}{{else}}(sem assunto){{end}}</a></td></tr>
{{end}}</table>{{else}}<p>Nenhuma mensagem ainda.</p>{{end}}
</body></html>`))

var messageTemplate = template.Must(template.New("message").Parse(`<!doctype html>
<html lang="pt-BR"><head><meta charset="utf-8"><title>{{.Subject}}</title>
<style>body{font:15px/1.4 system-ui,sans-serif;margin:2em;color:#222}pre{white-space:pre-wrap;background:#f6f6f6;padding:1em}
iframe{width:100%;height:40em;border:1px solid #ddd}</style>
</head><body>
<p><a href="{{.Prefix}}">Todas as mensagens</a> · <a href="{{.Prefix}}/{{.ID}}/raw">Mensagem original</a></p>
<h1>{{.Subject}}</h1>
<table>{{range .Headers}}<tr><th>{{.Name}}</th><td>{{.Value}}</td></tr>{{end}}</table>
{{if .Text}}<h2>Texto</h2><pre>{{.Text}}</pre>{{end}}
{{if .HasHTML}}<h2>HTML</h2><iframe sandbox src="{{.Prefix}}/{{.ID}}/html" title="HTML"></iframe>{{end}}
</body></html>`))

func (s *Server) serveList(w http.ResponseWriter, prefix string) {
	msgs := s.Messages()
	slices.Reverse(msgs)
	page := struct {
		Prefix      string
		Count, Keep int
		Messages    []Message
	}{prefix, len(msgs), s.opts.Keep, msgs}
	render(w, pageTemplates, page)
}

type header struct{ Name, Value string }

func (s *Server) serveMessage(w http.ResponseWriter, prefix string, m Message) {
	text, html, headers := parts(m.Raw)
	page := struct {
		Prefix, Subject, Text string
		ID                    int
		HasHTML               bool
		Headers               []header
	}{prefix, m.Subject, text, m.ID, html != "", headers}
	render(w, messageTemplate, page)
}

// serveHTMLPart serves the message's HTML under a policy that lets it
// run nothing and load nothing.
func serveHTMLPart(w http.ResponseWriter, m Message) {
	_, html, _ := parts(m.Raw)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:")
	io.WriteString(w, html) //nolint:errcheck // the client went away
}

func render(w http.ResponseWriter, t *template.Template, data any) {
	var buf bytes.Buffer
	if err := t.Execute(&buf, data); err != nil {
		http.Error(w, "render: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-src 'self'")
	w.Write(buf.Bytes()) //nolint:errcheck // the client went away
}

// parts reads a message's plain text and HTML (the first of each) and its
// main headers, decoded; what does not parse is shown as it is.
func parts(raw []byte) (text, html string, headers []header) {
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return string(raw), "", nil
	}
	dec := new(mime.WordDecoder)
	for _, name := range []string{"From", "To", "Reply-To", "Date", "Message-Id"} {
		if v := msg.Header.Get(name); v != "" {
			if d, err := dec.DecodeHeader(v); err == nil {
				v = d
			}
			headers = append(headers, header{name, v})
		}
	}
	mediaType, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil {
		mediaType = "text/plain"
	}
	if !strings.HasPrefix(mediaType, "multipart/") {
		body, _ := decodeBody(msg.Body, msg.Header.Get("Content-Transfer-Encoding"))
		if mediaType == "text/html" {
			return "", body, headers
		}
		return body, "", headers
	}
	mr := multipart.NewReader(msg.Body, params["boundary"])
	for {
		p, err := mr.NextPart()
		if err != nil {
			return text, html, headers
		}
		typ, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type"))
		body, err := decodeBody(p, p.Header.Get("Content-Transfer-Encoding"))
		switch {
		case err != nil:
		case typ == "text/plain" && text == "":
			text = body
		case typ == "text/html" && html == "":
			html = body
		}
	}
}

// decodeBody reads a body in its transfer encoding (quoted-printable is
// decoded by multipart already, and here for a single part).
func decodeBody(r io.Reader, encoding string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "base64":
		r = base64.NewDecoder(base64.StdEncoding, r) // it skips the line ends
	case "quoted-printable":
		r = quotedprintable.NewReader(r)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return "", fmt.Errorf("mailbox: read the body: %w", err)
	}
	return strings.ReplaceAll(string(b), "\r\n", "\n"), nil
}
