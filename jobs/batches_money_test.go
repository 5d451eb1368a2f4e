package jobs

import (
	"encoding/json"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// TestReturnLineAmountsAreMoney: a return file's report writes the amounts
// of a line as money, numbers with two decimal places, and leaves out
// those not given.
func TestReturnLineAmountsAreMoney(t *testing.T) {
	t.Parallel()
	amount := func(s string) *decimal.Decimal { d := decimal.RequireFromString(s); return &d }
	tests := []struct {
		name string
		line storage.ReturnLine
		want string
	}{
		{"paid with interest", storage.ReturnLine{Line: 9, Outcome: "paid", MemberID: 814,
			Paid: amount("152"), Expected: amount("150.0"), Difference: amount("2")},
			`{"line":9,"transaction_id":814,"outcome":"paid","paid":152.00,"expected":150.00,"difference":2.00}`},
		{"paid less", storage.ReturnLine{Line: 3, Outcome: "paid", Paid: amount("0.5"), Expected: amount("2.60"), Difference: amount("-2.10")},
			`{"line":3,"outcome":"paid","paid":0.50,"expected":2.60,"difference":-2.10}`},
		{"no amounts", storage.ReturnLine{Line: 4, Code: "03", Outcome: "rejected"},
			`{"line":4,"code":"03","outcome":"rejected"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := string(appendReturnLine(nil, "transaction_id", tc.line))
			if got != tc.want {
				t.Errorf("line\n%s\nwant\n%s", got, tc.want)
			}
			if !json.Valid([]byte(got)) {
				t.Errorf("not JSON: %s", got)
			}
		})
	}
}

// TestFileResultTotalIsMoney: a batch:file result's total is money, and a
// result stored by an older version (the total as text) reads back.
func TestFileResultTotalIsMoney(t *testing.T) {
	t.Parallel()
	res := BatchFileResult{Batch: "payment", BatchID: 7, FileReport: FileReport{Titles: 4,
		Total: finance.Money(decimal.RequireFromString("3860.5")), Warnings: []FileWarning{}}}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"batch":"payment","batch_id":7,"file_id":0,"sequence":0,"name":"","bytes":0,"titles":4,"total":3860.50,"warnings":[]}`
	if string(b) != want {
		t.Errorf("result\n%s\nwant\n%s", b, want)
	}
	for _, stored := range []string{want, `{"titles":4,"total":"3860.5"}`, `{"titles":4,"total":"3860.50"}`} {
		var back BatchFileResult
		if err := json.Unmarshal([]byte(stored), &back); err != nil || back.Total.String() != "3860.50" {
			t.Errorf("%s read back as %s, %v", stored, back.Total, err)
		}
	}
}
