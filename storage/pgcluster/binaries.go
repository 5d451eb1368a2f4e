package pgcluster

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// ErrNotFound is wrapped by the error FindBinaries returns when no folder
// holds the PostgreSQL server programs.
var ErrNotFound = errors.New("PostgreSQL server programs not found")

// serverPrograms are the programs a cluster needs, all in one folder.
var serverPrograms = []string{"initdb", "pg_ctl", "postgres"}

// knownLocations are the folders where packages install the server programs
// without putting them on PATH, in order of preference. A "*" stands for a
// major version; among the matches of one pattern the highest version wins.
var knownLocations = []string{
	"/usr/lib/postgresql/*/bin",                               // Debian, Ubuntu (apt-get install postgresql)
	"/usr/pgsql-*/bin",                                        // RHEL, Rocky, Fedora with the PGDG packages
	"/usr/local/pgsql/bin",                                    // built from source with the default prefix
	"/opt/homebrew/opt/postgresql@*/bin",                      // Homebrew on Apple silicon (versioned formulas are keg-only)
	"/opt/homebrew/opt/postgresql/bin",                        // Homebrew on Apple silicon
	"/usr/local/opt/postgresql@*/bin",                         // Homebrew on Intel macOS
	"/usr/local/opt/postgresql/bin",                           // Homebrew on Intel macOS
	"/Applications/Postgres.app/Contents/Versions/latest/bin", // Postgres.app
}

// installAdvice says what to install, for the error of FindBinaries.
const installAdvice = "install the PostgreSQL server " +
	"(Debian/Ubuntu: apt-get install postgresql; " +
	"Fedora/RHEL: dnf install postgresql-server; " +
	"macOS: brew install postgresql@15) " +
	"or put the folder holding initdb, pg_ctl and postgres on PATH"

// FindBinaries returns the folder holding initdb, pg_ctl and postgres: the
// first folder of PATH holding all three, else the highest version among the
// folders where the usual packages install them (Debian's
// /usr/lib/postgresql/<N>/bin, the PGDG /usr/pgsql-<N>/bin,
// /usr/local/pgsql/bin, Homebrew, Postgres.app). When there is none, the
// error wraps ErrNotFound and says what to install.
func FindBinaries() (dir string, err error) {
	return findBinaries(os.Getenv("PATH"), knownLocations)
}

func findBinaries(pathList string, locations []string) (string, error) {
	for _, dir := range filepath.SplitList(pathList) {
		// Relative entries ("." and the like) are skipped, as exec.LookPath does.
		if filepath.IsAbs(dir) && holdsServerPrograms(dir) {
			return dir, nil
		}
	}
	for _, pattern := range locations {
		matches, err := filepath.Glob(pattern)
		if err != nil {
			return "", fmt.Errorf("search %s: %w", pattern, err)
		}
		slices.SortFunc(matches, func(a, b string) int { return compareVersions(b, a) })
		for _, dir := range matches {
			if holdsServerPrograms(dir) {
				return dir, nil
			}
		}
	}
	return "", fmt.Errorf("%w (%s) on PATH or in %s: %s",
		ErrNotFound, strings.Join(serverPrograms, ", "), strings.Join(locations, ", "), installAdvice)
}

// holdsServerPrograms reports whether dir holds every server program as an
// executable file (following symbolic links).
func holdsServerPrograms(dir string) bool {
	for _, name := range serverPrograms {
		info, err := os.Stat(filepath.Join(dir, name))
		if err != nil || !info.Mode().IsRegular() || info.Mode().Perm()&0o111 == 0 {
			return false
		}
	}
	return true
}

// compareVersions compares two paths the way people read versions: runs of
// digits compare as numbers, so ".../9.6/bin" < ".../10/bin" < ".../15/bin".
func compareVersions(a, b string) int {
	for a != "" && b != "" {
		na, restA := leadingNumber(a)
		nb, restB := leadingNumber(b)
		switch {
		case na >= 0 && nb >= 0:
			if na != nb {
				return cmp.Compare(na, nb)
			}
			a, b = restA, restB
		case a[0] != b[0]:
			return cmp.Compare(int(a[0]), int(b[0]))
		default:
			a, b = a[1:], b[1:]
		}
	}
	return cmp.Compare(len(a), len(b))
}

// leadingNumber parses the digits s starts with; -1 when it starts with none
// (or with more digits than an int holds).
func leadingNumber(s string) (int, string) {
	end := 0
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	n, err := strconv.Atoi(s[:end])
	if end == 0 || err != nil {
		return -1, s
	}
	return n, s[end:]
}
