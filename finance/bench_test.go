package finance

import (
	"testing"

	"github.com/shopspring/decimal"
)

// benchContracts builds n rent contracts of 12 installments each: monthly,
// proportional first month, with a fixed and a percentage item; start
// days and amounts vary so no two contracts are alike.
func benchContracts(n int) []ScheduleInput {
	ins := make([]ScheduleInput, n)
	for i := range ins {
		start := MustDate("2024-01-01").AddDays(i % 365)
		ins[i] = ScheduleInput{
			Contract: Contract{
				ID: int64(i + 1), Type: ContractRent, Active: ActiveActive, TenantID: int64(i + 1),
				StartAt: start, Recurrency: Monthly, RecurrencyAmount: 12, Modality: ModalityMonthly,
				Amount: decimal.New(int64(100_000+i%500_000), -2), DueDay: 1 + i%28, DueDate: start,
				Proportional: true,
			},
			Items: []ContractItem{
				{ItemID: 2, Description: "Condomínio", Amount: decimal.New(35_000, -2)},
				{ItemID: 3, Description: "Fundo de reserva", CalculateMode: CalculatePercentage, Percentage: decimal.New(5, 0)},
			},
			RentItemID: 1,
			Until:      MustDate("2026-12-31"),
		}
	}
	return ins
}

// BenchmarkSchedule100kContracts schedules 100,000 contracts of 12
// installments (1,200,000 invoices) per iteration.
func BenchmarkSchedule100kContracts(b *testing.B) {
	ins := benchContracts(100_000)
	b.ReportAllocs()
	invoices := 0
	cpu0 := processCPU()
	for b.Loop() {
		for i := range ins {
			s, err := ScheduleInvoices(ins[i])
			if err != nil {
				b.Fatal(err)
			}
			invoices += len(s.Invoices)
		}
	}
	b.ReportMetric(float64(invoices)/b.Elapsed().Seconds(), "invoices/s")
	if cpu := processCPU() - cpu0; cpu > 0 {
		b.ReportMetric(float64(invoices)/cpu.Seconds(), "invoices/cpu-s")
	}
	b.ReportMetric(float64(invoices)/float64(b.N), "invoices/op")
}

// BenchmarkScheduleNothingNew is the nightly case: a contract whose 12
// invoices already exist.
func BenchmarkScheduleNothingNew(b *testing.B) {
	in := benchContracts(1)[0]
	s, err := ScheduleInvoices(in)
	if err != nil {
		b.Fatal(err)
	}
	in.Invoices = s.Invoices
	b.ReportAllocs()
	for b.Loop() {
		if s, _ := ScheduleInvoices(in); len(s.Invoices) != 0 {
			b.Fatal("scheduled again")
		}
	}
}

func BenchmarkSettle(b *testing.B) {
	inv := settleInvoice()
	paid := MustDate("2024-04-19")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Settle(inv, paid); err != nil {
			b.Fatal(err)
		}
	}
}
