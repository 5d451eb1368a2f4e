package pgcluster

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
)

// watchdogScript waits for end of file on its standard input, which comes
// when this process closes the pipe's other end or ends in any way (a
// crash, SIGKILL, a test timeout); then it stops the server, at once, and
// deletes the data directory. $1 is pg_ctl, $2 the data directory.
const watchdogScript = `read -r _
"$1" stop -D "$2" -m immediate -w >/dev/null 2>&1
exec rm -rf -- "$2"`

// watchdog removes a throwaway cluster when this process lets go of it.
type watchdog struct {
	cmd     *exec.Cmd
	trigger *os.File // the pipe's write end; closing it fires the watchdog

	once sync.Once
}

// liveTriggers keeps every trigger reachable: a garbage-collected *os.File
// is closed by its finalizer, which would fire its watchdog too early.
var liveTriggers sync.Map

func startWatchdog(c *Cluster) (*watchdog, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start cluster watchdog: %w", err)
	}
	defer r.Close()
	cmd := exec.Command("/bin/sh", "-c", watchdogScript, "pgcluster-watchdog",
		filepath.Join(c.binDir, "pg_ctl"), c.dataDir)
	cmd.Stdin = r
	cmd.Dir = "/"
	cmd.Env = append(os.Environ(), "LC_ALL=C", "LANG=C")
	c.acct.apply(cmd) // pg_ctl refuses root too, and the directory is the server account's
	detach(cmd)       // Ctrl-C on the test run must not kill the watchdog before it cleans up
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil, fmt.Errorf("start cluster watchdog: %w", err)
	}
	wd := &watchdog{cmd: cmd, trigger: w}
	liveTriggers.Store(wd, struct{}{})
	return wd, nil
}

// fire makes the watchdog stop the server and delete the data directory,
// and waits until it is done. What it could not delete is for the caller
// to see.
func (wd *watchdog) fire() {
	wd.once.Do(func() {
		wd.trigger.Close()
		_ = wd.cmd.Wait()
		liveTriggers.Delete(wd)
	})
}

// disarm ends the watchdog without letting it clean up.
func (wd *watchdog) disarm() {
	wd.once.Do(func() {
		_ = wd.cmd.Process.Kill()
		_ = wd.cmd.Wait()
		wd.trigger.Close()
		liveTriggers.Delete(wd)
	})
}
