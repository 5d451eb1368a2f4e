// Package browsertest loads pages in headless Chromium for tests: the
// public receipt page (the text a payer reads and whether its images were
// drawn), the API reference page, and the owner statement and income
// report pages at a phone's and a desktop's width.
package browsertest

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// RequireBrowserEnv makes a missing Chromium an error instead of a skip;
// CI sets it, so the page is always checked in a real browser there.
const RequireBrowserEnv = "PROPFIN_TEST_BROWSER"

// Chromium finds a Chromium or Chrome binary. Without one the test is
// skipped with a message that says it needs Chromium, or fails when
// PROPFIN_TEST_BROWSER=1: go test ./... stays green on a machine with only
// Go and PostgreSQL, and CI never passes without the browser check.
func Chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "this test needs headless Chromium (chromium, chromium-browser or google-chrome on PATH); " +
		"install it (apt-get install chromium) to check the page in a real browser"
	if os.Getenv(RequireBrowserEnv) == "1" {
		t.Fatal(msg + " (" + RequireBrowserEnv + "=1 makes its absence an error)")
	}
	t.Skip(msg)
	return ""
}

// DumpDOM loads url in headless Chromium and returns the DOM after the
// page's load event and scripts.
func DumpDOM(t *testing.T, browser, url string) string {
	t.Helper()
	dom, _ := Load(t, browser, url)
	return dom
}

// Load loads url in headless Chromium with the extra command-line
// arguments, and returns the DOM after the page's load event and scripts,
// and what the browser logged: its console messages (a
// Content-Security-Policy refusal among them) with --enable-logging=stderr.
func Load(t *testing.T, browser, url string, args ...string) (dom, log string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, append(append([]string{"--headless", "--no-sandbox", "--disable-gpu",
		"--disable-dev-shm-usage", "--no-first-run", "--user-data-dir=" + t.TempDir(),
		"--virtual-time-budget=5000"}, args...), "--dump-dom", url)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("running %s: %v\n%s", browser, err, stderr.Bytes())
	}
	if stdout.Len() == 0 {
		t.Fatalf("%s dumped no DOM:\n%s", browser, stderr.Bytes())
	}
	return stdout.String(), stderr.String()
}

// ImageState returns the data-state the page's script gave the image of
// the class: "ok" once drawn, "broken" if it failed, "" if the script did
// not run.
func ImageState(t *testing.T, dom, class string) string {
	t.Helper()
	img := regexp.MustCompile(`<img [^>]*class="` + class + `"[^>]*>`).FindString(dom)
	if img == "" {
		t.Fatalf("DOM has no <img class=%q>", class)
	}
	m := regexp.MustCompile(`data-state="([a-z]*)"`).FindStringSubmatch(img)
	if m == nil {
		return ""
	}
	return m[1]
}

// CopyButtonShown reports whether the copy button for the element id was
// revealed by the page's script (it is hidden without it).
func CopyButtonShown(t *testing.T, dom, id string) bool {
	t.Helper()
	b := regexp.MustCompile(`<button [^>]*data-copy="` + id + `"[^>]*>`).FindString(dom)
	if b == "" {
		t.Fatalf("DOM has no copy button for %s", id)
	}
	return !strings.Contains(b, "hidden")
}
