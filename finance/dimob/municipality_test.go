package dimob

import (
	"errors"
	"strings"
	"testing"
)

func TestLookupCity(t *testing.T) {
	t.Parallel()
	tests := []struct {
		city, uf string
		siafi    string // "" when not found
	}{
		{"São Paulo", "SP", "7107"},
		{"Sao Paulo", "SP", "7107"},
		{"SAO PAULO", "sp", "7107"},
		{"  são   paulo ", " SP ", "7107"},
		{"Rio de Janeiro", "RJ", "6001"},
		{"Brasilia", "DF", "9701"},
		{"Belo Horizonte", "MG", "4123"},
		{"Porto Alegre", "RS", "8801"},
		{"Santa Bárbara d'Oeste", "SP", "7017"},
		{"SANTA BARBARA D OESTE", "SP", "7017"},
		{"Santa Barbara D'Oeste", "SP", "7017"},
		{"Santa Barbara dOeste", "SP", "7017"},
		{"Santa Bárbara d’Oeste", "SP", "7017"}, // a typographic apostrophe
		{"Olho d Agua do Borges", "RN", "1767"}, // Olho-d'Água do Borges
		{"olho-dagua-do-borges", "RN", "1767"},
		{"Embu Guacu", "SP", "6403"},     // Embu-Guaçu
		{"Embu", "SP", "6401"},           // the former name of Embu das Artes
		{"Embu das Artes", "SP", "6401"}, // its name
		{"Parati", "RJ", "5875"},         // Paraty
		{"Itapagé", "CE", "1427"},        // Itapajé
		{"Augusto Severo", "RN", "1625"}, // "Augusto Severo (Campo Grande)"
		{"Campo Grande", "RN", "1625"},
		{"Augusto Severo (Campo Grande)", "RN", "1625"},
		{"Boa Saúde", "RN", "1703"}, // "Januário Cicco (Boa Saúde)"
		{"Alta Floresta D'Oeste", "RO", "0033"},
		{"Pau d'Arco", "PA", "0387"},
		{"Pau D'Arco", "TO", "0191"}, // the same name in another state
		{"Boa Esperança do Norte", "MT", "1182"},
		{"Sao Paolo", "SP", ""},
		{"São Paulo", "RJ", ""},
		{"São Paulo", "XX", ""},
		{"", "SP", ""},
	}
	for _, tt := range tests {
		m, err := LookupCity(tt.city, tt.uf)
		switch {
		case tt.siafi == "" && !errors.Is(err, ErrMunicipalityNotFound):
			t.Errorf("LookupCity(%q, %q) = %v, %v; want not found", tt.city, tt.uf, m, err)
		case tt.siafi != "" && (err != nil || m.SIAFI != tt.siafi):
			t.Errorf("LookupCity(%q, %q) = %v, %v; want SIAFI %s", tt.city, tt.uf, m, err, tt.siafi)
		}
	}
}

func TestLookupCityNotFoundSaysWhat(t *testing.T) {
	t.Parallel()
	_, err := LookupCity("Sao Paolo", "SP")
	if want := `"Sao Paolo" (SP): municipality not found in the RFB/SIAFI table`; err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}
	_, err = LookupCity("Sao Paulo", "XX")
	if err == nil || !strings.Contains(err.Error(), `"XX" is not a state`) {
		t.Errorf("error = %v", err)
	}
	_, err = LookupCity("Sao Paulo", " ")
	if want := `"Sao Paulo": municipality not found: no state given`; err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}
}

func TestLookupIBGE(t *testing.T) {
	t.Parallel()
	tests := []struct{ ibge, siafi, name, uf string }{
		{"3550308", "7107", "São Paulo", "SP"},
		{"3304557", "6001", "Rio de Janeiro", "RJ"},
		{"3106200", "4123", "Belo Horizonte", "MG"},
		{"5300108", "9701", "Brasília", "DF"},
		{"4314902", "8801", "Porto Alegre", "RS"},
		{"2201919", "2287", "Bom Princípio do Piauí", "PI"}, // one of the codes with an irregular check digit
		{" 3509502 ", "6291", "Campinas", "SP"},
	}
	for _, tt := range tests {
		m, err := LookupIBGE(tt.ibge)
		if err != nil || m.SIAFI != tt.siafi || m.Name != tt.name || m.UF != tt.uf {
			t.Errorf("LookupIBGE(%q) = %+v, %v; want %s %s (%s)", tt.ibge, m, err, tt.siafi, tt.name, tt.uf)
		}
	}
	for _, code := range []string{"", "355030", "3550309", "7107", "35503080"} {
		if m, err := LookupIBGE(code); !errors.Is(err, ErrMunicipalityNotFound) {
			t.Errorf("LookupIBGE(%q) = %+v, %v; want not found", code, m, err)
		}
	}
}

// TestFindMunicipality: the IBGE code when it is known, the city and
// state otherwise.
func TestFindMunicipality(t *testing.T) {
	t.Parallel()
	tests := []struct{ ibge, city, uf, siafi string }{
		{"3509502", "São Paulo", "SP", "6291"}, // the code wins over the name
		{"", "Sao Paulo", "SP", "7107"},
		{"  ", "Campinas", "SP", "6291"},
	}
	for _, tt := range tests {
		if m, err := FindMunicipality(tt.ibge, tt.city, tt.uf); err != nil || m.SIAFI != tt.siafi {
			t.Errorf("FindMunicipality(%q, %q, %q) = %+v, %v; want %s", tt.ibge, tt.city, tt.uf, m, err, tt.siafi)
		}
	}
	if _, err := FindMunicipality("1234567", "São Paulo", "SP"); !errors.Is(err, ErrMunicipalityNotFound) {
		t.Errorf("an unknown IBGE code = %v; want not found (the name is not tried)", err)
	}
}

// TestMunicipalityTable: the embedded table is whole (5,571 rows, every
// code unique) and no two names of a state are one key to the lookup.
func TestMunicipalityTable(t *testing.T) {
	t.Parallel()
	tab := municipalities()
	if len(tab.byIBGE) != 5571 || len(tab.bySIAFI) != 5571 {
		t.Errorf("%d IBGE and %d SIAFI codes, want 5571 each", len(tab.byIBGE), len(tab.bySIAFI))
	}
	for _, m := range tab.byIBGE {
		if got, err := LookupCity(m.Name, m.UF); err != nil || got != m {
			t.Errorf("LookupCity(%q, %q) = %+v, %v; want %+v", m.Name, m.UF, got, err, m)
		}
		if m.IBGE[:2] != ibgeStatePrefix[m.UF] {
			t.Errorf("%s (%s): IBGE code %s does not begin with its state's %s", m.Name, m.UF, m.IBGE, ibgeStatePrefix[m.UF])
		}
	}
}

// ibgeStatePrefix is the first two digits of IBGE's codes in each state.
var ibgeStatePrefix = map[string]string{
	"RO": "11", "AC": "12", "AM": "13", "RR": "14", "PA": "15", "AP": "16", "TO": "17",
	"MA": "21", "PI": "22", "CE": "23", "RN": "24", "PB": "25", "PE": "26", "AL": "27", "SE": "28", "BA": "29",
	"MG": "31", "ES": "32", "RJ": "33", "SP": "35", "PR": "41", "SC": "42", "RS": "43",
	"MS": "50", "MT": "51", "GO": "52", "DF": "53",
}

// TestReadMunicipalitiesRefusesBadTables: a table that would give a wrong
// code is refused when it is read, not when a declaration is written.
func TestReadMunicipalitiesRefusesBadTables(t *testing.T) {
	t.Parallel()
	const head = "ibge,siafi,name,uf\n"
	const paraty = "3303807,5875,Paraty,RJ\n3515004,6401,Embu das Artes,SP\n2306306,1427,Itapajé,CE\n"
	tests := []struct{ name, csv, want string }{
		{"header", "code,siafi,name,uf\n" + paraty, "want ibge,siafi,name,uf"},
		{"IBGE code short", head + paraty + "355030,7107,São Paulo,SP\n", "IBGE code is not 7 digits"},
		{"SIAFI code as a number", head + paraty + "3550308,107,São Paulo,SP\n", `SIAFI code "107" is not 4 digits`},
		{"state", head + paraty + "3550308,7107,São Paulo,S\n", `"S" is not a state`},
		{"IBGE code twice", head + paraty + "3303807,7107,São Paulo,SP\n", "IBGE code 3303807 given twice"},
		{"SIAFI code twice", head + paraty + "3550308,5875,São Paulo,SP\n", "SIAFI code 5875 given twice"},
		{"one name twice in a state", head + paraty + "3550308,7107,São Paulo,SP\n3550309,7108,Sao-Paulo,SP\n", "are the same name to the lookup"},
		{"former name without its municipality", head + "3303807,5875,Paraty,RJ\n", "former name"},
		{"a row of three columns", head + paraty + "3550308,7107,São Paulo\n", "wrong number of fields"},
	}
	for _, tt := range tests {
		_, err := readMunicipalities(strings.NewReader(tt.csv))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error = %v, want …%s…", tt.name, err, tt.want)
		}
	}
	if _, err := readMunicipalities(strings.NewReader(head + paraty)); err != nil {
		t.Errorf("a good table: %v", err)
	}
}
