package jobs

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// databaseCPU is the CPU time (user and system) the client backends of
// pool's database have used so far, read from /proc: a measure of the
// database's work that other loads on the machine distort less than wall
// time. ok is false when it cannot be read (not Linux, or a server on
// another machine). A backend that exits between two readings takes its
// time with it: benchmarks read it around work on long-lived connections.
func databaseCPU(ctx context.Context, pool *pgxpool.Pool) (total time.Duration, ok bool) {
	rows, err := pool.Query(ctx, `SELECT pid FROM pg_stat_activity
		WHERE datname = current_database() AND backend_type = 'client backend'`)
	if err != nil {
		return 0, false
	}
	defer rows.Close()
	for rows.Next() {
		var pid int
		if err := rows.Scan(&pid); err != nil {
			return 0, false
		}
		d, err := processCPU(pid)
		if err != nil {
			return 0, false
		}
		total += d
	}
	return total, rows.Err() == nil
}

// processCPU reads a process's utime and stime from /proc/<pid>/stat, in
// clock ticks of 1/100 s (USER_HZ on Linux).
func processCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]) // the name may hold spaces
	if len(fields) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(fields))
	}
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %q %q", pid, fields[11], fields[12])
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond, nil
}
