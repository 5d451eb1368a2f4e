package publicpage

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

var testShell = Shell{Style: "body{color:#123}", CSP: "default-src 'none'; style-src " + SourceHash("body{color:#123}")}

func TestWriteError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		status         int
		title, message string
		want           []string
		notWant        string
	}{
		{"not found", http.StatusNotFound, "Página não encontrada", "Este link expirou.",
			[]string{"<title>Página não encontrada</title>", "<h1>Página não encontrada</h1>", "<p>Este link expirou.</p>", "<style>body{color:#123}</style>", `<meta name="robots" content="noindex, nofollow">`}, ""},
		{"escaped", http.StatusServiceUnavailable, "<b>", "a & <script>", []string{"<h1>&lt;b&gt;</h1>", "a &amp; &lt;script&gt;"}, "<script>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := httptest.NewRecorder()
			testShell.WriteError(rec, tt.status, tt.title, tt.message)
			body := rec.Body.String()
			if rec.Code != tt.status {
				t.Errorf("status %d, want %d", rec.Code, tt.status)
			}
			for _, w := range tt.want {
				if !strings.Contains(body, w) {
					t.Errorf("page lacks %q:\n%s", w, body)
				}
			}
			if tt.notWant != "" && strings.Contains(body, tt.notWant) {
				t.Errorf("page has %q:\n%s", tt.notWant, body)
			}
			h := rec.Header()
			for k, v := range map[string]string{
				"Content-Type":            "text/html; charset=utf-8",
				"Cache-Control":           "no-store",
				"X-Content-Type-Options":  "nosniff",
				"Referrer-Policy":         "no-referrer",
				"X-Robots-Tag":            "noindex, nofollow",
				"Content-Security-Policy": testShell.CSP,
				"Content-Length":          strconv.Itoa(len(body)),
			} {
				if h.Get(k) != v {
					t.Errorf("%s: %q, want %q", k, h.Get(k), v)
				}
			}
		})
	}
}

func TestSourceHash(t *testing.T) {
	t.Parallel()
	// sha256 of "" in base64, the value every CSP reference gives.
	if got, want := SourceHash(""), "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='"; got != want {
		t.Fatalf("SourceHash(\"\") = %s, want %s", got, want)
	}
}
