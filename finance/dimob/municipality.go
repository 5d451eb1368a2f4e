package dimob

import (
	_ "embed"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
)

// municipalitiesCSV is the IBGE ↔ SIAFI table (municipalities/README.md
// names its source and licence).
//
//go:embed municipalities/municipalities.csv
var municipalitiesCSV string

// Municipality is one row of the table: its IBGE code (7 digits), its
// SIAFI code (4 digits, the code the DIMOB file writes), its name as the
// table spells it and its state.
type Municipality struct {
	IBGE  string
	SIAFI string
	Name  string
	UF    string
}

// ErrMunicipalityNotFound is wrapped by every lookup that finds nothing.
var ErrMunicipalityNotFound = errors.New("municipality not found")

// formerNames are names the table no longer uses but people still write,
// each with the name it has now (municipalities/README.md, "Checks done").
var formerNames = map[string]string{
	"Parati/RJ":  "Paraty",
	"Embu/SP":    "Embu das Artes",
	"Itapagé/CE": "Itapajé",
}

// municipalityTable is the table read once, indexed three ways.
type municipalityTable struct {
	byIBGE  map[string]Municipality
	bySIAFI map[string]Municipality
	byName  map[string]Municipality // key: nameKey(name, uf)
}

var municipalities = sync.OnceValue(func() *municipalityTable {
	t, err := readMunicipalities(strings.NewReader(municipalitiesCSV))
	if err != nil {
		panic("dimob: the embedded municipality table: " + err.Error())
	}
	return t
})

// readMunicipalities reads the table: the header ibge,siafi,name,uf and
// one row per municipality.
func readMunicipalities(r io.Reader) (*municipalityTable, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = 4
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("reading the header: %w", err)
	}
	if strings.Join(header, ",") != "ibge,siafi,name,uf" {
		return nil, fmt.Errorf("header %q, want ibge,siafi,name,uf", strings.Join(header, ","))
	}
	t := &municipalityTable{byIBGE: map[string]Municipality{}, bySIAFI: map[string]Municipality{}, byName: map[string]Municipality{}}
	for {
		row, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading a row: %w", err)
		}
		m := Municipality{IBGE: row[0], SIAFI: row[1], Name: row[2], UF: row[3]}
		if err := t.add(m); err != nil {
			return nil, err
		}
	}
	return t, t.addFormerNames()
}

// add indexes one row, refusing a malformed or repeated one.
func (t *municipalityTable) add(m Municipality) error {
	switch {
	case len(m.IBGE) != 7 || !isDigits(m.IBGE):
		return fmt.Errorf("%s: the IBGE code is not 7 digits", m.Name)
	case len(m.SIAFI) != 4 || !isDigits(m.SIAFI):
		return fmt.Errorf("%s: the SIAFI code %q is not 4 digits", m.Name, m.SIAFI)
	case !validUF(m.UF):
		return fmt.Errorf("%s: %q is not a state", m.Name, m.UF)
	}
	if _, dup := t.byIBGE[m.IBGE]; dup {
		return fmt.Errorf("IBGE code %s given twice", m.IBGE)
	}
	if _, dup := t.bySIAFI[m.SIAFI]; dup {
		return fmt.Errorf("SIAFI code %s given twice", m.SIAFI)
	}
	t.byIBGE[m.IBGE], t.bySIAFI[m.SIAFI] = m, m
	for _, name := range namesOf(m.Name) {
		if err := t.addName(name, m); err != nil {
			return err
		}
	}
	return nil
}

// namesOf is the names a municipality is found by: its name, and for a
// name such as "Augusto Severo (Campo Grande)" each of its two parts.
func namesOf(name string) []string {
	before, inside, ok := strings.Cut(name, " (")
	if !ok || !strings.HasSuffix(inside, ")") {
		return []string{name}
	}
	return []string{name, before, strings.TrimSuffix(inside, ")")}
}

func (t *municipalityTable) addName(name string, m Municipality) error {
	key := nameKey(name, m.UF)
	if other, dup := t.byName[key]; dup && other.IBGE != m.IBGE {
		return fmt.Errorf("%s and %s (%s) are the same name to the lookup", other.Name, m.Name, m.UF)
	}
	t.byName[key] = m
	return nil
}

func (t *municipalityTable) addFormerNames() error {
	for former, current := range formerNames {
		name, uf, _ := strings.Cut(former, "/")
		m, ok := t.byName[nameKey(current, uf)]
		if !ok {
			return fmt.Errorf("former name %s: %s (%s) is not in the table", name, current, uf)
		}
		if err := t.addName(name, m); err != nil {
			return err
		}
	}
	return nil
}

// nameKey is the key of a name in a state: its letters and digits, folded
// and in lower case (onlyLettersAndDigits), and the state.
func nameKey(name, uf string) string {
	return onlyLettersAndDigits(name) + "/" + strings.ToUpper(strings.TrimSpace(uf))
}

// LookupIBGE finds a municipality by its 7-digit IBGE code.
func LookupIBGE(code string) (Municipality, error) {
	code = strings.TrimSpace(code)
	if m, ok := municipalities().byIBGE[code]; ok {
		return m, nil
	}
	return Municipality{}, fmt.Errorf("IBGE code %q: %w (want one of the 7-digit codes of IBGE's municipalities)", code, ErrMunicipalityNotFound)
}

// LookupCity finds a municipality by its name and state. The name is
// compared without regard to case, accents, spaces, hyphens and
// apostrophes ("Sao Paulo" is São Paulo, "SANTA BARBARA D OESTE" is Santa
// Bárbara d'Oeste), and a few former names are known (Parati is Paraty).
func LookupCity(name, uf string) (Municipality, error) {
	if m, ok := municipalities().byName[nameKey(name, uf)]; ok {
		return m, nil
	}
	switch uf := strings.ToUpper(strings.TrimSpace(uf)); {
	case uf == "":
		return Municipality{}, fmt.Errorf("%q: %w: no state given", name, ErrMunicipalityNotFound)
	case !validUF(uf):
		return Municipality{}, fmt.Errorf("%q (%s): %w: %q is not a state", name, uf, ErrMunicipalityNotFound, uf)
	}
	return Municipality{}, fmt.Errorf("%q (%s): %w in the RFB/SIAFI table", name, uf, ErrMunicipalityNotFound)
}

// FindMunicipality finds a property's municipality: by its IBGE code when
// it is known (not empty), by city and state otherwise.
func FindMunicipality(ibge, city, uf string) (Municipality, error) {
	if strings.TrimSpace(ibge) != "" {
		return LookupIBGE(ibge)
	}
	return LookupCity(city, uf)
}

// lookupSIAFI finds a municipality by its SIAFI code, the code a
// declaration carries.
func lookupSIAFI(code string) (Municipality, bool) {
	m, ok := municipalities().bySIAFI[code]
	return m, ok
}

// states are the 27 federative units.
var states = map[string]bool{
	"AC": true, "AL": true, "AM": true, "AP": true, "BA": true, "CE": true, "DF": true, "ES": true, "GO": true,
	"MA": true, "MG": true, "MS": true, "MT": true, "PA": true, "PB": true, "PE": true, "PI": true, "PR": true,
	"RJ": true, "RN": true, "RO": true, "RR": true, "RS": true, "SC": true, "SE": true, "SP": true, "TO": true,
}

func validUF(uf string) bool { return states[uf] }
