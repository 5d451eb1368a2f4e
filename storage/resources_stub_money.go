package storage

// Read-only stand-ins for the invoices and contracts resources, declared
// so that the ledger's includes (`invoice`, `contract`) and references
// (invoice_id, contract_id) have a resource to point at. The full
// declarations replace them.

// invoicesResource is a read-only stand-in for the invoices resource: the
// columns the ledger's filters and includes look at.
func invoicesResource() *Resource {
	return &Resource{
		Name: "invoices", Table: "invoices", ReadOnly: true,
		Columns: []Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "id2", Type: String, Filterable: true},
			{Name: "type", Type: String, Filterable: true},
			{Name: "payer_id", Type: Int, Filterable: true},
			{Name: "contract_id", Type: Int, Filterable: true},
			{Name: "status", Type: String, Filterable: true},
			{Name: "paid", Type: Bool, Filterable: true},
			{Name: "description", Type: String, Filterable: true},
			{Name: "total", Type: Decimal, Filterable: true, Precision: 14, Scale: 2},
			{Name: "date", Type: Date, Filterable: true},
			{Name: "due_date", Type: Date, Filterable: true},
			{Name: "ticket_registered", Type: Bool, Filterable: true},
		},
	}
}

// contractsResource is a read-only stand-in for the contracts resource.
func contractsResource() *Resource {
	return &Resource{
		Name: "contracts", Table: "contracts", ReadOnly: true,
		Columns: []Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "id2", Type: Int, Filterable: true},
			{Name: "reference", Type: String, Filterable: true},
			{Name: "type", Type: String, Filterable: true},
			{Name: "active", Type: String, Filterable: true},
			{Name: "building_id", Type: Int, Filterable: true},
			{Name: "tenant_id", Type: Int, Filterable: true},
		},
	}
}
