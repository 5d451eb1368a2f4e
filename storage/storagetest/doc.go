// Package storagetest gives each test a PostgreSQL database of its own,
// migrated and empty: a clone of a template migrated once per test binary.
//
// The first call in a test binary prepares a server: a throwaway cluster
// started with the machine's PostgreSQL server programs (package pgcluster)
// in a temporary directory, or the server named by TEST_DATABASE_URL when it
// is set. On it, a template database is created and migrated once with
// storage.Migrate; every test then gets a clone of it (CREATE DATABASE ...
// TEMPLATE), dropped when the test ends. Tests calling NewDB may run with
// t.Parallel.
//
// When there is neither TEST_DATABASE_URL nor a PostgreSQL installation,
// the tests fail with a message saying what to install; they never skip.
//
// The throwaway cluster is removed when the test binary ends, however it
// ends, so no TestMain is needed. On a TEST_DATABASE_URL server, each test's
// database is dropped when the test ends, and the template, together with
// anything left by a test binary that crashed, is dropped by the next run.
//
// The package imports storage, so tests of package storage that use it must
// be external tests (package storage_test).
package storagetest
