package browsertest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// Page is a page of headless Chromium driven through the DevTools protocol
// over a pipe (--remote-debugging-pipe: no port, no websocket): it is
// navigated, waited on with a script, and records every request the page
// makes and every message its console receives (a Content-Security-Policy
// refusal, a script error).
type Page struct {
	t       *testing.T
	cmd     *exec.Cmd
	toPipe  *os.File
	session string

	mu       sync.Mutex
	nextID   int
	waiting  map[int]chan message
	requests []string
	console  []string
	closed   chan struct{}
}

// message is a DevTools protocol message: an answer (ID) or an event
// (Method).
type message struct {
	ID        int             `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct {
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// OpenPage starts headless Chromium with args and opens a blank page
// whose network, console and log are recorded. Host names other than
// loopback do not resolve (--host-resolver-rules), so nothing reaches
// another machine whatever the page or the browser tries; what the page
// tried is in Requests. The browser is stopped when the test ends.
func OpenPage(t *testing.T, browser string, args ...string) *Page {
	t.Helper()
	toBrowser, toPipe, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	fromPipe, fromBrowser, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(browser, append([]string{"--headless", "--no-sandbox", "--disable-gpu",
		"--disable-dev-shm-usage", "--no-first-run", "--user-data-dir=" + t.TempDir(),
		"--remote-debugging-pipe", "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1",
		"--disable-background-networking", "--disable-component-update", "--disable-sync"}, append(args, "about:blank")...)...)
	cmd.ExtraFiles = []*os.File{toBrowser, fromBrowser} // fd 3: commands in, fd 4: answers out
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", browser, err)
	}
	toBrowser.Close()
	fromBrowser.Close()
	p := &Page{t: t, cmd: cmd, toPipe: toPipe, waiting: map[int]chan message{}, closed: make(chan struct{})}
	go p.read(fromPipe)
	t.Cleanup(func() {
		toPipe.Close()
		cmd.Process.Kill() //nolint:errcheck // it may have exited
		cmd.Wait()         //nolint:errcheck // killed
		fromPipe.Close()
	})
	var target struct {
		TargetID string `json:"targetId"`
	}
	p.call("", "Target.createTarget", map[string]any{"url": "about:blank"}, &target)
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	p.call("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached)
	p.session = attached.SessionID
	for _, domain := range []string{"Network.enable", "Runtime.enable", "Log.enable", "Page.enable"} {
		p.call(p.session, domain, map[string]any{}, nil)
	}
	return p
}

// read dispatches the browser's messages, NUL-terminated JSON.
func (p *Page) read(pipe *os.File) {
	defer close(p.closed)
	r := bufio.NewReaderSize(pipe, 1<<20)
	for {
		raw, err := r.ReadBytes(0)
		if err != nil {
			return
		}
		var m message
		if json.Unmarshal(raw[:len(raw)-1], &m) != nil {
			continue
		}
		p.mu.Lock()
		if ch, ok := p.waiting[m.ID]; ok && m.ID != 0 {
			delete(p.waiting, m.ID)
			ch <- m
		} else if m.SessionID == p.session && p.session != "" {
			p.record(m)
		}
		p.mu.Unlock()
	}
}

// record keeps what the page's events say of requests and the console.
func (p *Page) record(m message) {
	var ev struct {
		Request struct {
			URL string `json:"url"`
		} `json:"request"`
		Type string `json:"type"`
		Args []struct {
			Value       any    `json:"value"`
			Description string `json:"description"`
		} `json:"args"`
		Entry struct {
			Level, Text, URL string
		} `json:"entry"`
		ExceptionDetails struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	if json.Unmarshal(m.Params, &ev) != nil {
		return
	}
	switch m.Method {
	case "Network.requestWillBeSent":
		p.requests = append(p.requests, ev.Request.URL)
	case "Runtime.consoleAPICalled":
		var parts []string
		for _, a := range ev.Args {
			parts = append(parts, fmt.Sprint(a.Value)+a.Description)
		}
		p.console = append(p.console, ev.Type+": "+strings.Join(parts, " "))
	case "Log.entryAdded":
		p.console = append(p.console, ev.Entry.Level+": "+ev.Entry.Text+" "+ev.Entry.URL)
	case "Runtime.exceptionThrown":
		p.console = append(p.console, "exception: "+ev.ExceptionDetails.Text+" "+ev.ExceptionDetails.Exception.Description)
	}
}

// call sends a command and decodes its result into out (nil: ignored).
func (p *Page) call(session, method string, params any, out any) {
	p.t.Helper()
	p.mu.Lock()
	p.nextID++
	id := p.nextID
	ch := make(chan message, 1)
	p.waiting[id] = ch
	p.mu.Unlock()
	raw, err := json.Marshal(map[string]any{"id": id, "method": method, "params": params, "sessionId": session})
	if err != nil {
		p.t.Fatal(err)
	}
	if session == "" {
		raw, _ = json.Marshal(map[string]any{"id": id, "method": method, "params": params})
	}
	if _, err := p.toPipe.Write(append(raw, 0)); err != nil {
		p.t.Fatalf("DevTools %s: %v", method, err)
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			p.t.Fatalf("DevTools %s: %s", method, m.Error.Message)
		}
		if out != nil {
			if err := json.Unmarshal(m.Result, out); err != nil {
				p.t.Fatalf("DevTools %s: %v", method, err)
			}
		}
	case <-p.closed:
		p.t.Fatalf("DevTools %s: the browser went away", method)
	case <-time.After(60 * time.Second):
		p.t.Fatalf("DevTools %s: no answer in 60 s", method)
	}
}

// Navigate loads url in the page.
func (p *Page) Navigate(url string) {
	p.t.Helper()
	p.call(p.session, "Page.navigate", map[string]any{"url": url}, nil)
}

// Eval evaluates a JavaScript expression in the page and returns its
// value as JSON.
func (p *Page) Eval(expr string) json.RawMessage {
	p.t.Helper()
	var out struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	p.call(p.session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &out)
	if out.ExceptionDetails != nil {
		p.t.Fatalf("evaluating %s: %s", expr, out.ExceptionDetails.Text)
	}
	return out.Result.Value
}

// WaitFor evaluates a boolean expression until it is true or the timeout
// passes, and reports whether it became true.
func (p *Page) WaitFor(expr string, timeout time.Duration) bool {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for {
		if string(p.Eval("Boolean("+expr+")")) == "true" {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// Requests lists the URL of every request the page made so far.
func (p *Page) Requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.requests...)
}

// Console lists the page's console messages, log entries and uncaught
// exceptions so far.
func (p *Page) Console() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.console...)
}

// OffMachine keeps the URLs that name another machine: anything but
// loopback, data: and blob: (and about:blank).
func OffMachine(urls []string) []string {
	var out []string
	for _, raw := range urls {
		u, err := url.Parse(raw)
		if err != nil {
			out = append(out, raw)
			continue
		}
		switch {
		case u.Scheme == "data" || u.Scheme == "blob" || raw == "about:blank":
		case (u.Scheme == "http" || u.Scheme == "https") && isLoopback(u.Hostname()):
		default:
			out = append(out, raw)
		}
	}
	return out
}

func isLoopback(host string) bool {
	return host == "localhost" || host == "::1" || strings.HasPrefix(host, "127.")
}
