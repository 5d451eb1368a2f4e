package jobs

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/propfin/propfin/finance/dimob"
	"github.com/propfin/propfin/pix"
	"github.com/propfin/propfin/storage"
)

// The DIMOB of a business and year as finance/dimob takes it, built from
// what storage.ReadDimobYear read, and the check's problems named by the
// record a person fixes them on (docs/dimob.md, "The problems, by the
// record to fix").

// dimobOptions is what finance/dimob takes from its caller: the one
// CPF/CNPJ rule of propfin.
var dimobOptions = dimob.Options{ValidTaxID: pix.ValidTaxID}

// DimobProblem is a problem of the check, named by the record to fix: its
// resource (persons, buildings, contracts, businesses; transactions for an
// amount, which is a sum of the ledger's entries; "" for the request
// itself), its id, the field of that record and the API path that reads
// it; beside the declaration's own naming (record, declaration_field,
// contract, owner) and the message.
type DimobProblem struct {
	Severity         dimob.Severity `json:"severity"`
	Resource         string         `json:"resource"`
	ID               int64          `json:"id,omitempty"`
	Field            string         `json:"field"`
	Path             string         `json:"path,omitempty"`
	Record           string         `json:"record"`
	DeclarationField string         `json:"declaration_field"`
	Contract         string         `json:"contract,omitempty"`
	Owner            string         `json:"owner,omitempty"`
	Message          string         `json:"message"`
}

// DimobCheck is what the check of a declaration found, blocking problems
// and warnings apart, with the records counted.
type DimobCheck struct {
	BusinessID int64          `json:"business_id"`
	Year       int            `json:"year"`
	Amended    bool           `json:"amended"`
	Rentals    int            `json:"rentals"`
	Sales      int            `json:"sales"`
	Blocks     bool           `json:"blocks"`
	Problems   []DimobProblem `json:"problems"`
	Warnings   []DimobProblem `json:"warnings"`
}

// dimobBuild is a declaration with, for each of its records, the records
// of the company it was read from.
type dimobBuild struct {
	decl     dimob.Declaration
	business int64
	rentals  []storage.DimobRental
	sales    []storage.DimobSale
	// unfound says, by record ("declarant", "rentals[2]"), why the
	// municipality of its address was not found.
	unfound map[string]string
	extra   dimob.Problems // what the reading itself warns of
	// leftOut are the contracts left out for their dimob false, by the
	// number the warning names them with.
	leftOut map[string]int64
}

// buildDimob makes the declaration of y, amended (with the receipt of the
// declaration replaced) or not, for its file or (file false) its preview:
// a year not over on the day it was read is a blocking problem of the
// file and a warning of the preview (DimobYearOpen).
func buildDimob(y *storage.DimobYear, amended bool, receipt string, file bool) *dimobBuild {
	b := &dimobBuild{business: y.Business.ID, rentals: y.Rentals, sales: y.Sales, unfound: map[string]string{}}
	bz := y.Business
	muni, uf := b.municipality("declarant", bz.Address)
	b.decl.Declarant = dimob.Declarant{
		CNPJ: bz.TaxID, Name: bz.Name, ResponsibleCPF: bz.ResponsibleCPF, Address: declarantAddress(bz.Address),
		UF: uf, Municipality: muni, Year: y.Year, Amended: amended, ReceiptNumber: receipt,
	}
	b.decl.Rentals = make([]dimob.Rental, len(y.Rentals))
	for i, r := range y.Rentals {
		rec := fmt.Sprintf("rentals[%d]", i)
		out := dimob.Rental{
			Contract: dimob.Contract{Number: contractNumber(r.ContractID, r.Reference), Date: r.ContractDate},
			Owner:    dimob.Party{TaxID: r.Owner.TaxID, Name: r.Owner.Name},
			Tenant:   dimob.Party{TaxID: r.Tenant.TaxID, Name: r.Tenant.Name},
			Property: b.property(rec, r.Property),
		}
		for m, mo := range r.Months {
			out.Months[m] = dimob.Month{Rent: mo.Rent, Commission: mo.Commission, TaxWithheld: mo.TaxWithheld}
		}
		b.decl.Rentals[i] = out
	}
	if !amended {
		b.laterRefunds(y)
	}
	b.decl.Sales = make([]dimob.Sale, len(y.Sales))
	for i, s := range y.Sales {
		rec := fmt.Sprintf("sales[%d]", i)
		out := dimob.Sale{
			Contract:   dimob.Contract{Number: contractNumber(s.ContractID, s.Reference), Date: s.ContractDate},
			Buyer:      dimob.Party{TaxID: s.Buyer.TaxID, Name: s.Buyer.Name},
			Seller:     dimob.Party{TaxID: s.Seller.TaxID, Name: s.Seller.Name},
			Amount:     s.Amount,
			Commission: s.Commission,
			Property:   b.property(rec, s.Property),
		}
		b.decl.Sales[i] = out
		if s.Buyers > 1 {
			b.warn(rec, out.Contract.Number, out.Seller.Name, "buyer.tax_id",
				"the contract has %d buyers; the sale names one, the principal (%s)", s.Buyers, out.Buyer.Name)
		}
		if s.Sellers > 1 {
			b.warn(rec, out.Contract.Number, out.Seller.Name, "seller.tax_id",
				"the property has %d owners; the sale names one, the owner of the largest share (%s)", s.Sellers, out.Seller.Name)
		}
	}
	b.readLeftOut(y)
	if why := DimobYearOpen(y.Year, y.Today); why != "" {
		p := dimob.Problem{Severity: dimob.Warning, Record: "declaration", Field: "year",
			Message: why + ": the check reads the year so far"}
		if file {
			p.Severity, p.Message = dimob.Blocking, why
		}
		b.extra = append(b.extra, p)
	}
	return b
}

// laterRefunds warns of each refund made after the year that counts in
// it (in the month of the payment it gives back: docs/dimob.md,
// "Refunds"), on the rental it lowers (on the declaration's rentals when
// it gives back all the rental had in the year): a declaration of the
// year filed before the refund declares more than the owner kept, and is
// to be amended with this one.
func (b *dimobBuild) laterRefunds(y *storage.DimobYear) {
	for _, f := range y.LaterRefunds {
		what := storage.RefundCountsText(f.InvoiceID, f.Date, f.Paid) + fmt.Sprintf(": if the DIMOB of %d was filed "+
			"before %s, file this one as its amended declaration (amended, with the receipt of the one filed)", y.Year, f.Date)
		i := slices.IndexFunc(y.Rentals, func(r storage.DimobRental) bool {
			return r.ContractID == f.ContractID && r.Owner.ID == f.OwnerID
		})
		if i < 0 {
			b.warn("declaration", "", "", "rentals", "contract %d, owner %d: nothing left to declare in %d; %s",
				f.ContractID, f.OwnerID, y.Year, what)
			continue
		}
		r := b.decl.Rentals[i]
		b.warn(fmt.Sprintf("rentals[%d]", i), r.Contract.Number, r.Owner.Name,
			fmt.Sprintf("months[%d].rent", f.Paid.Month()-1), "%s", what)
	}
}

// leftOut warns of each contract of the business's operations in the
// year that the declaration leaves out because its dimob is false (a sale
// signed in the year, a rental paid in it): an operation not declared is
// fined (IN RFB 1.115/2010), and a declaration it would be in is no
// "company without operations".
func (b *dimobBuild) readLeftOut(y *storage.DimobYear) {
	b.decl.LeftOut = len(y.LeftOut)
	b.leftOut = map[string]int64{}
	for _, l := range y.LeftOut {
		b.leftOut[contractNumber(l.ContractID, l.Reference)] = l.ContractID
		what, field := "rental", "rentals"
		if l.Type == "sale" {
			what, field = "sale", "sales"
		}
		b.warn("declaration", contractNumber(l.ContractID, l.Reference), "", field,
			"%s contract %d (%s) of %d is left out: its dimob is false; set dimob true on it to declare it",
			what, l.ContractID, contractNumber(l.ContractID, l.Reference), y.Year)
	}
}

func (b *dimobBuild) warn(record, contract, owner, field, format string, args ...any) {
	b.extra = append(b.extra, dimob.Problem{Severity: dimob.Warning, Record: record, Contract: contract, Owner: owner,
		Field: field, Message: fmt.Sprintf(format, args...)})
}

// contractNumber is the number a record gives its contract: the
// contract's reference, or its id when it has none.
func contractNumber(id int64, reference string) string {
	if strings.TrimSpace(reference) != "" {
		return strings.TrimSpace(reference)
	}
	return strconv.FormatInt(id, 10)
}

// property is a rental's or sale's property: its address in one line, its
// CEP, state and municipality code (found from its city and state).
func (b *dimobBuild) property(record string, a storage.Address) dimob.Property {
	muni, uf := b.municipality(record, a)
	return dimob.Property{Address: propertyAddress(a), CEP: a.ZipCode, Municipality: muni, UF: uf}
}

// municipality finds the RFB/SIAFI code of an address's city in its
// state; when it cannot, the code is empty (a blocking problem of the
// check) and record's reason is kept for its message.
func (b *dimobBuild) municipality(record string, a storage.Address) (code, uf string) {
	uf = strings.ToUpper(strings.TrimSpace(a.State))
	if strings.TrimSpace(a.City) == "" {
		b.unfound[record] = "the address has no city: the municipality's code is found from the city and the state"
		return "", uf
	}
	m, err := dimob.FindMunicipality("", a.City, uf)
	if err != nil {
		b.unfound[record] = err.Error()
		return "", uf
	}
	return m.SIAFI, uf
}

// propertyAddress is a property's address in one line: street, number and
// complement, then the district ("Rua Augusta, 500, loja 2 - Consolação");
// empty without a street.
func propertyAddress(a storage.Address) string {
	if strings.TrimSpace(a.Street) == "" {
		return ""
	}
	s := joinNonEmpty(", ", a.Street, a.Number, a.Complement)
	if d := strings.TrimSpace(a.District); d != "" {
		s += " - " + d
	}
	return s
}

// declarantAddress is the declarant's full address in one line ("Rua da
// Consolação, 1000, sala 12, Consolação, São Paulo - SP, CEP 01302-000");
// empty without a street.
func declarantAddress(a storage.Address) string {
	if strings.TrimSpace(a.Street) == "" {
		return ""
	}
	city := joinNonEmpty(" - ", a.City, a.State)
	cep := ""
	if len(a.ZipCode) == 8 {
		cep = "CEP " + a.ZipCode[:5] + "-" + a.ZipCode[5:]
	}
	return joinNonEmpty(", ", a.Street, a.Number, a.Complement, a.District, city, cep)
}

func joinNonEmpty(sep string, parts ...string) string {
	kept := parts[:0:0]
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, sep)
}

// check runs finance/dimob's check on the declaration and names each
// problem by the record to fix.
func (b *dimobBuild) check() DimobCheck {
	d := b.decl.Declarant
	out := DimobCheck{BusinessID: b.business, Year: d.Year, Amended: d.Amended, Rentals: len(b.decl.Rentals),
		Sales: len(b.decl.Sales), Problems: []DimobProblem{}, Warnings: []DimobProblem{}}
	for _, p := range append(dimobOptions.Check(b.decl), b.extra...) {
		dp := b.name(p)
		if p.Severity == dimob.Blocking {
			out.Problems = append(out.Problems, dp)
		} else {
			out.Warnings = append(out.Warnings, dp)
		}
	}
	out.Blocks = len(out.Problems) > 0
	return out
}

// name is a problem of the check as DimobProblem names it.
func (b *dimobBuild) name(p dimob.Problem) DimobProblem {
	dp := DimobProblem{Severity: p.Severity, Record: p.Record, DeclarationField: p.Field, Contract: p.Contract,
		Owner: p.Owner, Message: p.Message}
	if why, ok := b.unfound[p.Record]; ok && (p.Field == "municipality" || p.Field == "property.municipality") {
		dp.Message = why
	}
	kind, index := splitRecord(p.Record)
	switch {
	case kind == "declarant":
		b.nameDeclarant(&dp, p.Field)
	case kind == "rentals" && index >= 0 && index < len(b.rentals):
		b.nameRental(&dp, b.rentals[index], p.Field)
	case kind == "sales" && index >= 0 && index < len(b.sales):
		b.nameSale(&dp, b.sales[index], p.Field)
	case kind == "declaration" && p.Contract != "" && b.leftOut[p.Contract] != 0:
		id := b.leftOut[p.Contract] // a contract left out: its dimob
		dp.at(storage.Contracts, id, "dimob", contractPath(id))
	default: // the declaration as a whole, or its number of records
		dp.Field = p.Field
	}
	return dp
}

// splitRecord reads "rentals[3]" as ("rentals", 3); a record without an
// index gives -1.
func splitRecord(record string) (string, int) {
	name, rest, ok := strings.Cut(record, "[")
	if !ok {
		return record, -1
	}
	i, err := strconv.Atoi(strings.TrimSuffix(rest, "]"))
	if err != nil {
		return name, -1
	}
	return name, i
}

// The paths of the records a problem names.
func businessPath(id int64) string { return "/financial/businesses/" + strconv.FormatInt(id, 10) }
func contractPath(id int64) string { return "/financial/contracts/" + strconv.FormatInt(id, 10) }
func personPath(id int64) string   { return "/persons/" + strconv.FormatInt(id, 10) }
func buildingPath(id int64) string { return "/buildings/" + strconv.FormatInt(id, 10) }

// at names the record to fix.
func (dp *DimobProblem) at(resource string, id int64, field, path string) {
	dp.Resource, dp.ID, dp.Field, dp.Path = resource, id, field, path
}

// declarantFields are the business's fields behind the declarant's.
var declarantFields = map[string]string{
	"cnpj": "tax_id", "name": "name", "responsible_cpf": "responsible_cpf", "address": "street",
	"uf": "state", "municipality": "city",
}

func (b *dimobBuild) nameDeclarant(dp *DimobProblem, field string) {
	if f, ok := declarantFields[field]; ok {
		dp.at(storage.Businesses, b.business, f, businessPath(b.business))
		return
	}
	dp.at("", 0, field, "") // year, receipt_number: the request's
}

// propertyFields are the building's fields behind a property's.
var propertyFields = map[string]string{
	"property.address": "street", "property.cep": "zip_code", "property.uf": "state", "property.municipality": "city",
}

// nameCommon names what rentals and sales share: the contract and the
// property; false for another field.
func nameCommon(dp *DimobProblem, contractID, buildingID int64, field string) bool {
	switch {
	case field == "contract.number":
		dp.at(storage.Contracts, contractID, "reference", contractPath(contractID))
	case field == "contract.date":
		dp.at(storage.Contracts, contractID, "signed_at", contractPath(contractID))
	case propertyFields[field] != "" && buildingID == 0:
		dp.at(storage.Contracts, contractID, "building_id", contractPath(contractID))
	case propertyFields[field] != "":
		dp.at(storage.Buildings, buildingID, propertyFields[field], buildingPath(buildingID))
	default:
		return false
	}
	return true
}

// nameParty names a person's field (tax_id, name) of a role, or the
// record's field that should name the person when there is none.
func nameParty(dp *DimobProblem, p storage.DimobParty, field string, orResource string, orID int64, orField, orPath string) {
	_, f, _ := strings.Cut(field, ".")
	if p.ID != 0 {
		dp.at(storage.Persons, p.ID, f, personPath(p.ID))
		return
	}
	dp.at(orResource, orID, orField, orPath)
}

func (b *dimobBuild) nameRental(dp *DimobProblem, r storage.DimobRental, field string) {
	if nameCommon(dp, r.ContractID, r.BuildingID, field) {
		return
	}
	switch {
	case strings.HasPrefix(field, "owner."):
		nameParty(dp, r.Owner, field, storage.Contracts, r.ContractID, "building_id", contractPath(r.ContractID))
	case strings.HasPrefix(field, "tenant."):
		nameParty(dp, r.Tenant, field, storage.Contracts, r.ContractID, "tenant_id", contractPath(r.ContractID))
	default: // months[i].rent ...: a sum of the owner's entries of the contract
		dp.at(storage.Transactions, 0, "amount", fmt.Sprintf("/transactions?filter[contract_id]=%d&filter[owner_id]=%d&filter[extract]=owner",
			r.ContractID, r.Owner.ID))
	}
}

// ownSaleMessage answers a sale whose building has no owner: the seller
// is then the declarant itself, whose sale is R03, not written yet.
const ownSaleMessage = "the building has no owner, so the seller is the declarant itself: the sale of a unit the " +
	"declarant built or developed is the DIMOB's record R03, which propfin does not write yet (declare it in the " +
	"Receita's program); a brokered sale names the seller as the building's owner (R04)"

func (b *dimobBuild) nameSale(dp *DimobProblem, s storage.DimobSale, field string) {
	if nameCommon(dp, s.ContractID, s.BuildingID, field) {
		return
	}
	occupants := contractPath(s.ContractID) + "/occupants"
	switch {
	case strings.HasPrefix(field, "buyer.") && s.Buyer.ID == 0 && s.BuyerOccupant != 0:
		_, f, _ := strings.Cut(field, ".")
		dp.at(storage.ContractOccupants, s.BuyerOccupant, f, occupants+"/"+strconv.FormatInt(s.BuyerOccupant, 10))
	case strings.HasPrefix(field, "buyer."):
		nameParty(dp, s.Buyer, field, storage.ContractOccupants, 0, "type", occupants)
	case strings.HasPrefix(field, "seller.") && s.BuildingID == 0:
		dp.at(storage.Contracts, s.ContractID, "building_id", contractPath(s.ContractID))
	case strings.HasPrefix(field, "seller."):
		nameParty(dp, s.Seller, field, storage.BuildingOwners, 0, "person_id", buildingPath(s.BuildingID)+"/owners")
		if field == "seller.tax_id" && s.Sellers == 0 {
			dp.Message = ownSaleMessage
		}
	case field == "amount":
		dp.at(storage.Contracts, s.ContractID, "amount", contractPath(s.ContractID))
	default: // the commission: a sum of the business's entries of the contract
		dp.at(storage.Transactions, 0, "amount", fmt.Sprintf("/transactions?filter[contract_id]=%d&filter[extract]=business", s.ContractID))
	}
}
