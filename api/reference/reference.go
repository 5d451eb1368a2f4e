// Package reference serves the API reference page, /docs: Swagger UI
// rendering the API's OpenAPI document (/openapi.json). Every file the
// page loads is embedded in the binary and served from /docs/, so the page
// requests nothing from another machine; its Content-Security-Policy
// holds it to that.
package reference

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"time"
)

// Path is where the page is served; its files are under Path + "/".
const Path = "/docs"

//go:embed page/index.html page/start.js swagger-ui/swagger-ui-bundle.js swagger-ui/swagger-ui.css
var files embed.FS

// CSP is the page's Content-Security-Policy: scripts, styles and the
// document from this server only, images from it or inline (the styles'
// icons are data: URIs), nothing else.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// asset is one file of the page.
type asset struct {
	body        []byte
	contentType string
	etag        string
}

// assets are the files under Path + "/", by name.
var assets = map[string]asset{
	"swagger-ui-bundle.js": load("swagger-ui/swagger-ui-bundle.js", "text/javascript; charset=utf-8"),
	"swagger-ui.css":       load("swagger-ui/swagger-ui.css", "text/css; charset=utf-8"),
	"start.js":             load("page/start.js", "text/javascript; charset=utf-8"),
}

var page = load("page/index.html", "text/html; charset=utf-8")

func load(name, contentType string) asset {
	body, err := fs.ReadFile(files, name)
	if err != nil {
		panic("reference: " + err.Error())
	}
	sum := sha256.Sum256(body)
	return asset{body: body, contentType: contentType, etag: `"` + hex.EncodeToString(sum[:16]) + `"`}
}

// Page serves the page at Path.
func Page() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { serve(w, r, page) })
}

// Files serves the page's files, the last segment of the path naming one;
// any other name goes to notFound.
func Files(notFound http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, ok := assets[path.Base(r.URL.Path)]
		if !ok || path.Dir(r.URL.Path) != Path {
			notFound.ServeHTTP(w, r)
			return
		}
		serve(w, r, a)
	})
}

// Names lists the files Files serves.
func Names() []string {
	names := make([]string, 0, len(assets))
	for n := range assets {
		names = append(names, n)
	}
	return names
}

// serve writes a, answering a conditional request with 304 when the
// client has it already.
func serve(w http.ResponseWriter, r *http.Request, a asset) {
	h := w.Header()
	h.Set("Content-Type", a.contentType)
	h.Set("Cache-Control", "no-cache")
	h.Set("ETag", a.etag)
	h.Set("Content-Security-Policy", CSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(a.body))
}
