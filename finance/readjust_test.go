package finance

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/shopspring/decimal"
)

// indexFiles maps the shipped series files to their indicators.
var indexFiles = map[Indicator]string{IGPM: "igp-m.json", IPCA: "ipca.json", INPC: "inpc.json", IPCBR: "ipc-br.json", IPCFIPE: "ipc-sp.json"}

func loadIndices(t testing.TB) Indices {
	t.Helper()
	idx := Indices{}
	for ind, name := range indexFiles {
		b, err := os.ReadFile(filepath.Join("testdata", "indices", name))
		if err != nil {
			t.Fatal(err)
		}
		s, err := ParseSeries(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		idx[ind] = s
	}
	return idx
}

func TestShippedSeriesMatchPublishedFigures(t *testing.T) {
	t.Parallel()
	idx := loadIndices(t)
	if v := idx[IGPM][NewMonth(2024, 1)]; !v.Equal(dec("0.07")) {
		t.Errorf("IGP-M 2024-01 = %s, want 0.07", v)
	}
	// Accumulated variation of each calendar year as published: IBGE for
	// IPCA and INPC, FGV for IGP-M.
	tests := []struct {
		ind  Indicator
		year int
		want string // percent, two places
	}{
		{IPCA, 2023, "4.62"},
		{IPCA, 2024, "4.83"},
		{INPC, 2023, "3.71"},
		{INPC, 2024, "4.77"},
		{IGPM, 2023, "-3.18"},
		{IGPM, 2024, "6.54"},
	}
	for _, tt := range tests {
		f, missing := idx[tt.ind].Accumulate(NewMonth(tt.year, 1), NewMonth(tt.year, 12))
		if len(missing) > 0 {
			t.Fatalf("%s %d: missing %v", tt.ind, tt.year, missing)
		}
		if got := f.Sub(one).Mul(hundred).StringFixed(2); got != tt.want {
			t.Errorf("%s %d accumulated %s%%, published %s%%", tt.ind, tt.year, got, tt.want)
		}
	}
}

func readjustContract(ind Indicator, at string) Contract {
	return Contract{Type: ContractRent, Active: ActiveActive, Status: StatusProgress, StartAt: MustDate("2024-01-15"),
		Amount: dec("2000.00"), ReadjustActive: true, ReadjustIndicator: ind, ReadjustWith: 12, ReadjustAt: MustDate(at)}
}

func TestReadjustExamples(t *testing.T) {
	t.Parallel()
	idx := loadIndices(t)
	gap := Indices{IPCA: Series{}}
	for m, v := range idx[IPCA] {
		if m != NewMonth(2024, 6) {
			gap[IPCA][m] = v
		}
	}
	tests := []struct {
		name      string
		c         Contract
		idx       Indices
		today     string
		opt       ReadjustOptions
		outcome   ReadjustOutcome
		indicator Indicator
		variation string // percent, four places
		newAmount string
		next      string
		status    ContractStatus
		missing   []IndexMonth
	}{
		{name: "R1 IPCA over 2024", c: readjustContract(IPCA, "2025-01-15"), today: "2025-01-15",
			outcome: ReadjustApplied, indicator: IPCA, variation: "4.8313", newAmount: "2096.63", next: "2026-01-15", status: StatusProgress},
		{name: "R2 IGP-M over 2023 is negative: rent kept", c: readjustContract(IGPM, "2024-01-10"), today: "2024-01-31",
			outcome: ReadjustKept, indicator: IGPM, variation: "-3.1783", newAmount: "2000.00", next: "2025-01-10", status: StatusProgress},
		{name: "R2 IGP-M over 2023 with reductions allowed", c: readjustContract(IGPM, "2024-01-10"), today: "2024-01-10",
			opt: ReadjustOptions{AllowReduction: true}, outcome: ReadjustApplied, indicator: IGPM, variation: "-3.1783", newAmount: "1936.43", next: "2025-01-10", status: StatusProgress},
		{name: "R3 highest_index picks IGP-M over 2024", c: readjustContract(HighestIndex, "2025-01-15"), today: "2025-02-01",
			outcome: ReadjustApplied, indicator: IGPM, variation: "6.5362", newAmount: "2130.72", next: "2026-01-15", status: StatusProgress},
		{name: "R3 lowest_index picks INPC over 2024", c: readjustContract(LowestIndex, "2025-01-15"), today: "2025-01-15",
			outcome: ReadjustApplied, indicator: INPC, variation: "4.7679", newAmount: "2095.36", next: "2026-01-15", status: StatusProgress},
		{name: "R3 lowest_index among five indices over 2024 picks IPC-BR", c: readjustContract(LowestIndex, "2025-01-15"), today: "2025-01-15",
			opt:     ReadjustOptions{Candidates: []Indicator{IGPM, IPCA, INPC, IPCBR, IPCFIPE}},
			outcome: ReadjustApplied, indicator: IPCBR, variation: "3.9869", newAmount: "2079.74", next: "2026-01-15", status: StatusProgress},
		{name: "R3 lowest_index over 2023 is IGP-M, negative: kept", c: readjustContract(LowestIndex, "2024-01-15"), today: "2024-01-15",
			outcome: ReadjustKept, indicator: IGPM, variation: "-3.1783", newAmount: "2000.00", next: "2025-01-15", status: StatusProgress},
		{name: "R4 January 2026 not published: waiting", c: readjustContract(IGPM, "2026-02-01"), today: "2026-02-03",
			outcome: ReadjustWaiting, indicator: IGPM, newAmount: "2000.00", status: StatusReadjust,
			missing: []IndexMonth{{IGPM, NewMonth(2026, 1)}}},
		{name: "R4 a month missing in the middle: waiting", c: readjustContract(IPCA, "2025-01-15"), idx: gap, today: "2025-01-15",
			outcome: ReadjustWaiting, indicator: IPCA, newAmount: "2000.00", status: StatusReadjust,
			missing: []IndexMonth{{IPCA, NewMonth(2024, 6)}}},
		{name: "R4 highest_index waits for every candidate", c: readjustContract(HighestIndex, "2025-03-01"), today: "2025-03-01",
			opt:     ReadjustOptions{Candidates: []Indicator{IPCA, INCCM}},
			outcome: ReadjustWaiting, indicator: HighestIndex, newAmount: "2000.00", status: StatusReadjust,
			missing: func() []IndexMonth {
				var ms []IndexMonth
				for m := NewMonth(2024, 3); m <= NewMonth(2025, 2); m++ {
					ms = append(ms, IndexMonth{INCCM, m})
				}
				return ms
			}()},
		{name: "R5 not due the day before", c: readjustContract(IPCA, "2025-01-15"), today: "2025-01-14",
			outcome: ReadjustNotDue, newAmount: "2000.00", status: StatusProgress},
		{name: "R5 a contract waiting goes back to progress once readjusted",
			c: func() Contract {
				c := readjustContract(IPCA, "2025-01-15")
				c.Status, c.CurrentAmount = StatusReadjust, decimal.NewNullDecimal(dec("2200.00"))
				return c
			}(), today: "2025-02-12",
			outcome: ReadjustApplied, indicator: IPCA, variation: "4.8313", newAmount: "2306.29", next: "2026-01-15", status: StatusProgress},
		{name: "R6 readjust_at derived from start_at, six-month IGP-M, negative: kept",
			c: func() Contract {
				c := readjustContract(IGPM, "2024-01-01")
				c.ReadjustAt, c.ReadjustWith, c.StartAt = Date{}, 6, MustDate("2025-01-31")
				return c
			}(), today: "2025-07-31",
			outcome: ReadjustKept, indicator: IGPM, variation: "-0.9476", newAmount: "2000.00", next: "2026-01-31", status: StatusProgress},
		{name: "inactive readjustment is never due", c: func() Contract { c := readjustContract(IPCA, "2025-01-15"); c.ReadjustActive = false; return c }(),
			today: "2030-01-01", outcome: ReadjustNotDue, newAmount: "2000.00", status: StatusProgress},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := idx
			if tt.idx != nil {
				in = tt.idx
			}
			r, err := Readjust(tt.c, in, MustDate(tt.today), tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			if r.Outcome != tt.outcome || r.Indicator != tt.indicator || r.NewAmount.StringFixed(2) != tt.newAmount ||
				r.NextReadjustAt.String() != tt.next || r.ContractStatus != tt.status || !slices.Equal(r.Missing, tt.missing) {
				t.Errorf("got outcome %s indicator %s new %s next %q status %s missing %v",
					r.Outcome, r.Indicator, r.NewAmount.StringFixed(2), r.NextReadjustAt, r.ContractStatus, r.Missing)
			}
			if tt.variation != "" && r.Variation.StringFixed(4) != tt.variation {
				t.Errorf("variation %s%%, want %s%%", r.Variation.StringFixed(4), tt.variation)
			}
			if tt.outcome == ReadjustApplied || tt.outcome == ReadjustKept {
				if len(r.Months) != tt.c.ReadjustWith || r.Months[len(r.Months)-1] != MonthOf(r.ReadjustAt).Add(-1) {
					t.Errorf("months %v for readjust_at %s", r.Months, r.ReadjustAt)
				}
				if !r.OldAmount.Equal(tt.c.RentAmount()) {
					t.Errorf("old amount %s", r.OldAmount)
				}
			}
		})
	}
}

func TestReadjustProblems(t *testing.T) {
	t.Parallel()
	c := readjustContract("IGP-X", "2025-01-15")
	if _, err := Readjust(c, nil, MustDate("2025-01-15"), ReadjustOptions{}); err == nil {
		t.Error("unknown indicator accepted")
	}
	c.ReadjustIndicator = ""
	if _, err := Readjust(c, nil, MustDate("2025-01-15"), ReadjustOptions{}); err == nil {
		t.Error("missing indicator accepted")
	}
	if _, err := Readjust(readjustContract(IPCA, "2025-01-15"), nil, Date{}, ReadjustOptions{}); err == nil {
		t.Error("missing today accepted")
	}
}

func TestParseSeriesRejects(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		`{}`,
		`[{"data":"2024-13-01","valor":1}]`,
		`[{"data":"2024-01-01","valor":"x"}]`,
		`[{"data":"2024-01-01"}]`,
		`[{"data":"2024-01-01","valor":null}]`,
		`[{"data":"2024-01-01","valor":1},{"data":"2024-01-15","valor":2}]`,
	} {
		if _, err := ParseSeries([]byte(in)); err == nil {
			t.Errorf("ParseSeries(%s) accepted", in)
		}
	}
}

func FuzzParseSeries(f *testing.F) {
	f.Add([]byte(`[{"data":"2024-01-01","valor":0.07},{"data":"2024-02-01","valor":-0.52}]`))
	f.Add([]byte(`[{"data":"2024-01-01","valor":"1e3"}]`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ParseSeries(b)
		if err != nil {
			return
		}
		for m, v := range s {
			if m.First().IsZero() {
				t.Fatalf("month %d has no first day", m)
			}
			_ = v.String()
		}
	})
}
