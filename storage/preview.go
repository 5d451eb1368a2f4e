package storage

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
)

// A preview is its run rolled back: the operations that answer what they
// would write (a refund, a write-off, a termination, a readjustment, an
// agreement) run the same code in a transaction of runOrPreview, which
// commits it, or, for a preview, rolls it back with all it wrote, its
// events included.

// errPreview rolls a preview's transaction back.
var errPreview = errors.New("preview: roll back")

// runOrPreview runs run in one transaction of db (a pool, or a
// transaction: a savepoint of it), committed when run succeeds unless
// preview, rolled back otherwise. A preview that succeeds answers nil.
func runOrPreview(ctx context.Context, db Beginner, preview bool, run func(tx pgx.Tx) error) error {
	err := pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		if err := run(tx); err != nil {
			return err
		}
		if preview {
			return errPreview
		}
		return nil
	})
	if errors.Is(err, errPreview) {
		return nil
	}
	return err
}
