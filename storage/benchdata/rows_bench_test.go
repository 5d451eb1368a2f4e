package benchdata

import (
	"testing"

	"github.com/propfin/propfin/finance"
)

// BenchmarkRows draws the rows of each table of a company of 1,000
// contracts and 12 months, without a database: what the generator costs
// beside the COPY itself.
//
//	go test -run '^$' -bench Rows -benchmem ./storage/benchdata
func BenchmarkRows(b *testing.B) {
	cp := newCompanyPlan("Bench", 1, 1_000, finance.MustDate("2026-11-24"), 12)
	cp.catalogue = &catalogue{userID: 1, businesses: [2]int64{1, 2}, accounts: [2]int64{1, 2}}
	cp.billings.ticket, cp.billings.pix = 1, 2
	for i, it := range []*finance.TransactionItem{&cp.rent, &cp.condo, &cp.iptu, &cp.insurance, &cp.fee, &cp.discount,
		&cp.service, &cp.admin, &cp.tariff} {
		it.ID, it.Active = int64(i+1), true
	}
	cp.rent.Debit, cp.rent.Credit, cp.rent.Type = finance.PartyCustomer, finance.PartyOwner, finance.TxItemRent
	cp.condo.Debit, cp.condo.Credit = finance.PartyCustomer, finance.PartyOwner
	cp.iptu.Debit, cp.iptu.Credit = finance.PartyCustomer, finance.PartyOwner
	cp.insurance.Debit, cp.insurance.Credit = finance.PartyCustomer, finance.PartyBusiness
	cp.fee.Debit, cp.fee.Credit, cp.fee.Type = finance.PartyCustomer, finance.PartyOwner, finance.TxItemFee
	cp.discount.Debit, cp.discount.Credit, cp.discount.Type = finance.PartyOwner, finance.PartyCustomer, finance.TxItemDiscount
	cp.firstPerson, cp.firstBuilding, cp.firstContract, cp.firstInvoice = 1, 1, 1, 1
	for _, t := range tables {
		b.Run(t.name, func(b *testing.B) {
			rows := 0
			for range b.N {
				if err := t.rows(cp, func([]any) bool { rows++; return true }); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
