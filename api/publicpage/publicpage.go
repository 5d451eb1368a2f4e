// Package publicpage holds what the public pages opened by a signed link
// (receipts, statements) share: the headers of every answer, the error
// page, and writing a body whole.
package publicpage

import (
	"bytes"
	"crypto/sha256"
	_ "embed" // the error template
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"strconv"
)

//go:embed error.html
var errorHTML string

var errorTemplate = template.Must(template.New("error").Parse(errorHTML))

// fallback is answered if the error template ever fails (it is tested).
const fallback = "<!doctype html><title>Erro</title><p>Erro.</p>"

// Shell is one kind of public page's inline style and the
// Content-Security-Policy that admits it.
type Shell struct {
	Style string
	CSP   string
}

// SourceHash is a CSP hash source of an inline element's text.
func SourceHash(text string) string {
	sum := sha256.Sum256([]byte(text))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// SetHeaders sets what every answer carries: the HTML type, no caching,
// nosniff, no referrer (the token is in the URL), not indexed, and the
// shell's policy.
func (s Shell) SetHeaders(h http.Header) {
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Robots-Tag", "noindex, nofollow")
	h.Set("Content-Security-Policy", s.CSP)
}

// RenderError writes the error page of title and message in the shell's
// style; nothing is written when it fails.
func (s Shell) RenderError(w io.Writer, title, message string) error {
	var buf bytes.Buffer
	view := struct {
		Title, Message string
		Style          template.CSS
	}{title, message, template.CSS(s.Style)}
	if err := errorTemplate.Execute(&buf, view); err != nil {
		return fmt.Errorf("executing template error: %w", err)
	}
	if _, err := buf.WriteTo(w); err != nil {
		return fmt.Errorf("writing error page: %w", err)
	}
	return nil
}

// WriteError answers status with the error page of title and message,
// with SetHeaders' headers.
func (s Shell) WriteError(w http.ResponseWriter, status int, title, message string) {
	s.SetHeaders(w.Header())
	var buf bytes.Buffer
	if err := s.RenderError(&buf, title, message); err != nil {
		buf.Reset()
		buf.WriteString(fallback)
	}
	WriteBody(w, status, buf.Bytes())
}

// WriteBody answers status with body and its Content-Length.
func WriteBody(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body) //nolint:errcheck // the client went away; nothing to do
}
