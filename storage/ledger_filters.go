package storage

import "slices"

// The special filters of the ledger's resources; what each means is in
// docs/api.md, "Transaction filters: what each means".

// involvedIn is filter[involvedIn][]: the items debiting or crediting one
// of the parties.
func involvedIn() SpecialFilter {
	f := AnyColumnIn("involvedIn", String, "debit", "credit")
	f.Enum = Parties
	return f
}

// holds is a predicate's condition that a boolean column holds.
func holds(name string) func(*FilterSQL) string {
	return func(*FilterSQL) string { return ident(name) }
}

// equals is a predicate's condition that a column has a fixed value (a
// declared constant, never a request's).
func equals(name, value string) func(*FilterSQL) string {
	return func(*FilterSQL) string { return ident(name) + " = '" + value + "'" }
}

// transactionFilters are the special filters of /transactions, each
// meaning as docs/api.md's "Transaction filters: what each means" says.
func transactionFilters() []SpecialFilter {
	return slices.Concat(entryPredicates(), partyPredicates(), entryLists(), relatedFilters())
}

// dueOn is the date an entry is due: its due date, else its date.
const dueOn = `coalesce("due_date", "date")`

// transferModes are the modes of the entries that pay a party out.
const transferModes = `"mode" IN ('transfer', 'transfer_commission')`

// bill is an expense of the business entered by hand: a payable account.
const bill = `"type" = 'debit' AND "mode" = 'transaction'`

// EntryStatuses are the values of an entry's status (the derived column
// and filter[status]; docs/api.md, "/transactions"): paid; unpaid, not
// paid and due; void, not paid and never to be: cancelled by its reversal
// before either was paid (a run's transfer voided with its undone
// payment and its void; the void's reversal, once the bank paid the
// transfer all the same). A posted payment's entries and their reversals
// are written paid.
var EntryStatuses = []string{"paid", "unpaid", "void"}

// cancelled holds for an entry that is a reversal or is reversed, asked
// of the row itself (transaction_reversed: a subquery could not name the
// row in a column's expression).
const cancelled = `("reverses_id" IS NOT NULL OR transaction_reversed("company_id", "id"))`

// entryStatusExpr reads an entry's status (EntryStatuses).
const entryStatusExpr = `CASE WHEN "paid" THEN 'paid' WHEN ` + cancelled + ` THEN 'void' ELSE 'unpaid' END`

// entryStatusIs is filter[status]=value (the column's Equals): paid on
// the stored flag, unpaid as due, void as the expression says.
func entryStatusIs(f *FilterSQL, status string) string {
	switch status {
	case "paid":
		return `"paid"`
	case "unpaid":
		return due(f)
	case "void":
		return `NOT "paid" AND ` + cancelled
	}
	return ""
}

// due holds for an entry to be paid: status unpaid. The lists of what is
// due (unpaid, overdue, early) are made of it, with the reversals looked
// up by NOT EXISTS, which PostgreSQL runs as one anti-join over the
// partial index of reverses_id rather than a look-up per unpaid entry
// (docs/performance.md, "The entries' status").
func due(f *FilterSQL) string {
	return `NOT "paid" AND "reverses_id" IS NULL AND NOT EXISTS (SELECT 1 FROM transactions r WHERE r.company_id = ` +
		f.Company() + ` AND r.reverses_id = "transactions"."id")`
}

// entryPredicates are the boolean filters on an entry's own columns.
func entryPredicates() []SpecialFilter {
	const (
		guaranteed = `"guaranteed_transfer_id" IS NOT NULL`
		commission = `("mode" IN ('commission', 'transfer_commission') OR "commission")`
	)
	return []SpecialFilter{
		// a reversal reversed in its turn (a void transfer's void, once the
		// bank paid the transfer all the same) no longer hides its entry
		Predicate("onlyVisible", func(f *FilterSQL) string {
			c := f.Company()
			return `"reverses_id" IS NULL AND NOT EXISTS (SELECT 1 FROM transactions r WHERE r.company_id = ` + c +
				` AND r.reverses_id = "transactions"."id" AND NOT EXISTS (SELECT 1 FROM transactions rr WHERE rr.company_id = ` + c +
				` AND rr.reverses_id = r.id))`
		}),
		Predicate("transfer", constant(`"mode" = 'transfer'`)),
		Predicate("brokerTransfer", constant(`"mode" = 'transfer_commission'`)),
		Predicate("autoTransfer", constant(transferModes+` AND "user_id" IS NULL`)),
		Predicate("manualTransfer", constant(transferModes+` AND "user_id" IS NOT NULL`)),
		Predicate("bill", constant(bill)),
		Predicate("billPayment", constant(bill+` AND "paid"`)),
		Predicate("unpaid", due),
		Predicate("paidOrGuaranteed", constant(`"paid" OR `+guaranteed)),
		Predicate("paidGuaranteedOrTransfer", constant(`"paid" OR `+guaranteed+` OR `+transferModes)),
		Predicate("isNotInvoice", constant(`"invoice_id" IS NULL`)),
		Predicate("onlyInvoice", constant(`"invoice_id" IS NOT NULL`)),
		Predicate("onlyAllowed", func(f *FilterSQL) string {
			return `"user_id" IS NULL OR "user_id" = ` + f.User()
		}),
		Predicate("overdue", func(f *FilterSQL) string { return due(f) + ` AND ` + pastDue(dueOn, f) }),
		Predicate("early", func(f *FilterSQL) string { return due(f) + ` AND ` + notYetDue(dueOn, f) }),
		Predicate("brokerCommission", constant(commission+` AND "extract" = 'broker'`)),
		ColumnMin("positionMin", "position", Int),
		ColumnMax("positionMax", "position", Int),
	}
}

// partyPredicates are the statement filters (for<Party>) and the plan
// filters (<party>Plan).
func partyPredicates() []SpecialFilter {
	return []SpecialFilter{
		Predicate("forBusiness", constant(`"extract" = 'business'`)),
		Predicate("forOwner", constant(`"extract" = 'owner'`)),
		Predicate("forBroker", constant(`"extract" = 'broker'`)),
		Predicate("forTenant", constant(`"extract" = 'customer' AND "tenant_id" IS NOT NULL`)),
		Predicate("forPayer", constant(`"extract" = 'customer' AND "person_id" IS NOT NULL`)),
		Predicate("ownerPlan", partyPlan("owner")),
		Predicate("brokerPlan", partyPlan("broker")),
		Predicate("tenantPlan", partyPlan("customer")),
	}
}

// partyPlan: the entry's plan is one the item catalogue books party's side
// to (the debit plan of an item debiting party, or the credit plan of one
// crediting it). party is a declared constant.
func partyPlan(party string) func(*FilterSQL) string {
	return func(f *FilterSQL) string {
		c := f.Company()
		return `"plan_id" IN (SELECT debit_plan_id FROM transaction_items WHERE company_id = ` + c +
			` AND debit = '` + party + `' UNION SELECT credit_plan_id FROM transaction_items WHERE company_id = ` + c +
			` AND credit = '` + party + `')`
	}
}

// constant is a condition without placeholders.
func constant(sql string) func(*FilterSQL) string {
	return func(*FilterSQL) string { return sql }
}

// entryLists are the In-filters on an entry's own columns.
func entryLists() []SpecialFilter {
	typeInvoiceIn := SpecialFilter{Name: "typeInvoiceIn", Elem: String, Enum: EntryTypes, Condition: func(f *FilterSQL) string {
		return `"invoice_id" IS NOT NULL AND "type" = any(` + f.Value() + `)`
	}}
	return []SpecialFilter{
		ColumnIn("guaranteedTransferIn", "guaranteed_transfer_id", Int),
		ColumnIn("haveTransfer", "transfer_id", Int),
		ColumnIn("personIn", "person_id", Int),
		ColumnIn("tenantIn", "tenant_id", Int),
		ColumnIn("ownerIn", "owner_id", Int),
		ColumnIn("brokerIn", "broker_id", Int),
		ColumnIn("buildingIn", "building_id", Int),
		ColumnIn("accountIn", "account_id", Int),
		ColumnIn("businessIn", "business_id", Int),
		{Name: "businessAllowedIn", Elem: Int, Condition: func(f *FilterSQL) string {
			return `"business_id" IS NULL OR "business_id" = any(` + f.Value() + `)`
		}},
		ColumnIn("itemIn", "item_id", Int),
		ColumnIn("planIn", "plan_id", Int),
		TreeIn("planAllIn", "plan_id", "plans", "parent_id"),
		ColumnIn("contractIn", "contract_id", Int),
		ColumnIn("invoiceIn", "invoice_id", Int),
		ArrayOverlap("tagIn", "tag"),
		ColumnIn("billIdIn", "id", Int),
		EnumIn("typeIn", "type", EntryTypes),
		typeInvoiceIn,
		EnumIn("modeIn", "mode", EntryModes),
		EnumIn("billingMethodIn", "billing_method", BillingMethods),
		EnumIn("extractIn", "extract", Parties),
	}
}

// relatedFilters look at the item, contract or invoice an entry points at.
func relatedFilters() []SpecialFilter {
	contractActiveIn := Through("contractActiveIn", String, "contract_id", "contracts", "id", "active")
	contractActiveIn.Enum = ContractActivities
	contractTypeIn := Through("contractTypeIn", String, "contract_id", "contracts", "id", "type")
	contractTypeIn.Enum = ContractTypes
	itemType := Through("itemType", String, "item_id", "transaction_items", "id", "type")
	itemType.Enum = ItemTypes
	invoice := func(cond func(f *FilterSQL) string) func(*FilterSQL) string {
		return func(f *FilterSQL) string { return Related(f, "invoice_id", "invoices", cond(f)) }
	}
	return []SpecialFilter{
		Through("contractIdIn", Int, "contract_id", "contracts", "id", "id2"),
		contractActiveIn,
		contractTypeIn,
		itemType,
		Predicate("itemListOwnerReport", func(f *FilterSQL) string {
			return Related(f, "item_id", "transaction_items", `"owner_report"`)
		}),
		{Name: "invoiceIdIn", Elem: Int, Condition: invoice(func(f *FilterSQL) string {
			return `"id2" = any(` + f.Value() + `::text[])`
		})},
		Predicate("invoiceTypeIn", invoice(constant(`"type" = 'single'`))),
		Scalar("invoiceStatus", String, InvoiceStatuses, invoice(func(f *FilterSQL) string {
			return `CASE WHEN "status" = 'unpaid' AND "due_date" < ` + f.Today() + ` THEN 'overdue' ELSE "status" END = ` + f.Value()
		})),
		Scalar("ticketRegister", String, []string{"registered", "unregistered"}, invoice(func(f *FilterSQL) string {
			return `"ticket_registered" = (` + f.Value() + ` = 'registered')`
		})),
		Scalar("invoicePaidIn", String, []string{"paid", "unpaid"}, invoice(func(f *FilterSQL) string {
			return `"paid" = (` + f.Value() + ` = 'paid')`
		})),
		// extension: the entries of payment batches (docs/api.md, "Payment batches")
		Through("paymentBatchIn", Int, "id", "payment_batch_transactions", "transaction_id", "batch_id"),
	}
}
