package api

import (
	"net/http"
	"strings"

	"github.com/propfin/propfin/api/reference"
	"github.com/propfin/propfin/jobs"
	"github.com/propfin/propfin/storage"
)

// The route table: every route of the API, each with the operation that
// describes it in the OpenAPI document (docs/api.md, "Routes"). The
// operations and the handlers are kept beside each other in the files of
// their areas; this file only says which path and method serve which.

// route mounts the CRUD operations of a declared resource on a path.
type route struct {
	path     string
	resource string
}

// resourceRoutes maps each CRUD path of the API to its declared resource.
var resourceRoutes = []route{
	{"/buildings/types", storage.BuildingTypes},
	{"/buildings/categories", storage.BuildingCategories},
	{"/buildings/constructors", storage.Constructors},
	// extension resources (docs/api.md)
	{"/buildings", storage.Buildings},
	{"/buildings/:building/owners", storage.BuildingOwners},
	{"/persons", storage.Persons},
	{"/financial/businesses", storage.Businesses},
	{"/financial/accounts", storage.Accounts},
	{"/financial/plans", storage.Plans},
	{"/financial/billings", storage.Billings},
	{"/tags", storage.Tags},
	// the ledger
	{"/financial/transactionItems", storage.TransactionItems},
	{"/transactions", storage.Transactions},
	{"/transactions/:transaction/files", storage.TransactionFiles},
	// spec 001
	{"/invoices", storage.Invoices},
	{"/invoices/:invoice/files", storage.InvoiceFiles},
	{"/invoices/:invoice/messages", storage.InvoiceMessages},
	{"/invoices/:invoice/history", storage.InvoiceHistory},
	// extension (docs/api.md, "Part payments"): read-only; a part is paid and undone below
	{"/invoices/:invoice/payments", storage.InvoicePayments},
	{"/financial/contracts", storage.Contracts},
	{"/financial/contracts/:contract/vehicles", storage.ContractVehicles},
	{"/financial/contracts/:contract/occupants", storage.ContractOccupants},
	{"/financial/contracts/:contract/items", storage.ContractItems},
	// extensions (docs/api.md, "Contracts")
	{"/financial/contracts/:contract/files", storage.ContractFiles},
	{"/financial/contracts/:contract/inspects", storage.ContractInspections},
	{"/financial/contracts/:contract/insurances", storage.ContractInsurances},
	// readjustment (docs/api.md, "Readjustment"): read-only
	{"/financial/indices", storage.PriceIndices},
	{"/financial/contracts/:contract/readjustments", storage.ContractReadjustments},
	// collection batches (docs/api.md, "Batches"); their operations are batchRoutes'
	{"/financial/ticketBatch", storage.TicketBatches},
	// payment batches (docs/api.md, "Payment batches"), likewise
	{"/financial/paymentBatch", storage.PaymentBatches},
	// the owners' statements (docs/api.md, "Owner statements"): read-only; the link and the page are below
	{"/financial/ownerStatements", storage.OwnerStatements},
	// the billing reminders sent (docs/api.md, "Billing reminders"): read-only
	{"/financial/reminders", storage.Reminders},
	// spec 000
	{"/condominiums", storage.Condominiums},
	{"/users/teams", storage.Teams},
	{"/users/teams/:team/users", storage.TeamUsers},
	{"/users/groups", storage.UserGroups},
	// extensions (docs/api.md, "Condominiums", "Users, user teams and user groups")
	{"/condominiums/:condominium/units", storage.CondominiumUnits},
	{"/condominiums/:condominium/related", storage.CondominiumRelated},
	{"/condominiums/details", storage.CondominiumDetails},
	{"/locations/countries", storage.Countries},
	{"/locations/cities", storage.Cities},
	{"/locations/districts", storage.Districts},
	{"/users", storage.Users},
	{"/users/groups/:group/users", storage.UserGroupUsers},
	{"/users/groups/:group/permissions", storage.UserGroupPermissions},
	{"/users/groups/:group/buildings", storage.UserGroupBuildings},
	{"/users/groups/:group/persons", storage.UserGroupPersons},
	// spec 000: calendar events (docs/api.md, "Calendar events")
	{"/events", storage.Events},
	{"/events/:event/files", storage.EventFiles},
	{"/events/:event/feedbacks", storage.EventFeedbacks},
	{"/calendars", storage.Calendars},
	// deals, funnels and steps; the conversion reports are in routeTable
	{"/funnels", storage.Funnels},
	{"/funnels/:funnel/steps", storage.FunnelSteps},
	{"/deals", storage.Deals},
	// webhooks (docs/api.md, "Webhooks"): the events and the deliveries,
	// read-only; the endpoints' routes are webhookRoutes' (webhooks.go)
	{"/webhookEvents", storage.WebhookEvents},
	{"/webhooks/:webhook/deliveries", storage.WebhookDeliveries},
}

// subResourcePath is the path (as the documents write it,
// /financial/contracts/{contract}/items) of res's sub-resource named field,
// when it has one: a body giving it is told where it is written.
func subResourcePath(reg *storage.Registry, res *storage.Resource, field string) (string, bool) {
	if reg == nil {
		return "", false
	}
	for _, r := range resourceRoutes {
		sub, ok := reg.Resource(r.resource)
		if !ok || sub.Parent == nil || sub.Parent.Resource != res.Name || !strings.HasSuffix(r.path, "/"+field) {
			continue
		}
		segments := strings.Split(r.path, "/")
		for i, seg := range segments {
			if name, isParam := strings.CutPrefix(seg, ":"); isParam {
				segments[i] = "{" + name + "}"
			}
		}
		return strings.Join(segments, "/"), true
	}
	return "", false
}

// deleteRoutes are resources whose records are written through another
// resource and read through its includes, with a DELETE of their own
// (`DELETE /condominiums/groups/{id}`, spec 000).
var deleteRoutes = []route{
	{"/condominiums/groups", storage.CondominiumGroups},
}

// batchRoute is a kind of batch and its path.
type batchRoute struct {
	path string
	kind *jobs.BatchKind
}

// batchRoutes are the kinds of batch and their paths; each has the batch
// operations (batches.go) besides its CRUD routes.
var batchRoutes = []batchRoute{
	{"/financial/ticketBatch", jobs.TicketBatchKind},
	{"/financial/paymentBatch", jobs.PaymentBatchKind},
}

// routeTable registers every route with its operation (docs/api.md,
// "Routes" and "OpenAPI").
func (s *Server) routeTable() *router {
	router := newRouter(s.guard)
	router.HandleFunc(http.MethodGet, "/healthz", healthzOp, s.healthz)
	router.HandleFunc(http.MethodHead, "/healthz", healthzOp, s.healthz)
	router.HandleFunc(http.MethodGet, "/readyz", readyzOp, s.readyz)

	// The declared resources' CRUD (handlers.go, openapi_resources.go).
	reg := s.store.Registry()
	for _, rt := range s.routes {
		res := reg.MustResource(rt.resource)
		h := resourceHandlers{store: s.store, reads: s.reads, res: res, path: rt.path, parentParam: parentParam(rt.path)}
		if (h.parentParam != "") != (res.Parent != nil) {
			panic("api: " + rt.path + ": a sub-resource's path, and only its path, names its parent's parameter")
		}
		doc := resourceDoc{reg: reg, res: res, path: rt.path}
		router.HandleFunc(http.MethodGet, rt.path, doc.list(), h.list)
		router.HandleFunc(http.MethodGet, rt.path+"/:id", doc.get(), h.get)
		if res.ReadOnly { // no write route: the router answers them 405
			continue
		}
		router.HandleFunc(http.MethodPost, rt.path, doc.create(), h.create)
		router.HandleFunc(http.MethodPut, rt.path+"/:id", doc.update(), h.update)
		router.HandleFunc(http.MethodDelete, rt.path+"/:id", doc.delete(), h.delete)
	}
	for _, rt := range deleteRoutes {
		h := resourceHandlers{store: s.store, reads: s.reads, res: reg.MustResource(rt.resource), path: rt.path}
		router.HandleFunc(http.MethodDelete, rt.path+"/:id", resourceDoc{reg: reg, res: h.res, path: rt.path}.delete(), h.delete)
	}

	// Jobs (jobs.go): reads through the declared resource, on the primary.
	jobReads, jobDoc := s.jobReads()
	router.HandleFunc(http.MethodGet, "/jobs", jobDoc.list(), jobReads.list)
	router.HandleFunc(http.MethodGet, "/jobs/:id", jobDoc.get(), jobReads.get)
	router.HandleFunc(http.MethodPost, "/jobs", s.startJobOp(), s.startJob)
	router.HandleFunc(http.MethodPost, "/jobs/:id/cancel", cancelJobOp(), s.cancelJob)
	router.HandleFunc(http.MethodPost, "/jobs/:id/retry", retryJobOp(), s.retryJob)
	router.HandleFunc(http.MethodPost, "/pix/validate", validatePixOp(), s.validatePix)

	// The operations of spec 001 that are not CRUD (invoices_pix.go,
	// invoices_refund.go, invoices_payments.go, receipts.go, invoices_create.go, transfers_void.go), the readjustment (readjust.go), the
	// termination (contracts_terminate.go) and the settings (settings.go). The receipt page takes no API key: the
	// signed token is the credential.
	router.HandleFunc(http.MethodPost, "/invoices/:invoice_id/pixCode", pixCodeOp, s.setPixCode)
	router.HandleFunc(http.MethodPost, "/invoices/:invoice_id/refund", invoiceOperationOp(true), s.refundInvoice)
	router.HandleFunc(http.MethodPost, "/invoices/:invoice_id/writeOff", invoiceOperationOp(false), s.writeOffInvoice)
	router.HandleFunc(http.MethodPost, "/invoices/:invoice/payments", payInvoicePartOp(), s.payInvoicePart)
	router.HandleFunc(http.MethodDelete, "/invoices/:invoice/payments/:id", undoInvoicePartOp(), s.undoInvoicePart)
	router.HandleFunc(http.MethodGet, "/invoices/:invoice_id/receiptLink", receiptLinkOp("invoices", "invoice"), s.invoiceReceiptLink)
	router.HandleFunc(http.MethodGet, "/transactions/:id/receiptLink", receiptLinkOp("transactions", "ledger entry"), s.transactionReceiptLink)
	router.HandleFunc(http.MethodPost, "/transactions/:id/void", voidTransferOp(), s.voidTransfer)
	router.HandleFunc(http.MethodPost, "/financial/contracts/:id/invoicesCreate", invoicesCreateOp(), s.invoicesCreate)
	router.Handle(http.MethodGet, receiptPath+":token", receiptPageOp, s.receiptPage())
	if s.console != nil { // the indices are every company's: operators write them
		router.HandleFunc(http.MethodPut, "/financial/indices", putIndicesOp(), s.putIndices)
	}
	router.HandleFunc(http.MethodPost, "/financial/contracts/:id/readjust", readjustOp(), s.readjustContract)
	router.HandleFunc(http.MethodPost, "/financial/contracts/:id/terminate", terminateOp(), s.terminateContract)
	router.HandleFunc(http.MethodGet, "/financial/settings", settingsOp(false), s.getSettings)
	router.HandleFunc(http.MethodPut, "/financial/settings", settingsOp(true), s.putSettings)

	// The batch operations of every kind (batches.go).
	for _, br := range batchRoutes {
		k, doc := br.kind, s.batchDocOf(br)
		members := k.Type.Members
		Members := strings.ToUpper(members[:1]) + members[1:]
		router.HandleFunc(http.MethodPost, br.path+"/:id/add"+Members, doc.add(), s.changeMembers(k, storage.OpAdd))
		router.HandleFunc(http.MethodPost, br.path+"/:id/remove"+Members, doc.remove(), s.changeMembers(k, storage.OpRemove))
		router.HandleFunc(http.MethodPost, br.path+"/:id/revert"+Members, doc.revert(), s.changeMembers(k, storage.OpRevert))
		router.HandleFunc(http.MethodGet, br.path+"/:id/downloadBatchFile", doc.download(), s.downloadBatchFile(k))
		router.HandleFunc(http.MethodGet, br.path+"/:id/"+members, doc.members(), s.listMembers(k))
		router.HandleFunc(http.MethodPost, br.path+"/returnFile", doc.returnFile(), s.uploadReturnFile(k))
	}

	// The webhook endpoints, their secret, ping and resend (webhooks.go).
	s.webhookRoutes(router)

	// The DIMOB runs and their files (dimob.go).
	dimobReads, dimobDoc := s.dimobReads()
	router.HandleFunc(http.MethodGet, dimobPath, dimobDoc.list(), dimobReads.list)
	router.HandleFunc(http.MethodGet, dimobPath+"/:id", dimobDoc.get(), dimobReads.get)
	router.HandleFunc(http.MethodPost, dimobPath, postDimobOp(), s.postDimob)
	router.HandleFunc(http.MethodGet, dimobPath+"/:id/file", dimobFileOp(), s.dimobFile)

	// The renegotiation agreements (agreements.go): read through the
	// declared resource, written by their operations.
	agreementReads, agreementDoc := s.agreementReads()
	router.HandleFunc(http.MethodGet, agreementsPath, agreementDoc.list(), agreementReads.list)
	router.HandleFunc(http.MethodGet, agreementsPath+"/:id", agreementDoc.get(), agreementReads.get)
	router.HandleFunc(http.MethodPost, agreementsPath, postAgreementOp(), s.postAgreement)
	router.HandleFunc(http.MethodPost, agreementsPath+"/:id/cancel", endAgreementOp(true), s.endAgreement(true))
	router.HandleFunc(http.MethodPost, agreementsPath+"/:id/break", endAgreementOp(false), s.endAgreement(false))

	// The company's over payments (over_payments.go): read through the
	// declared resource, closed by their operation.
	overPaymentReads, overPaymentDoc := s.overPaymentReads()
	router.HandleFunc(http.MethodGet, overPaymentsPath, overPaymentDoc.list(), overPaymentReads.list)
	router.HandleFunc(http.MethodGet, overPaymentsPath+"/:id", overPaymentDoc.get(), overPaymentReads.get)
	router.HandleFunc(http.MethodPost, overPaymentsPath+"/:id/resolve", resolveOverPaymentOp(), s.resolveOverPayment)

	// The owners' statements: the signed link and its public page and PDF
	// (statements.go); the signed token is the credential.
	router.HandleFunc(http.MethodGet, "/financial/ownerStatements/:id/link", statementLinkOp(), s.statementLink)
	statementPage := s.statementPage()
	router.Handle(http.MethodGet, statementPath+":token", statementPageOp, statementPage)
	router.Handle(http.MethodGet, statementPath+":token/pdf", statementPDFOp, statementPage)

	// The owners' income reports: computed, their link, and the link's page
	// and PDF (income_reports.go).
	router.HandleFunc(http.MethodGet, incomeReportsPath, incomeReportsOp(), s.incomeReports)
	router.HandleFunc(http.MethodGet, incomeReportsPath+"/link", incomeReportLinkOp(), s.incomeReportLink)
	incomePage := s.incomePage()
	router.Handle(http.MethodGet, incomePagePath+":token", incomePageOp(false), incomePage)
	router.Handle(http.MethodGet, incomePagePath+":token/pdf", incomePageOp(true), incomePage)

	// The deal-conversion reports beside /deals/{id} (deal_reports.go):
	// the router dispatches the static names before the parameter.
	router.HandleFunc(http.MethodGet, "/deals/conversion/funnel", funnelReportOp(), s.funnelReport)
	router.HandleFunc(http.MethodGet, "/deals/conversion/step-deals", stepDealsReportOp(), s.stepDealsReport)

	// The operator routes that are on (operator_console.go), behind the admin
	// credential: /metrics, and the queue dashboard at /monitoring/ and
	// everything under it. /monitoring redirects to /monitoring/ once the
	// credential is checked, so that no operator path tells anything
	// without it.
	if s.console != nil && s.console.metrics != nil {
		router.Handle(http.MethodGet, "/metrics", metricsOp, s.console.metrics)
	}
	if s.console != nil && s.console.monitoring != nil {
		router.HandleFunc(http.MethodGet, MonitoringPath, monitoringRedirectOp, toMonitoringSlash)
		router.HandleFunc(http.MethodHead, MonitoringPath, monitoringRedirectOp, toMonitoringSlash)
		dashboard := s.dashboard(s.console.monitoring)
		for _, method := range operatorMethods {
			router.Handle(method, MonitoringPath+"/*path", dashboardOp, dashboard)
		}
	}

	// The operators' jobs, schedules, alerts, companies and keys, and console
	// (operator_jobs.go, operator_schedules.go, operator_companies.go,
	// operator_page.go), behind the admin credential:
	// every company's, not one's.
	if s.console != nil {
		reg := s.store.Registry()
		router.HandleFunc(http.MethodGet, "/operator/jobs", operatorJobsListOp(reg, s.operatorJobsResource()), s.operatorJobsList)
		router.HandleFunc(http.MethodGet, "/operator/jobs/:id", operatorJobOp(), s.operatorJob)
		router.HandleFunc(http.MethodPost, "/operator/jobs/retry", bulkJobsOp(storage.BulkRetry), s.bulkJobs(storage.BulkRetry))
		router.HandleFunc(http.MethodPost, "/operator/jobs/cancel", bulkJobsOp(storage.BulkCancel), s.bulkJobs(storage.BulkCancel))
		router.HandleFunc(http.MethodGet, "/operator/audit", operatorAuditOp(), s.operatorAudit)
		router.HandleFunc(http.MethodGet, "/operator/schedules", operatorSchedulesOp(), s.operatorSchedules)
		router.HandleFunc(http.MethodPost, "/operator/schedules/:name/run", runScheduleOp(s.scheduleNames()), s.runSchedule)
		router.HandleFunc(http.MethodGet, "/operator/alerts", operatorAlertsOp(), s.operatorAlerts)
		router.HandleFunc(http.MethodPost, "/operator/alerts/:id/resolve", resolveAlertOp(), s.resolveAlert)
		companies, keys := s.operatorCompaniesResource(), s.operatorKeysResource()
		router.HandleFunc(http.MethodGet, "/operator/companies", operatorCompaniesListOp(reg, companies), s.operatorCompaniesList)
		router.HandleFunc(http.MethodPost, "/operator/companies", postCompanyOp(), s.postCompany)
		router.HandleFunc(http.MethodGet, "/operator/companies/:id", operatorCompanyOp(), s.operatorCompany)
		router.HandleFunc(http.MethodPut, "/operator/companies/:id", putCompanyOp(), s.putCompany)
		router.HandleFunc(http.MethodPost, "/operator/companies/:id/keys", postKeyOp(), s.postKey)
		router.HandleFunc(http.MethodGet, "/operator/keys", operatorKeysListOp(reg, keys), s.operatorKeysList)
		router.HandleFunc(http.MethodPost, "/operator/keys/:id/revoke", revokeKeyOp(), s.revokeKey)
		router.HandleFunc(http.MethodGet, "/operator/", operatorPageOp, s.operatorPage)
		router.HandleFunc(http.MethodPost, "/operator/retry", consoleRetryOp, s.consoleRetry)
	}

	// The OpenAPI document and the reference page that renders it
	// (openapi.go), both without a key.
	router.Handle(http.MethodGet, OpenAPIPath, openapiOp, &openapiDocument{router: router, reg: s.store.Registry()})
	router.Handle(http.MethodGet, reference.Path, referencePageOp, reference.Page())
	router.Handle(http.MethodGet, reference.Path+"/:file", referenceFileOp(), reference.Files(http.HandlerFunc(noReferenceFile)))
	return router
}
