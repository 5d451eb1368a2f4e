package pgcluster

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeInstall creates dir holding the given programs as executable files.
func fakeInstall(t *testing.T, dir string, programs ...string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range programs {
		if err := os.WriteFile(filepath.Join(dir, p), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func TestFindBinaries(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	at := func(p string) string { return filepath.Join(root, p) }
	all := serverPrograms

	fakeInstall(t, at("path-full"), all...)
	fakeInstall(t, at("path-partial"), "initdb", "pg_ctl") // no postgres
	fakeInstall(t, at("debian/9.6/bin"), all...)
	fakeInstall(t, at("debian/10/bin"), all...)
	fakeInstall(t, at("debian/15/bin"), all...)
	fakeInstall(t, at("debian/16/bin"), "initdb") // client-only leftovers of a newer version
	fakeInstall(t, at("source/bin"), all...)
	fakeInstall(t, at("noexec/bin"), all...)
	if err := os.Chmod(at("noexec/bin/postgres"), 0o644); err != nil {
		t.Fatal(err)
	}
	paths := func(dirs ...string) string {
		for i, d := range dirs {
			dirs[i] = at(d)
		}
		return strings.Join(dirs, string(os.PathListSeparator))
	}

	tests := []struct {
		name      string
		path      string
		locations []string
		want      string
	}{
		{"first complete PATH folder", paths("nowhere", "path-partial", "path-full"), []string{at("debian/*/bin")}, "path-full"},
		{"PATH before known locations", paths("path-full"), []string{at("source/bin")}, "path-full"},
		{"highest complete version", paths("path-partial"), []string{at("debian/*/bin")}, "debian/15/bin"},
		{"locations in order", "", []string{at("missing/*/bin"), at("source/bin"), at("debian/*/bin")}, "source/bin"},
		{"skips files that are not executable", "", []string{at("noexec/bin"), at("source/bin")}, "source/bin"},
		{"empty PATH entries ignored", string(os.PathListSeparator) + at("path-full"), nil, "path-full"},
		{"relative PATH entries ignored", relative(t, at("path-full")) + string(os.PathListSeparator) + at("source/bin"), nil, "source/bin"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := findBinaries(tt.path, tt.locations)
			if err != nil {
				t.Fatal(err)
			}
			if want := at(tt.want); got != want {
				t.Errorf("got %s, want %s", got, want)
			}
		})
	}
}

// relative returns path relative to the working directory.
func relative(t *testing.T, path string) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(wd, path)
	if err != nil {
		t.Fatal(err)
	}
	return rel
}

func TestFindBinariesSaysWhatToInstall(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	fakeInstall(t, filepath.Join(root, "bin"), "initdb", "pg_ctl") // a client-only install
	locations := []string{filepath.Join(root, "lib/*/bin"), filepath.Join(root, "local/bin")}

	_, err := findBinaries(filepath.Join(root, "bin"), locations)
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
	for _, want := range []string{
		"initdb, pg_ctl, postgres",
		"on PATH",
		locations[0], locations[1],
		"apt-get install postgresql",
		"brew install postgresql@15",
		"dnf install postgresql-server",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

func TestCompareVersions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		want int
	}{
		{"/usr/lib/postgresql/9.6/bin", "/usr/lib/postgresql/10/bin", -1},
		{"/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/10/bin", 1},
		{"/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/15/bin", 0},
		{"/usr/pgsql-16/bin", "/usr/pgsql-9/bin", 1},
		{"/opt/homebrew/opt/postgresql@14/bin", "/opt/homebrew/opt/postgresql@17/bin", -1},
		{"a", "ab", -1},
		{"a99999999999999999999999", "a1", 1}, // too long for an int: compared as text
	}
	for _, tt := range tests {
		if got := compareVersions(tt.a, tt.b); got != tt.want {
			t.Errorf("compareVersions(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
