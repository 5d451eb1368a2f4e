//go:build unix

package pgcluster

import (
	"errors"
	"os/exec"
	"syscall"
)

// processAlive reports whether a process with this pid exists (it may belong
// to another user).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// detach puts cmd in a session of its own, so that the signals a terminal
// sends to this process's group (Ctrl-C) do not reach it.
func detach(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
}
