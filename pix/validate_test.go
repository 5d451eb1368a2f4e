package pix

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// kinds lists the (code, field) pairs of problems, for comparison.
func kinds(ps Problems) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Code + "/" + p.Field
	}
	return out
}

func TestValidatePublishedPayloads(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		payload string
		want    Payload
	}{
		{"bcb static", bcbStatic, Payload{
			FormatIndicator: "01",
			Account: MerchantAccount{ID: "26", GUI: "br.gov.bcb.pix",
				Key: "123e4567-e12b-12d1-a456-426655440000", KeyType: KeyEVP},
			MCC: "0000", Currency: "986", Country: "BR", MerchantName: "Fulano de Tal",
			MerchantCity: "BRASILIA", TxID: "***", CRC: "1D3D",
		}},
		{"bcb dynamic", bcbDynamic, Payload{
			FormatIndicator: "01", PointOfInitiation: "12",
			Account: MerchantAccount{ID: "26", GUI: "br.gov.bcb.pix",
				URL: "pix.example.com/8b3da2f39a4140d1a91abd93113bd441"},
			MCC: "0000", Currency: "986", Country: "BR", MerchantName: "Fulano de Tal",
			MerchantCity: "BRASILIA", TxID: "***", CRC: "64E4",
		}},
		{"bcb composite keeps the unreserved template", bcbComposite, Payload{
			FormatIndicator: "01",
			Account: MerchantAccount{ID: "26", GUI: "br.gov.bcb.pix",
				Key: "123e4567-e12b-12d1-a456-426655440000", KeyType: KeyEVP},
			MCC: "0000", Currency: "986", Amount: "100.50", Country: "BR", MerchantName: "Fulano de Tal",
			MerchantCity: "BRASILIA", TxID: "***", CRC: "2875",
			Other: []Object{{"80", "0014br.gov.bcb.pix2552pix.example.com/rec/2353c790eefb11eaadc10242ac120002"}},
		}},
		{"bank static with e-mail key, description and postal code", bankStaticEmail, Payload{
			FormatIndicator: "01",
			Account: MerchantAccount{ID: "26", GUI: "BR.GOV.BCB.PIX", Key: "nubank@thalesog.com",
				KeyType: KeyEmail, Description: "PIX de Testes"},
			MCC: "0000", Currency: "986", Amount: "1.00", Country: "BR", MerchantName: "Thales Ogliari",
			MerchantCity: "SAO PAULO", PostalCode: "05409000", TxID: "***", CRC: "581E",
		}},
		{"bcb sandbox dynamic", bcbSandboxDynamic, Payload{
			FormatIndicator: "01",
			Account: MerchantAccount{ID: "26", GUI: "br.gov.bcb.pix",
				URL: "qr-h.sandbox.pix.bcb.gov.br/rest/api/v2/cfe8166acaff4a62a18b7b766ef57c70"},
			MCC: "0000", Currency: "986", Country: "BR", MerchantName: "Pix",
			MerchantCity: "BRASILIA", TxID: "***", CRC: "C7D7",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, probs := Validate(tt.payload)
			if len(probs) > 0 {
				t.Fatalf("Validate: %v", probs)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Validate:\n got %+v\nwant %+v", got, tt.want)
			}
			parsed, err := Parse(tt.payload)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			tt.want.Account.KeyType = "" // set by Validate only
			if !reflect.DeepEqual(parsed, tt.want) {
				t.Fatalf("Parse:\n got %+v\nwant %+v", parsed, tt.want)
			}
		})
	}
}

func TestValidateBRCodeManualExample(t *testing.T) {
	t.Parallel()
	if n := len(bcbBRCode); n != 270 {
		t.Fatalf("example has %d characters, the manual says 270", n)
	}
	p, probs := Validate(bcbBRCode)
	// Everything holds except the PIX manual's txid charset.
	if got, want := kinds(probs), []string{"charset/txid"}; !slices.Equal(got, want) {
		t.Fatalf("problems %v, want %v", got, want)
	}
	wantOther := []Object{{"04", "12345678901234"}, {"27", "0012BR.COM.OUTRO01100123456789"},
		{"80", "0012BR.COM.OUTRO01190123.ABCD.3456.WXYZ"}}
	if !reflect.DeepEqual(p.Other, wantOther) {
		t.Fatalf("other objects %+v, want %+v", p.Other, wantOther)
	}
	if p.TxID != "RP12345678-2019" || p.PostalCode != "70074900" || p.Amount != "123.45" {
		t.Fatalf("fields %+v", p)
	}
}

func TestValidateAccentedInput(t *testing.T) {
	t.Parallel()
	p, probs := Validate(accentedCity)
	if p.MerchantCity != "Maceió" || p.TxID != "***" {
		t.Fatalf("lengths must count characters: city %q, txid %q", p.MerchantCity, p.TxID)
	}
	want := []string{"too_long/merchant_name", "charset/merchant_city"}
	if got := kinds(probs); !slices.Equal(got, want) {
		t.Fatalf("problems %v, want %v", got, want)
	}
	if !strings.Contains(probs[1].Message, `'ó' at character 6`) {
		t.Fatalf("message should point at the accent: %q", probs[1].Message)
	}

	// The same with the name and city folded to ASCII is valid.
	folded := withCRC("000201010211", tlv("26", tlv("00", "br.gov.bcb.pix")+tlv("01", "00205104118")),
		oMCC, oCurrency, "5406350.00", oCountry, tlv("59", Fold("Leone Parise Vieira")), tlv("60", Fold("Maceió")), oTxID)
	if _, probs := Validate(folded); len(probs) > 0 {
		t.Fatalf("folded payload: %v", probs)
	}

	// A bank's payload whose declared name length is wrong: reported, not
	// accepted, and never a panic.
	if _, probs := Validate(brokenNameLength); len(probs) == 0 {
		t.Fatal("broken payload accepted")
	}
}

func TestValidateLanguageTemplate(t *testing.T) {
	t.Parallel()
	// EMV's merchant information in an alternate language (64) exists to
	// carry other alphabets: accents are allowed there, its structure is
	// still checked.
	lang := tlv("64", tlv("00", "PT")+tlv("01", "João Imóveis")+tlv("02", "Maceió"))
	p, probs := Validate(static(map[string]string{oTxID: oTxID + lang}))
	if len(probs) > 0 || len(p.Other) != 1 || p.Other[0].ID != "64" {
		t.Fatalf("got %+v, %v", p.Other, probs)
	}
	_, probs = Validate(static(map[string]string{oTxID: oTxID + tlv("64", "0002PT01")}))
	if got, want := kinds(probs), []string{"syntax/64"}; !slices.Equal(got, want) {
		t.Fatalf("broken language template: %v, want %v", got, want)
	}
}

func TestValidateLowerCaseCRCAndNormalize(t *testing.T) {
	t.Parallel()
	lower := bcbStatic[:len(bcbStatic)-4] + "1d3d"
	if _, probs := Validate(lower); len(probs) > 0 {
		t.Fatalf("lower-case check digit refused: %v", probs)
	}
	got, probs := Normalize(lower)
	if len(probs) > 0 || got != bcbStatic {
		t.Fatalf("Normalize = %q, %v; want %q", got, probs, bcbStatic)
	}
	// A payload already in stored form comes back unchanged, lower-case
	// letters elsewhere included.
	if got, _ := Normalize(bcbDynamic); got != bcbDynamic {
		t.Fatalf("Normalize changed a stored payload: %q", got)
	}
	if got, probs := Normalize(bcbStatic[:len(bcbStatic)-4] + "1d3e"); got != "" || !probs.Has(CodeCRCMismatch, FieldCRC) {
		t.Fatalf("Normalize of a wrong CRC = %q, %v", got, probs)
	}
}

func TestValidateReportsEveryProblem(t *testing.T) {
	t.Parallel()
	p := static(map[string]string{
		oCurrency: "5303840",
		oName:     tlv("59", strings.Repeat("N", 26)),
		oCity:     tlv("60", "São Paulo"),
		oTxID:     tlv("62", tlv("05", "pedido-1")),
	})
	p = p[:len(p)-4] + "0000" // and a wrong CRC
	_, probs := Validate(p)
	want := []string{"invalid_value/currency", "too_long/merchant_name", "charset/merchant_city",
		"charset/txid", "crc_mismatch/crc"}
	if got := kinds(probs); !slices.Equal(got, want) {
		t.Fatalf("problems %v, want %v", got, want)
	}
	for _, pr := range probs {
		if pr.Message == "" || strings.Contains(pr.Message, "%!") {
			t.Errorf("bad message %q", pr.Message)
		}
	}
}

func TestValidateEachRule(t *testing.T) {
	t.Parallel()
	valid := static(nil)
	body := valid[:len(valid)-8] // without 6304 and the CRC
	long99 := strings.Repeat("x", 99)
	tests := []struct {
		name    string
		payload string
		want    []string
	}{
		// Whole payload.
		{"empty", "", []string{"empty/payload"}},
		{"only spaces", "  \n", []string{"surrounding_space/payload"}},
		{"trailing line break", valid + "\n", []string{"surrounding_space/payload"}},
		{"leading space", " " + valid, []string{"surrounding_space/payload"}},
		{"longer than 512", withCRC(oFormat, oAccount, oMCC, oCurrency, oCountry, oName, oCity, oTxID,
			tlv("65", long99), tlv("66", long99), tlv("67", long99), tlv("68", long99)), []string{"too_long/payload"}},

		// EMV structure.
		{"ID not two digits", body + "A10212", []string{"syntax/payload"}},
		{"length not two digits", body + "591X", []string{"syntax/payload"}},
		{"object cut before its length", body + "59", []string{"syntax/payload"}},
		{"value runs past the end", body + "5930Fulano", []string{"overrun/payload"}},
		{"template value runs past its end", static(map[string]string{oTxID: "62070509***"}), []string{"overrun/additional_data"}},
		{"template object not digits", static(map[string]string{oAccount: tlv("26", tlv("00", "br.gov.bcb.pix")+"01XX")}),
			[]string{"syntax/merchant_account"}},
		{"other template broken", static(map[string]string{oTxID: oTxID + tlv("80", "0012BR.COM.OUTRO99")}), []string{"syntax/80"}},
		{"other arrangement template broken", static(map[string]string{oAccount: oAccount + tlv("27", "0099x")}),
			[]string{"overrun/27"}},
		{"length 00", static(map[string]string{oCity: "6000"}), []string{"empty_value/merchant_city"}},
		{"length 00 of a fixed-format object", static(map[string]string{oMCC: "5200"}), []string{"empty_value/mcc"}},
		{"length 00 in a template", static(map[string]string{oAccount: account(tlv("01", "123e4567-e12b-12d1-a456-426655440000"), "0200")}),
			[]string{"empty_value/merchant_account"}},
		{"00 not first", withCRC(oAccount, oFormat, oMCC, oCurrency, oCountry, oName, oCity, oTxID), []string{"order/payload_format"}},
		{"something after the CRC", valid + "X", []string{"after_crc/crc"}},
		{"an object after the CRC", valid + "5802BR", []string{"after_crc/crc"}},
		{"CRC not last", withCRC(oFormat, oAccount, oMCC, oCurrency, oCountry, oName, "63041234", oCity, oTxID),
			[]string{"after_crc/crc"}},
		{"same ID twice", static(map[string]string{oName: oName + tlv("59", "Beltrano")}), []string{"duplicate/merchant_name"}},
		{"same ID twice in a template", static(map[string]string{oAccount: account(tlv("01", "12345678909"), tlv("01", "12345678909"))}),
			[]string{"duplicate/merchant_account"}},
		{"same ID three times: reported once", static(map[string]string{oName: oName + tlv("59", "Beltrano") + tlv("59", "Ciclano")}),
			[]string{"duplicate/merchant_name"}},
		{"same ID three times in a template: reported once",
			static(map[string]string{oAccount: account(tlv("01", "12345678909"), tlv("03", "1"), tlv("03", "2"), tlv("03", "3"))}),
			[]string{"duplicate/merchant_account"}},

		// Mandatory fields.
		{"no payload format", static(map[string]string{oFormat: ""}), []string{"order/payload_format", "missing/payload_format"}},
		{"no merchant category", static(map[string]string{oMCC: ""}), []string{"missing/mcc"}},
		{"no currency", static(map[string]string{oCurrency: ""}), []string{"missing/currency"}},
		{"no country", static(map[string]string{oCountry: ""}), []string{"missing/country"}},
		{"no merchant name", static(map[string]string{oName: ""}), []string{"missing/merchant_name"}},
		{"no merchant city", static(map[string]string{oCity: ""}), []string{"missing/merchant_city"}},
		{"no additional data", static(map[string]string{oTxID: ""}), []string{"missing/txid"}},
		{"additional data without txid", static(map[string]string{oTxID: tlv("62", tlv("50", "x"))}), []string{"missing/txid"}},
		{"no CRC", body, []string{"missing/crc"}},

		// Fixed values.
		{"payload format 02", static(map[string]string{oFormat: "000202"}), []string{"invalid_value/payload_format"}},
		{"point of initiation 13", static(map[string]string{oFormat: "000201010213"}), []string{"invalid_value/point_of_initiation"}},
		{"merchant category not digits", static(map[string]string{oMCC: "520400A0"}), []string{"invalid_value/mcc"}},
		{"merchant category of 3 digits", static(map[string]string{oMCC: "5203000"}), []string{"invalid_value/mcc"}},
		{"currency USD", static(map[string]string{oCurrency: "5303840"}), []string{"invalid_value/currency"}},
		{"country US", static(map[string]string{oCountry: "5802US"}), []string{"invalid_value/country"}},

		// Field limits and character sets.
		{"name of 26 characters", static(map[string]string{oName: tlv("59", strings.Repeat("a", 26))}), []string{"too_long/merchant_name"}},
		{"city of 16 characters", static(map[string]string{oCity: tlv("60", strings.Repeat("a", 16))}), []string{"too_long/merchant_city"}},
		{"postal code of 11 characters", static(map[string]string{oCity: oCity + tlv("61", "70074900123")}), []string{"too_long/postal_code"}},
		{"txid of 26 characters", static(map[string]string{oTxID: tlv("62", tlv("05", strings.Repeat("A", 26)))}), []string{"too_long/txid"}},
		{"name with an accent", static(map[string]string{oName: tlv("59", "João")}), []string{"charset/merchant_name"}},
		{"name with a control character", static(map[string]string{oName: tlv("59", "Jo\tao")}), []string{"charset/merchant_name"}},
		{"city with an accent", static(map[string]string{oCity: tlv("60", "Brasília")}), []string{"charset/merchant_city"}},
		{"postal code with an accent", static(map[string]string{oCity: oCity + tlv("61", "7007490é")}), []string{"charset/postal_code"}},
		{"description with an accent", static(map[string]string{oAccount: account(tlv("01", "12345678909"), tlv("02", "Aluguel março"))}),
			[]string{"charset/description"}},
		{"unknown object with an accent", static(map[string]string{oTxID: oTxID + tlv("65", "é")}), []string{"charset/65"}},
		{"unknown additional data object with an accent", static(map[string]string{oTxID: tlv("62", tlv("05", "***")+tlv("07", "Caixa nº 1"))}),
			[]string{"charset/62.07"}},
		{"unknown PIX object with an accent", static(map[string]string{oAccount: account(tlv("01", "12345678909"), tlv("03", "é"))}),
			[]string{"charset/26.03"}},
		{"txid with a hyphen", static(map[string]string{oTxID: tlv("62", tlv("05", "pedido-1"))}), []string{"charset/txid"}},
		{"txid with a space", static(map[string]string{oTxID: tlv("62", tlv("05", "pedido 1"))}), []string{"charset/txid"}},
		{"txid with stars and letters", static(map[string]string{oTxID: tlv("62", tlv("05", "***x"))}), []string{"charset/txid"}},

		// Amount.
		{"amount with a comma", static(map[string]string{oCurrency: oCurrency + tlv("54", "10,00")}), []string{"invalid_amount/amount"}},
		{"amount with three decimals", static(map[string]string{oCurrency: oCurrency + tlv("54", "1.234")}), []string{"invalid_amount/amount"}},
		{"negative amount", static(map[string]string{oCurrency: oCurrency + tlv("54", "-5.00")}), []string{"invalid_amount/amount"}},
		{"amount without integer part", static(map[string]string{oCurrency: oCurrency + tlv("54", ".50")}), []string{"invalid_amount/amount"}},
		{"amount in exponent form", static(map[string]string{oCurrency: oCurrency + tlv("54", "1e3")}), []string{"invalid_amount/amount"}},
		{"zero amount", static(map[string]string{oCurrency: oCurrency + tlv("54", "0.00")}), []string{"invalid_amount/amount"}},
		{"amount of 14 characters", static(map[string]string{oCurrency: oCurrency + tlv("54", "12345678901.00")}), []string{"invalid_amount/amount"}},

		// PIX merchant account.
		{"no PIX template", static(map[string]string{oAccount: tlv("26", tlv("00", "br.com.outro")+tlv("01", "x"))}),
			[]string{"no_pix_account/merchant_account"}},
		{"key and URL", static(map[string]string{oAccount: account(tlv("01", "12345678909"), tlv("25", "pix.example.com/x"))}),
			[]string{"key_and_url/merchant_account"}},
		{"neither key nor URL", static(map[string]string{oAccount: account(tlv("02", "Aluguel"))}),
			[]string{"no_key_or_url/merchant_account"}},
		{"URL with scheme", static(map[string]string{oAccount: account(tlv("25", "https://pix.example.com/x"))}),
			[]string{"invalid_url/url"}},
		{"URL with a space", static(map[string]string{oAccount: account(tlv("25", "pix.example.com/a b"))}),
			[]string{"charset/url"}},
		// A key or URL longer than 77 cannot be written: with the GUI it
		// would overflow the template's 99 characters (see TestCheckKey and
		// TestBuildStaticProblems for the limit itself).
		{"URL of 78 characters", static(map[string]string{oAccount: account(tlv("25", "pix.example.com/"+strings.Repeat("a", 62)))}),
			[]string{"syntax/26", "syntax/payload"}},
		{"CPF key with wrong check digit", static(map[string]string{oAccount: account(tlv("01", "12345678900"))}),
			[]string{"key_check_digit/key"}},
		{"CNPJ key with wrong check digit", static(map[string]string{oAccount: account(tlv("01", "00038166000106"))}),
			[]string{"key_check_digit/key"}},
		{"key of no known format", static(map[string]string{oAccount: account(tlv("01", "fulano"))}),
			[]string{"invalid_key/key"}},

		// CRC.
		{"CRC not hexadecimal", valid[:len(valid)-4] + "ZZZZ", []string{"crc_format/crc"}},
		{"CRC of 3 digits", body + "6303ABC", []string{"crc_format/crc"}},
		{"CRC does not match", valid[:len(valid)-4] + "0000", []string{"crc_mismatch/crc"}},
		{"payload changed after the CRC was computed", strings.Replace(valid, "Fulano", "Fulana", 1), []string{"crc_mismatch/crc"}},
	}
	if _, probs := Validate(valid); len(probs) > 0 {
		t.Fatalf("base payload invalid: %v", probs)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, probs := Validate(tt.payload)
			if got := kinds(probs); !slices.Equal(got, tt.want) {
				t.Fatalf("problems %v, want %v\n%v", got, tt.want, probs)
			}
		})
	}
}

func TestParseReportsStructureOnly(t *testing.T) {
	t.Parallel()
	// Content problems are Validate's; Parse reads them without complaint.
	p, err := Parse(static(map[string]string{oCurrency: "5303840", oName: tlv("59", "João")}))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if p.Currency != "840" || p.MerchantName != "João" {
		t.Fatalf("fields %+v", p)
	}
	// A structural problem comes back as Problems, with what was read.
	valid := static(nil)
	p, err = Parse(valid[:len(valid)-8] + "5930Fulano")
	probs, ok := err.(Problems)
	if !ok || !probs.Has(CodeOverrun, FieldPayload) {
		t.Fatalf("Parse error = %v", err)
	}
	if p.MerchantName != "Fulano de Tal" {
		t.Fatalf("what was read before the overrun is lost: %+v", p)
	}
	if !strings.Contains(probs[0].Message, "object 59 declares 30 characters but only 6 remain") {
		t.Fatalf("message %q", probs[0].Message)
	}
}

func TestAmountCents(t *testing.T) {
	t.Parallel()
	for amount, want := range map[string]int64{"1": 100, "10.": 1000, "1.5": 150, "1.05": 105, "100.50": 10050, "0.01": 1, "9999999999.99": 999999999999} {
		got, ok := Payload{Amount: amount}.AmountCents()
		if !ok || got != want {
			t.Errorf("AmountCents(%q) = %d, %v; want %d", amount, got, ok, want)
		}
	}
	for _, amount := range []string{"", "0", "1,00", "1.234"} {
		if _, ok := (Payload{Amount: amount}).AmountCents(); ok {
			t.Errorf("AmountCents(%q) accepted", amount)
		}
	}
}

func TestProblemsError(t *testing.T) {
	t.Parallel()
	var none Problems
	if none.Err() != nil {
		t.Fatal("empty Problems gave an error")
	}
	ps := Problems{{CodeMissing, FieldCRC, "the CRC (63) is missing"}}
	if got := ps.Err().Error(); got != "crc: the CRC (63) is missing (missing)" {
		t.Fatalf("Error() = %q", got)
	}
}

func TestValidateAmountForms(t *testing.T) {
	t.Parallel()
	for _, amount := range []string{"10", "10.", "10.5", "10.50", "0.01", "0010.00", "9999999999.99"} {
		if _, probs := Validate(static(map[string]string{oCurrency: oCurrency + tlv("54", amount)})); len(probs) > 0 {
			t.Errorf("amount %q refused: %v", amount, probs)
		}
	}
}

func TestValidatePositionsCountFromOne(t *testing.T) {
	t.Parallel()
	valid := static(nil)
	body := valid[:len(valid)-8]
	_, probs := Validate(body + "A10212")
	want := "at character " + strconv.Itoa(len(body)+1) + `: expected a two-digit ID and a two-digit length, found "A102"`
	if len(probs) != 1 || probs[0].Message != want {
		t.Fatalf("got %v, want message %q", probs, want)
	}
	// Positions count in the payload as given, spaces before it included.
	_, probs = Validate("  " + body + "A10212")
	want = "at character " + strconv.Itoa(len(body)+3) + `: expected a two-digit ID and a two-digit length, found "A102"`
	if len(probs) != 2 || probs[1].Message != want {
		t.Fatalf("after leading spaces: got %v, want message %q", probs, want)
	}
	// Inside a template the position is still the payload's.
	_, probs = Validate(static(map[string]string{oAccount: tlv("26", tlv("00", "br.gov.bcb.pix")+"01XX")}))
	if len(probs) != 1 || !strings.HasPrefix(probs[0].Message, "at character 29:") {
		t.Fatalf("got %v", probs)
	}
}

func TestValidateHugeInputGivesFewProblems(t *testing.T) {
	t.Parallel()
	// A long run of one repeated object must not turn into a problem per
	// repeat: the answer's size stays bounded whatever the input's size.
	for name, payload := range map[string]string{
		"repeated object":   "000201" + strings.Repeat("0001A", 200_000),
		"repeated template": "00020126" + strings.Repeat("9", 1_000_000),
	} {
		_, probs := Validate(payload)
		if len(probs) > 10 || !probs.Has(CodeTooLong, FieldPayload) {
			t.Errorf("%s: %d problems: %v", name, len(probs), kinds(probs))
		}
	}
}
