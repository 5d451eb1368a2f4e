package storage

import "slices"

// contractFilters are the special filters of /financial/contracts, each
// meaning as docs/api.md's "Contracts" says.
func contractFilters() []SpecialFilter {
	return slices.Concat(contractLists(), contractPartyFilters(), contractBuildingFilters(),
		contractPeriodFilters(), contractRelatedFilters())
}

// contractLists are the In-filters on a contract's own columns.
func contractLists() []SpecialFilter {
	statusNotIn := ColumnNotIn("statusNotIn", "status", String)
	statusNotIn.Enum = ContractStatuses
	guaranteeTypeIn := SpecialFilter{Name: "guaranteeTypeIn", Elem: String, Condition: func(f *FilterSQL) string {
		return "(" + guaranteeExpr + ") = any(" + f.Value() + ")"
	}}
	return []SpecialFilter{
		EnumIn("statusIn", "status", ContractStatuses),
		statusNotIn,
		EnumIn("paymentStatusIn", "payment_status", ContractPaymentStatuses),
		EnumIn("activeIn", "active", ContractActivities),
		EnumIn("typeIn", "type", ContractTypes),
		ColumnIn("accountIn", "account_id", Int),
		ColumnIn("businessIn", "business_id", Int),
		ColumnIn("tenantIn", "tenant_id", Int),
		ColumnIn("buildingIn", "building_id", Int),
		ColumnIn("dealIn", "deal_id", Int),
		ColumnIn("billingIn", "billing_id", Int),
		ColumnIn("renewedFrom", "renewed_id", Int),
		ColumnIn("responsibleIn", "user_id", Int),
		guaranteeTypeIn,
		ColumnCompare("team", "team_id", "=", Int),
	}
}

// ownersOf is the condition "the contract's building is owned (now) by one
// of the persons v".
func ownersOf(f *FilterSQL, v string) string {
	return `"building_id" IN (SELECT building_id FROM building_owners WHERE company_id = ` + f.Company() +
		` AND person_id = any(` + v + `))`
}

// occupantsOf is the condition "one of the persons v is an occupant of the
// contract", of type typ when typ is not empty (a declared constant).
func occupantsOf(f *FilterSQL, v, typ string) string {
	cond := `"id" IN (SELECT contract_id FROM contract_occupants WHERE company_id = ` + f.Company() +
		` AND person_id = any(` + v + `)`
	if typ != "" {
		cond += ` AND type = '` + typ + `'`
	}
	return cond + ")"
}

// personList is a list filter of person ids with its own condition.
func personList(name string, cond func(f *FilterSQL, v string) string) SpecialFilter {
	return SpecialFilter{Name: name, Elem: Int, Condition: func(f *FilterSQL) string { return cond(f, f.Value()) }}
}

// contractPartyFilters look at the persons around a contract: the
// building's owners, its tenant, its occupants.
func contractPartyFilters() []SpecialFilter {
	return []SpecialFilter{
		personList("ownerIn", ownersOf),
		// current owners, and anyone the contract paid out as an owner: its
		// items' transfer owners and the owners of its ledger entries
		personList("ownerAllIn", func(f *FilterSQL, v string) string {
			c := f.Company()
			return ownersOf(f, v) +
				` OR "id" IN (SELECT contract_id FROM contract_items WHERE company_id = ` + c + ` AND transfer_owner_id = any(` + v + `))` +
				` OR "id" IN (SELECT contract_id FROM transactions WHERE company_id = ` + c + ` AND owner_id = any(` + v + `))`
		}),
		personList("ownerOrTenantIn", func(f *FilterSQL, v string) string {
			return `"tenant_id" = any(` + v + `) OR ` + ownersOf(f, v)
		}),
		personList("ownerOrTenantOrBuyerIn", func(f *FilterSQL, v string) string {
			return `"tenant_id" = any(` + v + `) OR ` + ownersOf(f, v) + ` OR ` + occupantsOf(f, v, "buyer")
		}),
		personList("ownerNotIn", func(f *FilterSQL, v string) string {
			return `"building_id" IS NULL OR NOT (` + ownersOf(f, v) + `)`
		}),
		personList("occupantIn", func(f *FilterSQL, v string) string { return occupantsOf(f, v, "") }),
		personList("buyerIn", func(f *FilterSQL, v string) string { return occupantsOf(f, v, "buyer") }),
		Predicate("hasGuarantor", func(f *FilterSQL) string {
			return `"guarantor_1" IS NOT NULL OR "guarantor_2" IS NOT NULL OR EXISTS (SELECT 1 FROM contract_occupants o ` +
				`WHERE o.company_id = ` + f.Company() + ` AND o.contract_id = "contracts"."id" AND o.type = 'guarantor')`
		}),
	}
}

// contractBuildingFilters look at the contract's building.
func contractBuildingFilters() []SpecialFilter {
	stateIn := Through("stateIn", String, "building_id", "buildings", "id", "state")
	stateIn.Enum = stateAbbreviations
	return []SpecialFilter{
		Through("buildingId2In", String, "building_id", "buildings", "id", "reference"),
		Through("condominiumIn", Int, "building_id", "buildings", "id", "condominium_id"),
		Through("cityIn", String, "building_id", "buildings", "id", "city"),
		stateIn,
		Through("districtIn", String, "building_id", "buildings", "id", "district"),
	}
}

// contractPeriodFilters look at the contract's dates.
func contractPeriodFilters() []SpecialFilter {
	// in force some day of the month or year: started by its end, and
	// neither ended nor terminated before its start
	notOverBefore := func(start string) string {
		return `("end_at" IS NULL OR "end_at" >= ` + start + `) AND ("termination_at" IS NULL OR "termination_at" >= ` + start + `)`
	}
	year := func(col string) string { return `date_part('year', ` + ident(col) + `)` }
	return []SpecialFilter{
		Scalar("atMonth", Month, nil, func(f *FilterSQL) string {
			m := f.Value()
			return `"start_at" < ` + m + ` + interval '1 month' AND ` + notOverBefore(m)
		}),
		Scalar("atYear", Int, nil, func(f *FilterSQL) string {
			y := f.Value()
			return year("start_at") + ` <= ` + y + ` AND ("end_at" IS NULL OR ` + year("end_at") + ` >= ` + y +
				`) AND ("termination_at" IS NULL OR ` + year("termination_at") + ` >= ` + y + `)`
		}),
		Scalar("soldMonth", Month, nil, func(f *FilterSQL) string {
			return `"type" = 'sale' AND ` + InMonth(`"signed_at"`, f.Value())
		}),
		Scalar("soldYear", Int, nil, func(f *FilterSQL) string {
			return `"type" = 'sale' AND ` + year("signed_at") + ` = ` + f.Value()
		}),
		Scalar("readjustMonth", Month, nil, func(f *FilterSQL) string { return InMonth(`"readjust_at"`, f.Value()) }),
		Scalar("endMonth", Month, nil, func(f *FilterSQL) string { return InMonth(`"end_at"`, f.Value()) }),
		// prorogued: its term is over and it is still active
		Predicate("extended", func(f *FilterSQL) string {
			return `"active" = 'active' AND "end_at" < ` + f.Today()
		}),
		// the renewing contracts whose term started between the dates
		InRange("renewedBetween", Date, func(_ *FilterSQL, low, high string) string {
			return `"renewed_id" IS NOT NULL AND "start_at" BETWEEN ` + low + ` AND ` + high
		}),
	}
}

// contractInvoices is the condition "the contract has an invoice where
// cond holds" (cond over the invoice's columns).
func contractInvoices(f *FilterSQL, cond string) string {
	return `"id" IN (SELECT contract_id FROM invoices WHERE company_id = ` + f.Company() + ` AND (` + cond + `))`
}

// contractRelatedFilters look at a contract's invoices, items,
// insurances and documents.
func contractRelatedFilters() []SpecialFilter {
	documentPrivacy := Scalar("documentPrivacy", String, DocumentPrivacies, func(f *FilterSQL) string {
		return `"id" IN (SELECT contract_id FROM contract_documents WHERE company_id = ` + f.Company() +
			` AND privacy = ` + f.Value() + `)`
	})
	return []SpecialFilter{
		InRange("paidPeriod", Date, func(f *FilterSQL, low, high string) string {
			return contractInvoices(f, `paid AND paid_at BETWEEN `+low+` AND `+high)
		}),
		Scalar("overduePaymentDays", Int, nil, func(f *FilterSQL) string {
			return contractInvoices(f, invoiceOpen+` AND `+f.Today()+` - due_date >= `+f.Value())
		}),
		Scalar("dueDateInvoices", Date, nil, func(f *FilterSQL) string {
			return contractInvoices(f, `due_date = `+f.Value())
		}),
		Through("contractItems", Int, "id", "contract_items", "contract_id", "item_id"),
		Predicate("hasFireInsurance", func(f *FilterSQL) string {
			today := f.Today()
			return `EXISTS (SELECT 1 FROM contract_insurances i WHERE i.company_id = ` + f.Company() +
				` AND i.contract_id = "contracts"."id" AND i.kind = 'fire'` +
				` AND (i.start_at IS NULL OR i.start_at <= ` + today + `) AND (i.end_at IS NULL OR i.end_at >= ` + today + `))`
		}),
		Through("documentTemplateIn", Int, "id", "contract_documents", "contract_id", "template_id"),
		documentPrivacy,
	}
}
