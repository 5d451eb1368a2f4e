package jobs

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/propfin/propfin/finance"
)

// TestStatementsJob: owners:statements closes a month through the worker,
// one statement per owner of the month (the invoice's items are left out
// of the owners' report, so every line is counted apart), company B's
// books untouched; the month run again writes nothing and reports the
// statements skipped; a later month closes the months between first; a
// month before the first closed is refused.
func TestStatementsJob(t *testing.T) {
	t.Parallel()
	p := startPlatform(t, nil)
	paidContractInvoice(t, p.pool, p.companyA)
	paidContractInvoice(t, p.pool, p.companyB)
	ctx := context.Background()

	job := p.wait(t, p.submit(t, KindOwnersStatements, MonthPayload{Month: "2024-03"}).ID, "succeeded", "failed")
	res := decodeResult[StatementsResult](t, job)
	if job.State != "succeeded" || res.Statements != 2 || res.Owners != 2 || res.Lines != 4 || res.Skipped != 0 ||
		strings.Join(res.Months, ",") != "2024-03" {
		t.Fatalf("job %s (%s): %s", job.State, job.Error, job.Result)
	}
	var got []string
	rows, err := p.pool.Query(ctx, `SELECT p.name || ' ' || s.opening || ' ' || s.closing || ' ' || s.shown_lines || ' ' ||
		s.hidden_lines || ' ' || s.hidden_amount FROM owner_statements s JOIN persons p ON p.company_id = s.company_id AND p.id = s.owner_id
		WHERE s.company_id = $1 AND s.month = '2024-03' ORDER BY p.name`, p.companyA)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		got = append(got, s)
	}
	if strings.Join(got, "; ") != "Bruno 0.00 1080.00 0 2 1080.00; Carla 0.00 720.00 0 2 720.00" {
		t.Errorf("statements: %v", got)
	}
	var others int
	if err := p.pool.QueryRow(ctx, `SELECT count(*) FROM owner_statements WHERE company_id = $1`, p.companyB).Scan(&others); err != nil || others != 0 {
		t.Errorf("company B has %d statements (%v)", others, err)
	}

	again, _, err := p.kinds.Submit(ctx, p.pool, p.companyA, Submission{Kind: KindOwnersStatements,
		Payload: mustJSON(MonthPayload{Month: "2024-03"}), Rerun: true})
	if err != nil {
		t.Fatal(err)
	}
	again = p.wait(t, again.ID, "succeeded", "failed")
	if res := decodeResult[StatementsResult](t, again); again.State != "succeeded" || res.Statements != 0 || res.Skipped != 2 || len(res.Months) != 0 {
		t.Errorf("run again: %s (%s) %s", again.State, again.Error, again.Result)
	}

	later := p.wait(t, p.submit(t, KindOwnersStatements, MonthPayload{Month: "2024-05"}).ID, "succeeded", "failed")
	if res := decodeResult[StatementsResult](t, later); later.State != "succeeded" || res.Statements != 0 ||
		strings.Join(res.Months, ",") != "2024-04,2024-05" {
		t.Errorf("2024-05: %s (%s) %s", later.State, later.Error, later.Result)
	}
	current := time.Now().UTC().Format("2006-01")
	for month, want := range map[string]string{"2024-02": "start at 2024-03", current: "is not over yet"} {
		_, _, err := p.kinds.Submit(ctx, p.pool, p.companyA, Submission{Kind: KindOwnersStatements,
			Payload: mustJSON(MonthPayload{Month: month})})
		var e *finance.Error
		if !errors.As(err, &e) || e.Code != finance.Invalid || len(e.Problems) != 1 ||
			e.Problems[0].Field != "payload.month" || !strings.Contains(e.Problems[0].Message, want) {
			t.Errorf("%s: submitted with %v, want a problem on payload.month saying %q", month, err, want)
		}
	}
}

// TestStatementsSchedule: the statements are scheduled on the 1st, for the
// month before; the payload is checked.
func TestStatementsSchedule(t *testing.T) {
	t.Parallel()
	var found bool
	for _, s := range DefaultSchedules() {
		if s.Kind != KindOwnersStatements {
			continue
		}
		found = true
		if s.Name != "owners-statements" || s.Spec != "0 7 1 * *" || s.EnvName() != "PROPFIN_SCHEDULE_OWNERS_STATEMENTS" {
			t.Errorf("schedule %+v", s)
		}
		if p := s.Payload("2024-04-01"); p != (MonthPayload{Month: "2024-03"}) {
			t.Errorf("payload of 2024-04-01: %+v", p)
		}
		if p := s.Payload("2025-01-01"); p != (MonthPayload{Month: "2024-12"}) {
			t.Errorf("payload of 2025-01-01: %+v", p)
		}
	}
	if !found {
		t.Error("owners:statements is not scheduled")
	}
	for month, want := range map[string]string{"2024-03": "", "1999-12": "from 2000-01", "2024-3": "YYYY-MM",
		"9999-01": "after the current month", "": "YYYY-MM"} {
		got := ""
		if ps := (MonthPayload{Month: month}).Check(); len(ps) > 0 {
			got = ps[0].Field + ": " + ps[0].Message
		}
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("month %q: %q, want %q", month, got, want)
		}
	}
}
