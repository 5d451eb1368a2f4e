//go:build unix

package pgcluster

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// dirInfo is a directory's fs.FileInfo with the ownership canSearch reads.
type dirInfo struct {
	mode     fs.FileMode
	uid, gid uint32
}

func (d dirInfo) Name() string       { return "d" }
func (d dirInfo) Size() int64        { return 0 }
func (d dirInfo) Mode() fs.FileMode  { return fs.ModeDir | d.mode }
func (d dirInfo) ModTime() time.Time { return time.Time{} }
func (d dirInfo) IsDir() bool        { return true }
func (d dirInfo) Sys() any           { return &syscall.Stat_t{Uid: d.uid, Gid: d.gid} }

func TestCanSearch(t *testing.T) {
	t.Parallel()
	pg := account{name: "postgres", uid: 101, gid: 104, groups: []uint32{104, 110}}
	tests := []struct {
		name string
		info dirInfo
		want bool
	}{
		{"root's private home", dirInfo{0o700, 0, 0}, false},
		{"world-searchable", dirInfo{0o711, 0, 0}, true},
		{"sticky temp dir", dirInfo{0o1777, 0, 0}, true},
		{"own directory", dirInfo{0o700, 101, 0}, true},
		{"own directory without x", dirInfo{0o600, 101, 0}, false},
		{"primary group", dirInfo{0o750, 0, 104}, true},
		{"supplementary group", dirInfo{0o750, 0, 110}, true},
		{"group without x", dirInfo{0o740, 0, 104}, false},
		{"owner bits do not apply to others", dirInfo{0o700, 5, 5}, false},
	}
	for _, tt := range tests {
		if got := pg.canSearch(tt.info); got != tt.want {
			t.Errorf("%s: canSearch = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestLookupAccountMissingUser(t *testing.T) {
	t.Parallel()
	_, err := lookupAccount("propfin-no-such-user")
	if err == nil {
		t.Fatal("no error for a missing user")
	}
	for _, want := range []string{`"propfin-no-such-user" system user`, "refuses to run as root", "was not found"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

func TestMkdirAllCreated(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := filepath.Join(root, "a", "b", "c")
	if err := os.Mkdir(filepath.Join(root, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	created, err := mkdirAllCreated(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(root, "a", "b"), dir}
	if strings.Join(created, ",") != strings.Join(want, ",") {
		t.Errorf("created %v, want %v", created, want)
	}
	if again, err := mkdirAllCreated(dir); err != nil || len(again) != 0 {
		t.Errorf("second call created %v, %v; want nothing", again, err)
	}
}

func ownerOf(t *testing.T, path string) uint32 {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return info.Sys().(*syscall.Stat_t).Uid
}
