// Command flow uses the generated Go client (package propfin) against a
// propfin server: it creates a category and two types, then lists the
// category's types with an operator filter, sorted on two keys, with some
// columns and their category, and checks what comes back. It exits non-zero on the first answer
// it did not expect.
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
	return nil
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
