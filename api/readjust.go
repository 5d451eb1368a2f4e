package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/api/openapi"
	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// The readjustment operations that are not CRUD (docs/api.md,
// "Readjustment"): the upsert of price-index months, and the readjustment
// of one contract, previewed or run. The lists (GET /financial/indices,
// GET /financial/contracts/{contract}/readjustments) are declared
// resources.

// maxIndexBodyBytes bounds a PUT /financial/indices body: ten thousand
// rows and room to spare.
const maxIndexBodyBytes = 2 << 20

// putIndices is PUT /financial/indices with {"data": [{"indicator",
// "month", "rate"}, ...]}: every row is checked, and the rows are stored
// all or none (422 naming data[i].field for each problem). The answer
// counts the months inserted, updated and unchanged.
func (s *Server) putIndices(w http.ResponseWriter, r *http.Request) {
	if err := checkContentType(r.Header.Get("Content-Type")); err != nil {
		writeError(w, r, err)
		return
	}
	body, err := readBody(w, r, maxIndexBodyBytes)
	if err != nil {
		writeError(w, r, err)
		return
	}
	rows, at, problems, err := parseIndexBody(body)
	if err != nil {
		writeError(w, r, err)
		return
	}
	// the rows read checked as one upsert (a month twice) in the same 422
	// as the body's problems
	if check := storage.CheckIndexRows(rows, at); len(problems) > 0 || len(check) > 0 {
		writeError(w, r, withBodyProblems(finance.InvalidInput(check), problems))
		return
	}
	p := principalOf(r.Context())
	res, err := storage.UpsertIndices(r.Context(), s.store.Pool(), rows, storage.IndexAPI,
		storage.Scope{CompanyID: p.CompanyID, UserID: p.UserID})
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, dataEnvelope{Return: true, Status: http.StatusOK, Message: "Indices stored.", Data: res})
}

// dataEnvelope is {"return", "status", "message", "data"}.
type dataEnvelope struct {
	Return  bool   `json:"return"`
	Status  int    `json:"status"`
	Message string `json:"message,omitempty"`
	Data    any    `json:"data"`
	// Warnings are what the operation did that its caller should know
	// of, as a resource write's (omitted when none).
	Warnings []finance.Problem `json:"warnings,omitempty"`
}

// parseIndexBody reads {"data": [...]}: the rows that can be read, their
// positions in data, and every problem named. err is a body that is no
// JSON object.
func parseIndexBody(body []byte) (rows []storage.IndexRow, at []int, problems []finance.Problem, err error) {
	obj, problems, err := decodeObject(body)
	if err != nil {
		return nil, nil, nil, err
	}
	for _, key := range sortedKeys(obj) {
		if key != "data" {
			problems = append(problems, finance.Problem{Field: key, Message: "unknown field"})
		}
	}
	var items []map[string]json.RawMessage
	if err := json.Unmarshal(obj["data"], &items); err != nil || items == nil {
		return nil, nil, append(problems, finance.Problem{Field: "data", Message: "must be an array of {indicator, month, rate}"}), nil
	}
	rows, at = make([]storage.IndexRow, 0, len(items)), make([]int, 0, len(items))
	for i, item := range items {
		row, ps := parseIndexItem(item)
		for _, p := range ps {
			problems = append(problems, finance.Problem{Field: fmt.Sprintf("data[%d].%s", i, p.Field), Message: p.Message})
		}
		if len(ps) == 0 {
			rows, at = append(rows, row), append(at, i)
		}
	}
	return rows, at, problems, nil
}

// parseIndexItem reads one {indicator, month, rate}; the rate may be a
// JSON number or a string.
func parseIndexItem(item map[string]json.RawMessage) (storage.IndexRow, []finance.Problem) {
	var ps []finance.Problem
	text := func(key string) string {
		raw, ok := item[key]
		if !ok || string(raw) == "null" {
			ps = append(ps, finance.Problem{Field: key, Message: "is required"})
			return ""
		}
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
		if key == "rate" && len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9') {
			return string(raw)
		}
		ps = append(ps, finance.Problem{Field: key, Message: "must be a string"})
		return ""
	}
	for key := range item {
		if key != "indicator" && key != "month" && key != "rate" {
			ps = append(ps, finance.Problem{Field: key, Message: "unknown field"})
		}
	}
	indicator, month, rate := text("indicator"), text("month"), text("rate")
	if len(ps) > 0 {
		return storage.IndexRow{}, ps
	}
	return storage.ParseIndexRow(indicator, month, rate)
}

// readjustContract is POST /financial/contracts/{id}/readjust with an
// optional {"preview": bool, "date": "YYYY-MM-DD"}: the contract is
// readjusted on date (default today in the company's time zone) as the
// nightly run would, or, with preview, shown without storing anything.
func (s *Server) readjustContract(w http.ResponseWriter, r *http.Request) {
	id, ok := pathParamID(w, r, "id")
	if !ok {
		return
	}
	preview, date, problems, err := readReadjustBody(w, r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	p := principalOf(r.Context())
	sc := storage.Scope{CompanyID: p.CompanyID, UserID: p.UserID}
	if len(problems) > 0 {
		// the readjustment checked on the fields that can be read, rolled
		// back: its own refusal (a date after today) in the same 422
		err := s.checkWrite(r.Context(), func(ctx context.Context, tx pgx.Tx) (operationAnswer, error) {
			_, _, err := storage.ReadjustContractIn(ctx, tx, sc, id, date, preview)
			return operationAnswer{}, err
		})
		writeError(w, r, withBodyProblems(err, problems))
		return
	}
	rs, used, err := s.store.ReadjustContract(r.Context(), sc, id, date, preview)
	if err != nil {
		writeError(w, r, err)
		return
	}
	views := make([]readjustView, len(rs))
	for i, r := range rs {
		views[i] = viewOf(r)
	}
	a := answerOf(preview, http.StatusOK, readjustMessage(rs),
		readjustAnswer{ContractID: id, Preview: preview, Date: used, Readjustments: views})
	writeJSON(w, a.status, a.envelope)
}

// readjustMessage says what the readjust operation did: the rent moved
// (by any of the periods done), kept (a fall not passed on), or nothing,
// and why.
func readjustMessage(rs []storage.ContractReadjustment) string {
	for _, r := range rs {
		if r.Outcome == finance.ReadjustApplied {
			return "Contract readjusted."
		}
	}
	if len(rs) == 0 {
		return "Nothing to readjust."
	}
	switch last := rs[len(rs)-1]; last.Outcome {
	case finance.ReadjustNotDue:
		return fmt.Sprintf("Not readjusted: not due (readjust_at %s, or the contract is not active).", last.ReadjustAt)
	case finance.ReadjustWaiting:
		return "Not readjusted: the index of a month it needs is not published yet (missing names it)."
	case finance.ReadjustKept:
		return "Rent kept: the index fell, and the contract passes no reduction on."
	}
	return "Contract readjusted."
}

// readjustAnswer is the data of the readjust operation: one readjustment
// per period done (several for a contract behind), or the one answer
// not_due or waiting.
type readjustAnswer struct {
	ContractID    int64          `json:"contract_id"`
	Preview       bool           `json:"preview"`
	Date          finance.Date   `json:"date"`
	Readjustments []readjustView `json:"readjustments"`
}

// readjustView is one answer with the names and number forms of the
// readjustments sub-resource: amounts as money (numbers with two places),
// the factor exact, the variation to four places; factor and variation
// null unless readjusted or kept.
type readjustView struct {
	Outcome         finance.ReadjustOutcome `json:"outcome"`
	ReadjustAt      finance.Date            `json:"readjust_at"`
	Indicator       finance.Indicator       `json:"indicator"`
	IndexUsed       *finance.Indicator      `json:"index_used"`
	Months          []finance.Month         `json:"months"`
	Missing         []finance.IndexMonth    `json:"missing"`
	Factor          *json.Number            `json:"factor"`
	Variation       *json.Number            `json:"variation"`
	OldAmount       finance.Money           `json:"old_amount"`
	NewAmount       finance.Money           `json:"new_amount"`
	NextReadjustAt  finance.Date            `json:"next_readjust_at"`
	ContractStatus  finance.ContractStatus  `json:"contract_status"`
	InvoicesUpdated []int64                 `json:"invoices_updated"`
}

func viewOf(r storage.ContractReadjustment) readjustView {
	v := readjustView{Outcome: r.Outcome, ReadjustAt: r.ReadjustAt, Indicator: r.ContractIndicator,
		Months: orEmpty(r.Months), Missing: orEmpty(r.Missing),
		OldAmount: finance.Money(r.OldAmount), NewAmount: finance.Money(r.NewAmount),
		NextReadjustAt: r.NextReadjustAt, ContractStatus: r.ContractStatus, InvoicesUpdated: orEmpty(r.InvoicesUpdated)}
	if r.Outcome == finance.ReadjustApplied || r.Outcome == finance.ReadjustKept {
		used := r.Indicator
		factor, variation := json.Number(r.Factor.String()), json.Number(r.Variation.StringFixed(4))
		v.IndexUsed, v.Factor, v.Variation = &used, &factor, &variation
	}
	return v
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// readReadjustBody reads the optional body of the readjust operation:
// preview and date as far as they can be read, and every problem of the
// body named. err is a body that is no JSON object.
func readReadjustBody(w http.ResponseWriter, r *http.Request) (preview bool, date finance.Date, problems []finance.Problem, err error) {
	body, err := readBody(w, r, maxBodyBytes)
	if err != nil || len(strings.TrimSpace(string(body))) == 0 {
		return false, finance.Date{}, nil, err
	}
	if err := checkContentType(r.Header.Get("Content-Type")); err != nil {
		return false, finance.Date{}, nil, err
	}
	obj, problems, err := decodeObject(body)
	if err != nil {
		return false, finance.Date{}, nil, err
	}
	for _, key := range sortedKeys(obj) {
		switch key {
		case "preview":
			if json.Unmarshal(obj[key], &preview) != nil {
				problems = append(problems, finance.Problem{Field: key, Message: "must be a boolean"})
			}
		case "date":
			var s string
			d, err := finance.Date{}, json.Unmarshal(obj[key], &s)
			if err == nil {
				d, err = finance.ParseDate(s)
			}
			if err != nil || d.IsZero() {
				problems = append(problems, finance.Problem{Field: key, Message: "must be a date, YYYY-MM-DD"})
				d = finance.Date{}
			}
			date = d
		default:
			problems = append(problems, finance.Problem{Field: key, Message: "unknown field"})
		}
	}
	return preview, date, problems, nil
}

// putIndicesOp describes PUT /financial/indices.
func putIndicesOp() operation {
	counts, err := reflector.SchemaFor(storage.UpsertResult{})
	if err != nil {
		panic("api: " + err.Error())
	}
	row := openapi.Object(map[string]*openapi.Schema{
		"indicator": openapi.Enum(storage.IndexIndicators...),
		"month":     {Type: "string", Pattern: `^[0-9]{4}-[0-9]{2}(-01)?$`, Description: "`YYYY-MM` or `YYYY-MM-01`."},
		"rate": {OneOf: []*openapi.Schema{decimalRef(4, false), decimalRef(4, true)}, Description: "The month's " +
			"variation in percent: at most four places, above -100 and below 10,000; a number or its decimal text."},
	}, "indicator", "month", "rate")
	rows := openapi.Array(row)
	rows.MaxItems = openapi.Int(10_000)
	return operation{
		access:  byOperator,
		tag:     "financial/indices",
		summary: "Store price-index months (operators)",
		description: "An upsert of the shared monthly variations, all rows or none (docs/api.md, \"Readjustment\"): " +
			"a month not stored is inserted, one stored with another rate is updated, an equal one is left. Any bad " +
			"row is a 422 naming `data[i].field`, and nothing is stored. Body limit 2 MiB. A company's API key is refused.",
		body: jsonBody("The months.", true, openapi.Object(map[string]*openapi.Schema{"data": rows}, "data")),
		responses: answers(map[int]*openapi.Response{http.StatusOK: jsonAnswer("What was stored.", envelope(counts, true))},
			http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType, http.StatusUnprocessableEntity),
	}
}

// readjustOp describes POST /financial/contracts/{id}/readjust.
func readjustOp() operation {
	answer, err := reflector.SchemaFor(readjustAnswer{})
	if err != nil {
		panic("api: " + err.Error())
	}
	return operation{
		tag:     "financial/contracts",
		summary: "Readjust a contract's rent, or preview it",
		description: "The contract is readjusted on `date` exactly as the nightly run would (docs/finance.md, " +
			"\"Readjustment\"); with `preview` the same writes are rolled back, so the answer is what a run would do. " +
			"One entry per period when the contract was several behind. A contract not active, or whose status is " +
			"neither `progress` nor `readjust`, is a 409.",
		body: jsonBody("Optional.", false, openapi.Object(map[string]*openapi.Schema{
			"preview": openapi.Boolean(),
			"date": {Type: "string", Format: "date", Description: "Default today in the company's time zone; a run " +
				"refuses a date after today."},
		})),
		responses: answers(map[int]*openapi.Response{http.StatusOK: jsonAnswer("The readjustments.", envelope(answer, true))},
			http.StatusNotFound, http.StatusConflict, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType,
			http.StatusUnprocessableEntity),
	}
}
