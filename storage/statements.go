package storage

import "github.com/propfin/propfin/finance/statement"

// The owners' monthly statements (prestação de contas), closed by the
// owners:statements job (statements_close.go) and read through
// /financial/ownerStatements, read-only: docs/ledger.md, "Owner
// statements"; docs/api.md, "Owner statements". The rule that refuses
// changing the entries of a closed month is in statements_rules.go.

// Resource names of the owners' statements.
const (
	OwnerStatements     = "owner_statements"
	OwnerStatementLines = "owner_statement_lines"
)

// StatementSections are where a statement's line is shown; StatementKinds
// what its entry is (an adjustment's kind is the section it corrects).
var (
	StatementSections = sectionNames(statement.Sections)
	StatementKinds    = sectionNames(statement.Sections[:len(statement.Sections)-1])
)

func sectionNames(sections []statement.Section) []string {
	out := make([]string, len(sections))
	for i, s := range sections {
		out[i] = string(s)
	}
	return out
}

// shownLines are the lines the owner sees, in the statement's order.
const shownLines = `NOT "hidden"`

func ownerStatementsResource() *Resource {
	money := func(name string) Column {
		return Column{Name: name, Type: Decimal, Filterable: true, Precision: 16, Scale: 2}
	}
	return &Resource{
		Name: OwnerStatements, Table: "owner_statements", ReadOnly: true,
		Columns: []Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "owner_id", Type: Int, Filterable: true},
			{Name: "business_id", Type: Int, Filterable: true},
			{Name: "month", Type: String, Filterable: true, FilterCheck: CheckMonthText},
			money("opening"),
			money("closing"),
			money("income"),
			money("deductions"),
			money("guarantee"),
			money("transfers"),
			money("adjustments"),
			{Name: "shown_lines", Type: Int, Filterable: true},
			{Name: "hidden_lines", Type: Int, Filterable: true},
			money("hidden_amount"),
			{Name: "job_id", Type: Int, Filterable: true},
			{Name: "closed_at", Type: DateTime, Filterable: true},
		},
		Relations: []Relation{
			{Name: "owner", Kind: BelongsTo, Resource: Persons, Key: "owner_id"},
			{Name: "business", Kind: BelongsTo, Resource: Businesses, Key: "business_id"},
			{Name: "lines", Kind: HasMany, Resource: OwnerStatementLines, Key: "statement_id", Where: shownLines, Order: `"position"`},
			{Name: "hiddenLines", Kind: HasMany, Resource: OwnerStatementLines, Key: "statement_id", Where: `"hidden"`, Order: `"position"`},
		},
	}
}

// ownerStatementLinesResource is read through its statement's includes.
func ownerStatementLinesResource() *Resource {
	return &Resource{
		Name: OwnerStatementLines, Table: "owner_statement_lines", ReadOnly: true,
		Columns: []Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "statement_id", Type: Int, Filterable: true},
			{Name: "position", Type: Int, Filterable: true},
			{Name: "transaction_id", Type: Int, Filterable: true},
			{Name: "section", Type: String, Filterable: true, Enum: StatementSections},
			{Name: "kind", Type: String, Filterable: true, Enum: StatementKinds},
			{Name: "date", Type: Date, Filterable: true},
			{Name: "description", Type: String, Filterable: true},
			{Name: "amount", Type: Decimal, Filterable: true, Precision: 14, Scale: 2},
			{Name: "contract_id", Type: Int, Filterable: true},
			{Name: "building_id", Type: Int, Filterable: true},
			{Name: "invoice_id", Type: Int, Filterable: true},
			{Name: "item_id", Type: Int, Filterable: true},
			{Name: "item_type", Type: String, Filterable: true},
			{Name: "corrects_month", Type: String, Filterable: true, FilterCheck: CheckMonthText},
			{Name: "hidden", Type: Bool, Filterable: true},
			{Name: "destination", Type: String, Filterable: true},
			{Name: "billing_method", Type: String, Filterable: true},
		},
		Relations: []Relation{
			{Name: "statement", Kind: BelongsTo, Resource: OwnerStatements, Key: "statement_id"},
			{Name: "transaction", Kind: BelongsTo, Resource: Transactions, Key: "transaction_id"},
		},
	}
}
