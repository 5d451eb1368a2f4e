package cnab

// Sicoob (756), CNAB 400: "Layouts para troca de informações", planilha
// "03.Remessa – CNAB400", Fevereiro/2017. Positions below are the
// planilha's "Início/Final". Sicoob's CNAB 400 takes interest only as a
// monthly rate and the fee as a rate, both with four decimal places, and
// protest only in business days by instruction code (3, 4, 5, 10, 15 or
// 20 days, code 07 not to protest). The planilha gives the client code
// (32-39) and its digit (40) apart; the covenant is written there with its
// digit as its last digit.
var sicoob400 = register(&spec{
	bank: "756", bankName: "Sicoob", layout: CNAB400,
	versions: []string{"2017-02"},
	interest: interestMonthlyOnly,
	eol:      "\r\n", finalEOL: false,
	required: []string{"agency", "agency_digit", "account", "account_digit", "covenant"},
	wallets:  []string{"1"},
	kinds: map[Kind]string{
		KindDuplicataMercantil: "01", KindNotaPromissoria: "02", KindRecibo: "05",
		KindDuplicataServico: "12", KindOther: "99",
	},
	prepare: sicoob400Prepare,
	header:  []*record{&sicoob400Header},
	detail:  []*record{&sicoob400Detail},
	trailer: []*record{&sicoob400Trailer},
})

var sicoob400Header = record{name: "header", fields: []field{
	lit(1, 1, "Identificação do Registro Header", "0"),
	lit(2, 2, "Tipo de Operação", "1"),
	lit(3, 9, "Identificação por Extenso do Tipo de Operação", "REMESSA"),
	lit(10, 11, "Identificação do Tipo de Serviço", "01"),
	lit(12, 19, "Identificação por Extenso do Tipo de Serviço", "COBRANCA"),
	blank(20, 26, "Complemento do Registro"),
	digits(27, 30, "Prefixo da Cooperativa", "beneficiary.agency", agency),
	text(31, 31, "Dígito Verificador do Prefixo", "beneficiary.agency_digit", agencyDigit),
	digits(32, 40, "Código do Cliente/Beneficiário e seu Dígito Verificador", "beneficiary.covenant", covenant),
	blank(41, 46, "Número do convênio líder"),
	text(47, 76, "Nome do Beneficiário", "beneficiary.name", benefName),
	lit(77, 94, "Identificação do Banco", "756BANCOOBCED     "),
	date6(95, 100, "Data da Gravação da Remessa", "created", created),
	num(101, 107, "Seqüencial da Remessa", "sequence", sequence),
	blank(108, 394, "Complemento do Registro"),
	num(395, 400, "Sequencial do Registro", "", recordNumber),
}}

var sicoob400Detail = record{name: "detail", fields: []field{
	lit(1, 1, "Identificação do Registro Detalhe", "1"),
	num(2, 3, "Tipo de Inscrição do Beneficiário", "beneficiary.document", benefDocKind),
	taxID(4, 17, "Número do CPF/CNPJ do Beneficiário", "beneficiary.document", benefDoc),
	digits(18, 21, "Prefixo da Cooperativa", "beneficiary.agency", agency),
	digits(22, 22, "Dígito Verificador do Prefixo", "beneficiary.agency_digit", agencyDigit),
	digits(23, 30, "Conta Corrente", "beneficiary.account", account),
	text(31, 31, "Dígito Verificador da Conta", "beneficiary.account_digit", accountDigit),
	zero(32, 37, "Número do Convênio de Cobrança do Beneficiário"),
	text(38, 62, "Número de Controle do Participante", "control", control),
	digits(63, 73, "Nosso Número: número seqüencial", "our_number", ourNumber),
	digits(74, 74, "Nosso Número: DV", "our_number", ourDigit),
	lit(75, 76, "Número da Parcela", "01"),
	zero(77, 78, "Grupo de Valor"),
	blank(79, 81, "Complemento do Registro"),
	blank(82, 82, "Indicativo de Mensagem ou Sacador/Avalista"),
	blank(83, 85, "Prefixo do Título"),
	zero(86, 88, "Variação da Carteira"),
	zero(89, 89, "Conta Caução"),
	zero(90, 94, "Número do Contrato Garantia"),
	lit(95, 95, "DV do contrato", "0"),
	zero(96, 101, "Numero do borderô"),
	blank(102, 105, "Complemento do Registro"),
	lit(106, 106, "Tipo de Emissão", "2"),
	digits(107, 108, "Carteira/Modalidade", "beneficiary.modality", sicoobModality),
	lit(109, 110, "Comando/Movimento", "01"),
	text(111, 120, "Seu Número", "document_number", documentNumber),
	date6(121, 126, "Data Vencimento", "due", due),
	num(127, 139, "Valor do Titulo", "amount", amount),
	lit(140, 142, "Número Banco", "756"),
	digits(143, 146, "Prefixo da Cooperativa", "beneficiary.agency", agency),
	text(147, 147, "Dígito Verificador do Prefixo", "beneficiary.agency_digit", agencyDigit),
	digits(148, 149, "Espécie do Título", "kind", kindCode),
	lit(150, 150, "Aceite do Título", "0"),
	date6(151, 156, "Data de Emissão do Título", "issued", issued),
	num(157, 158, "Primeira instrução codificada", "protest_days", sicoob400Protest),
	zero(159, 160, "Segunda instrução"),
	num(161, 166, "Taxa de mora mês", "interest_monthly_percent", fourDecimals(interestRate)),
	num(167, 172, "Taxa de multa", "fine_percent", fourDecimals(finePercent)),
	lit(173, 173, "Tipo Distribuição", "2"),
	date6(174, 179, "Data primeiro desconto", "discount_until", discountUntil),
	num(180, 192, "Valor primeiro desconto", "discount", discount),
	lit(193, 193, "Código da moeda", "9"),
	zero(194, 205, "Valor IOF / Quantidade Monetária"),
	zero(206, 218, "Valor Abatimento"),
	num(219, 220, "Tipo de Inscrição do Pagador", "payer.document", payerDocKind),
	taxID(221, 234, "Número do CNPJ ou CPF do Pagador", "payer.document", payerDoc),
	text(235, 274, "Nome do Pagador", "payer.name", payerName),
	text(275, 311, "Endereço do Pagador", "payer.address", payerAddress),
	text(312, 326, "Bairro do Pagador", "payer.district", payerDistrict),
	digits(327, 334, "CEP do Pagador", "payer.zip", payerZIP),
	text(335, 349, "Cidade do Pagador", "payer.city", payerCity),
	text(350, 351, "UF do Pagador", "payer.state", payerState),
	blank(352, 391, "Observações/Mensagem ou Sacador/Avalista"),
	num(392, 393, "Número de Dias Para Protesto", "protest_days", protestDays),
	blank(394, 394, "Complemento do Registro"),
	num(395, 400, "Seqüencial do Registro", "", recordNumber),
}}

var sicoob400Trailer = record{name: "trailer", fields: []field{
	lit(1, 1, "Identificação Registro Trailler", "9"),
	blank(2, 194, "Complemento do Registro"),
	blank(195, 394, "Mensagens responsabilidade Beneficiário"),
	num(395, 400, "Seqüencial do Registro", "", recordNumber),
}}

// fourDecimals turns a rate in hundredths of a percent into the 9(02)V9999
// form (2.20% is 022000).
func fourDecimals(v func(*state) int64) func(*state) int64 {
	return func(s *state) int64 { return v(s) * 100 }
}

// sicoob400Protest is the instruction code: the business days of the
// protest term (3, 4, 5, 10, 15 or 20), or 07, do not protest.
func sicoob400Protest(s *state) int64 {
	if s.t.ProtestDays == 0 {
		return 7
	}
	return int64(s.t.ProtestDays)
}

func sicoob400Prepare(s *state) {
	switch d := s.t.ProtestDays; {
	case d == 0:
	case !s.t.ProtestBusinessDays || d != 3 && d != 4 && d != 5 && d != 10 && d != 15 && d != 20:
		s.Fail("protest_days", "Sicoob CNAB 400 protests after 3, 4, 5, 10, 15 or 20 business days (protest_business_days)")
	}
}
