package storage

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
)

// Write rules of the supporting resources (docs/api.md "Extension
// resources"), run as before hooks in the write's transaction.

// refusePlanCycle refuses an update whose parent_id is the plan itself or
// a plan below it: walking up from the new parent must not meet the plan.
// The company's plan-tree changes are serialised by a transaction-scoped
// advisory lock, taken before the walk, so that two concurrent updates
// (A under B, B under A) cannot each miss the other's change.
func refusePlanCycle(ctx context.Context, tx pgx.Tx, c *Change) error {
	parent, given := c.New.Values["parent_id"]
	if c.Op != OpUpdate || !given || parent == nil {
		return nil
	}
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('propfin:plans', $1))`, c.Scope.CompanyID); err != nil {
		return fmt.Errorf("lock the plan tree: %w", err)
	}
	var cycle bool
	err := tx.QueryRow(ctx, `WITH RECURSIVE up(id, parent_id) AS (
			SELECT id, parent_id FROM plans WHERE company_id = $1 AND id = $2
			UNION
			SELECT p.id, p.parent_id FROM plans p JOIN up ON p.id = up.parent_id WHERE p.company_id = $1)
		SELECT EXISTS (SELECT 1 FROM up WHERE id = $3)`, c.Scope.CompanyID, parent, c.ID).Scan(&cycle)
	if err != nil {
		return fmt.Errorf("walk up from plan %v: %w", parent, err)
	}
	if cycle {
		return finance.InvalidInput([]finance.Problem{{Field: "parent_id", Message: "cannot be the plan itself or a plan below it"}})
	}
	return nil
}

// limitOwnerShares refuses a create, or an update of percentage, that
// would bring a building's owners past 100 in all. It locks the building
// row first (FOR NO KEY UPDATE: it serialises the owner writes of one
// building without blocking foreign-key checks against the building), so
// two concurrent writes cannot each count the other out.
func limitOwnerShares(ctx context.Context, tx pgx.Tx, c *Change) error {
	share, given := c.New.Values["percentage"]
	if c.Op == OpDelete || c.Op == OpUpdate && !given {
		return nil
	}
	building, ok := ownersBuilding(c)
	if !ok {
		return nil // no building: the write fails on its NOT NULL
	}
	if _, err := tx.Exec(ctx, `SELECT 1 FROM buildings WHERE company_id = $1 AND id = $2 FOR NO KEY UPDATE`,
		c.Scope.CompanyID, building); err != nil {
		return fmt.Errorf("lock building %d: %w", building, err)
	}
	var others, left string
	var fits bool
	err := tx.QueryRow(ctx, `SELECT s::text, (100 - s)::text, s + coalesce($4::numeric, 0) <= 100
		FROM (SELECT coalesce(sum(percentage), 0) AS s FROM building_owners
			WHERE company_id = $1 AND building_id = $2 AND id <> $3) AS t`,
		c.Scope.CompanyID, building, c.ID, share).Scan(&others, &left, &fits)
	if err != nil {
		return fmt.Errorf("sum the shares of building %d: %w", building, err)
	}
	if !fits {
		msg := fmt.Sprintf("would bring the owners' shares past 100: the other owners hold %s, so at most %s is left", others, left)
		return finance.InvalidInput([]finance.Problem{{Field: "percentage", Message: msg}})
	}
	return nil
}

// ownersBuilding is the building of an owner write: the path's, else the
// row's.
func ownersBuilding(c *Change) (int64, bool) {
	if c.Scope.Parent != 0 {
		return c.Scope.Parent, true
	}
	id, ok := c.Value("building_id").(int64)
	return id, ok
}
