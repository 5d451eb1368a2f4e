//go:build unix

package pgcluster

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkThrowaway measures a test run's fixed cost: initdb, start, stop
// and removal of a throwaway cluster, on disk (the temporary directory) and
// in memory (/dev/shm).
func BenchmarkThrowaway(b *testing.B) {
	for _, bb := range []struct{ name, parent string }{
		{"disk", os.TempDir()},
		{"tmpfs", "/dev/shm"},
	} {
		b.Run(bb.name, func(b *testing.B) {
			if _, err := os.Stat(bb.parent); err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			for b.Loop() {
				dir, err := os.MkdirTemp(bb.parent, "pgcluster-bench-")
				if err != nil {
					b.Fatal(err)
				}
				c, err := Start(ctx, Options{DataDir: dir, Throwaway: true})
				if err != nil {
					b.Fatal(err)
				}
				if err := c.Stop(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRestart measures starting and stopping an existing cluster, as
// propfin dev does on a kept data directory.
func BenchmarkRestart(b *testing.B) {
	dir, err := os.MkdirTemp("", "pgcluster-bench-")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	opts := Options{DataDir: filepath.Join(dir, "data")}
	ctx := context.Background()
	c, err := Start(ctx, opts) // initdb, outside the timing
	if err != nil {
		b.Fatal(err)
	}
	if err := c.Stop(ctx); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		c, err := Start(ctx, opts)
		if err != nil {
			b.Fatal(err)
		}
		if err := c.Stop(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
