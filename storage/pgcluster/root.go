//go:build unix

package pgcluster

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
)

// serverUserName is the system account the server programs run as when this
// process runs as root: initdb and postgres refuse to run as root, and the
// PostgreSQL packages of every distribution create this account.
const serverUserName = "postgres"

// account is the operating-system account the server programs run as. The
// zero value is the account of this process.
type account struct {
	name   string // "" for this process's account
	home   string
	uid    uint32
	gid    uint32
	groups []uint32
}

// serverAccount returns the account to run the server programs as: this
// process's own, or the postgres system account when this process is root.
func serverAccount() (account, error) {
	if os.Geteuid() != 0 {
		return account{}, nil
	}
	return lookupAccount(serverUserName)
}

// lookupAccount returns the system account name.
func lookupAccount(name string) (account, error) {
	u, err := user.Lookup(name)
	if err != nil {
		return account{}, fmt.Errorf("running as root, and PostgreSQL refuses to run as root: its programs run as the %q system user, which was not found (%w); create it (installing the postgresql package does) or run as an ordinary user", name, err)
	}
	acct := account{name: u.Username, home: u.HomeDir}
	if acct.uid, err = parseID(u.Uid); err != nil {
		return account{}, err
	}
	if acct.gid, err = parseID(u.Gid); err != nil {
		return account{}, err
	}
	groupIDs, err := u.GroupIds()
	if err != nil {
		return account{}, fmt.Errorf("groups of user %s: %w", u.Username, err)
	}
	for _, g := range groupIDs {
		id, err := parseID(g)
		if err != nil {
			return account{}, err
		}
		acct.groups = append(acct.groups, id)
	}
	return acct, nil
}

func parseID(s string) (uint32, error) {
	id, err := strconv.ParseUint(s, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("user or group id %q: %w", s, err)
	}
	return uint32(id), nil
}

// apply makes cmd run as the account.
func (a account) apply(cmd *exec.Cmd) {
	if a.name == "" {
		return
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Credential = &syscall.Credential{Uid: a.uid, Gid: a.gid, Groups: a.groups}
	cmd.Env = append(cmd.Env, "HOME="+a.home, "USER="+a.name, "LOGNAME="+a.name)
}

// prepareDataDir creates dir when missing and, for another account, gives it
// the directories it creates (and dir itself while it is empty), then checks
// that the account can reach dir through every parent directory.
func (a account) prepareDataDir(dir string) error {
	created, err := mkdirAllCreated(dir)
	if err != nil {
		return err
	}
	if a.name == "" {
		return nil
	}
	if empty, err := isEmptyDir(dir); err != nil {
		return err
	} else if empty && !slices.Contains(created, dir) {
		created = append(created, dir)
	}
	for _, d := range created {
		if err := os.Chown(d, int(a.uid), int(a.gid)); err != nil {
			return fmt.Errorf("give %s to user %s: %w", d, a.name, err)
		}
	}
	for parent := filepath.Dir(dir); ; parent = filepath.Dir(parent) {
		info, err := os.Stat(parent)
		if err != nil {
			return err
		}
		if !a.canSearch(info) {
			return fmt.Errorf("PostgreSQL runs as user %s (this process is root), which cannot enter %s (mode %s): choose a data directory that user can reach, or let it in (chmod o+x %s)", a.name, parent, info.Mode().Perm(), parent)
		}
		if parent == filepath.Dir(parent) {
			return nil
		}
	}
}

// canSearch reports whether the account may enter the directory described by info.
func (a account) canSearch(info fs.FileInfo) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return true // no ownership information: let the server report it
	}
	perm := info.Mode().Perm()
	switch {
	case st.Uid == a.uid:
		return perm&0o100 != 0
	case st.Gid == a.gid || slices.Contains(a.groups, st.Gid):
		return perm&0o010 != 0
	default:
		return perm&0o001 != 0
	}
}

// mkdirAllCreated is os.MkdirAll(dir, 0o700) returning the directories it
// created, outermost first.
func mkdirAllCreated(dir string) ([]string, error) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		_, err := os.Stat(d)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		missing = append(missing, d)
		if d == filepath.Dir(d) {
			break
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	slices.Reverse(missing)
	return missing, nil
}

func isEmptyDir(dir string) (bool, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false, err
	}
	return len(entries) == 0, nil
}
