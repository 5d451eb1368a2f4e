// Package pgcluster runs a local PostgreSQL cluster with the server programs
// installed on the machine (initdb, pg_ctl, postgres): no container, no
// service manager.
//
// Start initialises a data directory the first time (UTF8, locale C, trust
// authentication for loopback connections, superuser [Superuser]) and starts
// the server listening on 127.0.0.1 only, with the Unix-domain socket
// disabled. When a server is already running on that data directory, Start
// attaches to it instead, and Stop leaves it running for its owner.
//
// A throwaway cluster (Options.Throwaway) trades durability for speed and
// deletes itself: its data directory is removed by Stop or, when the process
// ends without calling Stop (a crash, a killed test binary), right after it
// ends, by a small watchdog process that waits on a pipe held by this one.
//
// PostgreSQL refuses to run as root. When the process runs as root, the
// server programs run as the unprivileged "postgres" system account, and the
// data directory is given to it.
package pgcluster
