//go:build linux

package pgcluster

import (
	"os"
	"strconv"
	"strings"
)

// readProcStat reads what /proc/<pid>/stat says of a process: whether it
// is a zombie and when it started. ok is false when it says nothing (no
// such process, or no /proc).
func readProcStat(pid int) (procStat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	return parseProcStat(string(b))
}

// parseProcStat reads the state (field 3) and the start time (field 22,
// clock ticks after boot) of a /proc/<pid>/stat line (proc(5)). The command
// name (field 2) is in parentheses and may hold spaces and parentheses
// itself, so the fields are counted after the last ')'.
func parseProcStat(line string) (procStat, bool) {
	end := strings.LastIndexByte(line, ')')
	if end < 0 {
		return procStat{}, false
	}
	fields := strings.Fields(line[end+1:])
	const state, start = 3 - 3, 22 - 3 // indices after the name
	if len(fields) <= start || len(fields[state]) != 1 {
		return procStat{}, false
	}
	if _, err := strconv.ParseUint(fields[start], 10, 64); err != nil {
		return procStat{}, false
	}
	return procStat{zombie: fields[state] == "Z", start: fields[start]}, true
}
