package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestWalkthrough runs docs/walkthrough.md, a month from a fresh
// `propfin dev` to its owners' statements closed, against the API on a
// database of its own with a worker: every request of the page, in its
// order, with the page's setup (its variables and its `api` function) and
// this day's dates, and holds every answer to the one the page prints,
// "…" standing for what the page leaves out. The page was run on a day of
// its own: its dates (the month closed, the rent's due date and the days
// derived from them) are read as this day's, and its job ids as the jobs
// this run starts; nothing else may differ, so the page says what propfin
// answers.
func TestWalkthrough(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../docs/walkthrough.md")
	if err != nil {
		t.Fatal(err)
	}
	page, err := parseWalkthrough(string(raw))
	if err != nil {
		t.Fatalf("docs/walkthrough.md: %v", err)
	}
	env := setup(t, withReceipts())
	withWorkers(t, env)
	w := newWalk(t, env, string(raw), page.setup)
	for _, step := range page.steps {
		w.step(t, step)
	}
}

// walk is the state of a run of the page: the shell's variables and
// files, the page's dates and job ids read as this run's.
type walk struct {
	env   *testEnv
	vars  map[string]string
	files map[string][]byte
	// dates turns the page's dates, as printed, into this run's.
	dates *strings.Replacer
	// jobs maps the page's job ids to this run's.
	jobs map[string]string
}

// setupLines are the page's setup, line by line without their comments:
// KEY, API, MONTH and DUE are the reader's (patterns), the others are
// computed from them and must read as the test computes them.
var setupLines = []*regexp.Regexp{
	regexp.MustCompile(`^KEY=pf_1_…$`),
	regexp.MustCompile(`^API=(\S+)$`),
	regexp.MustCompile(`^MONTH=(\d{4}-\d{2})$`),
	regexp.MustCompile(`^DUE=(\d{4}-\d{2}-\d{2})$`),
	regexp.MustCompile(`^` + regexp.QuoteMeta(`Y=${MONTH%-*} M=${MONTH#*-}`) + `$`),
	regexp.MustCompile(`^` + regexp.QuoteMeta(`DUE8=$(echo $DUE | awk -F- '{print $3$2$1}')`) + `$`),
	regexp.MustCompile(`^` + regexp.QuoteMeta(`NEXT=$((Y + 1))-$M-01`) + `$`),
	regexp.MustCompile(`^` + regexp.QuoteMeta(`api() { curl -gs -X "$1" "$API$2" -H "Authorization: Bearer $KEY" -H "Content-Type: application/json" "${@:3}"; echo; }`) + `$`),
}

// newWalk checks the page's setup and gives its variables this run's
// values: company A's key, the test server, last month and a due date six
// days from today (the page's was six days after the day it was run).
func newWalk(t *testing.T, env *testEnv, raw string, setup []string) *walk {
	t.Helper()
	pageAPI, pageMonth, pageDue := readSetup(t, setup)
	ran := regexp.MustCompile(`page was run \(on (\d{4}-\d{2}-\d{2})\)`).FindStringSubmatch(raw)
	if ran == nil {
		t.Fatal("the page does not say the day it was run on (\"page was run (on YYYY-MM-DD)\")")
	}
	page := datesOf(t, ran[1], pageMonth, pageDue)
	run := datesOf(t, companyToday(t, env.pool, env.compA).Format(time.DateOnly), "", "")
	w := &walk{env: env, files: map[string][]byte{}, jobs: map[string]string{}}
	w.vars = map[string]string{"KEY": env.keyA, "API": strings.TrimPrefix(env.url, "http://"), "MONTH": run.month,
		"DUE": run.due.Format(time.DateOnly), "Y": run.month[:4], "M": run.month[5:], "DUE8": run.due.Format("02012006"),
		"NEXT": run.next.Format(time.DateOnly)}
	// the links of the page's propfin dev are on its listener (127.0.0.1
	// and the port of its API)
	pairs := []string{"http://127.0.0.1:" + portOf(pageAPI), env.url, `"year":` + page.month[:4], `"year":` + run.month[:4]}
	for i, d := range page.named() {
		for _, layout := range []string{time.DateOnly, "02/01/2006", "02012006"} {
			pairs = append(pairs, d.Format(layout), run.named()[i].Format(layout))
		}
	}
	// the dates before the month: where both match (2026-11-26 and
	// 2026-11), the Replacer takes the first pair given
	w.dates = strings.NewReplacer(append(pairs, page.month, run.month)...)
	return w
}

// readSetup holds the page's setup, line by line without its comments, to
// setupLines, and returns the page's API address, month and due date.
func readSetup(t *testing.T, setup []string) (api, month, due string) {
	t.Helper()
	var lines []string
	for _, l := range setup {
		if l, _, _ = strings.Cut(l, "  #"); strings.TrimSpace(l) != "" {
			lines = append(lines, strings.TrimSpace(l))
		}
	}
	if len(lines) != len(setupLines) {
		t.Fatalf("the page's setup has %d lines, the test knows %d:\n%s", len(lines), len(setupLines), strings.Join(lines, "\n"))
	}
	var values []string
	for i, re := range setupLines {
		m := re.FindStringSubmatch(lines[i])
		if m == nil {
			t.Fatalf("line %d of the page's setup, %q, is not %s", i+1, lines[i], re)
		}
		values = append(values, m[1:]...)
	}
	return values[0], values[1], values[2]
}

// portOf is the port of the page's API address (host:port).
func portOf(addr string) string {
	_, port, _ := strings.Cut(addr, ":")
	return port
}

// walkDates are the dates of a run of the page: the month closed, the
// rent's due date, and the days the page names in them.
type walkDates struct {
	month                                 string // YYYY-MM
	today                                 time.Time
	first, last, paid, credited, transfer time.Time
	due, dueNext, next                    time.Time
}

// datesOf: the page's, from its setup (month and due given), or a
// run's from its day (month "": last month, due six days later).
func datesOf(t *testing.T, day, month, due string) walkDates {
	t.Helper()
	d, err := time.Parse(time.DateOnly, day)
	if err != nil {
		t.Fatal(err)
	}
	first := time.Date(d.Year(), d.Month()-1, 1, 0, 0, 0, 0, time.UTC)
	dueDay := d.AddDate(0, 0, 6)
	if month != "" {
		if first, err = time.Parse(time.DateOnly, month+"-01"); err != nil {
			t.Fatal(err)
		}
		if dueDay, err = time.Parse(time.DateOnly, due); err != nil {
			t.Fatal(err)
		}
	}
	at := func(day int) time.Time { return first.AddDate(0, 0, day-1) }
	return walkDates{month: first.Format("2006-01"), today: d, first: first, last: first.AddDate(0, 1, -1),
		paid: at(26), credited: at(27), transfer: at(28), due: dueDay, dueNext: dueDay.AddDate(0, 0, 1),
		next: first.AddDate(1, 0, 0)}
}

// named are the dates, in an order the page's and a run's share.
func (d walkDates) named() []time.Time {
	return []time.Time{d.today, d.first, d.last, d.paid, d.credited, d.transfer, d.due, d.dueNext, d.next}
}

// step runs a block's commands one after the other and holds what each
// prints, line by line, to the next answers the page prints after the
// block, learning the page's job ids as their answers come.
func (w *walk) step(t *testing.T, s pageStep) {
	t.Helper()
	answers := s.answers
	for _, c := range s.commands {
		for _, got := range w.run(t, c) {
			if len(answers) == 0 {
				t.Fatalf("%s prints more than the page's answers to its block:\n%s", c.line, got)
			}
			answer := answers[0]
			answers = answers[1:]
			w.learnJob(answer, got)
			want := w.jobIDs(w.dates.Replace(answer))
			if why := answerMismatch(want, got); why != "" {
				t.Errorf("%s\n%s:\n got %s\nwant %s", c.line, why, got, want)
			}
		}
	}
	if len(answers) > 0 {
		t.Fatalf("the block of %q prints %d lines fewer than the page's answers:\n%s", s.commands[0].line, len(answers),
			strings.Join(answers, "\n"))
	}
}

// run runs one command of the page and returns the lines it prints.
func (w *walk) run(t *testing.T, c pageCommand) []string {
	t.Helper()
	if m := heredocStart.FindStringSubmatch(c.line); m != nil {
		var b strings.Builder
		for _, l := range c.heredoc {
			l, err := expandHeredoc(l, w.vars)
			if err != nil {
				t.Fatal(err)
			}
			b.WriteString(l + "\n")
		}
		w.files[m[1]] = []byte(b.String())
		return nil
	}
	words, err := shellWords(c.line, w.vars)
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case len(words) == 2 && words[0] == "cat":
		return strings.Split(strings.TrimRight(strings.ReplaceAll(string(w.file(t, words[1])), "\r\n", "\n"), "\n"), "\n")
	case len(words) >= 3 && words[0] == "api":
		return w.api(t, words[1], words[2], words[3:])
	case len(words) > 1 && words[0] == "curl":
		return w.curl(t, words[1:])
	}
	t.Fatalf("%q: not a command the test runs (api, curl, cat)", c.line)
	return nil
}

// file is a file a command of the page wrote.
func (w *walk) file(t *testing.T, name string) []byte {
	t.Helper()
	b, ok := w.files[name]
	if !ok {
		t.Fatalf("%s: no command of the page wrote it", name)
	}
	return b
}

// api is the page's function: `api METHOD PATH [-d BODY]`, a JSON request
// with the key, its answer one line. GET /jobs/N waits for job N to end,
// as the page's reader does before the next request.
func (w *walk) api(t *testing.T, method, path string, args []string) []string {
	t.Helper()
	var body []byte
	switch {
	case len(args) == 2 && args[0] == "-d":
		body = []byte(args[1])
	case len(args) != 0:
		t.Fatalf("api %s %s %q: the test knows -d BODY only", method, path, args)
	}
	if id, ok := strings.CutPrefix(path, "/jobs/"); ok && method == http.MethodGet {
		return []string{w.finishedJob(t, w.jobPath(id))}
	}
	_, answer := w.request(t, method, path, "application/json", body)
	return []string{string(answer)}
}

// finishedJob polls a job until it has ended and returns its answer.
func (w *walk) finishedJob(t *testing.T, id string) string {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		_, answer := w.request(t, http.MethodGet, "/jobs/"+id, "", nil)
		if s := jobState(answer); s == "succeeded" || s == "failed" || s == "canceled" || time.Now().After(deadline) {
			return string(answer)
		}
	}
}

// curl runs the page's curl commands: -gs, -w '\n' (the answer is one
// line either way), -X METHOD, the URL, -H headers, -o FILE to keep the
// answer in a file, --data-binary @FILE to send one.
func (w *walk) curl(t *testing.T, args []string) []string {
	t.Helper()
	method, url, out, ctype := http.MethodGet, "", "", ""
	var body []byte
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-gs":
		case (a == "-w" || a == "-X" || a == "-H" || a == "-o" || a == "--data-binary") && i+1 == len(args):
			t.Fatalf("curl %q: %s without its value", args, a)
		case a == "-w":
			i++
		case a == "-X":
			i++
			method = args[i]
		case a == "-H":
			i++
			if name, v, _ := strings.Cut(args[i], ": "); name == "Content-Type" {
				ctype = v
			} else if args[i] != "Authorization: Bearer "+w.vars["KEY"] {
				t.Fatalf("curl %q: a header the test does not send: %s", args, args[i])
			}
		case a == "-o":
			i++
			out = args[i]
		case a == "--data-binary" && strings.HasPrefix(args[i+1], "@"):
			i++
			body = w.file(t, strings.TrimPrefix(args[i], "@"))
		case strings.HasPrefix(a, w.vars["API"]+"/"):
			url = strings.TrimPrefix(a, w.vars["API"])
		default:
			t.Fatalf("curl %q: %q is not an argument the test knows", args, a)
		}
	}
	if url == "" {
		t.Fatalf("curl %q: no URL of the API", args)
	}
	if body != nil && ctype == "" {
		ctype = "application/x-www-form-urlencoded" // what curl says of a body it is not told the type of
	}
	status, answer := w.request(t, method, url, ctype, body)
	if out != "" {
		if status != http.StatusOK {
			t.Fatalf("curl %s %s -o %s: %d %s", method, url, out, status, answer)
		}
		w.files[out] = answer
		return nil
	}
	return []string{string(answer)}
}

// request sends one request with company A's key and returns the status
// and the body as received, the answer held to the OpenAPI document as
// testEnv.do holds every answer.
func (w *walk) request(t *testing.T, method, path, ctype string, body []byte) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, w.env.url+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+w.env.keyA)
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	answer, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	target, _, _ := strings.Cut(path, "?")
	if p := w.env.answers.problem(method, target, res.StatusCode, res.Header, answer); p != "" {
		t.Errorf("%s %s: %d: the answer does not fit the OpenAPI document: %s", method, path, res.StatusCode, p)
	}
	return res.StatusCode, answer
}

// jobAnswer is a job in the page's answers: `"data":{"id":N,"kind":`.
var jobAnswer = regexp.MustCompile(`"data":\{"id":(\d+),"kind":`)

// learnJob maps the job id of a page's answer to the job of this run's.
func (w *walk) learnJob(answer, got string) {
	m := jobAnswer.FindStringSubmatch(answer)
	var job struct {
		Data struct {
			ID   json.Number `json:"id"`
			Kind string      `json:"kind"`
		} `json:"data"`
	}
	if m == nil || json.Unmarshal([]byte(got), &job) != nil || job.Data.Kind == "" {
		return
	}
	w.jobs[m[1]] = job.Data.ID.String()
}

// jobPath is this run's id of the page's job id (unchanged when the page
// has not answered with that job yet).
func (w *walk) jobPath(id string) string {
	if run, ok := w.jobs[id]; ok {
		return run
	}
	return id
}

// jobRefs are the places a page's answer names a job: a job's own id
// (`"data":{"id":N,"kind":`) and a statement's job_id.
var jobRefs = regexp.MustCompile(`"data":\{"id":(\d+),"kind":|"job_id":(\d+)`)

// jobIDs writes this run's job ids into a page's answer.
func (w *walk) jobIDs(answer string) string {
	return jobRefs.ReplaceAllStringFunc(answer, func(s string) string {
		m := jobRefs.FindStringSubmatch(s)
		id := m[1] + m[2]
		if run, ok := w.jobs[id]; ok {
			return strings.Replace(s, id, run, 1)
		}
		return s
	})
}

// jobState is the state of a job's answer.
func jobState(answer []byte) string {
	var job struct {
		Data struct {
			State string `json:"state"`
		} `json:"data"`
	}
	_ = json.Unmarshal(answer, &job)
	return job.Data.State
}

// TestWalkthroughDates: the dates a run of the page takes on days the
// page was not run on (month ends, a new year, February), since
// TestWalkthrough itself runs on the day it is run: last month, its
// 26th to 28th and its last day, a due date six days on, the contract's
// first anniversary.
func TestWalkthroughDates(t *testing.T) {
	t.Parallel()
	cases := []struct{ day, want string }{
		{"2026-12-04", "2026-11: 2026-11-01 2026-11-30 2026-11-26 2026-11-27 2026-11-28; due 2026-12-10, 2026-12-11; next 2027-11-01"},
		{"2027-01-31", "2026-12: 2026-12-01 2026-12-31 2026-12-26 2026-12-27 2026-12-28; due 2027-02-06, 2027-02-07; next 2027-12-01"},
		{"2027-03-01", "2027-02: 2027-02-01 2027-02-28 2027-02-26 2027-02-27 2027-02-28; due 2027-03-07, 2027-03-08; next 2028-02-01"},
		{"2028-03-15", "2028-02: 2028-02-01 2028-02-29 2028-02-26 2028-02-27 2028-02-28; due 2028-03-21, 2028-03-22; next 2029-02-01"},
		{"2027-12-28", "2027-11: 2027-11-01 2027-11-30 2027-11-26 2027-11-27 2027-11-28; due 2028-01-03, 2028-01-04; next 2028-11-01"},
	}
	for _, c := range cases {
		d := datesOf(t, c.day, "", "")
		f := func(t time.Time) string { return t.Format(time.DateOnly) }
		got := fmt.Sprintf("%s: %s %s %s %s %s; due %s, %s; next %s", d.month, f(d.first), f(d.last), f(d.paid), f(d.credited),
			f(d.transfer), f(d.due), f(d.dueNext), f(d.next))
		if got != c.want {
			t.Errorf("run on %s: %s, want %s", c.day, got, c.want)
		}
	}
	page := datesOf(t, "2026-12-04", "2026-11", "2026-12-10")
	if run := datesOf(t, "2026-12-04", "", ""); fmt.Sprint(page.named()) != fmt.Sprint(run.named()) || page.month != run.month {
		t.Errorf("the page's dates %v, a run on its day %v", page.named(), run.named())
	}
}
