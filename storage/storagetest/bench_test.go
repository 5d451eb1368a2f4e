package storagetest

import (
	"context"
	"testing"
)

// BenchmarkCloneAndDrop measures what each test pays: cloning the migrated
// template into a new database and dropping it.
func BenchmarkCloneAndDrop(b *testing.B) {
	s, err := shared.prepare()
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for b.Loop() {
		name, err := s.createDatabase(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if err := s.dropDatabase(ctx, name); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkClone measures the clone alone; the databases are dropped after
// the timing.
func BenchmarkClone(b *testing.B) {
	s, err := shared.prepare()
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var names []string
	for b.Loop() {
		name, err := s.createDatabase(ctx)
		if err != nil {
			b.Fatal(err)
		}
		names = append(names, name)
	}
	b.StopTimer()
	for _, name := range names {
		if err := s.dropDatabase(ctx, name); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSetup measures what the first NewDB of a test binary costs:
// start a throwaway cluster, then create and migrate the template.
func BenchmarkSetup(b *testing.B) {
	for b.Loop() {
		e := &env{getenv: func(string) string { return "" }, findBinaries: shared.findBinaries, migrate: shared.migrate}
		s, err := e.prepare()
		if err != nil {
			b.Fatal(err)
		}
		s.admin.Close(context.Background())
		if err := s.cluster.Stop(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}
