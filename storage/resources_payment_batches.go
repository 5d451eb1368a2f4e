package storage

// The payment batches (/financial/paymentBatch, docs/api.md "Payment
// batches"): created, read, described and deleted through the resource
// machinery like the collection batches, with the same columns and
// filters (batchColumns, batchFilters); their members change through the
// batch operations (payment_batches.go).

// Resource names of the payment batches.
const (
	PaymentBatches           = "payment_batches"
	PaymentBatchTransactions = "payment_batch_transactions"
)

// paymentStates are the states of a payment in its batch, as read.
var paymentStates = []string{"added", "sent", "reverted", "paid", "failed", "cancelled"}

// paymentStateExpr reads a payment's state: one stored added is sent once
// its batch's file is written (the batch closed), which writes no payment
// row.
const paymentStateExpr = `CASE WHEN "state" = 'added' AND EXISTS (SELECT 1 FROM payment_batches b ` +
	`WHERE b.company_id = "payment_batch_transactions"."company_id" AND b.id = "payment_batch_transactions"."batch_id" ` +
	`AND b.status = 'closed') THEN 'sent' ELSE "state" END`

// paymentMethods are the ways a payment is made.
var paymentMethods = []string{MethodTransfer, MethodPIXAccount, MethodPIXKey, MethodBoleto}

func paymentBatchesResource() *Resource { return batchResource(PaymentBatch, PaymentBatchTransactions) }

// paymentBatchTransactionsResource is the read side of a payment batch's
// members (include[items] of a batch): each ledger entry with its payment
// as the bank has it, its state in the batch and what the bank's return
// files said of it.
func paymentBatchTransactionsResource() *Resource {
	money := func(name string) Column {
		return Column{Name: name, Type: Decimal, Precision: 14, Scale: 2, Filterable: true}
	}
	text := func(name string) Column { return Column{Name: name, Type: String, Filterable: true} }
	return &Resource{
		Name: PaymentBatchTransactions, Table: "payment_batch_transactions", ReadOnly: true,
		Columns: columns([]Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "batch_id", Type: Int, Filterable: true},
			{Name: "transaction_id", Type: Int, Filterable: true},
			{Name: "state", Type: String, Filterable: true, Enum: paymentStates, Stored: true, Expr: paymentStateExpr},
			text("reference"),
			{Name: "method", Type: String, Filterable: true, Enum: paymentMethods},
			money("amount"), money("nominal"), money("discount"), money("surcharge"),
			{Name: "due_date", Type: Date, Filterable: true},
			text("payee_name"), text("payee_document"), text("bank"), text("ispb"), text("agency"), text("agency_digit"),
			text("account"), text("account_digit"), text("account_type"), text("pix_key"), text("pix_key_type"),
			text("barcode"), text("bank_number"),
			{Name: "paid_at", Type: Date, Filterable: true},
			money("paid_amount"),
			text("info"),
			{Name: "reverted_at", Type: DateTime, Filterable: true},
			// the batch whose file asked the bank to cancel the payment
			{Name: "cancel_batch_id", Type: Int, Filterable: true},
		}, timestampColumns()),
		Relations: []Relation{
			{Name: "transaction", Kind: BelongsTo, Resource: Transactions, Key: "transaction_id"},
			{Name: "batch", Kind: BelongsTo, Resource: PaymentBatches, Key: "batch_id"},
		},
	}
}
