package cnab

// Pieces of the FEBRABAN CNAB 240 collection layout ("Layout Padrão
// FEBRABAN 240 posições", cobrança) that the banks share. Each bank's file
// assembles its records from these and from its own fields where its
// document departs from the standard; TestLayoutTables checks that every
// assembled record covers positions 1 to 240 exactly once.

// control240 is "Controle" (1-8): bank, batch and record type. The file
// header and trailer have the fixed batches 0000 and 9999; every other
// record carries the number of its batch.
func control240(bank, batch, typ string) []field {
	lot := lit(4, 7, "Lote de Serviço", batch)
	if batch == "" {
		lot = num(4, 7, "Lote de Serviço", "", batchNumber)
	}
	return []field{
		lit(1, 3, "Código do Banco na Compensação", bank),
		lot,
		lit(8, 8, "Tipo de Registro", typ),
	}
}

func batchNumber(s *state) int64 { return int64(s.batch) }

// segment240 is positions 1-17 of a detail segment: control, the record's
// number in the batch, the segment letter and the movement code 01
// (entrada de títulos).
func segment240(bank, letter string) []field {
	return append(control240(bank, "", "3"),
		num(9, 13, "Nº Sequencial do Registro no Lote", "", batchRecordNumber),
		lit(14, 14, "Cód. Segmento do Registro Detalhe", letter),
		blank(15, 15, "Uso Exclusivo FEBRABAN/CNAB"),
		lit(16, 17, "Código de Movimento Remessa", "01"),
	)
}

// fileHeaderStart240 is positions 1-32 of the file header.
func fileHeaderStart240(bank string) []field {
	return append(control240(bank, "0000", "0"),
		blank(9, 17, "Uso Exclusivo FEBRABAN/CNAB"),
		num(18, 18, "Tipo de Inscrição da Empresa", "beneficiary.document", benefDocKind),
		taxID(19, 32, "Número de Inscrição da Empresa", "beneficiary.document", benefDoc),
	)
}

// fileHeaderFile240 is positions 73-171 of the file header: names, the
// generation date and time, the NSA, the layout version and density.
func fileHeaderFile240(bankName string, version func(*state) string) []field {
	return []field{
		text(73, 102, "Nome da Empresa", "beneficiary.name", benefName),
		lit(103, 132, "Nome do Banco", padRight(bankName, 30)),
		blank(133, 142, "Uso Exclusivo FEBRABAN/CNAB"),
		lit(143, 143, "Código Remessa / Retorno", "1"),
		date8(144, 151, "Data de Geração do Arquivo", "created", created),
		num(152, 157, "Hora de Geração do Arquivo", "created", createdTime),
		num(158, 163, "Número Seqüencial do Arquivo", "sequence", sequence),
		digits(164, 166, "Nº da Versão do Layout do Arquivo", "version", version),
		zero(167, 171, "Densidade de Gravação do Arquivo"),
	}
}

// batchHeaderStart240 is positions 1-33 of the batch header. Positions
// 12-13 are zeros in the FEBRABAN layout and blanks at some banks.
func batchHeaderStart240(bank string, version func(*state) string, blank12 bool) []field {
	reserved := zero(12, 13, "Uso Exclusivo FEBRABAN/CNAB")
	if blank12 {
		reserved = blank(12, 13, "Uso Exclusivo FEBRABAN/CNAB")
	}
	return append(control240(bank, "", "1"),
		lit(9, 9, "Tipo de Operação", "R"),
		lit(10, 11, "Tipo de Serviço", "01"),
		reserved,
		digits(14, 16, "Nº da Versão do Layout do Lote", "version", version),
		blank(17, 17, "Uso Exclusivo FEBRABAN/CNAB"),
		num(18, 18, "Tipo de Inscrição da Empresa", "beneficiary.document", benefDocKind),
		taxID(19, 33, "Número de Inscrição da Empresa", "beneficiary.document", benefDoc),
	)
}

// batchHeaderEnd240 is positions 74-240 of the batch header: name,
// messages, the remittance number and date.
func batchHeaderEnd240() []field {
	return []field{
		text(74, 103, "Nome da Empresa", "beneficiary.name", benefName),
		blank(104, 143, "Mensagem 1"),
		blank(144, 183, "Mensagem 2"),
		num(184, 191, "Número Remessa/Retorno", "sequence", sequence),
		date8(192, 199, "Data de Gravação Remessa/Retorno", "created", created),
		zero(200, 207, "Data do Crédito"),
		blank(208, 240, "Uso Exclusivo FEBRABAN/CNAB"),
	}
}

// titleP240 is positions 78-100 of segment P: due date and amount.
func titleP240() []field {
	return []field{
		date8(78, 85, "Data de Vencimento do Título", "due", due),
		num(86, 100, "Valor Nominal do Título", "amount", amount),
	}
}

// chargesP240 is positions 107-195 of segment P: kind, acceptance, issue
// date, interest (code 1, an amount per day, or 2, a monthly rate, from
// the date interestFrom gives; noInterest, none), discount 1 (code 1, a
// fixed amount until a date), IOF and abatement. FEBRABAN's code for no
// interest is 3 and its interest date the day after the due date
// (interestDate).
func chargesP240(noInterest int64, interestFrom func(*state) Date) []field {
	return []field{
		digits(107, 108, "Espécie do Título", "kind", kindCode),
		lit(109, 109, "Identific. de Título Aceito/Não Aceito", "N"),
		date8(110, 117, "Data da Emissão do Título", "issued", issued),
		num(118, 118, "Código do Juros de Mora", "interest_per_day", interestCode(1, 2, noInterest)),
		date8(119, 126, "Data do Juros de Mora", "interest_per_day", interestFrom),
		num(127, 141, "Juros de Mora por Dia/Taxa", "interest_per_day", interestValue),
		num(142, 142, "Código do Desconto 1", "discount", ifPositive(discount, 1, 0)),
		date8(143, 150, "Data do Desconto 1", "discount_until", discountUntil),
		num(151, 165, "Valor/Percentual a ser Concedido", "discount", discount),
		zero(166, 180, "Valor do IOF a ser Recolhido"),
		zero(181, 195, "Valor do Abatimento"),
	}
}

// protestP240 is positions 221-223 of segment P with the FEBRABAN codes:
// 1 calendar days, 2 business days, 3 do not protest.
func protestP240() []field {
	return []field{
		num(221, 221, "Código para Protesto", "protest_days", protestCode240),
		num(222, 223, "Número de Dias para Protesto", "protest_days", protestDays),
	}
}

func protestCode240(s *state) int64 {
	switch {
	case s.t.ProtestDays == 0:
		return 3
	case s.t.ProtestBusinessDays:
		return 2
	}
	return 1
}

// payerQ240 is positions 18-209 of segment Q: the payer and an empty
// drawer (sacador/avalista).
func payerQ240() []field {
	return []field{
		num(18, 18, "Tipo de Inscrição do Pagador", "payer.document", payerDocKind),
		taxID(19, 33, "Número de Inscrição do Pagador", "payer.document", payerDoc),
		text(34, 73, "Nome do Pagador", "payer.name", payerName),
		text(74, 113, "Endereço do Pagador", "payer.address", payerAddress),
		text(114, 128, "Bairro do Pagador", "payer.district", payerDistrict),
		digits(129, 133, "CEP do Pagador", "payer.zip", payerZIP5),
		digits(134, 136, "Sufixo do CEP do Pagador", "payer.zip", payerZIP3),
		text(137, 151, "Cidade do Pagador", "payer.city", payerCity),
		text(152, 153, "Unidade da Federação do Pagador", "payer.state", payerState),
		zero(154, 154, "Tipo de Inscrição do Sacador/Avalista"),
		zero(155, 169, "Número de Inscrição do Sacador/Avalista"),
		blank(170, 209, "Nome do Sacador/Avalista"),
	}
}

// discountsFineR240 is positions 18-89 of segment R: no discounts 2 and
// 3, and the late fee (code 2, a percentage, from the date fineFrom gives,
// in the FEBRABAN layout the day after the due date, fineDate; 0, none).
func discountsFineR240(fineFrom func(*state) Date) []field {
	return []field{
		zero(18, 18, "Código do Desconto 2"),
		zero(19, 26, "Data do Desconto 2"),
		zero(27, 41, "Valor/Percentual a ser Concedido 2"),
		zero(42, 42, "Código do Desconto 3"),
		zero(43, 50, "Data do Desconto 3"),
		zero(51, 65, "Valor/Percentual a ser Concedido 3"),
		num(66, 66, "Código da Multa", "fine_percent", ifPositive(finePercent, 2, 0)),
		date8(67, 74, "Data da Multa", "fine_percent", fineFrom),
		num(75, 89, "Valor/Percentual a ser Aplicado", "fine_percent", finePercent),
	}
}

// batchTrailerStart240 is positions 1-23 of the batch trailer: control and
// the number of records in the batch (its header, details and trailer).
func batchTrailerStart240(bank string) []field {
	return append(control240(bank, "", "5"),
		blank(9, 17, "Uso Exclusivo FEBRABAN/CNAB"),
		num(18, 23, "Quantidade de Registros no Lote", "", batchRecordCount),
	)
}

// simpleTotals240 is positions 24-46 of the batch trailer: the number and
// total amount of the titles in cobrança simples.
func simpleTotals240() []field {
	return []field{
		num(24, 29, "Quantidade de Títulos em Cobrança Simples", "", batchTitleCount),
		num(30, 46, "Valor Total dos Títulos em Carteiras Simples", "titles", batchTitleTotal),
	}
}

// fileTrailerStart240 is positions 1-29 of the file trailer: the number of
// batches and of records in the file, trailer included.
func fileTrailerStart240(bank string) []field {
	return append(control240(bank, "9999", "9"),
		blank(9, 17, "Uso Exclusivo FEBRABAN/CNAB"),
		num(18, 23, "Quantidade de Lotes do Arquivo", "", batchNumber),
		num(24, 29, "Quantidade de Registros do Arquivo", "", recordNumber),
	)
}

// batchRecordCount counts the batch header, the detail records and the
// batch trailer.
func batchRecordCount(s *state) int64 { return int64(s.batchRecord) + 2 }

func padRight(s string, n int) string {
	for len(s) < n {
		s += " "
	}
	return s[:n]
}

func batchTitleCount(s *state) int64 { return int64(s.batchTitles) }
func batchTitleTotal(s *state) int64 { return s.batchTotal }

// messagesR240 is positions 90-240 of segment R in the FEBRABAN layout:
// no messages and no automatic debit.
func messagesR240() []field {
	return []field{
		blank(90, 99, "Informação ao Pagador"),
		blank(100, 139, "Mensagem 3"),
		blank(140, 179, "Mensagem 4"),
		blank(180, 199, "Uso Exclusivo FEBRABAN/CNAB"),
		zero(200, 207, "Cód. Ocor. do Pagador"),
		zero(208, 210, "Cód. do Banco na Conta do Débito"),
		zero(211, 215, "Código da Agência do Débito"),
		blank(216, 216, "Dígito Verificador da Agência"),
		zero(217, 228, "Conta Corrente para Débito"),
		blank(229, 229, "Dígito Verificador da Conta"),
		blank(230, 230, "Dígito Verificador Ag/Conta"),
		zero(231, 231, "Aviso para Débito Automático"),
		blank(232, 240, "Uso Exclusivo FEBRABAN/CNAB"),
	}
}

// correspondentQ240 is positions 210-240 of segment Q: no correspondent
// bank.
func correspondentQ240() []field {
	return []field{
		zero(210, 212, "Cód. Bco. Corresp. na Compensação"),
		blank(213, 232, "Nosso Nº no Banco Correspondente"),
		blank(233, 240, "Uso Exclusivo FEBRABAN/CNAB"),
	}
}

// otherTotals240 is positions 47-240 of the batch trailer in the FEBRABAN
// layout: no vinculada, caucionada or descontada titles.
func otherTotals240() []field {
	return []field{
		zero(47, 52, "Quantidade de Títulos em Cobrança Vinculada"),
		zero(53, 69, "Valor Total dos Títulos em Carteiras Vinculadas"),
		zero(70, 75, "Quantidade de Títulos em Cobrança Caucionada"),
		zero(76, 92, "Valor Total dos Títulos em Carteiras Caucionadas"),
		zero(93, 98, "Quantidade de Títulos em Cobrança Descontada"),
		zero(99, 115, "Valor Total dos Títulos em Carteiras Descontadas"),
		blank(116, 123, "Número do Aviso de Lançamento"),
		blank(124, 240, "Uso Exclusivo FEBRABAN/CNAB"),
	}
}

// fileTrailerEnd240 is positions 30-240 of the file trailer in the
// FEBRABAN layout.
func fileTrailerEnd240() []field {
	return []field{
		zero(30, 35, "Qtde de Contas p/ Conc. (Lotes)"),
		blank(36, 240, "Uso Exclusivo FEBRABAN/CNAB"),
	}
}

// versionPair maps a file layout version (header field 164-166) to the
// batch layout version that goes with it (batch header 14-16).
type versionPair map[string]string

func (v versionPair) batch(s *state) string { return v[s.version] }

// ourNumberText is the nosso número with its check digit, left-aligned in
// an alphanumeric field.
func ourNumberText(s *state) string { return s.ourNumber + s.ourDigit }
