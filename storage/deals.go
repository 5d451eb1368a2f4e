package storage

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
)

// Deals (negotiations) with their sales funnels and steps, and the step
// history the deal-conversion reports read (deals_reports.go); docs/api.md,
// "Deals, funnels and steps".

// Resource names of the deals.
const (
	Deals           = "deals"
	Funnels         = "funnels"
	FunnelSteps     = "funnel_steps"
	DealStepHistory = "deal_step_history"
)

// DealStatuses are a deal's statuses.
var DealStatuses = []string{"open", "won", "lost"}

// funnelsResource is /funnels.
func funnelsResource() *Resource {
	return &Resource{
		Name: Funnels, Table: "funnels", CustomFields: true,
		Columns: columns([]Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "name", Type: String, Filterable: true, Writable: true, Required: true},
		}, timestampColumns()),
		Relations: []Relation{
			{Name: "steps", Kind: HasMany, Resource: FunnelSteps, Key: "funnel_id", Order: `"position"`},
			{Name: "deals", Kind: HasMany, Resource: Deals, Key: "funnel_id"},
		},
	}
}

// funnelStepsResource is /funnels/{funnel}/steps.
func funnelStepsResource() *Resource {
	var k contractColumnKit
	return &Resource{
		Name: FunnelSteps, Table: "funnel_steps",
		Parent: &Parent{Resource: Funnels, Key: "funnel_id"},
		Columns: columns([]Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "funnel_id", Type: Int, Filterable: true},
			required(k.w("name", String)),
			required(k.between("position", 1, 1<<31-1)),
		}, timestampColumns()),
		Relations: []Relation{
			{Name: "funnel", Kind: BelongsTo, Resource: Funnels, Key: "funnel_id"},
			{Name: "deals", Kind: HasMany, Resource: Deals, Key: "step_id"},
		},
	}
}

// dealsResource is /deals.
func dealsResource() *Resource {
	var k contractColumnKit
	status := k.enum("status", DealStatuses...)
	status.NotNull = true // open unless given
	return &Resource{
		Name: Deals, Table: "deals", CustomFields: true,
		Columns: columns([]Column{
			{Name: "id", Type: Int, Filterable: true},
			required(k.w("title", String)),
			required(k.ref("funnel_id", Funnels)),
			required(k.ref("step_id", FunnelSteps)),
			k.ref("user_id", Users),
			k.ref("person_id", Persons),
			k.ref("building_id", Buildings),
			k.ref("team_id", Teams),
			status,
		}, timestampColumns()),
		Relations: []Relation{
			{Name: "funnel", Kind: BelongsTo, Resource: Funnels, Key: "funnel_id"},
			{Name: "step", Kind: BelongsTo, Resource: FunnelSteps, Key: "step_id"},
			{Name: "user", Kind: BelongsTo, Resource: Users, Key: "user_id"},
			{Name: "person", Kind: BelongsTo, Resource: Persons, Key: "person_id"},
			{Name: "building", Kind: BelongsTo, Resource: Buildings, Key: "building_id"},
			{Name: "team", Kind: BelongsTo, Resource: Teams, Key: "team_id"},
			{Name: "events", Kind: HasMany, Resource: Events, Key: "deal_id"},
			{Name: "history", Kind: HasMany, Resource: DealStepHistory, Key: "deal_id", Order: `"entered_at"`},
		},
		Filters: []SpecialFilter{
			ColumnIn("funnelIn", "funnel_id", Int),
			ColumnIn("stepIn", "step_id", Int),
			EnumIn("statusIn", "status", DealStatuses),
			ColumnIn("userIn", "user_id", Int),
			ColumnIn("teamIn", "team_id", Int),
		},
		Hooks: Hooks{Before: []Hook{stepOfFunnel}, After: []Hook{recordDealStep}},
	}
}

// dealStepHistoryResource is the read side of a deal's step history
// (include[history]): written only by the deals' hook.
func dealStepHistoryResource() *Resource {
	return &Resource{
		Name: DealStepHistory, Table: "deal_step_history", ReadOnly: true,
		Columns: []Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "deal_id", Type: Int, Filterable: true},
			{Name: "funnel_id", Type: Int, Filterable: true},
			{Name: "step_id", Type: Int, Filterable: true},
			{Name: "entered_at", Type: DateTime, Filterable: true},
		},
	}
}

// stepOfFunnel refuses a deal whose step, as it is after the write, is not
// a step of its funnel after the write (422 naming step_id): a new step
// of another funnel, or a new funnel without a step of its own. The
// composite foreign key is the backstop.
func stepOfFunnel(ctx context.Context, tx pgx.Tx, c *Change) error {
	if c.Op == OpDelete || !c.Given("funnel_id") && !c.Given("step_id") {
		return nil
	}
	funnel, _ := asInt64(c.Value("funnel_id"))
	step, _ := asInt64(c.Value("step_id"))
	if step == 0 || funnel == 0 {
		return nil // required on create; null is refused by the body's checks
	}
	var ok bool
	err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM funnel_steps WHERE company_id = $1 AND id = $2 AND funnel_id = $3)`,
		c.Scope.CompanyID, step, funnel).Scan(&ok)
	if err != nil {
		return fmt.Errorf("check step %d of funnel %d: %w", step, funnel, err)
	}
	if !ok {
		return finance.InvalidInput([]finance.Problem{{Field: "step_id", Message: fmt.Sprintf("step %d is not a step of funnel %d", step, funnel)}})
	}
	return nil
}

// recordDealStep writes when a deal entered its step: on create, and on
// an update that moves it to another step or funnel.
func recordDealStep(ctx context.Context, tx pgx.Tx, c *Change) error {
	if c.Op == OpDelete || c.Op == OpUpdate && !c.Changed("step_id") && !c.Changed("funnel_id") {
		return nil
	}
	funnel, _ := asInt64(c.Value("funnel_id"))
	step, _ := asInt64(c.Value("step_id"))
	if funnel == 0 || step == 0 {
		return nil
	}
	_, err := tx.Exec(ctx, `INSERT INTO deal_step_history (company_id, deal_id, funnel_id, step_id) VALUES ($1, $2, $3, $4)`,
		c.Scope.CompanyID, c.ID, funnel, step)
	if err != nil {
		return fmt.Errorf("record step %d of deal %d: %w", step, c.ID, err)
	}
	return nil
}
