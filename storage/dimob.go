package storage

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/finance"
)

// What the DIMOB of a business and a calendar year is made of, read from
// the ledger and the records it names (docs/dimob.md, "What is read from
// the ledger"): the declarant, the rentals (one per contract and owner,
// twelve months of rent, commission and tax withheld) and the brokered
// sales. Three statements, each one set-based over the whole year; the
// declaration is built from them by package jobs.

// Address is a record's address as the address columns hold it.
type Address struct {
	ZipCode, Street, Number, Complement, District, City, State string
}

// DimobParty is a person a DIMOB record names; ID 0 when the record names
// nobody (a contract without a tenant).
type DimobParty struct {
	ID          int64
	Name, TaxID string
}

// DimobBusiness is the declarant: a business of the company.
type DimobBusiness struct {
	ID             int64
	Name, TaxID    string
	ResponsibleCPF string
	Address        Address
}

// DimobMonth is one month of one owner's share of a rental, by
// finance.DeclaredAs's figures: the rent the tenant paid (the owner's
// credits less debits of the items declared as rent), the commission (the
// owner's debits less credits of the administration fee's items) and the
// tax withheld (of the items of type duty), each the entries' sum, in
// reais.
type DimobMonth struct {
	Rent, Commission, TaxWithheld decimal.Decimal
}

// DimobRental is one contract and one owner of it, with the months of the
// year the tenant paid in.
type DimobRental struct {
	ContractID   int64
	Reference    string
	ContractDate finance.Date // signed_at, else start_at
	Owner        DimobParty
	Tenant       DimobParty
	BuildingID   int64
	Property     Address
	Months       [12]DimobMonth
}

// DimobRefund is a refund made after the year that counts in it (a refund
// counts in the month of the payment it gives back: docs/dimob.md,
// "Refunds"): the contract and owner whose rental it lowers, the invoice,
// the day the payment was made (the day it counts on) and the day of the
// refund.
type DimobRefund struct {
	ContractID, OwnerID, InvoiceID int64
	Paid, Date                     finance.Date
}

// DimobSale is one brokered sale: a sale contract signed in the year.
type DimobSale struct {
	ContractID   int64
	Reference    string
	ContractDate finance.Date
	Amount       decimal.Decimal
	Commission   decimal.Decimal
	// Buyer is the contract's principal buyer (else its first);
	// BuyerOccupant the contract occupant it is (0: none), and Buyers how
	// many buyers the contract has.
	Buyer         DimobParty
	BuyerOccupant int64
	Buyers        int
	// Seller is the owner of the property with the largest share (on a
	// tie, the lowest person id), Sellers how many owners it has.
	Seller     DimobParty
	Sellers    int
	BuildingID int64
	Property   Address
}

// DimobYear is everything one DIMOB reads.
type DimobYear struct {
	Business DimobBusiness
	Year     int
	// Today is the company's today (its time zone) when the year was
	// read: a year not over on it is not filed yet.
	Today   finance.Date
	Rentals []DimobRental
	Sales   []DimobSale
	// LaterRefunds lower the year's rentals since the end of the year: a
	// DIMOB of the year filed before them is to be amended.
	LaterRefunds []DimobRefund
	// LeftOut are the contracts of the business left out because their
	// dimob is false: sales signed in the year, rentals with a tenant's
	// payment on an owner's statement in the year.
	LeftOut []DimobLeftOut
}

// DimobLeftOut is a contract of the business's operations in the year
// that the declaration leaves out because its dimob is false.
type DimobLeftOut struct {
	ContractID int64
	Reference  string
	Type       string // sale, rent or season
}

// ReadDimobYear reads, in tx, what the DIMOB of business businessID of
// the company declares for year, and the company's today: NotFound for a
// business the company does not have. Rentals come in contract then owner order, sales in contract
// order; a rental whose twelve months are all zero (a payment and its
// reversal) is left out. JIT compilation is turned off for the rest of tx:
// PostgreSQL costs the rentals' statement high enough to compile it, which
// took more of its time than it gained (docs/performance.md, "DIMOB").
func ReadDimobYear(ctx context.Context, tx pgx.Tx, companyID, businessID int64, year int) (*DimobYear, error) {
	if _, err := tx.Exec(ctx, `SET LOCAL jit = off`); err != nil {
		return nil, translate(err, "dimob year")
	}
	y := &DimobYear{Year: year}
	var err error
	if y.Business, err = readDimobBusiness(ctx, tx, companyID, businessID); err != nil {
		return nil, err
	}
	if y.Today, err = CompanyToday(ctx, tx, companyID); err != nil {
		return nil, err
	}
	if y.Rentals, err = readDimobRentals(ctx, tx, companyID, businessID, year); err != nil {
		return nil, err
	}
	if y.LaterRefunds, err = readDimobLaterRefunds(ctx, tx, companyID, businessID, year); err != nil {
		return nil, err
	}
	if y.Sales, err = readDimobSales(ctx, tx, companyID, businessID, year); err != nil {
		return nil, err
	}
	if y.LeftOut, err = readDimobLeftOut(ctx, tx, companyID, businessID, year); err != nil {
		return nil, err
	}
	return y, nil
}

func readDimobBusiness(ctx context.Context, q DBTX, companyID, businessID int64) (DimobBusiness, error) {
	b := DimobBusiness{ID: businessID}
	a := &b.Address
	err := q.QueryRow(ctx, `SELECT name, coalesce(tax_id, ''), coalesce(responsible_cpf, ''), `+addressSelect("")+`
		FROM businesses WHERE company_id = $1 AND id = $2`, companyID, businessID).
		Scan(&b.Name, &b.TaxID, &b.ResponsibleCPF, &a.ZipCode, &a.Street, &a.Number, &a.Complement, &a.District, &a.City, &a.State)
	if err != nil {
		return DimobBusiness{}, translate(err, fmt.Sprintf("business %d", businessID))
	}
	return b, nil
}

// addressSelect lists the address columns of the table aliased as alias
// ("" for none), empty texts for nulls, in Address's order.
func addressSelect(alias string) string {
	if alias != "" {
		alias += "."
	}
	s := ""
	for i, c := range []string{"zip_code", "street", "number", "complement", "district", "city", "state"} {
		if i > 0 {
			s += ", "
		}
		s += "coalesce(" + alias + c + ", '')"
	}
	return s
}

// dimobRentalsSQL sums, per contract, owner and month of the year ($3),
// the owner entries of business $2 that the rule declares
// (storage/declared.go: a payment or its reversal, no guarantee's, of an
// item declared, $4 and $5 its figures), of contracts of rent or season
// with dimob, each on its day: the day the tenant paid, for a payment that
// stands; a payment undone and its reversal both on the payment's own
// date (docs/dimob.md, "Reversals"). The months of a contract and owner
// come in one row, in arrays (months, and their amounts in cents), with
// the contract, the owner, the tenant and the property.
//
// Amounts are summed in cents (numeric(14,2) times 100, exact), as
// integers. It is planned with its values every time (withValues): the
// plan PostgreSQL caches for any business after five runs on a connection
// reads the entries through the items' index, and took twice as long
// (docs/performance.md, "DIMOB").
var dimobRentalsSQL = `
WITH ` + declaredReversalsSQL + `, entries AS (
    SELECT t.contract_id, t.owner_id, ` + declaredDaySQL + ` AS day,
        CASE WHEN t.type = 'credit' THEN (t.amount * 100)::bigint ELSE -(t.amount * 100)::bigint END AS credit,
        ` + declaredFigureSQL("$4", "$5") + ` AS figure
    FROM transactions t
    JOIN contracts c ON c.company_id = t.company_id AND c.id = t.contract_id AND c.dimob AND c.type IN ('rent', 'season')
    ` + declaredDayJoinsSQL + `
    WHERE t.company_id = $1 AND t.business_id = $2 AND ` + declaredEntrySQL + `
      AND ` + declaredFigureSQL("$4", "$5") + ` IS NOT NULL
), months AS (
    SELECT contract_id, owner_id, extract(month FROM day)::int AS month,
        sum(CASE WHEN figure = ` + figureSQL(finance.DeclaredRent) + ` THEN credit ELSE 0 END) AS rent,
        sum(CASE WHEN figure = ` + figureSQL(finance.DeclaredCommission) + ` THEN -credit ELSE 0 END) AS commission,
        sum(CASE WHEN figure = ` + figureSQL(finance.DeclaredTax) + ` THEN -credit ELSE 0 END) AS tax
    FROM entries
    WHERE day >= make_date($3, 1, 1) AND day < make_date($3 + 1, 1, 1)
    GROUP BY 1, 2, 3
), rentals AS (
    SELECT contract_id, owner_id, array_agg(month ORDER BY month) AS months,
        array_agg(rent::bigint ORDER BY month) AS rent, array_agg(commission::bigint ORDER BY month) AS commission,
        array_agg(tax::bigint ORDER BY month) AS tax
    FROM months
    GROUP BY 1, 2
)
SELECT s.contract_id, s.owner_id, s.months, s.rent, s.commission, s.tax,
    coalesce(c.reference, ''), coalesce(c.signed_at, c.start_at),
    coalesce(c.tenant_id, 0), coalesce(tp.name, ''), coalesce(tp.tax_id, ''),
    op.name, coalesce(op.tax_id, ''),
    coalesce(c.building_id, 0), ` + addressSelect("b") + `
FROM rentals s
JOIN contracts c ON c.company_id = $1 AND c.id = s.contract_id
JOIN persons op ON op.company_id = $1 AND op.id = s.owner_id
LEFT JOIN persons tp ON tp.company_id = $1 AND tp.id = c.tenant_id
LEFT JOIN buildings b ON b.company_id = $1 AND b.id = c.building_id
ORDER BY s.contract_id, s.owner_id`

func readDimobRentals(ctx context.Context, q DBTX, companyID, businessID int64, year int) ([]DimobRental, error) {
	items, err := readDeclaredItems(ctx, q, companyID)
	if err != nil {
		return nil, err
	}
	rows, err := q.Query(ctx, dimobRentalsSQL, withValues, companyID, businessID, year, items.ids, items.figures)
	if err != nil {
		return nil, translate(err, "dimob rentals")
	}
	defer rows.Close()
	var out []DimobRental
	var months []int32
	var rent, commission, tax []int64
	for rows.Next() {
		var r DimobRental
		a := &r.Property
		err := rows.Scan(&r.ContractID, &r.Owner.ID, &months, &rent, &commission, &tax,
			&r.Reference, &r.ContractDate, &r.Tenant.ID, &r.Tenant.Name, &r.Tenant.TaxID, &r.Owner.Name, &r.Owner.TaxID,
			&r.BuildingID, &a.ZipCode, &a.Street, &a.Number, &a.Complement, &a.District, &a.City, &a.State)
		if err != nil {
			return nil, translate(err, "dimob rentals")
		}
		if len(rent) != len(months) || len(commission) != len(months) || len(tax) != len(months) {
			return nil, fmt.Errorf("dimob rentals: contract %d, owner %d: %d months, %d, %d and %d amounts",
				r.ContractID, r.Owner.ID, len(months), len(rent), len(commission), len(tax))
		}
		for i, m := range months {
			r.Months[m-1] = DimobMonth{Rent: cents(rent[i]), Commission: cents(commission[i]), TaxWithheld: cents(tax[i])}
		}
		if !r.empty() {
			out = append(out, r)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, translate(err, "dimob rentals")
	}
	return out, nil
}

// dimobLaterRefundsSQL lists the refunds that stand (not undone with
// their payment) of business $2's rentals, of items declared ($4 and
// $5), that count in year $3 and were made after it: one row per
// contract, owner, invoice and day of refund.
var dimobLaterRefundsSQL = `
WITH ` + declaredReversalsSQL + `
SELECT DISTINCT t.contract_id, t.owner_id, coalesce(t.invoice_id, 0), ref.paid, t.date
FROM transactions t
JOIN refunds ref ON ref.id = t.id
JOIN contracts c ON c.company_id = t.company_id AND c.id = t.contract_id AND c.dimob AND c.type IN ('rent', 'season')
LEFT JOIN reversed rev ON rev.id = t.id
WHERE t.company_id = $1 AND t.business_id = $2 AND ` + declaredEntrySQL + ` AND rev.id IS NULL
  AND ` + declaredFigureSQL("$4", "$5") + ` IS NOT NULL
  AND ref.paid >= make_date($3, 1, 1) AND ref.paid < make_date($3 + 1, 1, 1) AND t.date >= make_date($3 + 1, 1, 1)
ORDER BY 1, 2, 5, 3`

// readDimobLaterRefunds reads the refunds made after year that count in
// it, in contract, owner, refund day and invoice order.
func readDimobLaterRefunds(ctx context.Context, q DBTX, companyID, businessID int64, year int) ([]DimobRefund, error) {
	items, err := readDeclaredItems(ctx, q, companyID)
	if err != nil {
		return nil, err
	}
	rows, err := q.Query(ctx, dimobLaterRefundsSQL, companyID, businessID, year, items.ids, items.figures)
	if err != nil {
		return nil, translate(err, "dimob later refunds")
	}
	defer rows.Close()
	var out []DimobRefund
	for rows.Next() {
		var f DimobRefund
		if err := rows.Scan(&f.ContractID, &f.OwnerID, &f.InvoiceID, &f.Paid, &f.Date); err != nil {
			return nil, translate(err, "dimob later refunds")
		}
		out = append(out, f)
	}
	return out, translate(rows.Err(), "dimob later refunds")
}

// empty reports whether nothing was paid in any month.
func (r DimobRental) empty() bool {
	for _, m := range r.Months {
		if !m.Rent.IsZero() || !m.Commission.IsZero() || !m.TaxWithheld.IsZero() {
			return false
		}
	}
	return true
}

// dimobSalesSQL lists the sale contracts of business $2 with dimob signed
// in year $3 (signed_at, else start_at), each with its price (amount),
// the commission (the business's credits less debits of the contract's
// payments and their reversals, of items with dimob, whenever paid), its
// principal buyer (the contract's tenant_id when it has no buyer
// occupant: the buyer given at create) and the owner of the largest share.
const dimobSalesSQL = `
SELECT c.id, coalesce(c.reference, ''), coalesce(c.signed_at, c.start_at), coalesce(c.amount, 0),
    coalesce((SELECT sum(CASE WHEN t.type = 'credit' THEN t.amount ELSE -t.amount END)
              FROM transactions t
              JOIN transaction_items i ON i.company_id = t.company_id AND i.id = t.item_id AND i.dimob
              WHERE t.company_id = c.company_id AND t.contract_id = c.id AND t.extract = 'business'
                AND t.mode IN ('invoice', 'chargeback') AND t.guaranteed_transfer_id IS NULL), 0),
    coalesce(buyer.id, 0), coalesce(buyer.person_id, 0), coalesce(buyer.name, ''), coalesce(buyer.tax_id, ''),
    (SELECT count(*) FROM contract_occupants x WHERE x.company_id = c.company_id AND x.contract_id = c.id AND x.type = 'buyer'),
    coalesce(seller.person_id, 0), coalesce(seller.name, ''), coalesce(seller.tax_id, ''),
    (SELECT count(*) FROM building_owners x WHERE x.company_id = c.company_id AND x.building_id = c.building_id),
    coalesce(c.building_id, 0), ` + "%s" + `
FROM contracts c
LEFT JOIN LATERAL (
    SELECT o.id, o.person_id, coalesce(p.name, o.name) AS name, coalesce(p.tax_id, o.tax_id) AS tax_id,
        0 AS rank, o.principal AS principal
    FROM contract_occupants o
    LEFT JOIN persons p ON p.company_id = o.company_id AND p.id = o.person_id
    WHERE o.company_id = c.company_id AND o.contract_id = c.id AND o.type = 'buyer'
    UNION ALL
    SELECT 0, p.id, p.name, p.tax_id, 1, false
    FROM persons p WHERE p.company_id = c.company_id AND p.id = c.tenant_id
    ORDER BY rank, principal DESC, id LIMIT 1) buyer ON true
LEFT JOIN LATERAL (
    SELECT w.person_id, p.name, p.tax_id
    FROM building_owners w
    JOIN persons p ON p.company_id = w.company_id AND p.id = w.person_id
    WHERE w.company_id = c.company_id AND w.building_id = c.building_id
    ORDER BY w.percentage DESC NULLS LAST, w.person_id LIMIT 1) seller ON true
LEFT JOIN buildings b ON b.company_id = c.company_id AND b.id = c.building_id
WHERE c.company_id = $1 AND c.business_id = $2 AND c.type = 'sale' AND c.dimob
  AND coalesce(c.signed_at, c.start_at) >= make_date($3, 1, 1)
  AND coalesce(c.signed_at, c.start_at) < make_date($3 + 1, 1, 1)
ORDER BY c.id`

func readDimobSales(ctx context.Context, q DBTX, companyID, businessID int64, year int) ([]DimobSale, error) {
	rows, err := q.Query(ctx, fmt.Sprintf(dimobSalesSQL, addressSelect("b")), withValues, companyID, businessID, year)
	if err != nil {
		return nil, translate(err, "dimob sales")
	}
	defer rows.Close()
	var out []DimobSale
	for rows.Next() {
		var s DimobSale
		a := &s.Property
		err := rows.Scan(&s.ContractID, &s.Reference, &s.ContractDate, &s.Amount, &s.Commission,
			&s.BuyerOccupant, &s.Buyer.ID, &s.Buyer.Name, &s.Buyer.TaxID, &s.Buyers,
			&s.Seller.ID, &s.Seller.Name, &s.Seller.TaxID, &s.Sellers,
			&s.BuildingID, &a.ZipCode, &a.Street, &a.Number, &a.Complement, &a.District, &a.City, &a.State)
		if err != nil {
			return nil, translate(err, "dimob sales")
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, translate(err, "dimob sales")
	}
	return out, nil
}

// dimobLeftOutSQL lists the contracts of business $2 with dimob false that
// are operations of year $3: sales signed in it (signed_at, else
// start_at), rentals (rent, season) with a tenant's payment on an owner's
// statement dated in it.
const dimobLeftOutSQL = `
SELECT c.id, coalesce(c.reference, ''), c.type
FROM contracts c
WHERE c.company_id = $1 AND c.business_id = $2 AND NOT c.dimob
  AND ((c.type = 'sale' AND coalesce(c.signed_at, c.start_at) >= make_date($3, 1, 1)
                        AND coalesce(c.signed_at, c.start_at) < make_date($3 + 1, 1, 1))
    OR (c.type IN ('rent', 'season') AND EXISTS (
        SELECT 1 FROM transactions t
        WHERE t.company_id = c.company_id AND t.contract_id = c.id AND t.extract = 'owner'
          AND t.mode = 'invoice' AND t.date >= make_date($3, 1, 1) AND t.date < make_date($3 + 1, 1, 1))))
ORDER BY c.id`

func readDimobLeftOut(ctx context.Context, q DBTX, companyID, businessID int64, year int) ([]DimobLeftOut, error) {
	rows, err := q.Query(ctx, dimobLeftOutSQL, companyID, businessID, year)
	if err != nil {
		return nil, translate(err, "dimob contracts left out")
	}
	defer rows.Close()
	var out []DimobLeftOut
	for rows.Next() {
		var l DimobLeftOut
		if err := rows.Scan(&l.ContractID, &l.Reference, &l.Type); err != nil {
			return nil, translate(err, "dimob contracts left out")
		}
		out = append(out, l)
	}
	return out, translate(rows.Err(), "dimob contracts left out")
}
