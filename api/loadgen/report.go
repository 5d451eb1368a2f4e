package loadgen

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"time"
)

// routeResult is what one route answered during a level: the latency of
// every request, the count of each status (0: no answer), and an answer
// of each status that was not the route's success.
type routeResult struct {
	latencies []time.Duration
	statuses  map[int]int
	samples   map[int]string
}

func (rr *routeResult) init() {
	if rr.statuses == nil {
		rr.statuses, rr.samples = map[int]int{}, map[int]string{}
	}
}

// record counts an answer; answer is asked for the first of each status
// that is not success.
func (rr *routeResult) record(status int, took time.Duration, success int, answer func() string) {
	rr.init()
	rr.latencies = append(rr.latencies, took)
	rr.statuses[status]++
	if _, seen := rr.samples[status]; status != success && !seen {
		rr.samples[status] = answer()
	}
}

func (rr *routeResult) merge(o *routeResult) {
	rr.init()
	rr.latencies = append(rr.latencies, o.latencies...)
	for status, n := range o.statuses {
		rr.statuses[status] += n
	}
	for status, answer := range o.samples {
		if _, seen := rr.samples[status]; !seen {
			rr.samples[status] = answer
		}
	}
}

// count is the number of answers whose status is in [lo, hi).
func (rr *routeResult) count(lo, hi int) int {
	n := 0
	for status, c := range rr.statuses {
		if status >= lo && status < hi {
			n += c
		}
	}
	return n
}

// Level is one level of the load: its clients, how long it was
// measured (to the last answer), and each route's results.
type Level struct {
	clients         int
	warmup, elapsed time.Duration
	routes          []routeResult // as routes
}

// Print writes the level's table and its problems, and returns the
// number of requests that failed the API's way: a 5xx, or no answer.
func (lv Level) Print(w io.Writer) (failed int) {
	var all routeResult
	for i := range lv.routes {
		all.merge(&lv.routes[i])
	}
	secs := lv.elapsed.Seconds()
	fmt.Fprintf(w, "\n%d clients, measured %.1f s after %s of warm-up: %d requests, %.1f req/s\n",
		lv.clients, secs, lv.warmup, len(all.latencies), float64(len(all.latencies))/secs)
	const row = "%-38s %4s %9s %8s %8s %8s %5s %5s\n"
	fmt.Fprintf(w, row, "route", "mix", "requests", "req/s", "p50 ms", "p99 ms", "4xx", "5xx")
	for i, rt := range routes {
		lv.routes[i].printRow(w, rt.name, fmt.Sprintf("%d%%", rt.weight), secs)
	}
	all.printRow(w, "all", "", secs)
	for i, rt := range routes {
		rr := &lv.routes[i]
		for _, status := range slices.Sorted(maps.Keys(rr.samples)) {
			fmt.Fprintf(w, "  %s: %d answered %s, such as %s\n", rt.name, rr.statuses[status], statusName(status), rr.samples[status])
		}
	}
	failed = all.count(500, 600) + all.statuses[0]
	if failed > 0 {
		fmt.Fprintf(w, "!! %d requests failed with a 5xx or no answer: the API is broken under this load (see the answers above and its log)\n", failed)
	}
	if n := all.statuses[429]; n > 0 {
		fmt.Fprintf(w, "!! %d requests were refused by the rate limit (429), which measures the limit, not the API: "+
			"raise PROPFIN_RATE_LIMIT of the server under test (each client has a key of its own)\n", n)
	}
	return failed
}

func (rr *routeResult) printRow(w io.Writer, name, mix string, secs float64) {
	lat := slices.Clone(rr.latencies)
	slices.Sort(lat)
	fmt.Fprintf(w, "%-38s %4s %9d %8.1f %8s %8s %5d %5d\n", name, mix, len(lat), float64(len(lat))/secs,
		millis(percentile(lat, 0.50)), millis(percentile(lat, 0.99)), rr.count(400, 500), rr.count(500, 600))
}

// percentile is the latency q of the requests were at or under (nearest
// rank), 0 for none.
func percentile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[max(0, int(math.Ceil(q*float64(len(sorted))))-1)]
}

func millis(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d.Microseconds())/1000) }

func statusName(status int) string {
	if status == 0 {
		return "nothing (no answer)"
	}
	return fmt.Sprint(status)
}
