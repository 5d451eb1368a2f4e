package pix

import (
	"slices"
	"strings"
	"testing"
)

func TestBuildReproducesTheManualExamples(t *testing.T) {
	t.Parallel()
	got, err := BuildStatic(Static{Key: "123e4567-e12b-12d1-a456-426655440000", Name: "Fulano de Tal", City: "BRASILIA"})
	if err != nil || got != bcbStatic {
		t.Fatalf("BuildStatic = %q, %v\nwant %q", got, err, bcbStatic)
	}
	got, err = BuildDynamic(Dynamic{URL: "pix.example.com/8b3da2f39a4140d1a91abd93113bd441", Name: "Fulano de Tal", City: "BRASILIA"})
	if err != nil || got != bcbDynamic {
		t.Fatalf("BuildDynamic = %q, %v\nwant %q", got, err, bcbDynamic)
	}
	// The composite example's static part, amount 100.50 included.
	got, err = BuildStatic(Static{Key: "123e4567-e12b-12d1-a456-426655440000", Name: "Fulano de Tal", City: "BRASILIA", Amount: "100.50"})
	if want := bcbComposite[:strings.Index(bcbComposite, "8074")]; err != nil || !strings.HasPrefix(got, want) || len(got) != len(want)+8 {
		t.Fatalf("BuildStatic with amount = %q, %v\nwant %q + CRC", got, err, want)
	}
}

func TestBuildRoundTrip(t *testing.T) {
	t.Parallel()
	statics := []Static{
		{Key: "12345678909", Name: "Maria", City: "Itabela"},
		{Key: "12ABC34501DE35", Name: "Pousada Mar Azul", City: "Trancoso", Amount: "350.00", TxID: "Reserva2026"},
		{Key: "+5573988899345", Name: "Otica Visao", City: "Porto Seguro", Amount: "1234.5", Description: "Oculos de sol"},
		{Key: "contato@imobiliaria.com.br", Name: strings.Repeat("N", 25), City: strings.Repeat("C", 15),
			Amount: "0.01", TxID: strings.Repeat("T", 25), Description: "Aluguel 11/2026 apto 101"},
		{Key: "123e4567-e12b-12d1-a456-426655440000", Name: "X", City: "Y", Description: strings.Repeat("d", 37)},
	}
	for _, x := range statics {
		payload, err := BuildStatic(x)
		if err != nil {
			t.Fatalf("BuildStatic(%+v): %v", x, err)
		}
		p, probs := Validate(payload)
		if len(probs) > 0 {
			t.Fatalf("BuildStatic(%+v) gave an invalid payload: %v", x, probs)
		}
		if got := p.Static(); got != x || p.IsDynamic() {
			t.Fatalf("round trip: got %+v, want %+v", got, x)
		}
	}
	d := Dynamic{URL: "qr-h.sandbox.pix.bcb.gov.br/rest/api/v2/cfe8166acaff4a62a18b7b766ef57c70", Name: "Imobiliaria", City: "SAO PAULO"}
	payload, err := BuildDynamic(d)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Parse(payload)
	if err != nil || p.Dynamic() != d || !p.IsDynamic() || p.PointOfInitiation != InitiationDynamic {
		t.Fatalf("dynamic round trip: %+v, %v", p, err)
	}
	// A dynamic code may carry an amount (54) too.
	d.Amount = "1500.00"
	payload, err = BuildDynamic(d)
	if err != nil {
		t.Fatal(err)
	}
	p, probs := Validate(payload)
	if len(probs) > 0 || p.Dynamic() != d || !strings.Contains(payload, "530398654071500.005802BR") {
		t.Fatalf("dynamic with amount: %q, %v, %+v", payload, probs, p.Dynamic())
	}
}

func TestBuildTxIDStars(t *testing.T) {
	t.Parallel()
	a, _ := BuildStatic(Static{Key: "12345678909", Name: "Maria", City: "Itabela"})
	b, _ := BuildStatic(Static{Key: "12345678909", Name: "Maria", City: "Itabela", TxID: "***"})
	if a != b || !strings.Contains(a, "62070503***6304") {
		t.Fatalf("empty txid and *** should both write ***: %q, %q", a, b)
	}
}

func TestBuildStaticProblems(t *testing.T) {
	t.Parallel()
	ok := Static{Key: "12345678909", Name: "Maria", City: "Itabela"}
	with := func(change func(*Static)) Static { s := ok; change(&s); return s }
	tests := []struct {
		name string
		in   Static
		want []string
	}{
		{"nothing", Static{}, []string{"missing/key", "missing/merchant_name", "missing/merchant_city"}},
		{"bad key", with(func(s *Static) { s.Key = "12345678900" }), []string{"key_check_digit/key"}},
		{"key of 78 characters", with(func(s *Static) { s.Key = strings.Repeat("a", 68) + "@gmail.com" }), []string{"too_long/key"}},
		{"name too long", with(func(s *Static) { s.Name = strings.Repeat("a", 26) }), []string{"too_long/merchant_name"}},
		{"city too long", with(func(s *Static) { s.City = strings.Repeat("a", 16) }), []string{"too_long/merchant_city"}},
		{"accented name", with(func(s *Static) { s.Name = "João" }), []string{"charset/merchant_name"}},
		{"accented city", with(func(s *Static) { s.City = "Eunápolis" }), []string{"charset/merchant_city"}},
		{"amount with comma", with(func(s *Static) { s.Amount = "10,50" }), []string{"invalid_amount/amount"}},
		{"zero amount", with(func(s *Static) { s.Amount = "0" }), []string{"invalid_amount/amount"}},
		{"txid with hyphen", with(func(s *Static) { s.TxID = "a-1" }), []string{"charset/txid"}},
		{"txid too long", with(func(s *Static) { s.TxID = strings.Repeat("a", 26) }), []string{"too_long/txid"}},
		{"accented description", with(func(s *Static) { s.Description = "Aluguel março" }), []string{"charset/description"}},
		// 4+14 for the GUI, 4+36 for this key, 4 for 02's header: 37 left.
		{"description over the template", Static{Key: "123e4567-e12b-12d1-a456-426655440000", Name: "X", City: "Y",
			Description: strings.Repeat("d", 38)}, []string{"too_long/description"}},
		{"description of 100 characters", with(func(s *Static) { s.Description = strings.Repeat("d", 100) }), []string{"too_long/description"}},
	}
	for _, tt := range tests {
		_, err := BuildStatic(tt.in)
		probs, _ := err.(Problems)
		if got := kinds(probs); !slices.Equal(got, tt.want) {
			t.Errorf("%s: problems %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestBuildDynamicProblems(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   Dynamic
		want []string
	}{
		{Dynamic{}, []string{"missing/url", "missing/merchant_name", "missing/merchant_city"}},
		{Dynamic{URL: "https://pix.example.com/x", Name: "A", City: "B"}, []string{"invalid_url/url"}},
		{Dynamic{URL: "pix.example.com/a b", Name: "A", City: "B"}, []string{"charset/url"}},
		{Dynamic{URL: "pix.example.com/" + strings.Repeat("a", 62), Name: "A", City: "B"}, []string{"too_long/url"}},
		{Dynamic{URL: "pix.example.com/x", Name: "A", City: "B", Amount: "0.00"}, []string{"invalid_amount/amount"}},
		{Dynamic{URL: "pix.example.com/x", Name: "A", City: "B", Amount: "10,00"}, []string{"invalid_amount/amount"}},
	}
	for _, tt := range tests {
		_, err := BuildDynamic(tt.in)
		probs, _ := err.(Problems)
		if got := kinds(probs); !slices.Equal(got, tt.want) {
			t.Errorf("BuildDynamic(%+v): problems %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestFold(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"São João":                   "Sao Joao",
		"Pão de Açúcar Ótica":        "Pao de Acucar Otica",
		"  Café   do  Zé ☕ ":         "Cafe do Ze",
		"D’Ávila “Bar” – Ñandú":      `D'Avila "Bar" - Nandu`,
		"Rua 7, nº 12":               "Rua 7, no 12",
		"Linha\tquebrada\nem três":   "Linha quebrada em tres",
		"FLORIANÓPOLIS":              "FLORIANOPOLIS",
		"plain ASCII !#$%&*()-_=+[]": "plain ASCII !#$%&*()-_=+[]",
		"🏠":                          "",
	} {
		if got := Fold(in); got != want {
			t.Errorf("Fold(%q) = %q, want %q", in, got, want)
		}
		if at, _, ok := commonCharset(Fold(in)); !ok {
			t.Errorf("Fold(%q) left a character outside the common set at %d", in, at)
		}
	}
}

func TestBuildStaticDescriptionRoom(t *testing.T) {
	t.Parallel()
	// 4+14 for the GUI, 4+36 for a random key, 4 for 02's own header.
	_, err := BuildStatic(Static{Key: "123e4567-e12b-12d1-a456-426655440000", Name: "X", City: "Y",
		Description: strings.Repeat("d", 38)})
	if err == nil || !strings.HasSuffix(err.Error(), "leaves room for 37 (too_long)") {
		t.Fatalf("error %v", err)
	}
}
