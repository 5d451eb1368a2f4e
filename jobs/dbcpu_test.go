package jobs

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"
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

// ownCPU is the CPU time this process has used so far (every goroutine:
// submitters, relay, worker, asynq's processor), read from /proc.
func ownCPU() (time.Duration, bool) {
	d, err := processCPU(os.Getpid())
	return d, err == nil
}

// redisCPU is the CPU time the Redis server at opt has used so far, from
// its INFO (used_cpu_user plus used_cpu_sys).
func redisCPU(ctx context.Context, opt asynq.RedisClientOpt) (time.Duration, bool) {
	c := redis.NewClient(&redis.Options{Addr: opt.Addr, DB: opt.DB})
	defer c.Close()
	info, err := c.Info(ctx, "cpu").Result()
	if err != nil {
		return 0, false
	}
	var total float64
	for _, line := range strings.Split(info, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if ok && (k == "used_cpu_user" || k == "used_cpu_sys") {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return 0, false
			}
			total += f
		}
	}
	return time.Duration(total * float64(time.Second)), true
}

// cpuMeter reports, per job, the CPU time of this process and of Redis
// over a benchmark's run, beside the database's (dbcpu-ms/job).
type cpuMeter struct {
	opt          asynq.RedisClientOpt
	proc, redis  time.Duration
	procOK, rdOK bool
}

func startCPU(ctx context.Context, opt asynq.RedisClientOpt) *cpuMeter {
	m := &cpuMeter{opt: opt}
	m.proc, m.procOK = ownCPU()
	m.redis, m.rdOK = redisCPU(ctx, opt)
	return m
}

func (m *cpuMeter) report(ctx context.Context, b *testing.B) {
	if p, ok := ownCPU(); ok && m.procOK {
		b.ReportMetric(float64(p-m.proc)/float64(time.Millisecond)/float64(b.N), "proc-cpu-ms/job")
	}
	if r, ok := redisCPU(ctx, m.opt); ok && m.rdOK {
		b.ReportMetric(float64(r-m.redis)/float64(time.Millisecond)/float64(b.N), "redis-cpu-ms/job")
	}
}
