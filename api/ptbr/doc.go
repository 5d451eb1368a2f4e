// Package ptbr writes amounts, dates, months and tax ids the way pages and
// documents people read show them in Brazilian Portuguese: "R$ 1.234,56"
// and "-R$ 45,30", "24/11/2026", "março de 2024", "123.456.789-09" and
// "12.345.678/0001-95".
//
// It presents and never validates: a tax id with wrong check digits is
// punctuated all the same, and a value in no known form is shown as given.
// The receipt page (api/receipt) and the owner statement and income report
// (api/statement) write through it, so they write alike.
package ptbr
