package api

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/propfin/propfin/finance"
)

// TestUnavailableIsLoggedOncePerInterval: requests answered 503 because
// the database does not answer are logged at WARN, one line per interval
// and message, not one per request (an outage under load wrote hundreds
// of ERROR lines a second); an internal error is still an ERROR each time.
func TestUnavailableIsLoggedOncePerInterval(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	message := "The database is unavailable; retry shortly (" + t.Name() + ")." // a key of its own
	for range 100 {
		r := httptest.NewRequest(http.MethodGet, "/financial/invoices", nil)
		r = r.WithContext(withRequestState(r.Context(), log))
		w := httptest.NewRecorder()
		writeError(w, r, &finance.Error{Code: finance.Unavailable, Message: message})
		if w.Code != http.StatusServiceUnavailable {
			t.Fatalf("status %d", w.Code)
		}
	}
	r := httptest.NewRequest(http.MethodGet, "/financial/invoices", nil)
	writeError(httptest.NewRecorder(), r.WithContext(withRequestState(r.Context(), log)), finance.Errorf(finance.Internal, "boom"))
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "level=WARN") || !strings.Contains(lines[0], "suppressed=0") ||
		!strings.Contains(lines[1], "level=ERROR") {
		t.Errorf("%d lines for 100 unavailable answers and an internal error:\n%s", len(lines), buf.String())
	}
}
