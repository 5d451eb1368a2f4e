//go:build !linux

package pgcluster

// readProcStat says nothing beyond a process's existence where there is no
// /proc/<pid>/stat to read: zombies are taken for running processes and
// pids are not told apart by start time.
func readProcStat(int) (procStat, bool) { return procStat{}, false }
