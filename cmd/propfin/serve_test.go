package main

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"
)

// TestServeFinishesRequestsInFlight: when the context ends (SIGTERM), the
// server stops taking connections and the request in flight completes.
func TestServeFinishesRequestsInFlight(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	release := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-release
		w.Write([]byte("done")) //nolint:errcheck
	})
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- serveAPI(ctx, ln, h, slog.New(slog.NewTextHandler(io.Discard, nil))) }()

	type result struct {
		body string
		err  error
	}
	got := make(chan result, 1)
	go func() {
		res, err := http.Get("http://" + ln.Addr().String())
		if err != nil {
			got <- result{err: err}
			return
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		got <- result{string(b), err}
	}()
	<-started
	cancel() // as SIGTERM does through signal.NotifyContext
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			break // no longer accepting
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatal("still accepting connections after shutdown began")
		}
		time.Sleep(10 * time.Millisecond)
	}
	close(release)
	if r := <-got; r.err != nil || r.body != "done" {
		t.Errorf("request in flight: %q %v", r.body, r.err)
	}
	if err := <-served; err != nil {
		t.Errorf("serveAPI: %v", err)
	}
}
