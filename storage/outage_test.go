package storage_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// TestConnectionFailuresAreUnavailable: when the database cannot be
// reached, storage answers Unavailable (503, retry later), not Internal.
func TestConnectionFailuresAreUnavailable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	closed, err := pgxpool.New(ctx, storagetest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	closed.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	nobody := ln.Addr().String()
	ln.Close()
	refused, err := pgxpool.New(ctx, "postgres://propfin@"+nobody+"/propfin?connect_timeout=2&sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	defer refused.Close()
	reg := storage.DefaultRegistry()
	res := reg.MustResource(storage.BuildingTypes)
	for name, pool := range map[string]*pgxpool.Pool{"closed pool": closed, "connection refused": refused} {
		t.Run(name, func(t *testing.T) {
			store := storage.NewStore(pool, reg)
			_, getErr := store.Get(ctx, res, storage.Company(1), 1, storage.GetQuery{})
			_, lookupErr := storage.LookupAPIKey(ctx, pool, "pf_1_"+strings.Repeat("0", 64))
			for _, err := range []error{getErr, lookupErr} {
				var coded *finance.Error
				if !errors.As(err, &coded) || coded.Code != finance.Unavailable || strings.Contains(coded.Message, "127.0.0.1") {
					t.Errorf("%v, want unavailable with a safe message", err)
				}
			}
		})
	}
}
