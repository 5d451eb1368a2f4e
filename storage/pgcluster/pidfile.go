package pgcluster

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// pidFileName is the lock file the postmaster keeps in its data directory
// while it runs.
const pidFileName = "postmaster.pid"

// pidFile is what postmaster.pid says about a running server. The file holds
// one value per line: pid, data directory, start time, port, first socket
// directory, first listen address, shared memory key, and (PostgreSQL 10 and
// later) the status. The server writes it progressively while starting, so
// later lines may be missing.
type pidFile struct {
	pid        int
	port       int
	listenAddr string
	status     string // "starting", "stopping", "ready", "standby", or "" when not written yet
}

// Line numbers of postmaster.pid (from 1), as PostgreSQL's miscadmin.h names them.
const (
	lineListenAddr = 6
	lineStatus     = 8
)

func readPidFile(dataDir string) (pidFile, error) {
	data, err := os.ReadFile(filepath.Join(dataDir, pidFileName))
	if err != nil {
		return pidFile{}, err
	}
	pf, err := parsePidFile(string(data))
	if err != nil {
		return pidFile{}, fmt.Errorf("%s in %s: %w", pidFileName, dataDir, err)
	}
	return pf, nil
}

func parsePidFile(text string) (pidFile, error) {
	lines := strings.Split(text, "\n")
	line := func(n int) string {
		if n > len(lines) {
			return ""
		}
		return strings.TrimSpace(lines[n-1])
	}
	pid, err := strconv.Atoi(line(1))
	if err != nil || pid <= 0 {
		return pidFile{}, fmt.Errorf("bad pid %q", line(1))
	}
	pf := pidFile{pid: pid, listenAddr: line(lineListenAddr), status: line(lineStatus)}
	if p := line(4); p != "" {
		port, err := strconv.Atoi(p)
		if err != nil || port <= 0 || port > 65535 {
			return pidFile{}, fmt.Errorf("bad port %q", p)
		}
		pf.port = port
	}
	return pf, nil
}
