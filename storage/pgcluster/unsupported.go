//go:build !unix

package pgcluster

import (
	"errors"
	"os/exec"
)

var errUnsupported = errors.New("pgcluster runs PostgreSQL on Unix-like systems only")

type account struct{ name string }

func serverAccount() (account, error)           { return account{}, errUnsupported }
func (account) apply(*exec.Cmd)                 {}
func (account) prepareDataDir(dir string) error { return errUnsupported }
func processAlive(pid int) bool                 { return false }
func detach(*exec.Cmd)                          {}
