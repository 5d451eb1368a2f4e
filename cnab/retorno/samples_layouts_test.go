package retorno

import (
	"fmt"

	"github.com/propfin/propfin/cnab"
)

var created = day(2026, 11, 20)

// febrabanCodes240 are the FEBRABAN C044 movement codes used by the
// collection samples, and the C047 reasons that come with them.
var (
	febrabanSampleCodes = map[Occurrence]string{EntryConfirmed: "02", Paid: "06", WrittenOff: "09", Rejected: "03"}
	febrabanSampleWhy   = map[Occurrence][]string{Paid: {"04"}, WrittenOff: {"10"}, Rejected: {"08", "48"}}
)

// cnab240 writes a CNAB 240 collection return: file header, one batch
// with segments T and U per title, the trailers. nosso writes the bank's
// nosso número block and wallet into segment T; t writes the rest of
// segment T where the bank departs from FEBRABAN (nil: FEBRABAN's).
type cnab240 struct {
	bank  string
	nosso func(l line, s sample)
	t     func(l line, s sample)
	u     func(l line, s sample)
}

func (c cnab240) build(items []sample) []string {
	var out []string
	out = append(out, newLine(240).put(1, c.bank).put(4, "0000").put(8, "0").put(18, "2").
		digits(19, 32, "12345678000190").put(73, "PROPFIN IMOVEIS LTDA").put(143, "2").
		date8(144, created).num(158, 163, 42).String())
	out = append(out, newLine(240).put(1, c.bank).put(4, "0001").put(8, "1").put(9, "T").put(10, "01").String())
	seq := 0
	for _, s := range items {
		seq++
		t := newLine(240).put(1, c.bank).put(4, "0001").put(8, "3").num(9, 13, int64(seq)).put(14, "T").put(16, s.code)
		c.nosso(t, s)
		if c.t != nil {
			c.t(t, s)
		} else {
			t.put(59, s.doc).date8(74, s.due).num(82, 96, s.amount).put(106, s.control).
				put(149, s.payer).num(199, 213, s.tariff).put(214, reasonField(s.reasons))
		}
		out = append(out, t.String())
		seq++
		u := newLine(240).put(1, c.bank).put(4, "0001").put(8, "3").num(9, 13, int64(seq)).put(14, "U").put(16, s.code)
		if c.u != nil {
			c.u(u, s)
		} else {
			u.num(18, 32, s.interest).num(33, 47, s.discount).num(48, 62, s.abatement).num(63, 77, s.iof).
				num(78, 92, s.paid).num(93, 107, s.credited).num(108, 122, s.otherExp).num(123, 137, s.otherCred).
				date8(138, s.date).date8(146, s.credit)
		}
		out = append(out, u.String())
	}
	out = append(out, newLine(240).put(1, c.bank).put(4, "0001").put(8, "5").num(18, 23, int64(seq+2)).String())
	out = append(out, newLine(240).put(1, c.bank).put(4, "9999").put(8, "9").num(18, 23, 1).num(24, 29, int64(len(out)+1)).String())
	return out
}

// febrabanWallet puts the wallet in FEBRABAN's position 58.
func febrabanWallet(l line, s sample) { l.put(58, s.wallet) }

func collection240Files() []*sampleFile {
	base := withChannel(collectionSamples(febrabanSampleCodes, febrabanSampleWhy), "04") // C047-C 04
	nn := func(f func(i int) (string, string)) []sample { return withNN(base, f) }
	return []*sampleFile{
		{
			name: "001_240.ret", bank: "001", width: cnab.CNAB240, kind: KindTitle, crlf: true, final: true,
			items: mask(nn(func(i int) (string, string) { return fmt.Sprintf("1234567%010d", 1001+i), "" })),
			build: cnab240{bank: "001", nosso: func(l line, s sample) { l.put(38, s.nn); febrabanWallet(l, s) }}.build,
		},
		{
			name: "033_240.ret", bank: "033", width: cnab.CNAB240, kind: KindTitle, crlf: true, final: true,
			items: mask(nn(func(i int) (string, string) { return fmt.Sprintf("%012d", 5001+i), fmt.Sprint(i + 1) })),
			build: cnab240{bank: "033",
				nosso: func(l line, s sample) { l.put(41, s.nn+s.dv).put(54, s.wallet) },
				t: func(l line, s sample) {
					l.put(55, s.doc).date8(70, s.due).num(78, 92, s.amount).put(101, s.control).
						put(144, s.payer).num(194, 208, s.tariff).put(209, reasonField(s.reasons))
				}}.build,
		},
		{
			name: "041_240.ret", bank: "041", width: cnab.CNAB240, kind: KindTitle, crlf: false, final: false,
			items: mask(nn(func(i int) (string, string) { return fmt.Sprintf("%08d", 700+i), fmt.Sprintf("%02d", 11*i+3) })),
			build: cnab240{bank: "041", nosso: func(l line, s sample) { l.put(38, s.nn+s.dv); febrabanWallet(l, s) }}.build,
		},
		{
			name: "104_240.ret", bank: "104", width: cnab.CNAB240, kind: KindTitle, crlf: true, final: true,
			items: mask(nn(func(i int) (string, string) { return fmt.Sprintf("14%015d", 301+i), fmt.Sprint(9 - i) })),
			build: cnab240{bank: "104", nosso: func(l line, s sample) { l.put(40, s.nn).put(57, s.dv); febrabanWallet(l, s) }}.build,
		},
		{
			name: "237_240.ret", bank: "237", width: cnab.CNAB240, kind: KindTitle, crlf: true, final: true,
			items: withWallet(mask(nn(func(i int) (string, string) {
				return fmt.Sprintf("%011d", 88001+i), []string{"1", "P", "0", "7", "3"}[i]
			})), "009"),
			build: cnab240{bank: "237", nosso: func(l line, s sample) {
				l.put(38, s.wallet).put(41, "00000").put(46, s.nn).put(57, s.dv)
			}}.build,
		},
		{
			name: "341_240.ret", bank: "341", width: cnab.CNAB240, kind: KindTitle, crlf: true, final: true,
			items: withWallet(mask(withChannel(withCodes341(nn(func(i int) (string, string) { return fmt.Sprintf("%08d", 40001+i), fmt.Sprint(i) })), "B1"), "otherExp", "otherCred"), "109"),
			build: cnab240{bank: "341",
				nosso: func(l line, s sample) { l.put(38, s.wallet).put(41, s.nn).put(49, s.dv) },
				t: func(l line, s sample) {
					l.put(59, s.doc).date8(74, s.due).num(82, 96, s.amount).put(106, s.control).
						put(149, s.payer).num(199, 213, s.tariff).put(214, reasonField(s.reasons)).put(222, s.channel)
				},
				// Both amounts of 78-107 are "valor creditado" at Itaú.
				u: func(l line, s sample) {
					l.num(18, 32, s.interest).num(33, 47, s.discount).num(48, 62, s.abatement).num(63, 77, s.iof).
						num(78, 92, s.credited).num(93, 107, s.credited).date8(138, s.date).date8(146, s.credit)
				}}.build,
		},
		{
			name: "748_240.ret", bank: "748", width: cnab.CNAB240, kind: KindTitle, crlf: true, final: true,
			items: mask(nn(func(i int) (string, string) { return fmt.Sprintf("262%05d", 10+i), fmt.Sprint(i + 2) })),
			build: cnab240{bank: "748", nosso: func(l line, s sample) { l.put(38, s.nn+s.dv); febrabanWallet(l, s) }}.build,
		},
		{
			name: "756_240.ret", bank: "756", width: cnab.CNAB240, kind: KindTitle, crlf: true, final: false,
			items: mask(nn(func(i int) (string, string) { return fmt.Sprintf("%07d", 123450+i), fmt.Sprint(9 - i) })),
			build: cnab240{bank: "756", nosso: func(l line, s sample) {
				l.put(38, "00"+s.nn+s.dv).put(48, "01").put(50, "01").put(52, "4")
				febrabanWallet(l, s)
			}}.build,
		},
	}
}

func withWallet(items []sample, w string) []sample {
	for i := range items {
		items[i].wallet = w
	}
	return items
}

// withCodes341 gives the samples Itaú's own codes: its errors for the
// rejection (note 20, table 1).
func withCodes341(items []sample) []sample {
	for i := range items {
		switch items[i].class {
		case Paid, WrittenOff, EntryConfirmed:
			items[i].reasons = nil
		case Rejected:
			items[i].reasons = []string{"08", "14"}
		}
	}
	return items
}

// cnab400 writes a CNAB 400 return: the header, one detail per title
// (detail writes the bank's fields), the trailer; every record ends
// with its sequence number.
type cnab400 struct {
	header func(l line)
	detail func(l line, s sample)
	typ    string
}

func (c cnab400) build(items []sample) []string {
	var out []string
	h := newLine(400).put(1, "02RETORNO01COBRANCA").put(47, "PROPFIN IMOVEIS LTDA").date6(95, created)
	c.header(h)
	out = append(out, h.num(395, 400, 1).String())
	for _, s := range items {
		d := newLine(400).put(1, c.typ)
		c.detail(d, s)
		out = append(out, d.num(395, 400, int64(len(out)+1)).String())
	}
	out = append(out, newLine(400).put(1, "9201").num(395, 400, int64(len(out)+1)).String())
	return out
}

func collection400Files() []*sampleFile {
	itau := withWallet(withCodes341(withNN(collectionSamples(febrabanSampleCodes, nil), func(i int) (string, string) {
		return fmt.Sprintf("%08d", 50001+i), fmt.Sprint(i + 3)
	})), "109")
	bradesco := withNN(collectionSamples(febrabanSampleCodes, map[Occurrence][]string{
		Paid: {"15"}, WrittenOff: {"10"}, Rejected: {"08", "48"},
	}), func(i int) (string, string) {
		return fmt.Sprintf("%011d", 9001+i), []string{"5", "P", "1", "0", "2"}[i]
	})
	bb := withNN(collectionSamples(febrabanSampleCodes, map[Occurrence][]string{
		EntryConfirmed: {"00"}, Paid: {"01"}, WrittenOff: {"00"}, Rejected: {"09"},
	}), func(i int) (string, string) { return fmt.Sprintf("1234567%010d", 2001+i), "" })
	santander := withNN(collectionSamples(febrabanSampleCodes, map[Occurrence][]string{Rejected: {"012", "045"}}),
		func(i int) (string, string) { return fmt.Sprintf("%07d", 3001+i), fmt.Sprint(i + 4) })
	banrisul := withNN(collectionSamples(febrabanSampleCodes, map[Occurrence][]string{Rejected: {"08", "48"}}),
		func(i int) (string, string) { return fmt.Sprintf("%08d", 900+i), fmt.Sprintf("%02d", 17*i+5) })
	sicredi := withNN(collectionSamples(febrabanSampleCodes, map[Occurrence][]string{Paid: {"A8"}, Rejected: {"08", "48"}}),
		func(i int) (string, string) { return fmt.Sprintf("262%05d", 20+i), fmt.Sprint(8 - i) })
	sicredi[1].fine = 3000
	var sicoob []sample // the planilha has no rejection movement
	for _, s := range withNN(collectionSamples(febrabanSampleCodes, map[Occurrence][]string{WrittenOff: {"01"}}),
		func(i int) (string, string) { return fmt.Sprintf("%011d", 777+i), fmt.Sprint(i + 1) }) {
		if s.class != Rejected {
			sicoob = append(sicoob, s)
		}
	}
	return []*sampleFile{
		{
			name: "756_400.ret", bank: "756", width: cnab.CNAB400, kind: KindTitle, crlf: true, final: false, undescribed: true,
			items: withWallet(mask(sicoob, "payer"), "01"),
			build: cnab400{typ: "1",
				header: func(l line) { l.put(77, "756 - BANCOOB S/A").num(101, 107, 42) },
				detail: func(l line, s sample) {
					l.put(38, s.control).put(63, s.nn).put(74, s.dv).put(81, reasonField(s.reasons)).put(107, s.wallet).
						put(109, s.code).date6(111, s.date).put(117, s.doc).date6(147, s.due).num(153, 165, s.amount).
						date6(176, s.credit).num(182, 188, s.tariff).num(189, 201, s.otherExp).num(215, 227, s.iof).
						num(228, 240, s.abatement).num(241, 253, s.discount).num(254, 266, s.paid).num(267, 279, s.interest).
						num(280, 292, s.otherCred).num(306, 318, s.credited)
				}}.build,
		},
		{
			name: "033_400.ret", bank: "033", width: cnab.CNAB400, kind: KindTitle, crlf: true, final: true, undescribed: true,
			items: withWallet(santander, "5"),
			build: cnab400{typ: "1",
				header: func(l line) { l.put(77, "353SANTANDER") },
				detail: func(l line, s sample) {
					l.put(38, s.control).put(63, s.nn+s.dv).put(108, s.wallet).put(109, s.code).date6(111, s.date).
						put(117, s.doc).put(137, reasonField(s.reasons)).date6(147, s.due).num(153, 165, s.amount).
						num(176, 188, s.tariff).num(189, 201, s.otherExp).num(215, 227, s.iof).num(228, 240, s.abatement).
						num(241, 253, s.discount).num(254, 266, s.paid).num(267, 279, s.interest).num(280, 292, s.otherCred).
						date6(296, s.credit).put(302, s.payer).num(367, 379, s.credited).put(380, "C")
				}}.build,
		},
		{
			name: "041_400.ret", bank: "041", width: cnab.CNAB400, kind: KindTitle, crlf: true, final: true,
			items: mask(withChannel(banrisul, "3"), "iof", "payer"),
			build: cnab400{typ: "1",
				header: func(l line) { l.put(77, "041BANRISUL").num(386, 394, 42) },
				detail: func(l line, s sample) {
					l.put(38, s.control).put(63, s.nn+s.dv).put(108, s.wallet).put(109, s.code).date6(111, s.date).
						put(117, s.doc).date6(147, s.due).num(153, 165, s.amount).num(176, 188, s.tariff).num(189, 201, s.otherExp).
						num(228, 240, s.abatement).num(241, 253, s.discount).num(254, 266, s.paid).num(267, 279, s.interest).
						num(280, 292, s.otherCred).date6(296, s.credit).put(344, s.channel).put(383, reasonField(s.reasons))
				}}.build,
		},
		{
			name: "748_400.ret", bank: "748", width: cnab.CNAB400, kind: KindTitle, crlf: true, final: true,
			items: mask(sicredi, "control", "wallet", "payer", "iof", "otherCred"),
			build: cnab400{typ: "1",
				header: func(l line) { l.put(77, "748BANSICREDI").dateYMD(95, created).num(111, 117, 42) },
				detail: func(l line, s sample) {
					l.put(14, "A").put(48, s.nn+s.dv).put(109, s.code).date6(111, s.date).put(117, s.doc).
						date6(147, s.due).num(153, 165, s.amount).num(176, 188, s.tariff).num(189, 201, s.otherExp).
						num(228, 240, s.abatement).num(241, 253, s.discount).num(254, 266, s.paid).num(267, 279, s.interest).
						num(280, 292, s.fine).put(319, reasonField(s.reasons)).dateYMD(329, s.credit)
				}}.build,
		},
		{
			name: "341_400.ret", bank: "341", width: cnab.CNAB400, kind: KindTitle, crlf: true, final: true,
			items: mask(withChannel(itau, "B5"), "otherExp"),
			build: cnab400{typ: "1",
				header: func(l line) { l.put(27, "0810").put(33, "53678").put(77, "341BANCO ITAU SA").num(109, 113, 42) },
				detail: func(l line, s sample) {
					l.put(38, s.control).put(83, s.wallet).put(86, s.nn).put(94, s.dv).put(109, s.code).date6(111, s.date).
						put(117, s.doc).date6(147, s.due).num(153, 165, s.amount).num(176, 188, s.tariff).num(215, 227, s.iof).
						num(228, 240, s.abatement).num(241, 253, s.discount).num(254, 266, s.credited).num(267, 279, s.interest).
						num(280, 292, s.otherCred).date6(296, s.credit).put(325, s.payer).put(378, reasonField(s.reasons)).put(393, s.channel)
				}}.build,
		},
		{
			name: "237_400.ret", bank: "237", width: cnab.CNAB400, kind: KindTitle, crlf: false, final: true,
			items: mask(withChannel(bradesco, "14"), "payer"),
			build: cnab400{typ: "1",
				header: func(l line) { l.put(77, "237BRADESCO") },
				detail: func(l line, s sample) {
					l.put(38, s.control).put(71, s.nn).put(82, s.dv).put(108, s.wallet).put(109, s.code).date6(111, s.date).
						put(117, s.doc).date6(147, s.due).num(153, 165, s.amount).num(176, 188, s.tariff).num(189, 201, s.otherExp).
						num(215, 227, s.iof).num(228, 240, s.abatement).num(241, 253, s.discount).num(254, 266, s.paid).
						num(267, 279, s.interest).num(280, 292, s.otherCred).date6(296, s.credit).digits(302, 304, s.channel).
						put(319, reasonField(s.reasons))
				}}.build,
		},
		{
			name: "001_400.ret", bank: "001", width: cnab.CNAB400, kind: KindTitle, crlf: true, final: false,
			items: withWallet(mask(withChannel(bb, "02"), "dv", "payer"), "17"),
			build: cnab400{typ: "7",
				header: func(l line) { l.put(77, "001BANCODOBRASIL").num(101, 107, 42).put(150, "1234567") },
				detail: func(l line, s sample) {
					l.put(39, s.control).put(64, s.nn).put(87, reasonField(s.reasons)).put(107, s.wallet).put(109, s.code).
						date6(111, s.date).put(117, s.doc).date6(147, s.due).num(153, 165, s.amount).date6(176, s.credit).
						num(182, 188, s.tariff).num(189, 201, s.otherExp).num(215, 227, s.iof).num(228, 240, s.abatement).
						num(241, 253, s.discount).num(254, 266, s.paid).num(267, 279, s.interest).num(280, 292, s.otherCred).
						num(306, 318, s.credited).put(393, s.channel)
				}}.build,
		},
	}
}

// paymentSamples are the payments of every payment sample file: a
// transfer paid, one scheduled, one rejected with two codes, a boleto
// paid, and a code the bank's table does not have.
func paymentSamples(rejected []string) []sample {
	return []sample{
		{code: "00", reasons: []string{"00"}, class: Paid, payer: "CONSTRUTORA HORIZONTE LTDA", doc: "PAG-0001",
			nn: "000000012345", amount: 250000, paid: 250000, due: day(2026, 11, 20), date: day(2026, 11, 20)},
		{code: "BD", reasons: []string{"BD"}, class: Scheduled, payer: "JARDINAGEM VERDE ME", doc: "PAG-0002",
			nn: "000000012346", amount: 48000, due: day(2026, 11, 25)},
		{code: rejected[0], reasons: rejected, class: Rejected, payer: "ELETRICA FORCA LTDA", doc: "PAG-0003",
			amount: 73050, due: day(2026, 11, 20)},
		{code: "00", reasons: []string{"00"}, class: Paid, payer: "COMPANHIA DE AGUA", doc: "PAG-0004",
			nn: "000000012348", barcode: "34191123400000150001090080101527124806378950",
			amount: 150000, paid: 151234, interest: 1234, due: day(2026, 11, 18), date: day(2026, 11, 20)},
		{code: "QQ", reasons: []string{"QQ"}, class: Unknown, payer: "SEGURANCA TOTAL SA", doc: "PAG-0005",
			amount: 99000, due: day(2026, 11, 20)},
	}
}

// payment240 writes a CNAB 240 payment return: a batch of transfers
// (A and B) and a batch of boletos (J and J-52). ourNumberAt is where
// segment A and J have the bank's number.
type payment240 struct {
	bank         string
	aOurNumber   [2]int // start, end in segment A
	jOurNumber   [2]int // in segment J
	bOccurrences bool   // segment B repeats the occurrence codes (SISPAG)
}

func (p payment240) build(items []sample) []string {
	var out []string
	out = append(out, newLine(240).put(1, p.bank).put(4, "0000").put(8, "0").put(18, "2").
		digits(19, 32, "12345678000190").put(73, "PROPFIN IMOVEIS LTDA").put(143, "2").date8(144, created).String())
	batch := 0
	open := func() {
		batch++
		out = append(out, newLine(240).put(1, p.bank).num(4, 7, int64(batch)).put(8, "1").put(9, "C").put(10, "20").String())
	}
	closeBatch := func(records int) {
		out = append(out, newLine(240).put(1, p.bank).num(4, 7, int64(batch)).put(8, "5").num(18, 23, int64(records+2)).String())
	}
	seg := func(n int, letter string) line {
		return newLine(240).put(1, p.bank).num(4, 7, int64(batch)).put(8, "3").num(9, 13, int64(n)).put(14, letter)
	}
	open()
	n := 0
	for _, s := range items {
		if s.barcode != "" {
			continue
		}
		n++
		a := seg(n, "A").put(44, s.payer).put(74, s.doc).date8(94, s.due).num(120, 134, s.amount).
			put(p.aOurNumber[0], s.nn).date8(155, s.date).num(163, 177, s.paid).put(231, reasonField(s.reasons))
		out = append(out, a.String())
		n++
		b := seg(n, "B").put(18, "2").digits(19, 32, "11222333000181")
		if p.bOccurrences {
			b.put(231, reasonField(s.reasons))
		}
		out = append(out, b.String())
	}
	closeBatch(n)
	open()
	n = 0
	for _, s := range items {
		if s.barcode == "" {
			continue
		}
		n++
		j := seg(n, "J").put(18, s.barcode).put(62, s.payer).date8(92, s.due).num(100, 114, s.amount).
			num(115, 129, s.discount).num(130, 144, s.interest).date8(145, s.date).num(153, 167, s.paid).
			put(183, s.doc).put(p.jOurNumber[0], s.nn).put(231, reasonField(s.reasons))
		out = append(out, j.String())
		n++
		out = append(out, seg(n, "J").put(18, "52").put(20, "2").digits(21, 35, "12345678000190").String())
	}
	closeBatch(n)
	out = append(out, newLine(240).put(1, p.bank).put(4, "9999").put(8, "9").num(18, 23, int64(batch)).num(24, 29, int64(len(out)+1)).String())
	return out
}

func paymentFiles() []*sampleFile {
	febraban := func(bank string) *sampleFile {
		return &sampleFile{
			name: bank + "_240_pagamento.ret", bank: bank, width: cnab.CNAB240, kind: KindPayment, crlf: true, final: true,
			items: orderPayments(paymentSamples([]string{"AG", "AN"})),
			build: payment240{bank: bank, aOurNumber: [2]int{135, 154}, jOurNumber: [2]int{203, 222}}.build,
		}
	}
	itau := &sampleFile{
		name: "341_240_pagamento.ret", bank: "341", width: cnab.CNAB240, kind: KindPayment, crlf: true, final: true,
		items: orderPayments(trimNN(paymentSamples([]string{"AM", "AN"}), 15)),
		build: payment240{bank: "341", aOurNumber: [2]int{135, 149}, jOurNumber: [2]int{216, 230}, bOccurrences: true}.build,
	}
	return []*sampleFile{febraban("001"), febraban("033"), febraban("237"), itau, febraban("756")}
}

// orderPayments puts the transfers first, then the boletos, as the
// files have them (one batch each).
func orderPayments(items []sample) []sample {
	var a, j []sample
	for _, s := range items {
		if s.barcode == "" {
			a = append(a, s)
		} else {
			j = append(j, s)
		}
	}
	return append(a, j...)
}

func trimNN(items []sample, width int) []sample {
	for i := range items {
		if len(items[i].nn) > width {
			items[i].nn = items[i].nn[len(items[i].nn)-width:]
		}
	}
	return items
}

func sampleFiles() []*sampleFile {
	return append(append(collection240Files(), collection400Files()...), paymentFiles()...)
}
