// Command flow uses the generated Go client (package propfin) against a
// propfin server: it creates a category and two types, then lists the
// category's types with an operator filter, sorted on two keys, with some
// columns and their category, and checks what comes back; then it writes
// an invoice of 150,000.01 and reads its amounts back to the cent (money is
// read into decimal.Decimal: overlay.yaml). It exits non-zero on the first
// answer it did not expect.
//
// PROPFIN_URL is the server (http://127.0.0.1:8080), PROPFIN_KEY an API key.
package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"time"

	openapi_types "github.com/oapi-codegen/runtime/types"
	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/api/clients/go/propfin"
)

func main() {
	if err := run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "goflow: FAILED:", err)
		os.Exit(1)
	}
	fmt.Println("goflow: ok")
}

func run(ctx context.Context) error {
	base, key := os.Getenv("PROPFIN_URL"), os.Getenv("PROPFIN_KEY")
	if base == "" || key == "" {
		return fmt.Errorf("PROPFIN_URL and PROPFIN_KEY must be set")
	}
	auth := func(_ context.Context, r *http.Request) error {
		r.Header.Set("Authorization", "Bearer "+key)
		return nil
	}
	c, err := propfin.NewClientWithResponses(base, propfin.WithRequestEditorFn(auth))
	if err != nil {
		return fmt.Errorf("client: %w", err)
	}
	run := strconv.FormatInt(time.Now().UnixNano(), 36)

	color := "#43a047"
	cat, err := c.PostBuildingsCategoriesWithResponse(ctx, propfin.PostBuildingsCategoriesJSONRequestBody{
		Description: "Comercial " + run, Color: color})
	if err := want("create a category", http.StatusCreated, cat.HTTPResponse, cat.Body, err); err != nil {
		return err
	}
	categoryID := *cat.JSON201.Data.Id
	var typeIDs []int64
	for _, d := range []string{"Loja", "Sala"} {
		ty, err := c.PostBuildingsTypesWithResponse(ctx, propfin.PostBuildingsTypesJSONRequestBody{
			Description: &d, CategoryId: categoryID})
		if err := want("create the type "+d, http.StatusCreated, ty.HTTPResponse, ty.Body, err); err != nil {
			return err
		}
		typeIDs = append(typeIDs, *ty.JSON201.Data.Id)
	}

	sort, include := "-description,id", "id,color"
	fields := []propfin.GetBuildingsTypesParamsFields{"id", "description"}
	// ids in bodies and records are int64 (format int64); query parameters, plain integers, are int
	filterCategory, fromID := int(categoryID), int(typeIDs[0])
	list, err := c.GetBuildingsTypesWithResponse(ctx, &propfin.GetBuildingsTypesParams{
		FilterCategoryId: &filterCategory, FilterIdge: &fromID, Sort: &sort, Fields: &fields, IncludeCategory: &include})
	if err := want("list the category's types", http.StatusOK, list.HTTPResponse, list.Body, err); err != nil {
		return err
	}
	var got []int64
	for _, row := range list.JSON200.Data {
		if row.Id == nil || row.Category == nil || row.Category.Color == nil || *row.Category.Color != color {
			return fmt.Errorf("list the category's types: a row without its id or category's color: %s", list.Body)
		}
		got = append(got, *row.Id)
	}
	if wantIDs := []int64{typeIDs[1], typeIDs[0]}; !slices.Equal(got, wantIDs) {
		return fmt.Errorf("list the category's types: ids %v, want %v (description descending)", got, wantIDs)
	}
	return moneyFlow(ctx, c, run)
}

// moneyFlow writes an invoice of 150,000.01 in two lines and reads its
// total and lines back: exact to the cent, as no binary float of 32 bits
// holds it (150,000.01 as a float32 is 150,000.02).
func moneyFlow(ctx context.Context, c *propfin.ClientWithResponses, run string) error {
	business, err := c.PostFinancialBusinessesWithResponse(ctx, propfin.PostFinancialBusinessesJSONRequestBody{Name: "Horizonte " + run})
	if err := want("create a business", http.StatusCreated, business.HTTPResponse, business.Body, err); err != nil {
		return err
	}
	businessID := *business.JSON201.Data.Id
	account, err := c.PostFinancialAccountsWithResponse(ctx, propfin.PostFinancialAccountsJSONRequestBody{BusinessId: businessID})
	if err := want("create an account", http.StatusCreated, account.HTTPResponse, account.Body, err); err != nil {
		return err
	}
	payer, err := c.PostPersonsWithResponse(ctx, propfin.PostPersonsJSONRequestBody{Name: "Paula Pagadora"})
	if err := want("create the payer", http.StatusCreated, payer.HTTPResponse, payer.Body, err); err != nil {
		return err
	}
	debit, credit, kind := propfin.TransactionItemsCreateDebitCustomer, propfin.TransactionItemsCreateCreditBusiness,
		propfin.TransactionItemsCreateTypeDefault
	rent, err := c.PostFinancialTransactionItemsWithResponse(ctx, propfin.PostFinancialTransactionItemsJSONRequestBody{
		Description: "Serviço", Debit: &debit, Credit: &credit, Type: &kind})
	if err := want("create a transaction item", http.StatusCreated, rent.HTTPResponse, rent.Body, err); err != nil {
		return err
	}
	lines := []string{"149999.99", "0.02"}
	body := propfin.PostInvoicesJSONRequestBody{Type: propfin.InvoicesCreateTypeSingle, PayerId: *payer.JSON201.Data.Id,
		BusinessId: businessID, AccountId: *account.JSON201.Data.Id, BillingMethod: propfin.InvoicesCreateBillingMethodTicket,
		Description: "Aluguel de 150.000,01", Date: day(-1), DueDate: day(10)}
	if err := body.Total.FromDecimal2(decimal.RequireFromString("150000.01")); err != nil {
		return fmt.Errorf("the invoice's total: %w", err)
	}
	for _, amount := range lines {
		item := propfin.InvoiceItemsCreate{ItemId: *rent.JSON201.Data.Id}
		if err := item.Amount.FromDecimal2(decimal.RequireFromString(amount)); err != nil {
			return fmt.Errorf("the line of %s: %w", amount, err)
		}
		body.Items = append(body.Items, item)
	}
	created, err := c.PostInvoicesWithResponse(ctx, body)
	if err := want("create an invoice of 150000.01", http.StatusCreated, created.HTTPResponse, created.Body, err); err != nil {
		return err
	}
	include := "amount"
	read, err := c.GetInvoicesByIdWithResponse(ctx, int(*created.JSON201.Data.Id), &propfin.GetInvoicesByIdParams{IncludeItems: &include})
	if err := want("read the invoice", http.StatusOK, read.HTTPResponse, read.Body, err); err != nil {
		return err
	}
	inv := read.JSON200.Data
	if inv.Total == nil || inv.Total.String() != "150000.01" {
		return fmt.Errorf("read the invoice: total %v, want 150000.01 exactly: %s", inv.Total, read.Body)
	}
	if inv.Items == nil {
		return fmt.Errorf("read the invoice: no lines: %s", read.Body)
	}
	items, err := inv.Items.AsInvoicesItems1()
	if err != nil || len(items) != len(lines) {
		return fmt.Errorf("read the invoice: lines %v (%v), want %d: %s", items, err, len(lines), read.Body)
	}
	for i, item := range items {
		if item.Amount == nil || item.Amount.StringFixed(2) != lines[i] {
			return fmt.Errorf("read the invoice: line %d amount %v, want %s: %s", i+1, item.Amount, lines[i], read.Body)
		}
	}
	fmt.Println("goflow: the invoice's total and lines read back to the cent")
	return nil
}

// day is today plus days, as the API's dates.
func day(days int) openapi_types.Date {
	return openapi_types.Date{Time: time.Now().AddDate(0, 0, days)}
}

// want checks an answer's status; err is the request's own error.
func want(step string, status int, r *http.Response, body []byte, err error) error {
	if err != nil {
		return fmt.Errorf("%s: %w", step, err)
	}
	if r.StatusCode != status {
		return fmt.Errorf("%s: %d, want %d: %s", step, r.StatusCode, status, body)
	}
	fmt.Printf("goflow: %s: %d\n", step, r.StatusCode)
	return nil
}
