//go:build linux

package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/propfin/propfin/storage/pgcluster"
)

// zombieProcess is a child that has exited and that this process does not
// collect (until the test ends), as a killed `propfin dev` is when its
// parent does not wait for it: its pid still answers kill(pid, 0).
func zombieProcess(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Wait() }) //nolint:errcheck // collects it
	pid := cmd.Process.Pid
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(time.Millisecond) {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if _, after, ok := strings.Cut(string(stat), ") "); err == nil && ok && strings.HasPrefix(after, "Z") {
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("child %d did not become a zombie", pid)
		}
	}
}

// sleepingProcess is a live child, ended when the test ends.
func sleepingProcess(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("sleep", "600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() }) //nolint:errcheck
	return cmd.Process.Pid
}

// TestDevTellsALiveOwnerFromAGoneOne: the cluster left running by a dev
// run is adopted (and stopped when this run ends) when the owner file
// names a zombie, or a pid another process has taken since; it is left
// running when its owner runs.
func TestDevTellsALiveOwnerFromAGoneOne(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	t.Setenv("REDIS_URL", "")
	tests := []struct {
		name    string
		owner   func(t *testing.T) string // the owner file's text
		adopted bool
	}{
		{"a zombie, recorded by pid alone", func(t *testing.T) string { return strconv.Itoa(zombieProcess(t)) + "\n" }, true},
		{"a zombie, recorded with its start", func(t *testing.T) string { return ownerRecord(zombieProcess(t)) }, true},
		{"a pid taken by another process since", func(t *testing.T) string {
			return strconv.Itoa(sleepingProcess(t)) + " " + pgcluster.ProcessStart(os.Getpid()) + "0\n"
		}, true},
		{"a live owner", func(t *testing.T) string { return ownerRecord(sleepingProcess(t)) }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dataDir := devDataDir(t)
			left, err := pgcluster.Start(context.Background(), pgcluster.Options{DataDir: filepath.Join(dataDir, "pg")})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { left.Stop(context.Background()) }) //nolint:errcheck // stopped by dev when adopted
			if err := os.WriteFile(filepath.Join(dataDir, ownerFile), []byte(tt.owner(t)), 0o644); err != nil {
				t.Fatal(err)
			}
			runDevUntilListening(t, dataDir)
			_, err = os.Stat(filepath.Join(dataDir, "pg", "postmaster.pid"))
			if running := !errors.Is(err, os.ErrNotExist); running == tt.adopted {
				t.Errorf("after dev stopped, the cluster runs: %v (postmaster.pid: %v); want adopted (stopped with dev) %v", running, err, tt.adopted)
			}
		})
	}
}

// devDataDir is a data folder the cluster's account can reach.
func devDataDir(t *testing.T) string {
	t.Helper()
	tmp := t.TempDir()
	for _, dir := range []string{filepath.Dir(tmp), tmp} {
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(tmp, "data")
}

// runDevUntilListening runs `propfin dev` on dataDir until it listens,
// then interrupts it and waits for it to end.
func runDevUntilListening(t *testing.T, dataDir string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"dev", "--data-dir", dataDir, "--addr", "127.0.0.1:0"}, nil, &out, &errOut)
	}()
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(out.String(), "Listening on") && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("dev exited %d:\n%s", code, tail(errOut.String(), 10))
	}
}
