package retorno

import "github.com/propfin/propfin/cnab"

// The CNAB 240 collection returns, one per bank. Segment U is FEBRABAN's
// at every bank but Itaú; segment T departs from it in the nosso número
// block (positions 38-57) and, at Santander and Itaú, in more.

// Banco do Brasil (001): "Particularidades BB – Leiaute CNAB 240",
// Agosto/2017: FEBRABAN's segments T and U.
var bb240 = register(&layout{
	bank: "001", bankName: "Banco do Brasil", width: cnab.CNAB240,
	document: "Particularidades BB – Leiaute CNAB 240, Agosto/2017 (segmentos T e U)",
	decoder:  decoder{split: bbSplit},
	segT: &record{name: "segment T", fields: concat(
		[]field{code240()}, accountT240(),
		[]field{fd(38, 57, "Identificação do Título", kindOurNumber, toOurNumber)},
		tTail240(73))},
	headerAccount: headerAccount240,
	segU:          &segU240,
	codes:         withReasons(febrabanCodes, bbRejections, "02", "03", "26", "30"),
	payment:       &febrabanPayment,
})

// bbSplit reads Banco do Brasil's nosso número: 17 digits without a check
// digit (7-digit covenants), or 11 digits and a check digit (shorter
// covenants).
func bbSplit(raw string) (string, string) {
	v := trimSpace(raw)
	if len(v) == 12 {
		return v[:11], v[11:]
	}
	return v, ""
}

// bbRejections is C047-A with the Banco do Brasil's own code 52 (the
// document's note on field 28.3T).
var bbRejections = withReason(febrabanRejections, "52", "Registro de Título já liquidado Cart. 17")

// Santander (033): "Layout Cobrança CNAB 240 posições padrão Santander
// Multibanco" H7815, V 2.9 Abril/2018. Segment T has its own positions.
var santander240 = register(&layout{
	bank: "033", bankName: "Santander", width: cnab.CNAB240,
	document: "Santander H7815 – Layout Cobrança CNAB 240 posições, V 2.9 Abril/2018",
	decoder:  decoder{split: splitLast},
	segT: &record{name: "segment T", fields: []field{
		code240(),
		fd(18, 21, "Agência do Beneficiário", kindText, toAgency),
		fd(22, 22, "Dígito da Agência do Beneficiário", kindText, toAgencyDigit),
		fd(23, 31, "Número da conta corrente", kindText, toAccount),
		fd(32, 32, "Dígito verificador da conta", kindText, toAccountDigit),
		fd(41, 53, "Identificação do título no Banco", kindOurNumber, toOurNumber),
		fd(54, 54, "Código da carteira", kindText, toWallet),
		fd(55, 69, "Nº do documento de cobrança", kindText, toDocument),
		fd(70, 77, "Data do vencimento do título", kindDate8, toDue),
		fd(78, 92, "Valor nominal do título", kindMoney, toAmount),
		fd(93, 95, "Nº do Banco Cobrador / Recebedor", kindText, toCollectingBank),
		fd(96, 99, "Agência Cobradora / Recebedora", kindText, toCollectingAgency),
		fd(100, 100, "Dígito da Agência Cobradora", kindText, toCollectingAgencyDigit),
		fd(101, 125, "Identif. do título na empresa", kindText, toControl),
		fd(126, 127, "Código da moeda", kindText, toCurrency),
		fd(128, 128, "Tipo de inscrição Pagador", kindDocType, toPayerDocumentType),
		fd(129, 143, "Número de inscrição Pagador", kindText, toPayerDocument),
		fd(144, 183, "Nome do Pagador", kindText, toPayer),
		fd(184, 193, "Conta Cobrança", kindText, toBeneficiaryCode),
		fd(194, 208, "Valor da Tarifa/Custas", kindMoney, toTariff),
		fd(209, 218, "Identificação para rejeições, tarifas, custas, liquidações e baixas", kindReasons, toReasons),
	}},
	segU: &segU240,
	codes: withCodes(febrabanCodes, occTable{
		"32": {Rejected, "Código de IOF inválido", nil},
		"61": {InstructionConfirmed, "Confirmação de Alteração do Valor Nominal do Título", nil},
		"91": {InstructionConfirmed, "Confirmação de Alteração do Valor Mínimo ou Percentual Mínimo", nil},
		"92": {InstructionConfirmed, "Confirmação de Alteração do Valor Máximo ou Percentual Máximo", nil},
		// Note 41: a title being paid; the payment itself comes in the
		// night file, so this is not a settlement.
		"93": {Other, "Baixa Operacional", febrabanSettlements},
		"94": {Other, "Cancelamento de Baixa Operacional", febrabanSettlements},
		"A4": {Other, "Pagador DDA", nil},
	}),
	payment: &febrabanPayment,
})

// Banrisul (041): "Cobrança Banrisul – Layout CNAB 240 posições"; the nosso
// número is the first 10 positions of 38-57: 8 digits and the two check
// digits (NC).
var banrisul240 = register(&layout{
	bank: "041", bankName: "Banrisul", width: cnab.CNAB240,
	document: "Banrisul – Layout CNAB 240 posições, Cobrança (registro retorno segmentos T e U)",
	decoder:  decoder{split: banrisulSplit},
	segT: &record{name: "segment T", fields: concat(
		[]field{code240()}, accountT240(),
		[]field{fd(38, 57, "Identificação do título no Banco", kindOurNumber, toOurNumber)},
		tTail240(73))},
	headerAccount: headerAccount240,
	segU:          &segU240,
	codes: withCodes(febrabanCodes, occTable{
		"04": {Other, "Reembolso e Transf. (Desconto-Vendor) ou Transf. de Carteira (Garantia)", nil},
		"05": {Other, "Reembolso e Devolução Desconto e Vendor", nil},
		"15": {Protest, "Confirmação de Protesto Imediato por Falência", nil},
		"24": {Other, "Reservado", nil},
		"AA": {WrittenOff, "Devolução, Liquidado Anteriormente (CCB)", nil},
		"AB": {Other, "Cobrança a Creditar (em trânsito)", nil},
		"AC": {Protest, "Situação do Título – Cartório", nil},
	}),
})

func banrisulSplit(raw string) (string, string) {
	v := trimSpace(raw)
	if len(v) == 10 {
		return v[:8], v[8:]
	}
	return v, ""
}

// Caixa (104): "Leiaute de Arquivo Eletrônico Padrão CNAB 240 – Cobrança
// Bancária CAIXA – SIGCB", MO 67.118: the nosso número is 40-56 (modalidade
// and 15 digits) with its check digit in 57; the document number is 59-69.
var caixa240 = register(&layout{
	bank: "104", bankName: "Caixa Econômica Federal", width: cnab.CNAB240,
	document: "CAIXA – Leiaute CNAB 240 Cobrança Bancária SIGCB, MO 67.118 (segmentos T e U)",
	segT: &record{name: "segment T", fields: concat([]field{
		code240(),
		fd(18, 22, "Código da Agência", kindText, toAgency),
		fd(23, 23, "DV da Agência", kindText, toAgencyDigit),
		fd(24, 29, "Código do Beneficiário (convênio no Banco)", kindText, toBeneficiaryCode),
		fd(40, 56, "Identificação do Título no Banco", kindDigits, toOurNumber),
		fd(57, 57, "DV do Nosso Número", kindText, toOurDigit),
	}, tTail240(69))},
	headerAccount: &record{name: "file header", fields: []field{
		fd(53, 57, "Agência Mantenedora da Conta", kindText, toAgency),
		fd(58, 58, "Dígito Verificador da Agência", kindText, toAgencyDigit),
		fd(59, 64, "Código do Beneficiário", kindText, toBeneficiaryCode),
	}},
	segU:  &segU240,
	codes: febrabanCodes,
})

// Bradesco (237): "Layout de Arquivo Multi-Banco CNAB 240": 38-40 the
// product (wallet), 41-45 zeros, 46-56 the nosso número, 57 its digit.
var bradesco240 = register(&layout{
	bank: "237", bankName: "Bradesco", width: cnab.CNAB240,
	document: "Bradesco – Layout de Arquivo Multi-Banco CNAB 240, Cobrança (segmentos T e U)",
	segT: &record{name: "segment T", fields: concat(
		[]field{code240()}, accountT240(),
		[]field{
			fd(38, 40, "Identificação do Produto", kindText, toWallet),
			fd(46, 56, "Nosso Número", kindDigits, toOurNumber),
			fd(57, 57, "Digito do nosso Número", kindText, toOurDigit),
		},
		withoutWallet(tTail240(73)))},
	headerAccount: headerAccount240,
	segU:          &segU240,
	codes:         febrabanCodes,
	payment:       &febrabanPayment,
})

// Itaú (341): "Cobrança FEBRABAN 240", Janeiro 2017: Itaú's own segment
// T and U positions and its occurrence codes (note 22, the same as the
// CNAB 400 manual's note 17) and errors (note 23, four codes).
var itau240 = register(&layout{
	bank: "341", bankName: "Itaú Unibanco", width: cnab.CNAB240,
	document: "Itaú – Cobrança FEBRABAN 240, Janeiro 2017 (segmentos T e U)",
	segT: &record{name: "segment T", fields: []field{
		code240(),
		fd(19, 22, "Agência", kindText, toAgency),
		fd(31, 35, "Conta", kindText, toAccount),
		fd(37, 37, "DAC", kindText, toAccountDigit),
		fd(38, 40, "N.º da carteira", kindText, toWallet),
		fd(41, 48, "Nosso número", kindDigits, toOurNumber),
		fd(49, 49, "DAC nosso número", kindText, toOurDigit),
		fd(59, 68, "Seu número", kindText, toDocument),
		fd(74, 81, "Vencimento", kindDate8, toDue),
		fd(82, 96, "Valor título", kindMoney, toAmount),
		fd(100, 104, "Agência cobradora", kindText, toCollectingAgency),
		fd(105, 105, "DAC agência cobradora", kindText, toCollectingAgencyDigit),
		fd(106, 130, "Uso da empresa", kindText, toControl),
		fd(133, 133, "Código de inscrição", kindDocType, toPayerDocumentType),
		fd(134, 148, "Inscrição número", kindText, toPayerDocument),
		fd(149, 178, "Nome do pagador", kindText, toPayer),
		fd(199, 213, "Tarifas/custas", kindMoney, toTariff),
		fd(214, 221, "Erros", kindReasons, toReasons),
		fd(222, 223, "Cód. de liquidação", kindText, toChannel),
	}},
	segU: &record{name: "segment U", fields: []field{
		code240(),
		fd(18, 32, "Juros de mora/multa", kindMoney, toInterest),
		fd(33, 47, "Valor do desconto concedido", kindMoney, toDiscount),
		fd(48, 62, "Valor do abatimento concedido", kindMoney, toAbatement),
		fd(63, 77, "Valor do IOF recolhido", kindMoney, toIOF),
		fd(93, 107, "Valor creditado (valor lançado em conta corrente)", kindMoney, toCredited),
		fd(138, 145, "Data de ocorrência no banco", kindDate8, toDate),
		fd(146, 153, "Data de crédito desta liquidação", kindDate8, toCreditDate),
	}},
	headerAccount: &record{name: "file header", fields: []field{
		fd(54, 57, "Agência", kindText, toAgency),
		fd(66, 70, "Conta", kindText, toAccount),
		fd(72, 72, "DAC", kindText, toAccountDigit),
	}},
	codes:    itauCodes,
	amounts:  paidFromCredited,
	channels: itauChannels240,
	payment:  &itauPayment,
})

// Sicredi (748): "Manual CNAB 240 – Cobrança Sicredi", agosto de 2019:
// FEBRABAN's segments; the nosso número is YYBNNNNND, left-aligned in
// 38-57.
var sicredi240 = register(&layout{
	bank: "748", bankName: "Sicredi", width: cnab.CNAB240,
	document: "Sicredi – Manual CNAB 240 Cobrança, agosto de 2019 (segmentos T e U)",
	decoder:  decoder{split: splitLast},
	segT: &record{name: "segment T", fields: concat(
		[]field{code240()}, accountT240(),
		[]field{fd(38, 57, "Identificação do título", kindOurNumber, toOurNumber)},
		tTail240(73))},
	headerAccount: headerAccount240,
	segU:          &segU240,
	codes: withCodes(febrabanCodes, occTable{
		"36": {Rejected, "Baixa rejeitada", febrabanRejections},
	}),
})

// Sicoob (756): "Layouts para troca de informações", Fevereiro/2017,
// planilha retorno CNAB 240: the nosso número is 38-47 (number and check
// digit), then the installment, modality and form type.
var sicoob240 = register(&layout{
	bank: "756", bankName: "Sicoob", width: cnab.CNAB240,
	document: "Sicoob – Layouts para troca de informações, Fevereiro/2017, retorno CNAB 240 (segmentos T e U)",
	decoder:  decoder{split: sicoobSplit},
	segT: &record{name: "segment T", fields: concat(
		[]field{code240()}, accountT240(),
		[]field{
			fd(38, 47, "Nosso Número: NumTitulo", kindOurNumber, toOurNumber),
			fd(48, 49, "Nosso Número: Parcela", kindText, toInstalment),
			fd(50, 51, "Nosso Número: Modalidade", kindText, toModality),
		},
		tTail240(73))},
	headerAccount: headerAccount240,
	segU:          &segU240,
	codes:         febrabanCodes,
	payment:       &febrabanPayment,
})

// sicoobSplit reads the ten digits of NumTitulo: the number, zero-padded,
// and its check digit. The number keeps the seven digits package boleto
// gives Sicoob's nosso número.
func sicoobSplit(raw string) (string, string) {
	v := trimSpace(raw)
	if len(v) < 2 {
		return v, ""
	}
	n, d := v[:len(v)-1], v[len(v)-1:]
	for len(n) > 7 && n[0] == '0' {
		n = n[1:]
	}
	return n, d
}

// concat joins the parts of a record's table.
func concat(parts ...[]field) []field {
	var out []field
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// withoutWallet drops the standard wallet field (58) of layouts that have
// the wallet elsewhere.
func withoutWallet(fs []field) []field {
	out := fs[:0:0]
	for _, f := range fs {
		if f.to != toWallet {
			out = append(out, f)
		}
	}
	return out
}

// withReason returns a copy of t with one code's meaning replaced.
func withReason(t reasonTable, code, text string) reasonTable {
	out := make(reasonTable, len(t))
	for k, v := range t {
		out[k] = v
	}
	out[code] = text
	return out
}

// withReasons returns a copy of codes where the given occurrences read
// their reasons from t.
func withReasons(codes occTable, t reasonTable, occurrences ...string) occTable {
	out := withCodes(codes, nil)
	for _, c := range occurrences {
		o := out[c]
		o.reasons = t
		out[c] = o
	}
	return out
}
