package storage

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// The deal-conversion reports (GET /deals/conversion/funnel and
// /deals/conversion/step-deals), each one SQL statement over the deals,
// funnels, steps and the step history (docs/api.md, "Deal-conversion
// reports").

// RatePlaces is the number of decimal places of a conversion rate
// (0.6667): a basis point.
const RatePlaces = 4

// ConversionQuery selects the deals of a report: the deals that entered a
// funnel (their first step entry in it, a day in the company's time zone)
// in the period, of the funnel, the users and the teams given (each empty:
// any).
type ConversionQuery struct {
	FunnelID int64
	From, To time.Time // both zero: any day
	Users    []int64
	Teams    []int64
	// Limit bounds the deals listed per step (step-deals).
	Limit int
}

// FunnelConversion is one funnel of the funnel report.
type FunnelConversion struct {
	FunnelID int64
	Name     string
	// Deals is the deals of the report that entered the funnel; Open,
	// Won and Lost split them by status; WinRate is Won/Deals ("" when
	// Deals is 0), decimal text with RatePlaces places.
	Deals, Open, Won, Lost int64
	WinRate                string
	Steps                  []StepConversion
}

// StepConversion is one step of a funnel in the funnel report.
type StepConversion struct {
	StepID   int64
	Name     string
	Position int64
	// Reached: the deals that reached the step (entered it, or a step
	// further on); InStep: those whose current step it is. Rate is
	// Reached over the previous step's Reached ("" for the first step, or
	// when the previous step was reached by none).
	Reached, InStep int64
	Rate            string
}

// conversionCTE is the common head of both reports: $1 the company, $2
// the funnel (null: any), $3 and $4 the period (null: any), $5 the users
// and $6 the teams (empty: any). cohort holds, per funnel, each deal of the
// report with the highest position it reached there.
const conversionCTE = `WITH tz AS (SELECT time_zone FROM companies WHERE id = $1),
cohort AS (
	SELECT h.funnel_id, h.deal_id, max(s.position) AS top
	FROM deal_step_history h
	JOIN funnel_steps s ON s.company_id = h.company_id AND s.id = h.step_id
	JOIN deals d ON d.company_id = h.company_id AND d.id = h.deal_id
	WHERE h.company_id = $1 AND ($2::bigint IS NULL OR h.funnel_id = $2)
		AND (cardinality($5::bigint[]) = 0 OR d.user_id = any($5))
		AND (cardinality($6::bigint[]) = 0 OR d.team_id = any($6))
	GROUP BY h.funnel_id, h.deal_id
	HAVING $3::date IS NULL OR (min(h.entered_at) AT TIME ZONE (SELECT time_zone FROM tz))::date BETWEEN $3 AND $4
)`

// funnelReportSQL gives one row per step of the funnels: the funnel's
// totals beside the step's reach, current deals and rate.
const funnelReportSQL = conversionCTE + `,
steps AS (
	SELECT s.funnel_id, s.id, s.name, s.position,
		count(c.deal_id) AS reached,
		count(d.id) AS in_step
	FROM funnel_steps s
	LEFT JOIN cohort c ON c.funnel_id = s.funnel_id AND c.top >= s.position
	LEFT JOIN deals d ON d.company_id = s.company_id AND d.id = c.deal_id AND d.funnel_id = s.funnel_id AND d.step_id = s.id
	WHERE s.company_id = $1 AND ($2::bigint IS NULL OR s.funnel_id = $2)
	GROUP BY s.funnel_id, s.id, s.name, s.position
),
totals AS (
	SELECT c.funnel_id, count(*) AS deals,
		count(*) FILTER (WHERE d.status = 'open') AS open,
		count(*) FILTER (WHERE d.status = 'won') AS won,
		count(*) FILTER (WHERE d.status = 'lost') AS lost
	FROM cohort c JOIN deals d ON d.company_id = $1 AND d.id = c.deal_id
	GROUP BY c.funnel_id
)
SELECT f.id, f.name, coalesce(t.deals, 0), coalesce(t.open, 0), coalesce(t.won, 0), coalesce(t.lost, 0),
	coalesce(round(t.won::numeric / nullif(t.deals, 0), 4)::text, ''),
	st.id, st.name, st.position, st.reached, st.in_step,
	coalesce(round(st.reached::numeric / nullif(lag(st.reached) OVER (PARTITION BY f.id ORDER BY st.position, st.id), 0), 4)::text, '')
FROM funnels f
LEFT JOIN totals t ON t.funnel_id = f.id
LEFT JOIN steps st ON st.funnel_id = f.id
WHERE f.company_id = $1 AND ($2::bigint IS NULL OR f.id = $2)
ORDER BY f.id, st.position, st.id`

// FunnelReport is the funnel report: every funnel of the company (or the
// one asked for), its steps in order, each with its conversion rate.
func (s *Store) FunnelReport(ctx context.Context, companyID int64, q ConversionQuery) ([]FunnelConversion, error) {
	rows, err := s.reads.Query(ctx, funnelReportSQL, conversionArgs(companyID, q)...)
	if err != nil {
		return nil, translate(err, "funnel report")
	}
	out := []FunnelConversion{}
	var f FunnelConversion
	var step struct {
		id, position, reached, inStep *int64
		name, rate                    *string
	}
	_, err = pgx.ForEachRow(rows, []any{&f.FunnelID, &f.Name, &f.Deals, &f.Open, &f.Won, &f.Lost, &f.WinRate,
		&step.id, &step.name, &step.position, &step.reached, &step.inStep, &step.rate}, func() error {
		if len(out) == 0 || out[len(out)-1].FunnelID != f.FunnelID {
			f.Steps = []StepConversion{}
			out = append(out, f)
		}
		if step.id != nil {
			last := &out[len(out)-1]
			last.Steps = append(last.Steps, StepConversion{StepID: *step.id, Name: *step.name, Position: *step.position,
				Reached: *step.reached, InStep: *step.inStep, Rate: *step.rate})
		}
		return nil
	})
	if err != nil {
		return nil, translate(err, "funnel report")
	}
	return out, nil
}

// StepDeals is one step of a funnel in the step-deals report: the deals of
// the report whose current step it is (Count), the latest Limit of them
// by the day they entered it.
type StepDeals struct {
	FunnelID   int64
	FunnelName string
	StepID     int64
	Name       string
	Position   int64
	Count      int64
	Deals      []StepDeal
}

// StepDeal is a deal listed in its step.
type StepDeal struct {
	ID             int64
	Title          string
	Status         string
	UserID, TeamID *int64
	EnteredAt      time.Time // when it last entered the step
}

// stepDealsSQL gives one row per step (its deal columns null when it has
// none), then one per listed deal; $7 is the limit per step.
const stepDealsSQL = conversionCTE + `,
current AS (
	SELECT d.id, d.title, d.status, d.user_id, d.team_id, d.funnel_id, d.step_id,
		(SELECT max(h.entered_at) FROM deal_step_history h WHERE h.company_id = $1 AND h.deal_id = d.id AND h.step_id = d.step_id) AS entered_at
	FROM deals d JOIN cohort c ON c.deal_id = d.id AND c.funnel_id = d.funnel_id
	WHERE d.company_id = $1
),
ranked AS (
	SELECT cu.*, row_number() OVER (PARTITION BY cu.step_id ORDER BY cu.entered_at DESC, cu.id) AS n,
		count(*) OVER (PARTITION BY cu.step_id) AS total
	FROM current cu
)
SELECT f.id, f.name, s.id, s.name, s.position, coalesce(max(r.total) OVER (PARTITION BY s.id), 0),
	r.id, r.title, r.status, r.user_id, r.team_id, r.entered_at
FROM funnels f
JOIN funnel_steps s ON s.company_id = f.company_id AND s.funnel_id = f.id
LEFT JOIN ranked r ON r.step_id = s.id AND r.n <= $7
WHERE f.company_id = $1 AND ($2::bigint IS NULL OR f.id = $2)
ORDER BY f.id, s.position, s.id, r.n`

// StepDealsReport is the step-deals report: every step of the company's
// funnels (or of the one asked for), in order, with the deals in it.
func (s *Store) StepDealsReport(ctx context.Context, companyID int64, q ConversionQuery) ([]StepDeals, error) {
	rows, err := s.reads.Query(ctx, stepDealsSQL, append(conversionArgs(companyID, q), q.Limit)...)
	if err != nil {
		return nil, translate(err, "step-deals report")
	}
	out := []StepDeals{}
	var st StepDeals
	var d struct {
		id            *int64
		title, status *string
		user, team    *int64
		enteredAt     *time.Time
	}
	_, err = pgx.ForEachRow(rows, []any{&st.FunnelID, &st.FunnelName, &st.StepID, &st.Name, &st.Position, &st.Count,
		&d.id, &d.title, &d.status, &d.user, &d.team, &d.enteredAt}, func() error {
		if len(out) == 0 || out[len(out)-1].StepID != st.StepID {
			st.Deals = []StepDeal{}
			out = append(out, st)
		}
		if d.id != nil {
			last := &out[len(out)-1]
			deal := StepDeal{ID: *d.id, Title: *d.title, Status: *d.status, UserID: copyInt(d.user), TeamID: copyInt(d.team)}
			if d.enteredAt != nil {
				deal.EnteredAt = *d.enteredAt
			}
			last.Deals = append(last.Deals, deal)
		}
		return nil
	})
	if err != nil {
		return nil, translate(err, "step-deals report")
	}
	return out, nil
}

// conversionArgs are the report's parameters $1 to $6.
func conversionArgs(companyID int64, q ConversionQuery) []any {
	var funnel, from, to any
	if q.FunnelID != 0 {
		funnel = q.FunnelID
	}
	if !q.From.IsZero() {
		from, to = q.From, q.To
	}
	users, teams := q.Users, q.Teams
	if users == nil {
		users = []int64{}
	}
	if teams == nil {
		teams = []int64{}
	}
	return []any{companyID, funnel, from, to, users, teams}
}

// copyInt is a pointer to a copy of *p (nil for nil): a scan target's
// value outlives the next row.
func copyInt(p *int64) *int64 {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
