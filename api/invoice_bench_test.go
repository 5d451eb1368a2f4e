package api

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// The invoice list benchmark's data: invoices (two lines each) over about
// ten years of due dates, paid by benchPayers persons.
const (
	benchInvoices = 1_000_000
	benchPayers   = 50_000
)

// invoiceBenchQuery is the list an office opens every morning: the last
// four months' overdue invoices by due date, with their lines and payer.
// %s is today less 120 days.
const invoiceBenchQuery = "/invoices?perPage=50&filter[dueDateMin]=%s&filter[overdue]=true&sort=due_date&include[items]&include[payer]"

// BenchmarkInvoiceList measures the invoice list over 1,000,000 invoices
// and 2,000,000 invoice lines, over loopback HTTP, through the whole API
// and through a bare handler that runs hand-written SQL for the same
// answer straight through pgx and encodes it with encoding/json, at 2 and
// 32 concurrent clients. The database is seeded once for every
// sub-benchmark, and the two answers are compared before anything is
// timed.
func BenchmarkInvoiceList(b *testing.B) {
	pool := storagetest.NewDB(b)
	began := time.Now()
	companyID, userID := seedInvoiceBench(b, pool)
	b.Logf("seeded %d invoices, %d lines, %d persons in %s", benchInvoices, 2*benchInvoices, benchPayers,
		time.Since(began).Round(100*time.Millisecond))

	rdb := redis.NewClient(storagetest.NewRedis(b).Options())
	defer rdb.Close()
	srv := New(Config{
		Store: storage.NewStore(pool, storage.DefaultRegistry()), Redis: rdb, RateLimit: 1 << 30,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	apiServer := httptest.NewServer(srv.Handler())
	defer apiServer.Close()
	bareServer := httptest.NewServer(bareInvoicesHandler(pool, companyID))
	defer bareServer.Close()
	key, err := storage.CreateAPIKey(context.Background(), pool, companyID, userID, "bench")
	if err != nil {
		b.Fatal(err)
	}
	query := fmt.Sprintf(invoiceBenchQuery, companyToday(b, pool, companyID).AddDate(0, 0, -120).Format(time.DateOnly))
	sameInvoiceAnswers(b, apiServer.URL+query, key.Key, bareServer.URL+query)

	for _, clients := range []int{2, 32} {
		b.Run(fmt.Sprintf("api/clients=%d", clients), func(b *testing.B) {
			load(b, clients, apiServer.URL+query, key.Key)
		})
		b.Run(fmt.Sprintf("bare/clients=%d", clients), func(b *testing.B) {
			load(b, clients, bareServer.URL+query, "")
		})
	}
}

// seedInvoiceBench fills a company with set-based statements: 50,000
// persons, 3 businesses with 2 accounts each, 4 transaction items, then
// 1,000,000 invoices due over ten years (about a third paid, the rest
// unpaid, overdue or now and then canceled) and two lines each, and
// analyzes the tables. Foreign keys are not checked while seeding when
// the role may say so (session_replication_role): every reference is
// built from the rows just inserted.
func seedInvoiceBench(b testing.TB, pool *pgxpool.Pool) (companyID, userID int64) {
	ctx := context.Background()
	companyID, userID, err := storage.EnsureCompany(ctx, pool, "Bench")
	if err != nil {
		b.Fatal(err)
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SET session_replication_role = replica"); err != nil {
		b.Logf("foreign keys checked while seeding: %v", err)
	}
	defer conn.Exec(ctx, "RESET session_replication_role") //nolint:errcheck // the connection goes back to the pool either way
	if _, err := conn.Exec(ctx, "SET maintenance_work_mem = '256MB'"); err != nil {
		b.Fatal(err)
	}
	stmts := []string{
		`INSERT INTO persons (company_id, name, tax_id, email, phone, zip_code, street, number, district, city, state)
		 SELECT $1, 'Pessoa ' || g, lpad(((g::bigint * 7919) % 99999999999)::text, 11, '0'),
		        'pessoa' || g || '@example.com', '1198' || lpad(g::text, 7, '0'), lpad((1000000 + g * 13)::text, 8, '0'),
		        'Rua ' || (g % 997), (1 + g % 2000)::text, 'Centro', 'São Paulo', 'SP'
		 FROM generate_series(1, ` + strconv.Itoa(benchPayers) + `) g`,
		`INSERT INTO businesses (company_id, name) SELECT $1, 'Imobiliária ' || g FROM generate_series(1, 3) g`,
		`INSERT INTO accounts (company_id, business_id, description, bank, agency, account)
		 SELECT $1, b.id, 'Conta ' || n, '341', '1234', (10000 + b.id * 10 + n)::text
		 FROM businesses b, generate_series(1, 2) n WHERE b.company_id = $1 ORDER BY b.id, n`,
		`INSERT INTO transaction_items (company_id, description, debit, credit, type)
		 VALUES ($1, 'Aluguel', 'customer', 'owner', 'rent'), ($1, 'Condomínio', 'customer', 'owner', 'default'),
		        ($1, 'Taxa de administração', 'owner', 'business', 'fee'), ($1, 'Multa', 'customer', 'business', 'fee')`,
		// g * 7919 mod 3680 spreads the due dates over ten years (the
		// last two months ahead) without following the ids.
		`INSERT INTO invoices (company_id, id2, type, payer_id, business_id, account_id, billing_method, status,
		        paid, paid_at, credit_at, paid_amount, description, total, date, due_date, period_initial, period_final,
		        ticket_registered, ticket_key, ticket_late_fee, ticket_late_fee_percentage, ticket_late_fee_interest,
		        ticket_late_fee_item_id)
		 SELECT $1, CASE WHEN g % 4 = 0 THEN 'OLD-' || g END, 'single', r.p0 + (g::bigint * 7919) % ` + strconv.Itoa(benchPayers) + `,
		        r.b[1 + (g % 6) / 2], r.a[1 + g % 6], CASE WHEN g % 5 = 0 THEN 'pix' ELSE 'ticket' END,
		        CASE WHEN v.paid THEN 'paid' WHEN g % 50 = 1 THEN 'canceled' WHEN v.due < current_date THEN 'overdue' ELSE 'unpaid' END,
		        v.paid, CASE WHEN v.paid THEN v.due + (g % 9) - 4 END, CASE WHEN v.paid THEN v.due + (g % 9) - 2 END,
		        CASE WHEN v.paid THEN v.total END,
		        'Aluguel ' || to_char(v.due, 'MM/YYYY'), v.total, v.due - 10, v.due,
		        date_trunc('month', v.due)::date, (date_trunc('month', v.due) + interval '1 month - 1 day')::date,
		        g % 5 <> 0, CASE WHEN g % 5 <> 0 THEN lpad(g::text, 10, '0') END, g % 5 <> 0,
		        CASE WHEN g % 5 <> 0 THEN 2 END, CASE WHEN g % 5 <> 0 THEN 1 END, CASE WHEN g % 5 <> 0 THEN r.fine END
		 FROM (SELECT (SELECT min(id) FROM persons WHERE company_id = $1) AS p0,
		              (SELECT array_agg(business_id ORDER BY id) FROM accounts WHERE company_id = $1) AS b,
		              (SELECT array_agg(id ORDER BY id) FROM accounts WHERE company_id = $1) AS a,
		              (SELECT max(id) FROM transaction_items WHERE company_id = $1) AS fine) r,
		      generate_series(1, ` + strconv.Itoa(benchInvoices) + `) g,
		      LATERAL (SELECT current_date - 3620 + ((g::bigint * 7919) % 3680)::int AS due, g % 3 = 0 AS paid,
		                      (80000 + (g::bigint * 37) % 420000) / 100.0 AS total) v`,
		// two lines each, rent and condominium, summing to the total
		`INSERT INTO invoice_items (company_id, invoice_id, kind, item_id, amount, description)
		 SELECT $1, i.id, 'line', CASE WHEN n = 1 THEN t.rent ELSE t.condo END,
		        CASE WHEN n = 1 THEN i.total - round(i.total * 0.2, 2) ELSE round(i.total * 0.2, 2) END,
		        CASE WHEN n = 1 THEN 'Aluguel' ELSE 'Condomínio' END
		 FROM invoices i, generate_series(1, 2) n,
		      (SELECT min(id) AS rent, min(id) + 1 AS condo FROM transaction_items WHERE company_id = $1) t
		 WHERE i.company_id = $1 ORDER BY i.id, n`,
		`VACUUM (ANALYZE) persons, businesses, accounts, transaction_items, invoices, invoice_items`,
	}
	for _, s := range stmts {
		var args []any
		if s[0] == 'I' {
			args = []any{companyID}
		}
		t0 := time.Now()
		if _, err := conn.Exec(ctx, s, args...); err != nil {
			b.Fatalf("%.60s: %v", s, err)
		}
		b.Logf("%.40s: %s", s, time.Since(t0).Round(10*time.Millisecond))
	}
	return companyID, userID
}

// companyToday is today in the company's time zone, as the API reads it.
func companyToday(b testing.TB, pool *pgxpool.Pool, companyID int64) time.Time {
	var today time.Time
	if err := pool.QueryRow(context.Background(), `SELECT (now() AT TIME ZONE time_zone)::date FROM companies WHERE id = $1`,
		companyID).Scan(&today); err != nil {
		b.Fatal(err)
	}
	return today
}

// sameInvoiceAnswers fails the benchmark unless the API and the bare
// handler return the same page: the same invoices in the same order, with
// the same lines and payers; and the page must be full, or there is
// nothing to measure.
func sameInvoiceAnswers(b *testing.B, apiURL, key, bareURL string) {
	get := func(url, key string) map[string]any {
		req, err := http.NewRequest(http.MethodGet, url, nil)
		if err != nil {
			b.Fatal(err)
		}
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		defer res.Body.Close()
		if res.StatusCode != http.StatusOK {
			body, _ := io.ReadAll(res.Body)
			b.Fatalf("GET %s: %d %s", url, res.StatusCode, body)
		}
		dec := json.NewDecoder(res.Body)
		dec.UseNumber()
		var env map[string]any
		if err := dec.Decode(&env); err != nil {
			b.Fatal(err)
		}
		return env
	}
	api, bare := get(apiURL, key), get(bareURL, "")
	summary := func(env map[string]any) (ids []string, items int) {
		data, _ := env["data"].([]any)
		for _, d := range data {
			inv := d.(map[string]any)
			ids = append(ids, fmt.Sprint(inv["id"]))
			lines, _ := inv["items"].([]any)
			items += len(lines)
		}
		return ids, items
	}
	apiIDs, apiItems := summary(api)
	bareIDs, bareItems := summary(bare)
	if len(apiIDs) != 50 || apiItems != 100 {
		b.Fatalf("the API's page has %d invoices and %d lines, want 50 and 100", len(apiIDs), apiItems)
	}
	if !reflect.DeepEqual(apiIDs, bareIDs) || apiItems != bareItems {
		b.Fatalf("different answers: API invoices %v with %d lines, bare %v with %d lines", apiIDs, apiItems, bareIDs, bareItems)
	}
	for i, d := range api["data"].([]any) {
		if want := bare["data"].([]any)[i]; !reflect.DeepEqual(d, want) {
			b.Fatalf("invoice %s differs:\nAPI  %v\nbare %v", apiIDs[i], d, want)
		}
	}
	for _, k := range []string{"current_page", "next_page_url", "prev_page_url", "per_page", "from", "to"} {
		if fmt.Sprint(api[k]) != fmt.Sprint(bare[k]) {
			b.Fatalf("envelope %s: API %v, bare %v", k, api[k], bare[k])
		}
	}
}

// Values as the API writes them: dates as YYYY-MM-DD, instants in UTC
// without a zone, decimals as JSON numbers with every digit.
type (
	benchDate    time.Time
	benchInstant time.Time
)

func (d benchDate) MarshalJSON() ([]byte, error) {
	return []byte(`"` + time.Time(d).Format(time.DateOnly) + `"`), nil
}

func (t benchInstant) MarshalJSON() ([]byte, error) {
	return []byte(`"` + time.Time(t).UTC().Format(time.DateTime) + `"`), nil
}

func (d *benchDate) Scan(src any) error { return scanTime((*time.Time)(d), src) }

func (t *benchInstant) Scan(src any) error { return scanTime((*time.Time)(t), src) }

func scanTime(dst *time.Time, src any) error {
	t, ok := src.(time.Time)
	if !ok {
		return fmt.Errorf("cannot scan %T into a time", src)
	}
	*dst = t
	return nil
}

type benchPerson struct {
	ID           int64        `json:"id"`
	Name         string       `json:"name"`
	TaxID        *string      `json:"tax_id"`
	Email        *string      `json:"email"`
	Phone        *string      `json:"phone"`
	ZipCode      *string      `json:"zip_code"`
	Street       *string      `json:"street"`
	Number       *string      `json:"number"`
	Complement   *string      `json:"complement"`
	District     *string      `json:"district"`
	City         *string      `json:"city"`
	State        *string      `json:"state"`
	Bank         *string      `json:"bank"`
	Agency       *string      `json:"agency"`
	AgencyDigit  *string      `json:"agency_digit"`
	Account      *string      `json:"account"`
	AccountDigit *string      `json:"account_digit"`
	AccountType  *string      `json:"account_type"`
	PixKey       *string      `json:"pix_key"`
	ISPB         *string      `json:"ispb"`
	CreatedAt    benchInstant `json:"created_at"`
	UpdatedAt    benchInstant `json:"updated_at"`
}

type benchInvoiceItem struct {
	ID          int64        `json:"id"`
	InvoiceID   int64        `json:"invoice_id"`
	Kind        string       `json:"kind"`
	ItemID      int64        `json:"item_id"`
	Amount      json.Number  `json:"amount"`
	Description *string      `json:"description"`
	OwnerID     *int64       `json:"owner_id"`
	BrokerID    *int64       `json:"broker_id"`
	FiscalNote  *string      `json:"fiscal_note"`
	CreatedAt   benchInstant `json:"created_at"`
	UpdatedAt   benchInstant `json:"updated_at"`
}

type benchInvoice struct {
	ID                       int64               `json:"id"`
	ID2                      *string             `json:"id2"`
	Type                     string              `json:"type"`
	PayerID                  int64               `json:"payer_id"`
	ContractID               *int64              `json:"contract_id"`
	BuildingID               *int64              `json:"building_id"`
	BusinessID               int64               `json:"business_id"`
	AccountID                int64               `json:"account_id"`
	BillingID                *int64              `json:"billing_id"`
	BillingMethod            string              `json:"billing_method"`
	Status                   string              `json:"status"`
	Paid                     bool                `json:"paid"`
	PaidAt                   *benchDate          `json:"paid_at"`
	CreditAt                 *benchDate          `json:"credit_at"`
	PaymentError             bool                `json:"payment_error"`
	PaidAmount               *json.Number        `json:"paid_amount"`
	PaidLateFee              *json.Number        `json:"paid_late_fee"`
	PaidInterest             *json.Number        `json:"paid_interest"`
	PaidDiscount             *json.Number        `json:"paid_discount"`
	Description              string              `json:"description"`
	Total                    json.Number         `json:"total"`
	Date                     benchDate           `json:"date"`
	DueDate                  benchDate           `json:"due_date"`
	GuaranteedTransfer       bool                `json:"guaranteed_transfer"`
	PeriodInitial            *benchDate          `json:"period_initial"`
	PeriodFinal              *benchDate          `json:"period_final"`
	Tag                      []int64             `json:"tag"`
	TicketRegistered         bool                `json:"ticket_registered"`
	TicketDate               *benchInstant       `json:"ticket_date"`
	TicketKey                *string             `json:"ticket_key"`
	TicketID                 *int64              `json:"ticket_id"`
	TicketFee                *json.Number        `json:"ticket_fee"`
	TicketLink               *string             `json:"ticket_link"`
	TicketBarcode            *string             `json:"ticket_barcode"`
	TicketInfo               *string             `json:"ticket_info"`
	TicketDigitable          *string             `json:"ticket_digitable"`
	TicketWithoutPix         bool                `json:"ticket_without_pix"`
	TicketLateFee            bool                `json:"ticket_late_fee"`
	TicketLateFeeItemID      *int64              `json:"ticket_late_fee_item_id"`
	TicketLateFeePercentage  *json.Number        `json:"ticket_late_fee_percentage"`
	TicketLateFeeInterest    *json.Number        `json:"ticket_late_fee_interest"`
	TicketDiscount           bool                `json:"ticket_discount"`
	TicketDiscountMode       *string             `json:"ticket_discount_mode"`
	TicketDiscountFixed      *json.Number        `json:"ticket_discount_fixed"`
	TicketDiscountPercentage *json.Number        `json:"ticket_discount_percentage"`
	TicketDiscountAction     *string             `json:"ticket_discount_action"`
	TicketDiscountDays       *int32              `json:"ticket_discount_days"`
	TransferAutoDisabled     bool                `json:"transfer_auto_disabled"`
	AutoTransferStatus       *string             `json:"auto_transfer_status"`
	Protest                  *string             `json:"protest"`
	PixCode                  *string             `json:"pix_code"`
	BuildingIDEffective      *int64              `json:"building_id_effective"`
	CreatedAt                benchInstant        `json:"created_at"`
	UpdatedAt                benchInstant        `json:"updated_at"`
	Items                    []*benchInvoiceItem `json:"items"`
	Payer                    *benchPerson        `json:"payer"`
}

// scanTargets are the invoice's fields in the order of bareInvoiceColumns.
func (v *benchInvoice) scanTargets() []any {
	return []any{&v.ID, &v.ID2, &v.Type, &v.PayerID, &v.ContractID, &v.BuildingID, &v.BusinessID, &v.AccountID,
		&v.BillingID, &v.BillingMethod, &v.Status, &v.Paid, &v.PaidAt, &v.CreditAt, &v.PaymentError,
		&v.PaidAmount, &v.PaidLateFee, &v.PaidInterest, &v.PaidDiscount, &v.Description, &v.Total,
		&v.Date, &v.DueDate, &v.GuaranteedTransfer, &v.PeriodInitial,
		&v.PeriodFinal, &v.Tag, &v.TicketRegistered, &v.TicketDate, &v.TicketKey, &v.TicketID,
		&v.TicketFee, &v.TicketLink, &v.TicketBarcode, &v.TicketInfo, &v.TicketDigitable, &v.TicketWithoutPix,
		&v.TicketLateFee, &v.TicketLateFeeItemID, &v.TicketLateFeePercentage, &v.TicketLateFeeInterest,
		&v.TicketDiscount, &v.TicketDiscountMode, &v.TicketDiscountFixed, &v.TicketDiscountPercentage,
		&v.TicketDiscountAction, &v.TicketDiscountDays, &v.TransferAutoDisabled, &v.AutoTransferStatus, &v.Protest,
		&v.PixCode, &v.BuildingIDEffective, &v.CreatedAt, &v.UpdatedAt}
}

// bareInvoiceColumns are the invoice's visible columns; status is read as
// of today in the company's time zone, computed once for the statement.
const bareInvoiceColumns = `id, id2, type, payer_id, contract_id, building_id, business_id, account_id, billing_id,
	billing_method,
	CASE WHEN NOT paid AND status IN ('unpaid', 'overdue') THEN CASE WHEN due_date < t.today THEN 'overdue' ELSE 'unpaid' END
	     ELSE status END,
	paid, paid_at, credit_at, payment_error, paid_amount::text, paid_late_fee::text, paid_interest::text,
	paid_discount::text, description, total::text, date, due_date, guaranteed_transfer, period_initial, period_final,
	tag, ticket_registered, ticket_date, ticket_key, ticket_id, ticket_fee::text, ticket_link, ticket_barcode,
	ticket_info, ticket_digitable, ticket_without_pix, ticket_late_fee, ticket_late_fee_item_id,
	ticket_late_fee_percentage::text, ticket_late_fee_interest::text, ticket_discount, ticket_discount_mode,
	ticket_discount_fixed::text, ticket_discount_percentage::text, ticket_discount_action, ticket_discount_days,
	transfer_auto_disabled, auto_transfer_status, protest, pix_code,
	coalesce(building_id, (SELECT c.building_id FROM contracts c WHERE c.company_id = invoices.company_id AND c.id = invoices.contract_id)),
	created_at, updated_at`

// bareInvoicesHandler is the baseline for invoiceBenchQuery: the same page
// (overdue invoices due on or after filter[dueDateMin], by due date, with
// their lines and payer) from three hand-written statements through pgx,
// encoded with encoding/json in the API's envelope.
func bareInvoicesHandler(pool *pgxpool.Pool, companyID int64) http.Handler {
	const perPage = 50
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		dueMin, err := time.Parse(time.DateOnly, r.URL.Query().Get("filter[dueDateMin]"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		fail := func(err error) { http.Error(w, err.Error(), http.StatusInternalServerError) }
		rows, err := pool.Query(ctx, `SELECT `+bareInvoiceColumns+` FROM invoices,
			(SELECT (now() AT TIME ZONE time_zone)::date AS today FROM companies WHERE id = $1) t
			WHERE company_id = $1 AND due_date >= $2 AND NOT paid
			  AND status NOT IN ('paid', 'canceled', 'refunded', 'uncollectible') AND due_date < t.today
			ORDER BY due_date, id LIMIT $3`, companyID, dueMin, perPage+1)
		if err != nil {
			fail(err)
			return
		}
		var invoices []*benchInvoice
		for rows.Next() {
			v := &benchInvoice{Items: []*benchInvoiceItem{}}
			if err := rows.Scan(v.scanTargets()...); err != nil {
				fail(err)
				return
			}
			invoices = append(invoices, v)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			fail(err)
			return
		}
		hasNext := len(invoices) > perPage
		if hasNext {
			invoices = invoices[:perPage]
		}
		ids := make([]int64, len(invoices))
		byID := make(map[int64]*benchInvoice, len(invoices))
		var payerIDs []int64
		seen := map[int64]bool{}
		for i, v := range invoices {
			ids[i] = v.ID
			byID[v.ID] = v
			if !seen[v.PayerID] {
				seen[v.PayerID] = true
				payerIDs = append(payerIDs, v.PayerID)
			}
		}
		rows, err = pool.Query(ctx, `SELECT id, invoice_id, kind, item_id, amount::text, description, owner_id,
			broker_id, fiscal_note, created_at, updated_at FROM invoice_items
			WHERE company_id = $1 AND invoice_id = any($2) AND kind = 'line' ORDER BY id`, companyID, ids)
		if err != nil {
			fail(err)
			return
		}
		for rows.Next() {
			var it benchInvoiceItem
			if err := rows.Scan(&it.ID, &it.InvoiceID, &it.Kind, &it.ItemID, &it.Amount, &it.Description, &it.OwnerID,
				&it.BrokerID, &it.FiscalNote, &it.CreatedAt, &it.UpdatedAt); err != nil {
				fail(err)
				return
			}
			byID[it.InvoiceID].Items = append(byID[it.InvoiceID].Items, &it)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			fail(err)
			return
		}
		rows, err = pool.Query(ctx, `SELECT id, name, tax_id, email, phone, zip_code, street, number, complement,
			district, city, state, bank, agency, agency_digit, account, account_digit, account_type, pix_key,
			ispb, created_at, updated_at FROM persons WHERE company_id = $1 AND id = any($2) ORDER BY id`, companyID, payerIDs)
		if err != nil {
			fail(err)
			return
		}
		payers := make(map[int64]*benchPerson, len(payerIDs))
		for rows.Next() {
			var p benchPerson
			if err := rows.Scan(&p.ID, &p.Name, &p.TaxID, &p.Email, &p.Phone, &p.ZipCode, &p.Street, &p.Number,
				&p.Complement, &p.District, &p.City, &p.State, &p.Bank, &p.Agency, &p.AgencyDigit, &p.Account,
				&p.AccountDigit, &p.AccountType, &p.PixKey, &p.ISPB, &p.CreatedAt, &p.UpdatedAt); err != nil {
				fail(err)
				return
			}
			payers[p.ID] = &p
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			fail(err)
			return
		}
		for _, v := range invoices {
			v.Payer = payers[v.PayerID]
		}
		writeBareInvoicePage(w, r, invoices, hasNext, perPage)
	})
}

// writeBareInvoicePage writes the API's paginated envelope for page 1.
func writeBareInvoicePage(w http.ResponseWriter, r *http.Request, invoices []*benchInvoice, hasNext bool, perPage int) {
	type envelope struct {
		Return       bool            `json:"return"`
		Status       int             `json:"status"`
		CurrentPage  int             `json:"current_page"`
		FirstPageURL string          `json:"first_page_url"`
		NextPageURL  *string         `json:"next_page_url"`
		PrevPageURL  *string         `json:"prev_page_url"`
		Path         string          `json:"path"`
		PerPage      int             `json:"per_page"`
		From         *int            `json:"from"`
		To           *int            `json:"to"`
		Data         []*benchInvoice `json:"data"`
	}
	pageURL := func(page int) string { return r.URL.Path + "?" + r.URL.RawQuery + "&page=" + strconv.Itoa(page) }
	env := envelope{Return: true, Status: http.StatusOK, CurrentPage: 1, FirstPageURL: pageURL(1),
		Path: r.URL.Path, PerPage: perPage, Data: invoices}
	if hasNext {
		next := pageURL(2)
		env.NextPageURL = &next
	}
	if n := len(invoices); n > 0 {
		from, to := 1, n
		env.From, env.To = &from, &to
	} else {
		env.Data = []*benchInvoice{}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(env) //nolint:errcheck
}
