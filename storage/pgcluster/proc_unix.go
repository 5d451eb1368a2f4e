//go:build unix

package pgcluster

import (
	"errors"
	"os/exec"
	"syscall"
)

// processAlive reports whether a process with this pid runs (it may belong
// to another user). A zombie, which has exited and waits for its parent to
// collect it, still answers kill(pid, 0) but does not run.
func processAlive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	st, ok := readProcStat(pid)
	return !ok || !st.zombie
}

// detach puts cmd in a session of its own, so that the signals a terminal
// sends to this process's group (Ctrl-C) do not reach it.
func detach(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
}
