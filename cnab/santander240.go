package cnab

// Santander (033), CNAB 240: "Layout de Arquivo Padrão 240 – Cobrança",
// H7815, versão 2.9, Abril/2018 (leiaute do arquivo 040, do lote 030).
// Santander's headers depart from the FEBRABAN positions (the company's
// CNPJ in 18-32, the código de transmissão in 33-47), its protest code 0
// means "do not protest" and its currency code is 00. Positions below are
// the document's "Pos ini/final".
var santander240 = register(&spec{
	bank: "033", bankName: "Santander", layout: CNAB240,
	versions: []string{"040"},
	interest: interestEither,
	eol:      "\r\n", finalEOL: true,
	required: []string{"agency", "account", "account_digit", "wallet", "covenant", "transmission_code"},
	wallets:  []string{"101", "201"},
	kinds: map[Kind]string{
		KindDuplicataMercantil: "02", KindDuplicataServico: "04", KindNotaPromissoria: "12",
		KindRecibo: "17",
	},
	prepare:     santander240Prepare,
	header:      []*record{&santander240FileHeader},
	batchHeader: &santander240BatchHeader,
	detail:      []*record{&santander240P, &santander240Q, &santander240R},
	batchTrail:  &santander240BatchTrailer,
	trailer:     []*record{&santander240FileTrailer},
})

var santanderBatchVersions = versionPair{"040": "030"}

var santander240FileHeader = record{name: "file header", fields: fields(
	control240("033", "0000", "0"),
	[]field{
		blank(9, 16, "Reservado (uso Banco)"),
		num(17, 17, "Tipo de inscrição da empresa", "beneficiary.document", benefDocKind),
		taxID(18, 32, "Nº de inscrição da empresa", "beneficiary.document", benefDoc),
		digits(33, 47, "Código de Transmissão", "beneficiary.transmission_code", transmissionCode),
		blank(48, 72, "Reservado (uso Banco)"),
		text(73, 102, "Nome da empresa", "beneficiary.name", benefName),
		lit(103, 132, "Nome do Banco", padRight("BANCO SANTANDER", 30)),
		blank(133, 142, "Reservado (uso Banco)"),
		lit(143, 143, "Código remessa", "1"),
		date8(144, 151, "Data de geração do arquivo", "created", created),
		blank(152, 157, "Reservado (uso Banco)"),
		num(158, 163, "Nº seqüencial do arquivo", "sequence", sequence),
		digits(164, 166, "Nº da versão do layout do arquivo", "version", version),
		blank(167, 240, "Reservado (uso Banco)"),
	},
)}

var santander240BatchHeader = record{name: "batch header", fields: fields(
	batchHeaderStart240("033", santanderBatchVersions.batch, true),
	[]field{
		blank(34, 53, "Reservado (uso Banco)"),
		digits(54, 68, "Código de Transmissão", "beneficiary.transmission_code", transmissionCode),
		blank(69, 73, "Reservado uso Banco"),
		text(74, 103, "Nome do Beneficiário", "beneficiary.name", benefName),
		blank(104, 143, "Mensagem 1"),
		blank(144, 183, "Mensagem 2"),
		num(184, 191, "Número remessa/retorno", "sequence", sequence),
		date8(192, 199, "Data da gravação remessa/retorno", "created", created),
		blank(200, 240, "Reservado (uso Banco)"),
	},
)}

var santander240P = record{name: "segment P", fields: fields(
	segment240("033", "P"),
	[]field{
		digits(18, 21, "Agência do Destinatária", "beneficiary.agency", agency),
		digits(22, 22, "Dígito da Ag do Destinatária", "beneficiary.agency_digit", agencyDigit),
		digits(23, 31, "Número da conta corrente", "beneficiary.account", account),
		digits(32, 32, "Dígito verificador da conta", "beneficiary.account_digit", accountDigit),
		digits(33, 41, "Conta cobrança", "beneficiary.account", account),
		digits(42, 42, "Dígito da conta cobrança", "beneficiary.account_digit", accountDigit),
		blank(43, 44, "Reservado (uso Banco)"),
		digits(45, 57, "Identificação do título no Banco", "our_number", ourNumberFull),
		num(58, 58, "Tipo de cobrança", "beneficiary.wallet", santanderCollectionType),
		lit(59, 59, "Forma de Cadastramento", "1"),
		lit(60, 60, "Tipo de documento", "1"),
		blank(61, 61, "Reservado (uso Banco)"),
		blank(62, 62, "Reservado (uso Banco)"),
		text(63, 77, "Nº do documento", "document_number", documentNumber),
	},
	titleP240(),
	[]field{
		zero(101, 104, "Agência encarregada da cobrança"),
		zero(105, 105, "Dígito da Agência encarregada da cobrança"),
		blank(106, 106, "Reservado (uso Banco)"),
	},
	chargesP240(3, dueIfInterest),
	[]field{
		text(196, 220, "Identificação do título na empresa", "control", control),
		num(221, 221, "Código para protesto", "protest_days", santanderProtestCode),
		num(222, 223, "Número de dias para protesto", "protest_days", protestDays),
		num(224, 224, "Código para Baixa/Devolução", "write_off_days", ifPositive(writeOffDays, 1, 3)),
		zero(225, 225, "Reservado (uso Banco)"),
		num(226, 227, "Número de dias para Baixa/Devolução", "write_off_days", writeOffDays),
		lit(228, 229, "Código da moeda", "00"),
		blank(230, 240, "Reservado (uso Banco)"),
	},
)}

var santander240Q = record{name: "segment Q", fields: fields(
	segment240("033", "Q"),
	payerQ240(),
	[]field{
		zero(210, 212, "Identificador de carne"),
		zero(213, 215, "Sequencial da Parcela"),
		zero(216, 218, "Quantidade total de parcelas"),
		zero(219, 221, "Número do plano"),
		blank(222, 240, "Reservado (uso Banco)"),
	},
)}

var santander240R = record{name: "segment R", fields: fields(
	segment240("033", "R"),
	[]field{
		zero(18, 18, "Código do desconto 2"),
		zero(19, 26, "Data do desconto 2"),
		zero(27, 41, "Valor/Percentual a ser concedido"),
		blank(42, 65, "Reservado (uso Banco)"),
		num(66, 66, "Código da multa", "fine_percent", ifPositive(finePercent, 2, 0)),
		date8(67, 74, "Data da multa", "fine_percent", dueIfFine),
		num(75, 89, "Valor/Percentual a ser aplicado", "fine_percent", finePercent),
		blank(90, 99, "Reservado (uso Banco)"),
		blank(100, 139, "Mensagem 3"),
		blank(140, 179, "Mensagem 4"),
		blank(180, 240, "Reservado"),
	},
)}

var santander240BatchTrailer = record{name: "batch trailer", fields: fields(
	control240("033", "", "5"),
	[]field{
		blank(9, 17, "Reservado (uso Banco)"),
		num(18, 23, "Quantidade de registros do lote", "", batchRecordCount),
		blank(24, 240, "Reservado (uso Banco)"),
	},
)}

var santander240FileTrailer = record{name: "file trailer", fields: fields(
	fileTrailerStart240("033"),
	[]field{blank(30, 240, "Reservado (uso Banco)")},
)}

// santanderCollectionType is note 5: 5 for cobrança simples rápida com
// registro (wallet 101, slips printed by the beneficiary), 1 for
// eletrônica com registro (wallet 201).
func santanderCollectionType(s *state) int64 {
	if s.rem.Beneficiary.Wallet == "101" {
		return 5
	}
	return 1
}

// santanderProtestCode is note 25: 0 do not protest, 1 calendar days, 2
// business days.
func santanderProtestCode(s *state) int64 {
	switch {
	case s.t.ProtestDays == 0:
		return 0
	case s.t.ProtestBusinessDays:
		return 2
	}
	return 1
}

func santander240Prepare(s *state) {
	if s.t.WriteOffDays > 99 {
		s.Fail("write_off_days", "Santander CNAB 240 takes a write-off term of up to 99 days")
	}
}
