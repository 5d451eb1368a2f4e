package benchdata

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
)

// catalogue is a company's own records that everything else points at:
// its user, businesses and their bank accounts, billing profiles, chart of
// plans and transaction items.
type catalogue struct {
	userID     int64
	businesses [2]int64
	accounts   [2]int64 // accounts[i] belongs to businesses[i]
	billings   struct{ ticket, pix int64 }
	plans      struct{ rents, charges, services, expenses, tariffs int64 }

	// The transaction items: rent, condominium and IPTU are charged to the
	// tenant and credited to the owners; fire insurance and services to the
	// business; fee (late fee and interest, to the owners) and discount book
	// the settlement; the administration fee and the bank tariff are the
	// business's; the income tax a company tenant withholds (of type duty)
	// is debited to the owner and credited to the tenant.
	rent, condo, iptu, insurance, fee, discount, service, admin, tariff, irrf finance.TransactionItem
}

// items is the catalogue as finance.PostPayment reads it.
func (c *catalogue) items() []finance.TransactionItem {
	return []finance.TransactionItem{c.rent, c.condo, c.iptu, c.insurance, c.fee, c.discount, c.service, c.admin, c.tariff, c.irrf}
}

// insertCatalogue writes the company's catalogue with plain INSERTs (a
// few dozen rows) and keeps their ids; with closing, the items the DIMOB
// declares have dimob.
func insertCatalogue(ctx context.Context, tx pgx.Tx, companyID int64, tag int, closing bool) (*catalogue, error) {
	c := &catalogue{}
	var err error
	id := func(sql string, args ...any) int64 {
		var v int64
		if err == nil {
			err = tx.QueryRow(ctx, sql, append([]any{companyID}, args...)...).Scan(&v)
			if err != nil {
				err = fmt.Errorf("%.50s: %w", sql, err)
			}
		}
		return v
	}
	c.userID = id(`INSERT INTO users (company_id, name, email) VALUES ($1, 'Administrador', $2) RETURNING id`,
		fmt.Sprintf("admin%d@exemplo.com.br", tag))
	business := `INSERT INTO businesses (company_id, name, tax_id, responsible_cpf, zip_code, street, number, district, city, state)
		VALUES ($1, $2, $3, $4, '01310100', 'Avenida Paulista', '1000', 'Bela Vista', 'São Paulo', 'SP') RETURNING id`
	account := `INSERT INTO accounts (company_id, business_id, description, bank, layout, agency, account, account_digit, wallet)
		VALUES ($1, $2, $3, $4, 'cnab400', $5, $6, $7, '109') RETURNING id`
	for i, name := range []string{"Administração de Imóveis Ltda", "Vendas e Locações Ltda"} {
		c.businesses[i] = id(business, name, cnpj(int64(tag*10+i+1)), cpf(int64(900_000_000+tag*10+i)))
		c.accounts[i] = id(account, c.businesses[i], "Conta cobrança "+name, []string{"341", "237"}[i],
			fmt.Sprint(1000+tag*10+i), fmt.Sprint(50000+tag*100+i), fmt.Sprint(i+1))
	}
	billing := `INSERT INTO billings (company_id, name, billing_method, account_id, ticket_late_fee,
		ticket_late_fee_percentage, ticket_late_fee_interest) VALUES ($1, $2, $3, $4, true, 2, 1) RETURNING id`
	c.billings.ticket = id(billing, "Boleto", "ticket", c.accounts[0])
	c.billings.pix = id(billing, "PIX", "pix", c.accounts[0])
	plan := `INSERT INTO plans (company_id, name, code, parent_id) VALUES ($1, $2, $3, $4) RETURNING id`
	income := id(plan, "Receitas", "1", nil)
	c.plans.rents = id(plan, "Aluguéis", "1.1", income)
	c.plans.charges = id(plan, "Encargos", "1.2", income)
	c.plans.services = id(plan, "Taxas e serviços", "1.3", income)
	expenses := id(plan, "Despesas", "2", nil)
	c.plans.expenses = id(plan, "Despesas administrativas", "2.1", expenses)
	c.plans.tariffs = id(plan, "Tarifas bancárias", "2.2", expenses)
	if err != nil {
		return nil, err
	}
	if err := c.insertItems(ctx, tx, companyID, closing); err != nil {
		return nil, err
	}
	return c, nil
}

// insertItems writes the transaction items of the catalogue. Those with
// an owner on either side are in the owners' reports; with closing, those
// the DIMOB declares (the rent and what settles it, the administration
// fee, the tax withheld) have dimob: the condominium and the IPTU pass
// through the owner to others.
func (c *catalogue) insertItems(ctx context.Context, tx pgx.Tx, companyID int64, closing bool) error {
	p := c.plans
	for _, it := range []struct {
		dst                   *finance.TransactionItem
		description           string
		debit, credit         finance.Party
		typ                   finance.TransactionItemType
		debitPlan, creditPlan int64
		dimob                 bool
	}{
		{&c.rent, "Aluguel", finance.PartyCustomer, finance.PartyOwner, finance.TxItemRent, 0, p.rents, true},
		{&c.condo, "Condomínio", finance.PartyCustomer, finance.PartyOwner, finance.TxItemDefault, 0, p.charges, false},
		{&c.iptu, "IPTU", finance.PartyCustomer, finance.PartyOwner, finance.TxItemIPTU, 0, p.charges, false},
		{&c.insurance, "Seguro incêndio", finance.PartyCustomer, finance.PartyBusiness, finance.TxItemDefault, 0, p.services, false},
		{&c.fee, "Multa e juros", finance.PartyCustomer, finance.PartyOwner, finance.TxItemFee, 0, p.charges, true},
		{&c.discount, "Desconto de pontualidade", finance.PartyOwner, finance.PartyCustomer, finance.TxItemDiscount, p.rents, 0, true},
		{&c.service, "Taxa de serviços", finance.PartyCustomer, finance.PartyBusiness, finance.TxItemDefault, 0, p.services, false},
		{&c.admin, "Taxa de administração", finance.PartyOwner, finance.PartyBusiness, finance.TxItemDefault, 0, p.services, true},
		{&c.tariff, "Tarifa bancária", finance.PartyBusiness, "", finance.TxItemTariff, p.tariffs, 0, false},
		{&c.irrf, "IRRF retido pelo locatário", finance.PartyOwner, finance.PartyCustomer, finance.TxItemDuty, 0, 0, true},
	} {
		*it.dst = finance.TransactionItem{Description: it.description, Debit: it.debit, Credit: it.credit, Type: it.typ,
			Active: true, DebitPlanID: it.debitPlan, CreditPlanID: it.creditPlan}
		var purpose *string
		if it.typ == finance.TxItemRent {
			rent := string(finance.ContractRent)
			purpose = &rent
		}
		err := tx.QueryRow(ctx, `INSERT INTO transaction_items (company_id, description, debit, credit, type, purpose,
				readjust, owner_report, dimob, debit_plan_id, credit_plan_id)
			VALUES ($1, $2, $3, nullif($4, ''), $5, $6, $7, $8, $9, nullif($10::bigint, 0), nullif($11::bigint, 0)) RETURNING id`,
			companyID, it.description, string(it.debit), string(it.credit), string(it.typ), purpose, it.typ == finance.TxItemRent,
			it.debit == finance.PartyOwner || it.credit == finance.PartyOwner, closing && it.dimob,
			it.debitPlan, it.creditPlan).Scan(&it.dst.ID)
		if err != nil {
			return fmt.Errorf("transaction item %s: %w", it.description, err)
		}
	}
	return nil
}
