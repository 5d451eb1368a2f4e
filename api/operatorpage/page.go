// Package operatorpage renders the operator console (/operator/): the
// nights of the last week by schedule and company, the failed jobs with
// their errors and a retry button, a search over every company's jobs,
// and a link to the queue dashboard. The page is html/template with its
// style embedded; it loads nothing (no script, no image, no font), so it
// makes no request off the machine, and works on a phone's width.
package operatorpage

import (
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"html/template"
	"io"
)

//go:embed page.html
var pageHTML string

//go:embed style.css
var styleCSS string

var page = template.Must(template.New("page").Parse(pageHTML))

// CSP is the page's Content-Security-Policy: its own inline style (by
// hash), forms posted to itself, nothing else.
var CSP = "default-src 'none'; style-src 'sha256-" + styleHash() + "'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

func styleHash() string {
	sum := sha256.Sum256([]byte(styleCSS))
	return base64.StdEncoding.EncodeToString(sum[:])
}

// Cell is one night of a schedule for a company.
type Cell struct {
	Date  string
	State string // a jobs.Night state: succeeded, failed, running, missing, due, none, canceled
	JobID int64
	Title string
}

// Row is a company's nights of a schedule.
type Row struct {
	CompanyID int64
	Company   string
	Cells     []Cell
}

// Matrix is a schedule's nights.
type Matrix struct {
	Name, Kind, Spec string
	Rows             []Row
}

// Job is a job as the page lists it.
type Job struct {
	ID, CompanyID              int64
	Company, Kind, State, Key  string
	Error, CreatedAt, Finished string
	Errors                     []string
	Attempts                   int64
}

// Data is what the page shows.
type Data struct {
	Now         string
	Operator    string
	Dates       []string
	Schedules   []Matrix
	Failed      []Job
	Query       string
	Searched    bool
	Results     []Job
	SearchError string
	Monitoring  bool
	Flash       string
}

// Render writes the page.
func Render(w io.Writer, d Data) error {
	return page.Execute(w, struct {
		Data
		Style template.CSS
	}{d, template.CSS(styleCSS)})
}
