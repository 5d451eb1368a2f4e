package retorno

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/propfin/propfin/cnab"
)

// The public files of the layouts real_test.go does not cover: Itaú 240,
// Sicoob 240 and 400, and the payment returns of Banco do Brasil and Itaú
// (testdata/real/README.md gives each one's source, commit and licence).
// Every value below is read from the file at the positions of the bank's
// document named beside it, not from the reader's output.

// realTitle is what one event of a public file says, in the fields the
// documents place.
type realTitle struct {
	line                              int
	code                              string
	occurrence                        Occurrence
	reasons                           []string // the codes, in the file's order
	ourNumber, ourDigit               string
	document, control, wallet, payer  string
	instalment, modality, channel     string
	amount, paid, credited, tariff    Cents
	interest, discount                Cents
	due, date, credit                 cnab.Date
	barcode                           string
	collectingAgency, collectingDigit string
	beneficiary                       Account
}

func titleOf(ev Event) realTitle {
	var codes []string
	for _, r := range ev.Reasons {
		codes = append(codes, r.Code)
	}
	return realTitle{
		line: ev.Line, code: ev.Code, occurrence: ev.Occurrence, reasons: codes,
		ourNumber: ev.OurNumber, ourDigit: ev.OurNumberDigit,
		document: ev.DocumentNumber, control: ev.Control, wallet: ev.Wallet, payer: ev.Payer,
		instalment: ev.Instalment, modality: ev.Modality, channel: ev.Channel.Code,
		amount: ev.Amount, paid: ev.Paid, credited: ev.Credited, tariff: ev.Tariff,
		interest: ev.Interest, discount: ev.Discount + ev.Abatement,
		due: ev.Due, date: ev.Date, credit: ev.CreditDate,
		barcode:          ev.Barcode,
		collectingAgency: ev.CollectingAgency, collectingDigit: ev.CollectingAgencyDigit,
		beneficiary: ev.Beneficiary,
	}
}

// realHeader is what a public file's header says. Sequence is compared
// only where the document has the field (noSequence otherwise).
type realHeader struct {
	bank        string
	layout      cnab.Layout
	company     string
	created     cnab.Date
	sequence    int
	beneficiary Account
}

const noSequence = -1

type realCase struct {
	file      string
	header    realHeader
	events    int   // how many events the file gives
	errLines  []int // the lines the reader reports, as the document has it
	titles    []realTitle
	ignoreAcc bool // the header's account is not compared (payment files)
}

func (c realCase) check(t *testing.T) {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "real", c.file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd, err := NewReader(f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	evs := map[int]Event{}
	var errLines []int
	for ev, err := range rd.All() {
		var le *LineError
		if errors.As(err, &le) {
			errLines = append(errLines, le.Line)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		evs[ev.Line] = ev
	}
	h := rd.Header()
	got := realHeader{bank: h.Bank, layout: h.Layout, company: h.Company, created: h.Created,
		sequence: h.Sequence, beneficiary: h.Beneficiary}
	if c.header.sequence == noSequence {
		got.sequence = noSequence
	}
	if c.ignoreAcc {
		got.beneficiary = Account{}
	}
	if got != c.header {
		t.Errorf("%s header:\n got %+v\nwant %+v", c.file, got, c.header)
	}
	if len(evs) != c.events {
		t.Errorf("%s: %d events, want %d", c.file, len(evs), c.events)
	}
	if !reflect.DeepEqual(errLines, c.errLines) {
		t.Errorf("%s: errors on lines %v, want %v", c.file, errLines, c.errLines)
	}
	for _, w := range c.titles {
		ev, ok := evs[w.line]
		if !ok {
			t.Errorf("%s: no event on line %d", c.file, w.line)
			continue
		}
		if got := titleOf(ev); !reflect.DeepEqual(got, w) {
			t.Errorf("%s line %d:\n got %+v\nwant %+v", c.file, w.line, got, w)
		}
	}
}

// TestRealItau240: Itaú's "Cobrança FEBRABAN 240" (segment T: agency
// 19-22, account 31-35, DAC 37, wallet 38-40, nosso número 41-48 + DAC 49,
// seu número 59-68, due 74-81, value 82-96, collecting agency 100-104 +
// 105, payer 149-178, tariff 199-213, errors 214-221 in four codes;
// segment U: date 138-145, credit 146-153; header: agency 54-57, account
// 66-70, DAC 72, company 73-102, date 144-151, NSA 158-163).
func TestRealItau240(t *testing.T) {
	t.Parallel()
	itau := Account{Agency: "4459", Account: "17600", AccountDigit: "6"}
	for _, c := range []realCase{
		{
			file: "341_240_kmee.ret",
			header: realHeader{bank: "341", layout: cnab.CNAB240, company: "TRACY INFORMATICA LTDA - ME",
				created: day(2012, 7, 5), sequence: 4, beneficiary: itau},
			events: 2,
			titles: []realTitle{
				{line: 3, code: "02", occurrence: EntryConfirmed, ourNumber: "00000005", ourDigit: "0",
					document: "9999999996", wallet: "109", payer: "SERGIO OLIVEIRA CAMPOS",
					amount: 20000, tariff: 350, due: day(2012, 7, 1), date: day(2012, 7, 5),
					collectingAgency: "00125", collectingDigit: "5", beneficiary: itau},
				{line: 5, code: "02", occurrence: EntryConfirmed, ourNumber: "90000004", ourDigit: "4",
					document: "9999999997", wallet: "109", payer: "DAVI OLIVEIRA CAMPOS",
					amount: 10000, tariff: 350, due: day(2012, 6, 30), date: day(2012, 7, 5),
					collectingAgency: "00125", collectingDigit: "5", beneficiary: itau},
			},
		},
		{
			// Two entries rejected with error 14 (214-215; 216-221 are
			// zeros, no further code), then the same two accepted.
			file: "341_240_kmee_rejections.ret",
			header: realHeader{bank: "341", layout: cnab.CNAB240, company: "TRACY INFORMATICA LTDA - ME",
				created: day(2012, 7, 2), sequence: 2, beneficiary: itau},
			events: 4,
			titles: []realTitle{
				{line: 3, code: "03", occurrence: Rejected, reasons: []string{"14"}, ourNumber: "00000000", ourDigit: "1",
					document: "9999999998", wallet: "109", payer: "DAVI OLIVEIRA CAMPOS",
					amount: 10000, due: day(2012, 6, 30), date: day(2012, 7, 2),
					collectingAgency: "00000", collectingDigit: "0", beneficiary: itau},
				{line: 5, code: "03", occurrence: Rejected, reasons: []string{"14"}, ourNumber: "00000000", ourDigit: "1",
					document: "9999999999", wallet: "109", payer: "SERGIO OLIVEIRA CAMPOS",
					amount: 20000, due: day(2012, 7, 1), date: day(2012, 7, 2),
					collectingAgency: "00000", collectingDigit: "0", beneficiary: itau},
				{line: 7, code: "02", occurrence: EntryConfirmed, ourNumber: "00000001", ourDigit: "9",
					document: "9999999999", wallet: "109", payer: "SERGIO OLIVEIRA CAMPOS",
					amount: 20000, tariff: 350, due: day(2012, 7, 1), date: day(2012, 7, 2),
					collectingAgency: "00125", collectingDigit: "5", beneficiary: itau},
				{line: 9, code: "02", occurrence: EntryConfirmed, ourNumber: "90000000", ourDigit: "2",
					document: "9999999998", wallet: "109", payer: "DAVI OLIVEIRA CAMPOS",
					amount: 10000, tariff: 350, due: day(2012, 6, 30), date: day(2012, 7, 2),
					collectingAgency: "00125", collectingDigit: "5", beneficiary: itau},
			},
		},
	} {
		c.check(t)
	}
}

// TestRealSicoob240: Sicoob's planilha "06.Retorno – CNAB240" (segment T:
// FEBRABAN's account 18-36, NumTitulo 38-47, parcela 48-49, modalidade
// 50-51, wallet 58, document 59-73, due 74-81, value 82-96, collecting
// bank 97-99 and agency 100-105, uso da empresa 106-130, payer 149-188,
// tariff 199-213, reasons 214-223; segment U as FEBRABAN's; header:
// convênio 33-52, agency 53-58, account 59-71, company 73-102, date
// 144-151, NSA 158-163). The number keeps seven digits of NumTitulo's
// nine (docs/cnab-retorno.md, "Sicoob's number").
func TestRealSicoob240(t *testing.T) {
	t.Parallel()
	titles := Account{Agency: "04280", AgencyDigit: "0", Account: "000000007376", AccountDigit: "8"}
	realCase{
		file: "756_240_opencnabphp.ret",
		header: realHeader{bank: "756", layout: cnab.CNAB240, company: "BDOUGLAS TECH", created: day(2018, 12, 11),
			sequence: 2, beneficiary: Account{Agency: "04190", AgencyDigit: "0", Account: "000000007380", AccountDigit: "8"}},
		events: 5,
		titles: []realTitle{
			{line: 3, code: "11", occurrence: Other, ourNumber: "0000501", ourDigit: "8", instalment: "01", modality: "01",
				wallet: "1", document: "50", control: "501", payer: "BRENO DOUGLAS", amount: 600,
				due: day(2018, 12, 10), date: day(2018, 12, 11), collectingAgency: "04280", collectingDigit: "0",
				beneficiary: titles},
			// A liquidation whose amounts are all zero, with reasons
			// 214-223 "000000AFHA": the zeros pad, AF and HA are not in
			// C047; the paid reason is also the channel.
			{line: 5, code: "06", occurrence: Paid, reasons: []string{"AF", "HA"}, channel: "AF",
				ourNumber: "0000050", ourDigit: "0", instalment: "01", modality: "01",
				wallet: "1", document: "50", control: "50", payer: "BRENO DOUGLAS", amount: 600,
				due: day(2018, 12, 10), date: day(2018, 12, 11), collectingAgency: "04280", collectingDigit: "0",
				beneficiary: titles},
			// Rejected for 09 (Nosso Número Duplicado); the segment U
			// after it has movement 01: the event's code is segment T's.
			{line: 7, code: "03", occurrence: Rejected, reasons: []string{"09"},
				ourNumber: "0000050", ourDigit: "0", instalment: "01", modality: "01",
				wallet: "1", document: "50", control: "50", payer: "BRENO DOUGLAS", amount: 600,
				due: day(2018, 12, 10), date: day(2018, 12, 11), collectingAgency: "04280", collectingDigit: "0",
				beneficiary: titles},
			{line: 11, code: "03", occurrence: Rejected, reasons: []string{"AF", "HA"},
				ourNumber: "0000050", ourDigit: "0", instalment: "02", modality: "01",
				wallet: "1", document: "50", control: "50", payer: "BRENO DOUGLAS", amount: 400,
				due: day(2018, 12, 12), date: day(2018, 12, 11), collectingAgency: "04280", collectingDigit: "0",
				beneficiary: titles},
		},
	}.check(t)
}

// TestRealSicoob400: Sicoob's planilha "04.Retorno – CNAB400" (controle
// 38-62, nosso número 63-73 + 74, código de baixa/recusa 81-82, carteira
// 107-108, comando 109-110, date 111-116, seu número 117-126, due 147-152,
// value 153-165, collecting bank 166-168, agency 169-172 and its digit
// 173, credit date 176-181, tariff 182-188, valor recebido 254-266, valor
// do lançamento 306-318; header: company 47-76, date 95-100, sequence
// 101-107). The paid title's "valor do lançamento" is zero in the file:
// its credit is derived, 10.00 received less the 1.98 tariff.
func TestRealSicoob400(t *testing.T) {
	t.Parallel()
	realCase{
		file: "756_400_opencnabphp.ret",
		header: realHeader{bank: "756", layout: cnab.CNAB400, company: "MARIA DA CONCEICAO SANTOS - IN",
			created: day(2016, 11, 25), sequence: 3},
		events: 1,
		titles: []realTitle{
			{line: 2, code: "06", occurrence: Paid, reasons: []string{"00"}, ourNumber: "00000000006", ourDigit: "0",
				wallet: "01", document: "6", control: "6", amount: 1000, paid: 1000, credited: 802, tariff: 198,
				due: day(2016, 12, 4), date: day(2016, 11, 24), credit: day(2016, 11, 25),
				collectingAgency: "0667", collectingDigit: "0"},
		},
	}.check(t)
}

// TestRealPayments: payment returns. Banco do Brasil follows FEBRABAN's
// segment A ("Particularidades BB – CNAB240", novembro/2019: payee 44-73,
// seu número 74-93, date 94-101, amount 120-134, bank's number 135-154,
// real date 155-162 and amount 163-177, codes 231-240; header: company
// 73-102, date 144-151, NSA 158-163). Itaú's SISPAG (Abril 2012) has the
// bank's number at 135-149 in segment A and 216-230 in segment J (barcode
// 18-61, payee 62-91, due 92-99, nominal 100-114, paid on 145-152, paid
// 153-167, seu número 183-202), and zeros at 158-166 of the header, so
// its files' sequence is not compared. SISPAG's header has the debited
// agency at 53-57 and account at 59-70 (a blank after each) and the DAC at
// 72, where Itaú's collection header has 54-57 and 66-70.
func TestRealPayments(t *testing.T) {
	t.Parallel()
	sispagGem := Account{Agency: "00663", Account: "000000001540", AccountDigit: "2"}
	for _, c := range []realCase{
		{
			// The file trailer counts 146 records, the file has 204: its
			// 58 segments Z are left out of the count (BB's 06.9 says
			// every record of types 0, 1, 3, 5 and 9). The count is the
			// bank's, and taken: the file reads without an error.
			file: "001_240_pagamento_parser-retorno-cnab240bb.ret",
			header: realHeader{bank: "001", layout: cnab.CNAB240, company: "SESC - SERVICO SOCIAL DO COMER",
				created: day(2022, 1, 26), sequence: 41},
			ignoreAcc: true,
			events:    62,
			titles: []realTitle{
				{line: 3, code: "00", occurrence: Paid, reasons: []string{"00"}, ourNumber: "00000000004483556759",
					payer: "JAWA COMERCIO E SERVICOS EIREL", amount: 305450, paid: 305450,
					due: day(2022, 1, 26), date: day(2022, 1, 26)},
				// Rejected (AM), with the amount in "valor real" all the
				// same: reported as read.
				{line: 6, code: "AM", occurrence: Rejected, reasons: []string{"AM"}, ourNumber: "00000000004483556760",
					payer: "TF ENGENHARIA E REPRESENTACOES", amount: 389847, paid: 389847,
					due: day(2022, 1, 26), date: day(2022, 1, 26)},
				{line: 70, code: "00", occurrence: Paid, reasons: []string{"00"}, ourNumber: "00000890000337920976",
					payer: "LEOPOLDINA TURISMO LTDA - EPP", amount: 2412003, paid: 2412003,
					due: day(2022, 1, 26), date: day(2022, 1, 26)},
			},
		},
		{
			file: "341_240_pagamento_cnab240-gem.ret",
			header: realHeader{bank: "341", layout: cnab.CNAB240, company: "REDE DE CONVENIOS DO BRASIL", created: day(2012, 11, 22), sequence: noSequence,
				beneficiary: sispagGem},
			events: 1,
			titles: []realTitle{
				{line: 3, code: "BD", occurrence: Scheduled, reasons: []string{"BD"}, ourNumber: "218943371000018",
					document: "1", payer: "R C DE M ALMEIDA", amount: 26235, paid: 26235,
					due: day(2012, 11, 22), date: day(2012, 11, 22)},
			},
		},
		{
			// The same payment the next day, cancelled for want of
			// authorisation (NA), its real date and amount still filled.
			file: "341_240_pagamento_cnab240-gem_rejected.ret",
			header: realHeader{bank: "341", layout: cnab.CNAB240, company: "REDE DE CONVENIOS DO BRASIL", created: day(2012, 11, 23), sequence: noSequence,
				beneficiary: sispagGem},
			events: 1,
			titles: []realTitle{
				{line: 3, code: "NA", occurrence: Rejected, reasons: []string{"NA"}, ourNumber: "218943371000018",
					document: "1", payer: "R C DE M ALMEIDA", amount: 26235, paid: 26235,
					due: day(2012, 11, 22), date: day(2012, 11, 22)},
			},
		},
		{
			file: "341_240_pagamento_keeper-cnab240.ret",
			header: realHeader{bank: "341", layout: cnab.CNAB240, company: "BF SERVICOS DE COBRANCA LTDA", created: day(2019, 7, 1), sequence: noSequence,
				beneficiary: Account{Agency: "00772", Account: "000000069637", AccountDigit: "3"}},
			events: 1,
			titles: []realTitle{
				{line: 3, code: "BD", occurrence: Scheduled, reasons: []string{"BD"}, ourNumber: "578208432000025",
					document: "12345678901234567890", payer: "ARIZONA 701", amount: 102941, paid: 102941,
					due: day(2019, 7, 5), date: day(2019, 7, 5),
					barcode: "23793794100001029410296090001270557500010810"},
			},
		},
	} {
		c.check(t)
	}
}

// TestRecordCountWithoutZ: Banco do Brasil's payment return counts its
// records in the file trailer (24-29) without its segments Z: 146 of the
// 204 the public file has, 58 of them Z. That count and the count of every
// record are taken; a count that is neither is an error on the trailer's
// line naming both.
func TestRecordCountWithoutZ(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("testdata", "real", "001_240_pagamento_parser-retorno-cnab240bb.ret"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\r\n"), "\n")
	trailer := strings.TrimRight(lines[len(lines)-1], "\r")
	if trailer[23:29] != "000146" || len(lines) != 204 {
		t.Fatalf("the public file: %d lines, trailer count %q", len(lines), trailer[23:29])
	}
	for _, c := range []struct {
		count string
		want  []string
	}{
		{"000146", nil},
		{"000204", nil},
		{"000145", []string{"line 204: file trailer: counts 145 records, the file has 204, 146 without its 58 segments Z (records missing or added)"}},
	} {
		in := append(append([]string(nil), lines[:len(lines)-1]...), trailer[:23]+c.count+trailer[29:])
		rd, err := NewReader(strings.NewReader(strings.Join(in, "\n")), Options{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		events := 0
		for _, err := range rd.All() {
			if err != nil {
				got = append(got, err.Error())
			} else {
				events++
			}
		}
		if !reflect.DeepEqual(got, c.want) || events != 62 {
			t.Errorf("count %s: %d events, errors %q, want %q", c.count, events, got, c.want)
		}
	}
}
