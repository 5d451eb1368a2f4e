package pagamento

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/cnab"
	"github.com/propfin/propfin/cnab/fixedwidth"
)

// allRecords lists every record table of every bank.
func allRecords(b *bank) []*record {
	recs := []*record{b.fileHeader, b.fileTrailer, b.batchTrailer}
	for _, f := range []string{"41", "30"} {
		recs = append(recs, b.batchHeader(f))
	}
	for _, k := range []Kind{KindTransfer, KindPIX, KindBoleto} {
		recs = append(recs, b.detail(&state{p: &Payment{Kind: k}})...)
	}
	return recs
}

// TestLayoutTables checks that every record of every bank covers
// positions 1 to 240 exactly once, in order, with literals as wide as
// their fields.
func TestLayoutTables(t *testing.T) {
	t.Parallel()
	for code, b := range banks {
		for _, rec := range allRecords(b) {
			next := 1
			for _, f := range rec.fields {
				if f.Start != next || f.End < f.Start {
					t.Errorf("%s %s: field %q at %d-%d, want it to start at %d", code, rec.name, f.Name, f.Start, f.End, next)
				}
				if f.Kind == fixedwidth.Const && len(f.Lit) != f.Width() {
					t.Errorf("%s %s: literal %q of %q is not %d wide", code, rec.name, f.Lit, f.Name, f.Width())
				}
				next = f.End + 1
			}
			if next != lineWidth+1 {
				t.Errorf("%s %s: ends at %d, want 240", code, rec.name, next-1)
			}
		}
	}
}

// position is one value at its place in the bank's document: record
// (line) number in the golden file, first and last position, and what
// must be there.
type position struct {
	line       int
	start, end int
	want       string
	what       string
}

// TestDocumentPositions reads fields of the golden files at the positions
// the banks' documents give, so that a table drifting from its document
// fails here and not at the bank.
func TestDocumentPositions(t *testing.T) {
	t.Parallel()
	cases := map[string][]position{
		// Multipag Bradesco v6: header 0, batch header 1, segments A/B,
		// J/J-52, trailers 5 and 9.
		"237": {
			{1, 1, 8, "23700000", "file header control"},
			{1, 18, 32, "211222333000181", "payer CNPJ"},
			{1, 33, 52, padRight("123456", 20), "G007 convênio"},
			{1, 53, 72, "0123450000000987654 ", "payer agency and account"},
			{1, 144, 157, "20112026103015", "generation date and time"},
			{1, 158, 166, "000042089", "NSA and layout 089"},
			{1, 172, 174, "   ", "not a PIX file"},
			{2, 9, 17, "C2041045 ", "C, service 20, forma 41 TED outra titularidade, batch layout 045"},
			{2, 223, 224, "01", "P014 débito em conta"},
			{3, 14, 17, "A000", "segment A, inclusão"},
			{3, 18, 23, "018001", "câmara TED and beneficiary's bank"},
			{3, 24, 43, "0345670000001234568 ", "beneficiary agency and account"},
			{3, 74, 93, padRight("REPASSE-0001", 20), "seu número"},
			{3, 94, 104, "23112026BRL", "payment date and currency"},
			{3, 120, 134, "000000000150000", "amount"},
			{3, 220, 226, "00007CC", "TED purpose and account type"},
			{4, 14, 32, "B   100052998224725", "segment B with beneficiary's CPF"},
			{6, 12, 13, "43", "TED to the same holder"},
			{7, 42, 43, "0X", "two-character account digit split over 42 and 43"},
			{10, 12, 13, "01", "credit at Bradesco"},
			{11, 18, 23, "000237", "câmara 000 for a credit in account"},
			{14, 12, 16, "31040", "boleto of another bank, batch layout 040"},
			{15, 14, 17, "J000", "segment J"},
			{15, 18, 61, "34199165600001500001091234567881234512345000", "barcode"},
			{15, 183, 202, padRight("CONDOMINIO-11", 20), "seu número"},
			{15, 223, 224, "09", "currency"},
			{16, 14, 19, "J 0152", "segment J-52"},
			{16, 20, 35, "2011222333000181", "J-52 payer"},
			{16, 76, 91, "2060746948000112", "J-52 beneficiary"},
			{17, 18, 41, "000004000000000000150000", "batch trailer count and total"},
			{18, 12, 13, "30", "Bradesco boleto"},
			{19, 100, 167, "000000000089990" + "000000000000000" + "000000000001550" + "11122026" + "000000000091540", "nominal, discount, surcharge, date, paid"},
			{22, 1, 29, "23799999         000005000022", "file trailer: 5 batches, 22 records"},
		},
		"237_pix": {
			{1, 172, 174, "PIX", "G021 PIX file mark"},
			{2, 12, 13, "45", "Pix transferência"},
			{3, 18, 20, "009", "câmara SPI"},
			{4, 15, 17, "01 ", "G100 phone key"},
			{4, 128, 141, "+5511987654321", "key"},
			{6, 15, 17, "02 ", "G100 e-mail key"},
			{6, 128, 159, "maria.gracas+aluguel@example.com", "e-mail key as written"},
			{8, 15, 17, "03 ", "G100 CPF/CNPJ key"},
			{10, 15, 17, "04 ", "G100 random key"},
			{11, 178, 201, "00052998224725" + "18236120" + "02", "G031 Pix: document, ISPB, account type"},
			{12, 15, 17, "05 ", "G100 account data"},
			{12, 128, 129, "02", "account type"},
			{12, 233, 240, "18236120", "P015 ISPB"},
		},
		// SISPAG: header without NSA, layout 080 at 15-17; note 11.
		"341": {
			{1, 15, 17, "080", "file layout version"},
			{1, 53, 72, "01234 000000098765 4", "debited agency, account, DAC"},
			{1, 158, 166, "000000000", "no NSA in SISPAG"},
			{2, 9, 16, "C2041040", "forma 41, batch layout 040"},
			{2, 213, 222, "01301100SP", "CEP 8 digits and state"},
			{3, 15, 23, "000000001", "movement, câmara zeros for a TED (note 35), bank"},
			{3, 24, 43, "03456 000000123456 8", "note 11, another bank"},
			{3, 102, 104, "REA", "currency"},
			{3, 204, 224, "00052998224725" + "  00007", "beneficiary's CPF at 204-217"},
			{7, 24, 43, "00101 0000012345670X", "note 11, two-character DAC"},
			{10, 12, 13, "01", "credit at Itaú"},
			{11, 24, 43, "01234 000000055555 1", "note 11, Itaú account"},
			{14, 12, 13, "05", "crédito em conta poupança no Itaú (note 5)"},
			{19, 18, 43, "000260" + "00000000000012345678", "TED to a payment account: câmara zeros, account as 20 digits (note 11)"},
			{19, 105, 114, "18236120PG", "ISPB and PG (notes 35, 36)"},
			{19, 150, 154, "00001", "agency of the payment account (note 42)"},
			{22, 12, 16, "30030", "Itaú boleto, batch layout 030"},
			{24, 15, 19, "00052", "J-52 movement and identifier"},
			{26, 12, 13, "31", "boleto of another bank"},
		},
		"341_pix": {
			{3, 18, 23, "009000", "câmara 009, no bank for a key"},
			{3, 105, 114, "        04", "no ISPB (X(08), blanks) and identification 04: key"},
			{4, 15, 17, "01 ", "phone key type"},
			{4, 128, 141, "+5511987654321", "key"},
			{11, 105, 114, "18236120PG", "ISPB and payment account"},
			{11, 24, 43, "00000000000123456789", "payment account as 20 digits (note 11)"},
			{11, 150, 154, "00001", "agency of the payment account (note 42)"},
			{12, 15, 17, "   ", "no key type for account data"},
			{12, 128, 227, strings.Repeat(" ", 100), "no key for account data"},
		},
		// Particularidades BB (PgtVer03BB): 07.0/11.1 BB1-BB4, 20.0, 07.1,
		// 06.1, 08.3A, 14.3A, 07.4.J52.
		"001": {
			{1, 1, 8, "00100000", "file header control"},
			{1, 33, 52, "000123456" + "0126" + "       ", "07.0 BB1 convênio (9), BB2 0126, BB3/BB4 blanks"},
			{1, 53, 72, "0123450000000987654 ", "12.0 DV ag/conta blank"},
			{1, 103, 132, padRight("BANCO DO BRASIL S.A.", 30), "14.0 bank name"},
			{1, 158, 171, "000042" + "083" + "00000", "19.0 NSA, 20.0 layout 083, 21.0 density"},
			{2, 9, 17, "C2041042 ", "04.1 C, 05.1 service 20, 06.1 forma 41, 07.1 batch layout 042"},
			{2, 33, 52, "000123456" + "0126" + "       ", "11.1 BB1-BB4"},
			{2, 223, 240, strings.Repeat(" ", 18), "26.1, 27.1 blanks (no P014)"},
			{3, 14, 23, "A000018237", "06.3A 0, 07.3A 00, 08.3A câmara 018 for forma 41, bank"},
			{3, 74, 93, padRight("REPASSE-0001", 20), "16.3A seu número"},
			{3, 178, 230, strings.Repeat(" ", 42) + "00007CC   0", "24.3A blank, 26.3A TED purpose, 27.3A, 29.3A aviso 0"},
			{4, 14, 32, "B   100052998224725", "07.3B, 08.3B beneficiary CPF"},
			{4, 226, 240, "0000000" + strings.Repeat(" ", 8), "24.3B aviso, 25.3B SIAPE zeros, 26.3B blanks"},
			{6, 12, 13, "43", "TED mesma titularidade"},
			{10, 12, 13, "01", "crédito em conta corrente BB"},
			{11, 18, 43, "000001" + "01234 000000055555" + "1 ", "câmara 000 for a BB account; 14.3A blank"},
			{14, 12, 13, "05", "crédito em conta poupança BB"},
			{15, 24, 43, "01234X0000010203045 ", "agency digit X"},
			{18, 9, 16, "C2031030", "boleto of another bank, batch layout 030"},
			{19, 14, 17, "J000", "06.3J, 07.3J"},
			{19, 223, 224, "09", "19.3J currency"},
			{20, 14, 19, "J 0052", "07.4.J52 instruction 00, 08.4.J52 52"},
			{21, 100, 167, "000000000089990" + "000000000001000" + "000000000000000" + "10122026" + "000000000088990", "nominal, discount, no surcharge, date, paid"},
			{23, 18, 41, "000006000000000000238990", "batch trailer count and total"},
			{24, 1, 35, "00199999         000005000024000000", "file trailer: 5 batches, 24 records, 07.9 zeros"},
		},
		// Banco do Brasil PIX: FEBRABAN 240 v10.11 (G029, P001, G031, G100,
		// G101), in BB's records.
		"001_pix": {
			{2, 9, 17, "C2045042 ", "G029 forma 45, BB's batch layout 042"},
			{3, 18, 23, "009000", "P001 câmara 009 (SPI), no bank for a key"},
			{3, 178, 217, strings.Repeat(" ", 40), "G031 blank for a key"},
			{4, 15, 17, "01 ", "G100 phone key"},
			{4, 68, 127, strings.Repeat(" ", 60), "Informação 11 blank for a key"},
			{4, 128, 141, "+5511987654321", "G101 Informação 12: the key"},
			{8, 15, 32, "03 260746948000112", "G100 CPF/CNPJ key: the key's CNPJ in 18-32"},
			{11, 178, 201, "00052998224725" + "18236120" + "02", "G031 CCCCCCCCCCCCCCIIIIIIIIRR"},
			{12, 15, 17, "05 ", "G100 account data"},
			{12, 68, 69, "02", "G101 Informação 11: the account type"},
			{12, 128, 226, strings.Repeat(" ", 99), "Informação 12 blank for account data"},
			{14, 1, 29, "00199999         000001000014", "file trailer"},
		},
		// Santander, Pagamento a Fornecedores (YLEC2403) v11 as transcribed.
		"033": {
			{1, 33, 52, "0033" + "1234" + "004906997169", "G009: 0033, agency, agreement in 12 digits"},
			{1, 103, 132, padRight("BANCO SANTANDER", 30), "bank name"},
			{1, 158, 171, "000042" + "060" + "00000", "NSA, layout 060, density"},
			{2, 9, 17, "C2003031 ", "G002 forma 03 for a TED, batch layout 031"},
			{2, 33, 52, "0033" + "1234" + "004906997169", "G009 in the batch header"},
			{3, 18, 43, "018001" + "03456 000000123456" + "8 ", "câmara TED; 29 and 43 blank"},
			{3, 220, 230, "00007CC   0", "TED purpose, account type, aviso"},
			{4, 211, 240, "0000" + strings.Repeat(" ", 11) + "0000" + "0" + strings.Repeat(" ", 10), "TED time, history code, aviso, G029, G030"},
			{5, 4, 14, "00013" + "00003A", "a TED to the payer's own CPF/CNPJ stays in the forma 03 batch"},
			{5, 220, 226, "00010PP", "default TED purpose, savings"},
			{8, 12, 13, "01", "crédito em conta Santander"},
			{9, 18, 23, "000033", "câmara 000"},
			{12, 9, 16, "C2031030", "boleto of another bank, batch layout 030"},
			{14, 14, 19, "J 0052", "J-52 movement 00 (G026)"},
			{15, 130, 144, "000000000001550", "surcharge accepted"},
			{18, 1, 35, "03399999         000003000018      ", "file trailer: blanks after the counts"},
		},
		"033_pix": {
			{2, 9, 17, "C2045031 ", "forma 45, batch layout 031"},
			{3, 18, 43, "009000" + "00000 000000000000  ", "câmara 009, no account for a key"},
			{4, 14, 17, "B01 ", "G032 phone key"},
			{4, 128, 141, "+5511987654321", "key (G035)"},
			{4, 227, 240, strings.Repeat(" ", 14), "reserved blanks, no ISPB for a key"},
			{11, 18, 23, "009260", "PIX to account data: câmara and bank"},
			{12, 15, 17, "05 ", "G032 account data"},
			{12, 128, 129, "02", "account type"},
			{12, 227, 240, "      18236120", "reserved blanks, ISPB (G030)"},
			{14, 1, 29, "03399999         000001000014", "file trailer"},
		},
		// Sicoob: Guia de Importação de Arquivos CNAB 240 – Pagamentos e
		// Transferências (v3.3), field numbers of the guide.
		"756": {
			{1, 33, 52, padRight("654321", 20), "07.0 convênio, alfa"},
			{1, 103, 132, padRight("BANCO COOPERATIVO SICOOB S.A.", 30), "14.0 bank name"},
			{1, 158, 171, "000042" + "087" + "00000", "19.0 NSA, 20.0 layout 087, 21.0 density"},
			{2, 9, 17, "C2041045 ", "06.1 forma 41, 07.1 batch layout 045"},
			{3, 18, 23, "018001", "08.3A câmara TED, 09.3A bank"},
			{3, 178, 230, strings.Repeat(" ", 42) + "00007" + "  " + "   0", "24.3A blank, 26.3A TED purpose, 27.3A only PP, 29.3A aviso"},
			{4, 33, 72, strings.Repeat(" ", 35) + "00000", "B logradouro 35, número 5"},
			{4, 226, 240, "0" + "000000" + strings.Repeat(" ", 8), "B aviso, SIAPE, 13.3B blanks"},
			{10, 12, 13, "01", "crédito em conta Sicoob"},
			{11, 18, 23, "000756", "câmara 000"},
			{11, 220, 226, "00000  ", "26.3A zeros when not a TED"},
			{14, 9, 16, "C2031040", "boleto of another bank, batch layout 040"},
			{16, 14, 19, "J 0052", "07.4.J52 movement 00"},
			{20, 9, 16, "C2045045", "a PIX batch in the same file"},
			{21, 18, 23, "009756", "câmara SPI, 09.3A Sicoob for a key"},
			{21, 178, 217, strings.Repeat(" ", 38) + "01", "24.3A G031: blanks and account type 01 for a key"},
			{22, 15, 17, "01 ", "06.3B G100 phone key"},
			{22, 227, 240, "000000" + strings.Repeat(" ", 8), "no ISPB (13.3B)"},
			{24, 1, 29, "75699999         000005000024", "file trailer"},
		},
		"756_pix": {
			{2, 12, 16, "45045", "forma 45, batch layout 045"},
			{10, 15, 17, "04 ", "G100 random key"},
			{10, 128, 163, "123e4567-e89b-12d3-a456-426614174000", "key in lower case"},
			{11, 18, 23, "009260", "PIX to account data: câmara, bank"},
			{11, 216, 217, "02", "24.3A G031: payment account"},
			{12, 15, 17, "05 ", "G100 account data"},
			{12, 128, 129, "02", "11.3B: account type"},
			{12, 233, 240, "        ", "13.3B: no ISPB"},
		},
	}
	for name, ps := range cases {
		got, _ := writeInput(t, name)
		ls := lines(got)
		for _, p := range ps {
			if p.line > len(ls) {
				t.Errorf("%s: no line %d", name, p.line)
				continue
			}
			if v := ls[p.line-1][p.start-1 : p.end]; v != p.want {
				t.Errorf("%s line %d %d-%d (%s) = %q, want %q", name, p.line, p.start, p.end, p.what, v, p.want)
			}
		}
	}
}

func testRemittance(bank string) Remittance {
	return Remittance{
		Bank: bank, Sequence: 1, Created: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC),
		Payer: Payer{Name: "Pagadora", Document: "11222333000181", Agency: "1234", Account: "98765", AccountDigit: "4", Covenant: "1"},
	}
}

func testTransfer() Payment {
	return Payment{
		Kind: KindTransfer, Reference: "R1", Cents: 100, Date: cnab.Date{Year: 2026, Month: 11, Day: 23},
		Beneficiary: Beneficiary{Name: "Fulano", Document: "52998224725"},
		Account:     Account{Bank: "001", Agency: "1", Account: "2", AccountDigit: "3"},
	}
}

// TestProblems checks that each invalid input is rejected with the
// payment's index and the input field.
func TestProblems(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		bank  string
		pix   bool
		edit  func(*Payment)
		field string
	}{
		{"no reference", "237", false, func(p *Payment) { p.Reference = "" }, "reference"},
		{"long reference", "237", false, func(p *Payment) { p.Reference = strings.Repeat("X", 21) }, "reference"},
		{"reference with a character replaced", "341", false, func(p *Payment) { p.Reference = "A#1" }, "reference"},
		{"both amounts", "237", false, func(p *Payment) { p.Amount = decimal.RequireFromString("1") }, "amount"},
		{"fraction of a cent", "237", false, func(p *Payment) { p.Cents = 0; p.Amount = decimal.RequireFromString("1.001") }, "amount"},
		{"no amount", "237", false, func(p *Payment) { p.Cents = 0 }, "amount"},
		{"bad date", "237", false, func(p *Payment) { p.Date = cnab.Date{Year: 2026, Month: 2, Day: 30} }, "date"},
		{"bad CPF", "341", false, func(p *Payment) { p.Beneficiary.Document = "52998224724" }, "beneficiary.document"},
		{"no bank", "237", false, func(p *Payment) { p.Account.Bank = "" }, "account.bank"},
		{"long account", "237", false, func(p *Payment) { p.Account.Account = "1234567890123" }, "account.account"},
		{"no account digit", "341", false, func(p *Payment) { p.Account.AccountDigit = "" }, "account.account_digit"},
		{"bad TED purpose", "237", false, func(p *Payment) { p.TEDPurpose = "7" }, "ted_purpose"},
		{"unknown kind", "237", false, func(p *Payment) { p.Kind = "doc" }, "kind"},
		{"PIX in a non-PIX file", "237", false, func(p *Payment) { p.Kind = KindPIXKey; p.PIXKey = "+5511987654321"; p.PIXKeyType = KeyPhone }, "kind"},
		{"transfer in a PIX file", "341", true, func(p *Payment) {}, "kind"},
		{"bad phone key", "237", true, func(p *Payment) { p.Kind = KindPIXKey; p.PIXKey = "11987654321"; p.PIXKeyType = KeyPhone }, "pix_key"},
		{"bad random key", "341", true, func(p *Payment) { p.Kind = KindPIXKey; p.PIXKey = "not-a-uuid"; p.PIXKeyType = KeyRandom }, "pix_key"},
		{"no key type", "341", true, func(p *Payment) { p.Kind = KindPIXKey; p.PIXKey = "a@b.c" }, "pix_key_type"},
		{"PIX without ISPB", "237", true, func(p *Payment) { p.Kind = KindPIX }, "account.ispb"},
		{"bad barcode", "237", false, func(p *Payment) {
			p.Kind, p.Due = KindBoleto, p.Date
			p.Barcode = "34199165600001500001091234567881234512345001"
		}, "barcode"},
		{"boleto amount", "341", false, func(p *Payment) {
			p.Kind, p.Due, p.Cents = KindBoleto, cnab.Date{Year: 2026, Month: 12, Day: 10}, 150001
			p.Barcode = "34199165600001500001091234567881234512345000"
		}, "amount"},
		{"boleto due date not the barcode's", "237", false, func(p *Payment) {
			p.Kind, p.Due, p.Cents = KindBoleto, cnab.Date{Year: 2026, Month: 12, Day: 11}, 150000
			p.Barcode = "34199165600001500001091234567881234512345000"
		}, "due"},
		{"boleto without due date", "341", false, func(p *Payment) {
			p.Kind, p.Cents = KindBoleto, 150000
			p.Barcode = "34199165600001500001091234567881234512345000"
		}, "due"},
		{"Itaú account with a long agency", "341", false, func(p *Payment) { p.Account.Bank, p.Account.Agency = "341", "12345" }, "account"},
		{"Banco do Brasil boleto with interest", "001", false, func(p *Payment) {
			p.Kind, p.Due, p.Date, p.Cents = KindBoleto, cnab.Date{Year: 2026, Month: 12, Day: 10}, cnab.Date{Year: 2026, Month: 12, Day: 10}, 150100
			p.Surcharge = decimal.RequireFromString("1.00")
			p.Barcode = "34199165600001500001091234567881234512345000"
		}, "surcharge"},
		{"Banco do Brasil overdue boleto", "001", false, func(p *Payment) {
			p.Kind, p.Due, p.Date, p.Cents = KindBoleto, cnab.Date{Year: 2026, Month: 12, Day: 10}, cnab.Date{Year: 2026, Month: 12, Day: 11}, 150000
			p.Barcode = "34199165600001500001091234567881234512345000"
		}, "date"},
		{"transfer in a Sicoob PIX file", "756", true, func(p *Payment) {}, "kind"},
		{"Santander two-character account digit", "033", false, func(p *Payment) { p.Account.AccountDigit = "0X" }, "account.account_digit"},
		{"Sicoob PIX to account data without bank", "756", true, func(p *Payment) {
			p.Kind, p.Account.Bank, p.Account.ISPB = KindPIX, "", "18236120"
		}, "account.bank"},
		{"Itaú TED to a payment account without ISPB", "341", false, func(p *Payment) { p.Account.Type = AccountPayment }, "account.ispb"},
		{"Itaú payment account with a letter", "341", false, func(p *Payment) {
			p.Account.Type, p.Account.ISPB, p.Account.AccountDigit = AccountPayment, "18236120", "X"
		}, "account.account_digit"},
		{"area code ending in 0", "237", true, func(p *Payment) { p.Kind = KindPIXKey; p.PIXKey = "+5510987654321"; p.PIXKeyType = KeyPhone }, "pix_key"},
		{"landline phone key", "237", true, func(p *Payment) { p.Kind = KindPIXKey; p.PIXKey = "+551133334444"; p.PIXKeyType = KeyPhone }, "pix_key"},
		{"CPF key of another person", "237", true, func(p *Payment) {
			p.Kind = KindPIXKey
			p.PIXKey = "11222333000181"
			p.PIXKeyType = KeyDocument
		}, "pix_key"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := testRemittance(c.bank)
			r.PIX = c.pix
			w, err := NewWriter(&bytes.Buffer{}, r, nil)
			if err != nil {
				t.Fatal(err)
			}
			bad := testTransfer()
			c.edit(&bad)
			if c.pix {
				// a valid first payment of the file's own kind
				if err := w.Write(Payment{Kind: KindPIXKey, Reference: "OK", Cents: 1, Date: bad.Date, Beneficiary: bad.Beneficiary,
					PIXKey: "a@b.c", PIXKeyType: KeyEmail}); err != nil {
					t.Fatal(err)
				}
			} else if err := w.Write(testTransfer()); err != nil {
				t.Fatal(err)
			}
			err = w.Write(bad)
			var ps cnab.Problems
			if !errors.As(err, &ps) || !errors.Is(err, cnab.ErrInvalid) {
				t.Fatalf("Write = %v, want Problems", err)
			}
			found := false
			for _, p := range ps {
				if p.Title != 1 {
					t.Errorf("problem %v names payment %d, want 1", p, p.Title)
				}
				found = found || p.Field == c.field
			}
			if !found {
				t.Errorf("problems %v do not name %s", ps, c.field)
			}
			if err := w.Close(); !errors.Is(err, cnab.ErrIncomplete) {
				t.Errorf("Close = %v, want ErrIncomplete", err)
			}
		})
	}
}

func TestRemittanceProblems(t *testing.T) {
	t.Parallel()
	cases := []struct {
		edit  func(*Remittance)
		field string
	}{
		{func(r *Remittance) { r.Bank = "999" }, "bank"},
		{func(r *Remittance) { r.Sequence = 0 }, "sequence"},
		{func(r *Remittance) { r.Created = time.Time{} }, "created"},
		{func(r *Remittance) { r.Payer.Document = "123" }, "payer.document"},
		{func(r *Remittance) { r.Payer.Covenant = "" }, "payer.covenant"},
		{func(r *Remittance) { r.Payer.Address.ZIP = "123" }, "payer.address.zip"},
		{func(r *Remittance) { r.Bank = "341"; r.Payer.AccountDigit = "12" }, "payer.account_digit"},
		{func(r *Remittance) { r.Bank = "001"; r.Payer.Covenant = "" }, "payer.covenant"},
		{func(r *Remittance) { r.Bank = "001"; r.Payer.Covenant = "1234567890" }, "payer.covenant"},
		{func(r *Remittance) { r.Bank = "033"; r.Payer.Covenant = "AB-1" }, "payer.covenant"},
		{func(r *Remittance) { r.Bank = "756"; r.Payer.Covenant = "" }, "payer.covenant"},
		{func(r *Remittance) { r.Bank = "033"; r.Payer.Covenant = "1234567890123" }, "payer.covenant"},
		{func(r *Remittance) { r.Bank = "033"; r.Payer.Covenant = "00339999004906997169" }, "payer.covenant"},
		{func(r *Remittance) { r.Bank = "033"; r.Payer.Agency = "12345" }, "payer.agency"},
		{func(r *Remittance) { r.Bank = "033"; r.Payer.AccountDigit = "0X" }, "payer.account_digit"},
		{func(r *Remittance) { r.Bank = "756"; r.Payer.Covenant = strings.Repeat("9", 21) }, "payer.covenant"},
		{func(r *Remittance) { r.Payer.Covenant = strings.Repeat("A", 21) }, "payer.covenant"},
	}
	for _, c := range cases {
		r := testRemittance("237")
		c.edit(&r)
		var out bytes.Buffer
		_, err := NewWriter(&out, r, nil)
		var ps cnab.Problems
		if !errors.As(err, &ps) || ps[0].Field != c.field || ps[0].Title != cnab.HeaderIndex {
			t.Errorf("NewWriter = %v, want a problem of the remittance naming %s", err, c.field)
		}
		if out.Len() != 0 {
			t.Errorf("%s: wrote %d bytes for an invalid remittance", c.field, out.Len())
		}
	}
}

// TestBatchSplit checks that a batch is closed at the record limit and
// the next one numbered on, with counts and totals per batch.
func TestBatchSplit(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	w, err := NewWriter(&out, testRemittance("237"), nil)
	if err != nil {
		t.Fatal(err)
	}
	w.batchLimit = 4 // two payments of two segments a batch
	for range 5 {
		if err := w.Write(testTransfer()); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	ls := lines(out.Bytes())
	// header, 3 batches (2+2+1 payments), trailer
	if len(ls) != 1+(1+4+1)+(1+4+1)+(1+2+1)+1 {
		t.Fatalf("%d lines", len(ls))
	}
	if got := ls[len(ls)-2][3:7] + ls[len(ls)-2][17:41]; got != "0003"+"000004"+"000000000000000100" {
		t.Errorf("last batch trailer %q", got)
	}
	if got := ls[len(ls)-1][17:29]; got != "000003000018" {
		t.Errorf("file trailer counts %q", got)
	}
}

// TestPIXBeside checks that the banks without a PIX-only file rule take a
// PIX batch in the same file as transfers, and those with it do not.
func TestPIXBeside(t *testing.T) {
	t.Parallel()
	pixKey := testTransfer()
	pixKey.Kind, pixKey.PIXKey, pixKey.PIXKeyType = KindPIXKey, "+5511987654321", KeyPhone
	for _, c := range []struct {
		bank string
		ok   bool
	}{{"001", true}, {"033", true}, {"756", true}, {"237", false}, {"341", false}} {
		sum, err := WriteAll(&bytes.Buffer{}, testRemittance(c.bank), func(yield func(Payment) bool) {
			_ = yield(testTransfer()) && yield(pixKey)
		})
		if got := err == nil; got != c.ok {
			t.Errorf("bank %s: a transfer and a PIX in one file: err %v, want ok=%v", c.bank, err, c.ok)
		}
		if c.ok && sum.Batches != 2 {
			t.Errorf("bank %s: %d batches, want 2", c.bank, sum.Batches)
		}
	}
}

// TestSupported checks the banks listed.
func TestSupported(t *testing.T) {
	t.Parallel()
	if got, want := strings.Join(Supported(), ","), "001,033,237,341,756"; got != want {
		t.Errorf("Supported() = %s, want %s", got, want)
	}
}

// TestWarnings checks that a name longer than its field is truncated with
// a warning naming the payment and field.
func TestWarnings(t *testing.T) {
	t.Parallel()
	p := testTransfer()
	p.Beneficiary.Name = strings.Repeat("Á", 31)
	sum, err := WriteAll(&bytes.Buffer{}, testRemittance("341"), func(yield func(Payment) bool) { yield(p) })
	if err != nil {
		t.Fatal(err)
	}
	if sum.Payments != 1 || sum.Total != 100 || len(sum.Problems) == 0 {
		t.Fatalf("summary %+v", sum)
	}
	for _, pr := range sum.Problems {
		if pr.Severity != cnab.SeverityWarning || pr.Title != 0 || pr.Field != "beneficiary.name" {
			t.Errorf("problem %v", pr)
		}
	}
}

// writeOne writes a remittance of one payment and returns its first
// detail record (line 3).
func writeOne(t *testing.T, r Remittance, p Payment) string {
	t.Helper()
	var out bytes.Buffer
	if _, err := WriteAll(&out, r, func(yield func(Payment) bool) { yield(p) }); err != nil {
		t.Fatalf("WriteAll: %v", err)
	}
	return lines(out.Bytes())[2]
}

// TestItauPIXAccounts checks note 11 and 36 for a PIX to account data:
// an account at Itaú, named by its bank code or only by Itaú's ISPB, is
// written in Itaú's layout with identification 01, even a payment
// account (Iti); a payment account elsewhere as 20 digits with PG.
func TestItauPIXAccounts(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name                      string
		account                   Account
		bankAccount, ispbID, agPG string // A 21-43, 105-114, 150-154
	}{
		{"Iti payment account", Account{Bank: "341", ISPB: "60701190", Agency: "1234", Account: "55555", AccountDigit: "1", Type: AccountPayment},
			"341" + "01234 000000055555 1", "60701190" + "01", "     "},
		{"Itaú by its ISPB only", Account{ISPB: "60701190", Agency: "1234", Account: "55555", AccountDigit: "1"},
			"341" + "01234 000000055555 1", "60701190" + "01", "     "},
		{"payment account without a COMPE code", Account{ISPB: "18236120", Agency: "1", Account: "1234567", AccountDigit: "8", Type: AccountPayment},
			"000" + "00000000000012345678", "18236120" + "PG", "00001"},
	}
	r := testRemittance("341")
	r.PIX = true
	for _, c := range cases {
		p := testTransfer()
		p.Kind, p.Account = KindPIX, c.account
		a := writeOne(t, r, p)
		if got := a[20:43]; got != c.bankAccount {
			t.Errorf("%s: 21-43 = %q, want %q", c.name, got, c.bankAccount)
		}
		if got := a[104:114]; got != c.ispbID {
			t.Errorf("%s: 105-114 = %q, want %q", c.name, got, c.ispbID)
		}
		if got := a[149:154]; got != c.agPG {
			t.Errorf("%s: 150-154 = %q, want %q", c.name, got, c.agPG)
		}
	}
}

// TestSicoobPIXWithoutISPB: Sicoob names the institution by bank code and
// has no ISPB field, so a PIX to account data needs no ISPB there.
func TestSicoobPIXWithoutISPB(t *testing.T) {
	t.Parallel()
	r := testRemittance("756")
	r.PIX = true
	p := testTransfer()
	p.Kind, p.Account = KindPIX, Account{Bank: "260", Agency: "1", Account: "12345678", AccountDigit: "9", Type: AccountPayment}
	if a := writeOne(t, r, p); a[17:23] != "009260" || a[215:217] != "02" {
		t.Errorf("segment A 18-23 %q, 216-217 %q; want 009260 and 02", a[17:23], a[215:217])
	}
}

// TestSantanderAgreement checks G009's code from each form of the input.
func TestSantanderAgreement(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ covenant, want string }{
		{"4906997169", "00331234004906997169"},
		{"00000000004906997169", "00331234004906997169"},
		{"00331234004906997169", "00331234004906997169"},
	} {
		r := testRemittance("033")
		r.Payer.Covenant = c.covenant
		var out bytes.Buffer
		if _, err := WriteAll(&out, r, func(yield func(Payment) bool) { yield(testTransfer()) }); err != nil {
			t.Fatalf("%s: %v", c.covenant, err)
		}
		if got := lines(out.Bytes())[0][32:52]; got != c.want {
			t.Errorf("covenant %s: 33-52 = %q, want %q", c.covenant, got, c.want)
		}
	}
}
