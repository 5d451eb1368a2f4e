package storagetest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// StatementTimes adds up, statement by statement, how long the database
// work of a run took as the client saw it: from sending a statement to
// reading the last of its rows (so a query's time includes scanning its
// rows in Go), and each COPY from start to end. A statement is known by
// its first words. Set it as a pool's tracer (TimedDB) to see where a
// job's time goes without pg_stat_statements.
type StatementTimes struct {
	mu    sync.Mutex
	times map[string]*StatementTime
}

// StatementTime is one statement's count of runs and their total time.
type StatementTime struct {
	Statement string
	Runs      int
	Total     time.Duration
}

type traceStart struct {
	statement string
	at        time.Time
}

type traceKey struct{}

// TimedDB returns a pool on the test's own database (NewDB's) whose
// statements are timed in times. The pool is closed when the test ends.
func TimedDB(t testing.TB, times *StatementTimes) *pgxpool.Pool {
	t.Helper()
	NewDB(t)
	cfg, err := pgxpool.ParseConfig(URL(t))
	if err != nil {
		t.Fatalf("storagetest: timed pool: %v", err)
	}
	cfg.ConnConfig.Tracer = times
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatalf("storagetest: timed pool: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// TraceQueryStart implements pgx.QueryTracer.
func (s *StatementTimes) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	return context.WithValue(ctx, traceKey{}, traceStart{statement: statementName(d.SQL), at: time.Now()})
}

// TraceQueryEnd implements pgx.QueryTracer.
func (s *StatementTimes) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryEndData) {
	s.end(ctx)
}

// TraceCopyFromStart implements pgx.CopyFromTracer.
func (s *StatementTimes) TraceCopyFromStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceCopyFromStartData) context.Context {
	return context.WithValue(ctx, traceKey{}, traceStart{statement: "COPY " + d.TableName.Sanitize(), at: time.Now()})
}

// TraceCopyFromEnd implements pgx.CopyFromTracer.
func (s *StatementTimes) TraceCopyFromEnd(ctx context.Context, _ *pgx.Conn, _ pgx.TraceCopyFromEndData) {
	s.end(ctx)
}

func (s *StatementTimes) end(ctx context.Context) {
	st, ok := ctx.Value(traceKey{}).(traceStart)
	if !ok {
		return
	}
	took := time.Since(st.at)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.times == nil {
		s.times = map[string]*StatementTime{}
	}
	t := s.times[st.statement]
	if t == nil {
		t = &StatementTime{Statement: st.statement}
		s.times[st.statement] = t
	}
	t.Runs++
	t.Total += took
}

// Reset forgets the times taken so far.
func (s *StatementTimes) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.times = nil
}

// Times lists the statements timed, the longest total first.
func (s *StatementTimes) Times() []StatementTime {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]StatementTime, 0, len(s.times))
	for _, t := range s.times {
		out = append(out, *t)
	}
	slices.SortFunc(out, func(a, b StatementTime) int { return int(b.Total - a.Total) })
	return out
}

// Report is Times as a table for a log: total, runs and the statement,
// then the sum.
func (s *StatementTimes) Report() string {
	var b strings.Builder
	var sum time.Duration
	for _, t := range s.Times() {
		fmt.Fprintf(&b, "%9.3f s %6d  %s\n", t.Total.Seconds(), t.Runs, t.Statement)
		sum += t.Total
	}
	fmt.Fprintf(&b, "%9.3f s in all", sum.Seconds())
	return b.String()
}

// statementName is a statement's first words, spaces collapsed: enough
// to tell the statements of a run apart.
func statementName(sql string) string {
	name := strings.Join(strings.Fields(sql), " ")
	if len(name) > 90 {
		name = name[:90]
	}
	return name
}
