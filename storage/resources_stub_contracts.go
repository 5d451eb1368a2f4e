package storage

// Contracts is the resource name of the financial contracts.
const Contracts = "contracts"

// contractsResource is a minimal, read-only declaration of the contracts
// invoices point at (contract_id, include[contract], the contract
// filters); the contracts resource completes it.
func contractsResource() *Resource {
	return &Resource{
		Name: Contracts, Table: "contracts", ReadOnly: true,
		Columns: columns([]Column{
			{Name: "id", Type: Int, Filterable: true},
			{Name: "id2", Type: Int, Filterable: true},
			{Name: "reference", Type: String, Filterable: true},
			{Name: "type", Type: String, Filterable: true},
			{Name: "active", Type: String, Filterable: true},
			{Name: "building_id", Type: Int, Filterable: true},
			{Name: "tenant_id", Type: Int, Filterable: true},
		}, timestampColumns()),
	}
}
