package statement

import (
	"math/rand"
	"testing"
	"testing/quick"

	"github.com/propfin/propfin/finance"
)

// ledgerEntry is an entry of a generated ledger: its owner, and the
// month after whose close it was written (-1: before the first close).
type ledgerEntry struct {
	Entry
	owner   int
	written int // index of the month after whose close it is written; -1 before any
}

// generateLedger makes a seeded ledger of owners over months: credits,
// debits, transfers, guaranteed rents, hidden items, reversals (dated in
// the month they are written, of an entry of an earlier month or the same
// one) and late entries (dated in a month already closed when written).
func generateLedger(r *rand.Rand, owners, months int, first finance.Month) []ledgerEntry {
	var out []ledgerEntry
	id := int64(0)
	types := []finance.EntryType{finance.Credit, finance.Debit, finance.Transfer}
	modes := []finance.EntryMode{finance.ModeInvoice, "transaction", finance.ModeGuaranteedRent}
	for m := range months {
		for range r.Intn(12) {
			id++
			e := Entry{ID: id, Type: types[r.Intn(3)], Mode: modes[r.Intn(3)], Cents: 1 + r.Int63n(500000),
				Hidden: r.Intn(5) == 0, ContractID: int64(r.Intn(3)), BuildingID: int64(r.Intn(2)), Guaranteed: r.Intn(6) == 0}
			if e.Type == finance.Transfer {
				e.Mode = finance.ModeTransfer
			}
			written := m - 1 // written during month m, before its close
			dated := first.Add(m)
			if m > 0 && r.Intn(6) == 0 { // written during month m, dated in a closed month
				dated = first.Add(r.Intn(m))
			}
			e.Date = dated.First().AddDays(r.Intn(dated.Days()))
			le := ledgerEntry{Entry: e, owner: r.Intn(owners), written: written}
			if len(out) > 0 && r.Intn(5) == 0 { // or a reversal, dated in month m, of an earlier entry
				o := out[r.Intn(len(out))]
				if finance.MonthOf(o.Date) <= first.Add(m) && o.Mode != finance.ModeChargeback {
					rev := o.Entry
					rev.ID, rev.Mode, rev.ReversesID, rev.ReversedDate = id, finance.ModeChargeback, o.ID, o.Date
					rev.Type = map[finance.EntryType]finance.EntryType{finance.Credit: finance.Debit, finance.Debit: finance.Credit,
						finance.Transfer: finance.Transfer}[o.Type]
					if rev.Date = first.Add(m).First().AddDays(r.Intn(first.Add(m).Days())); rev.Date.Before(o.Date) {
						rev.Date = o.Date
					}
					le = ledgerEntry{Entry: rev, owner: o.owner, written: written}
				}
			}
			out = append(out, le)
		}
	}
	return out
}

// TestStatementsProperty closes every month of a generated ledger in
// order, giving each owner's statement the entries the close reads: those
// dated in the month, and those dated before it written after their month
// was closed and stated nowhere yet. For every owner and month: closing =
// opening + the lines (hidden included), the shown lines are the month's
// entries less the hidden ones and the hidden ones are counted apart, each
// entry is stated once, each statement opens with the last closing, and
// after the last month the owner's closing is the balance of the whole
// ledger of the months closed.
func TestStatementsProperty(t *testing.T) {
	t.Parallel()
	first := finance.NewMonth(2024, 1)
	const owners, months = 4, 6
	property := func(seed int64) bool {
		ledger := generateLedger(rand.New(rand.NewSource(seed)), owners, months, first)
		stated := map[int64]bool{}
		closing := make([]int64, owners)
		for m := range months {
			month := first.Add(m)
			for o := range owners {
				in := Input{Month: month, Opening: closing[o]}
				for _, e := range ledger {
					// visible at the close of month m: written before it
					if e.owner != o || e.written >= m || stated[e.ID] {
						continue
					}
					switch {
					case finance.MonthOf(e.Date) == month:
						in.Entries = append(in.Entries, e.Entry)
					case finance.MonthOf(e.Date) < month:
						in.Late = append(in.Late, e.Entry)
					}
				}
				s := Build(in)
				if !holds(t, seed, o, s, in) {
					return false
				}
				for _, l := range s.Lines {
					if stated[l.TransactionID] {
						t.Errorf("seed %d owner %d %s: entry %d stated twice", seed, o, month, l.TransactionID)
						return false
					}
					stated[l.TransactionID] = true
				}
				closing[o] = s.Closing
			}
		}
		balance := make([]int64, owners)
		for _, e := range ledger {
			if e.written < months-1 {
				balance[e.owner] += e.Signed()
			}
		}
		for o := range owners {
			if closing[o] != balance[o] {
				t.Errorf("seed %d owner %d: last closing %d, ledger balance %d", seed, o, closing[o], balance[o])
				return false
			}
		}
		return true
	}
	if err := quick.Check(property, &quick.Config{MaxCount: 300, Rand: rand.New(rand.NewSource(26))}); err != nil {
		t.Error(err)
	}
}

// holds checks one statement against what it was built from.
func holds(t *testing.T, seed int64, owner int, s Statement, in Input) bool {
	t.Helper()
	fail := func(format string, args ...any) bool {
		t.Errorf("seed %d owner %d %s: "+format, append([]any{seed, owner, s.Month}, args...)...)
		return false
	}
	var sum, hidden int64
	var hiddenCount int
	for _, l := range s.Lines {
		sum += l.Cents
		if l.Hidden {
			hidden += l.Cents
			hiddenCount++
		}
	}
	if s.Opening != in.Opening || s.Closing != s.Opening+sum || s.Closing != s.Opening+s.Totals.Movement() {
		return fail("opening %d, lines %d, closing %d, totals %+v", s.Opening, sum, s.Closing, s.Totals)
	}
	if hidden != s.Totals.HiddenCents || hiddenCount != s.Totals.HiddenCount || len(s.Shown()) != s.Totals.Shown {
		return fail("hidden %d in %d lines, totals %+v", hidden, hiddenCount, s.Totals)
	}
	want := map[int64]Entry{}
	for _, e := range append(append([]Entry{}, in.Entries...), in.Late...) {
		want[e.ID] = e
	}
	if len(s.Lines) != len(want) {
		return fail("%d lines for %d entries", len(s.Lines), len(want))
	}
	var shown int
	for _, l := range s.Lines {
		e, ok := want[l.TransactionID]
		if !ok || l.Cents != e.Signed() || l.Hidden != e.Hidden {
			return fail("line %+v for entry %+v", l, e)
		}
		late := finance.MonthOf(e.Date) < s.Month
		reversesClosed := e.ReversesID != 0 && finance.MonthOf(e.ReversedDate) < s.Month
		if l.IsAdjustment() != (late || reversesClosed) || (l.IsAdjustment() && l.CorrectsMonth >= s.Month) {
			return fail("line %+v: adjustment %v for entry %+v", l, l.IsAdjustment(), e)
		}
		if !e.Hidden {
			shown++
		}
	}
	if shown != s.Totals.Shown {
		return fail("%d entries shown, %d lines", shown, s.Totals.Shown)
	}
	return true
}
