package storage

// The declared resources. Each declaration drives list, get, create, update
// and delete; the API maps paths to them. Each area declares its own in the
// file of its name (contracts.go, invoices.go, batches_ticket.go, ...);
// this is the list of them all.

// Resources returns fresh declarations of every resource, so that callers
// (tests among them) may add their own before building a registry.
func Resources() []*Resource {
	return []*Resource{
		statesResource(),
		buildingCategoriesResource(),
		buildingTypesResource(),
		constructorsResource(),
		buildingsResource(),
		jobsResource(),
		operatorJobsResource(),
		operatorCompaniesResource(),
		operatorAPIKeysResource(),
		personsResource(),
		businessesResource(),
		accountsResource(),
		plansResource(),
		billingsResource(),
		tagsResource(),
		buildingOwnersResource(),
		contractsResource(),
		contractDocumentsResource(),
		contractVehiclesResource(),
		contractOccupantsResource(),
		contractItemsResource(),
		contractFilesResource(),
		contractInspectionsResource(),
		contractInsurancesResource(),
		usersResource(),
		teamsResource(),
		teamUsersResource(),
		userGroupsResource(),
		userGroupUsersResource(),
		userGroupPermissionsResource(),
		userGroupBuildingsResource(),
		userGroupPersonsResource(),
		condominiumsResource(),
		condominiumGroupsResource(),
		condominiumPurposesResource(),
		condominiumUnitsResource(),
		condominiumRelatedResource(),
		condominiumDetailsResource(),
		countriesResource(),
		citiesResource(),
		districtsResource(),
		funnelsResource(),
		funnelStepsResource(),
		dealsResource(),
		dealStepHistoryResource(),
		calendarsResource(),
		eventsResource(),
		eventFilesResource(),
		eventFeedbacksResource(),
		transactionItemsResource(),
		transactionsResource(),
		transactionFilesResource(),
		invoicesResource(),
		invoiceItemsResource(),
		invoiceFilesResource(),
		invoiceMessagesResource(),
		invoiceHistoryResource(),
		invoicePaymentsResource(),
		priceIndicesResource(),
		contractReadjustmentsResource(),
		ticketBatchesResource(),
		ticketBatchInvoicesResource(),
		paymentBatchesResource(),
		paymentBatchTransactionsResource(),
		dimobRunsResource(),
		ownerStatementsResource(),
		ownerStatementLinesResource(),
		remindersResource(),
		webhooksResource(),
		webhookEventsResource(),
		webhookDeliveriesResource(),
		agreementsResource(),
		overPaymentsResource(),
	}
}

// DefaultRegistry is the registry of every declared resource.
func DefaultRegistry() *Registry {
	reg, err := NewRegistry(Resources()...)
	if err != nil {
		panic("storage: invalid resource declarations: " + err.Error())
	}
	return reg
}
