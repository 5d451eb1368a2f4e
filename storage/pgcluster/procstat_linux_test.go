//go:build linux

package pgcluster

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"
)

func TestParseProcStat(t *testing.T) {
	t.Parallel()
	// the fields after the name: state, then 18 more, then the start time
	tail := func(state, start string) string {
		return " " + state + " 1 4242 4242 0 -1 4194560 120 0 0 0 1 0 0 0 20 0 1 0 " + start + " 2400000 300\n"
	}
	tests := []struct {
		name string
		line string
		want procStat
		ok   bool
	}{
		{"a sleeping process", "4242 (propfin)" + tail("S", "987654"), procStat{start: "987654"}, true},
		{"a zombie", "4242 (propfin)" + tail("Z", "987654"), procStat{zombie: true, start: "987654"}, true},
		{"a name with spaces and parentheses", "4242 (a (b) c)" + tail("R", "12"), procStat{start: "12"}, true},
		{"cut short", "4242 (propfin) S 1 4242", procStat{}, false},
		{"no name", "4242 propfin" + tail("S", "12"), procStat{}, false},
		{"a start time that is no number", "4242 (propfin)" + tail("S", "soon"), procStat{}, false},
		{"a state of two letters", "4242 (propfin)" + tail("ZZ", "12"), procStat{}, false},
	}
	for _, tt := range tests {
		got, ok := parseProcStat(tt.line)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s: %+v %v, want %+v %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

// zombieProcess is a child that has exited and that this process does not
// collect (until the test ends): it still answers kill(pid, 0).
func zombieProcess(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Wait() }) //nolint:errcheck // collects it
	pid := cmd.Process.Pid
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(time.Millisecond) {
		if st, _ := readProcStat(pid); st.zombie {
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("child %d did not become a zombie", pid)
		}
	}
}

// TestProcessRunning: a zombie does not run, though its pid answers
// kill(pid, 0); a pid whose start time is not the one recorded is another
// process.
func TestProcessRunning(t *testing.T) {
	t.Parallel()
	sleeper := exec.Command("sleep", "600")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sleeper.Process.Kill(); sleeper.Wait() }) //nolint:errcheck
	live, zombie, self := sleeper.Process.Pid, zombieProcess(t), os.Getpid()
	if err := syscall.Kill(zombie, 0); err != nil {
		t.Fatalf("the zombie %d does not answer kill(pid, 0): %v", zombie, err)
	}
	start := ProcessStart(self)
	if _, err := strconv.ParseUint(start, 10, 64); err != nil {
		t.Fatalf("ProcessStart of this process: %q", start)
	}
	tests := []struct {
		name  string
		pid   int
		start string
		want  bool
	}{
		{"this process, as recorded", self, start, true},
		{"this process, no start recorded", self, "", true},
		{"a live child, as recorded", live, ProcessStart(live), true},
		{"a pid taken by another process since", live, start + "0", false},
		{"a zombie", zombie, "", false},
		{"a zombie, as recorded", zombie, ProcessStart(zombie), false},
		{"no such process", 1 << 30, "", false},
	}
	for _, tt := range tests {
		if got := ProcessRunning(tt.pid, tt.start); got != tt.want {
			t.Errorf("%s: ProcessRunning(%d, %q) = %v, want %v", tt.name, tt.pid, tt.start, got, tt.want)
		}
	}
	if ProcessAlive(zombie) {
		t.Errorf("ProcessAlive(%d) of a zombie: true", zombie)
	}
}
