package storage

// The collection batches (/financial/ticketBatch, docs/api.md "Batches"):
// created, read, described and deleted through the resource machinery;
// their members change through the batch operations (ticket_batches.go).

// Resource names of the batches.
const (
	TicketBatches       = "ticket_batches"
	TicketBatchInvoices = "ticket_batch_invoices"
)

// batchStatuses are a batch's states: open until its file is written.
var batchStatuses = []string{"open", "closed"}

// batchColumns are the columns every kind of batch has: its account (the
// bank account the file goes to, set on create), its status, how many
// titles it holds and their total, and its file's sequence number and
// name once written.
func batchColumns() []Column {
	return columns([]Column{
		{Name: "id", Type: Int, Filterable: true},
		{Name: "description", Type: String, Filterable: true, Writable: true},
		{Name: "account_id", Type: Int, Filterable: true, Writable: true, Required: true, CreateOnly: true, References: Accounts},
		{Name: "status", Type: String, Filterable: true, Enum: batchStatuses},
		{Name: "titles", Type: Int, Filterable: true},
		{Name: "total", Type: Decimal, Precision: 16, Scale: 2, Filterable: true},
		{Name: "file_sequence", Type: Int, Filterable: true},
		{Name: "file_name", Type: String, Filterable: true},
		{Name: "closed_at", Type: DateTime, Filterable: true},
	}, timestampColumns())
}

// batchFilters are the special filters every kind of batch has.
func batchFilters() []SpecialFilter {
	return []SpecialFilter{
		ColumnIn("accountIn", "account_id", Int),
		enumIn(ColumnIn("statusIn", "status", String), batchStatuses),
	}
}

func ticketBatchesResource() *Resource { return batchResource(TicketBatch, TicketBatchInvoices) }

// batchResource declares the batches of a kind: their shared columns and
// filters, their account, their members (items, the resource given), and
// the kind's rules.
func batchResource(bt *BatchType, members string) *Resource {
	return &Resource{
		Name: bt.Resource, Table: bt.Table, CustomFields: true,
		Columns: batchColumns(),
		Relations: []Relation{
			{Name: "account", Kind: BelongsTo, Resource: Accounts, Key: "account_id"},
			{Name: "items", Kind: HasMany, Resource: members, Key: "batch_id"},
		},
		Filters: batchFilters(),
		Hooks: Hooks{
			Before: []Hook{checkBatchAccount(bt), deleteBatch(bt)},
		},
	}
}

// ticketBatchInvoicesResource is the read side of a collection batch's
// members (include[items] of a batch): each invoice with its title as the
// bank has it and its state in the batch.
func ticketBatchInvoicesResource() *Resource {
	return &Resource{
		Name: TicketBatchInvoices, Table: "ticket_batch_invoices", ReadOnly: true,
		Columns: columns([]Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "batch_id", Type: Int, Filterable: true},
			{Name: "invoice_id", Type: Int, Filterable: true},
			{Name: "account_id", Type: Int, Filterable: true},
			// added reads sent once the batch's file is written
			{Name: "state", Type: String, Filterable: true, Enum: []string{"added", "sent", "reverted", "rejected", "written_off"},
				Expr: `CASE WHEN "state" = 'added' AND EXISTS (SELECT 1 FROM ticket_batches tb
					WHERE tb.company_id = "ticket_batch_invoices"."company_id" AND tb.id = "ticket_batch_invoices"."batch_id"
					AND tb.status = 'closed') THEN 'sent' ELSE "state" END`},
			{Name: "our_number", Type: Int, Filterable: true},
			{Name: "nosso_numero", Type: String, Filterable: true},
			{Name: "nosso_numero_digit", Type: String, Filterable: true},
			{Name: "document_number", Type: String, Filterable: true},
			{Name: "amount", Type: Decimal, Precision: 14, Scale: 2, Filterable: true},
			{Name: "due_date", Type: Date, Filterable: true},
			{Name: "fine_percent", Type: Decimal, Precision: 5, Scale: 2, Filterable: true},
			{Name: "interest_per_day", Type: Decimal, Precision: 14, Scale: 2, Filterable: true},
			{Name: "interest_monthly_percent", Type: Decimal, Precision: 5, Scale: 2, Filterable: true},
			{Name: "discount", Type: Decimal, Precision: 14, Scale: 2, Filterable: true},
			{Name: "discount_until", Type: Date, Filterable: true},
			{Name: "reverted_at", Type: DateTime, Filterable: true},
			// the batch whose file asked the bank to drop the title
			{Name: "drop_batch_id", Type: Int, Filterable: true},
		}, timestampColumns()),
		Relations: []Relation{
			{Name: "invoice", Kind: BelongsTo, Resource: Invoices, Key: "invoice_id"},
			{Name: "batch", Kind: BelongsTo, Resource: TicketBatches, Key: "batch_id"},
		},
	}
}
