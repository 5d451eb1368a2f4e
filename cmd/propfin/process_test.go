package main

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// beMain makes the test binary act as the propfin binary: fault tests
// start it as real processes (so that kill -9 kills a process, not a
// goroutine) without building anything.
const beMain = "PROPFIN_TEST_BE_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(beMain) == "1" {
		main() // exits
	}
	if addr := os.Getenv(beReceiver); addr != "" {
		receiverMain(addr, os.Getenv(beReceiverLog)) // exits
	}
	os.Exit(m.Run())
}

// proc is a propfin process started by a test.
type proc struct {
	name string
	cmd  *exec.Cmd
	out  *syncBuffer
	done chan struct{}
}

// startProc runs `propfin args...` with env added to the test's
// environment; it is killed when the test ends if still running.
func startProc(t *testing.T, name string, env []string, args ...string) *proc {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return startBinary(t, name, self, append([]string{beMain + "=1"}, env...), args...)
}

// startBinary runs the program bin with args, env added to the test's
// environment; it is killed when the test ends if still running.
func startBinary(t *testing.T, name, bin string, env []string, args ...string) *proc {
	t.Helper()
	p := &proc{name: name, cmd: exec.Command(bin, args...), out: &syncBuffer{}, done: make(chan struct{})}
	p.cmd.Env = append(append(os.Environ(), "PROPFIN_LOG_FORMAT=text"), env...)
	p.cmd.Stdout = p.out
	p.cmd.Stderr = p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.cmd.Wait(); close(p.done) }() //nolint:errcheck // the exit is read from ProcessState
	t.Cleanup(func() {
		p.kill()
		if t.Failed() {
			t.Logf("--- output of %s:\n%s", p.name, tail(p.out.String(), 60))
		}
	})
	return p
}

// kill is kill -9.
func (p *proc) kill() {
	select {
	case <-p.done:
		return
	default:
	}
	p.cmd.Process.Signal(syscall.SIGKILL) //nolint:errcheck // it may have ended
	<-p.done
}

// stop sends SIGTERM and waits up to timeout for the process to end.
func (p *proc) stop(t *testing.T, timeout time.Duration) {
	t.Helper()
	p.cmd.Process.Signal(syscall.SIGTERM) //nolint:errcheck // it may have ended
	select {
	case <-p.done:
	case <-time.After(timeout):
		t.Fatalf("%s did not stop within %s of SIGTERM", p.name, timeout)
	}
}

func tail(s string, lines int) string {
	parts := strings.Split(s, "\n")
	if len(parts) > lines {
		parts = parts[len(parts)-lines:]
	}
	return strings.Join(parts, "\n")
}

// eventually polls check every 50 ms until it returns nil or timeout.
func eventually(t *testing.T, timeout time.Duration, what string, check func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after %s: %v", what, timeout, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
