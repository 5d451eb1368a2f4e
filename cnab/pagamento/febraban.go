package pagamento

import (
	"fmt"
	"slices"
)

// Records of the FEBRABAN 240 payment layout ("Layout Padrão de Arquivos
// CNAB 240", Pagamentos: header and trailer of file and batch, segments A,
// B, J and J-52) that Banco do Brasil, Santander and Sicoob print with
// only their own constants changed. Each bank's file says which it takes
// as they are and which it replaces.

// febrabanFileHeader is the FEBRABAN file header (G001 to G022) with the
// bank's name, agreement form, layout version (G019) and recording
// density (G020).
func febrabanFileHeader(bank, name, version, density string, covenant []field) record {
	return record{name: "file header", fields: fields(
		control240(bank, "0000", "0"),
		[]field{blank(9, 17, "Uso Exclusivo FEBRABAN / CNAB")},
		payerAccountConv(covenant...),
		[]field{
			lit(103, 132, "Nome do Banco", padRight(name, 30)),
			blank(133, 142, "Uso Exclusivo FEBRABAN / CNAB"),
			lit(143, 143, "Código Remessa / Retorno", "1"),
			date(144, 151, "Data de Geração do Arquivo", "created", created),
			num(152, 157, "Hora de Geração do Arquivo", "created", createdTime),
			num(158, 163, "Número Seqüencial do Arquivo", "sequence", sequence),
			lit(164, 166, "Nº da Versão do Layout do Arquivo", version),
			lit(167, 171, "Densidade de Gravação do Arquivo", density),
			blank(172, 191, "Para Uso Reservado do Banco"),
			blank(192, 211, "Para Uso Reservado da Empresa"),
			blank(212, 240, "Uso Exclusivo FEBRABAN / CNAB"),
		},
	)}
}

// febrabanBatchHeader is a FEBRABAN payment batch header with the batch
// layout version (G030), the bank's agreement form, the payer's address,
// and blanks where Bradesco writes P014 (223-224).
func febrabanBatchHeader(bank, version string, covenant []field) record {
	return record{name: "batch header " + version, fields: fields(
		batchHeaderStart240(bank, version),
		payerAccountConv(covenant...),
		payerAddress240(),
		[]field{
			blank(223, 230, "Uso Exclusivo FEBRABAN/CNAB"),
			blank(231, 240, "Códigos das Ocorrências p/ Retorno"),
		},
	)}
}

// febrabanA is segment A (P001 to P013): câmara, the credited account,
// the reference, date and amount, "Informação 2" (178-217: blank unless a
// bank gives its own fields there), and the TED purpose (P011) and account
// type (P013).
func febrabanA(bank string, info2 ...field) record {
	if len(info2) == 0 {
		info2 = []field{blank(178, 217, "Outras Informações")}
	}
	return record{name: "segment A", detail: true, fields: fields(
		segment240(bank, "A"),
		movement240(),
		[]field{
			digits(18, 20, "Código da Câmara Centralizadora", "kind", chamber),
			digits(21, 23, "Código do Banco do Favorecido", "account.bank", accBank),
			digits(24, 28, "Ag. Mantenedora da Cta do Favor.", "account.agency", accAgency),
			text(29, 29, "Dígito Verificador da Agência", "account.agency_digit", accAgencyDigit),
			digits(30, 41, "Número da Conta Corrente", "account.account", accAccount),
			text(42, 42, "Dígito Verificador da Conta", "account.account_digit", accDigit1),
			text(43, 43, "Dígito Verificador da AG/Conta", "account.account_digit", accDigit2),
			text(44, 73, "Nome do Favorecido", "beneficiary.name", benefName),
			text(74, 93, "Nº do Docum. Atribuído p/ Empresa", "reference", reference),
			date(94, 101, "Data do Pagamento", "date", payDate),
			lit(102, 104, "Tipo da Moeda", "BRL"),
			zero(105, 119, "Quantidade da Moeda"),
			num(120, 134, "Valor do Pagamento", "amount", amount),
			blank(135, 154, "Nº do Docum. Atribuído pelo Banco"),
			zero(155, 162, "Data Real da Efetivação Pagto"),
			zero(163, 177, "Valor Real da Efetivação do Pagto"),
		},
		info2,
		[]field{
			blank(218, 219, "Compl. Tipo Serviço"),
			text(220, 224, "Código finalidade da TED", "ted_purpose", tedPurpose),
			text(225, 226, "Complemento de finalidade pagto.", "account.type", tedAccountType),
			blank(227, 229, "Uso Exclusivo FEBRABAN/CNAB"),
			lit(230, 230, "Aviso ao Favorecido", "0"),
			blank(231, 240, "Códigos das Ocorrências p/ Retorno"),
		},
	)}
}

// febrabanB is segment B of a transfer: the beneficiary's CPF/CNPJ, and
// blanks and zeros for the address and amounts we do not send.
func febrabanB(bank string) record {
	return record{name: "segment B", detail: true, fields: fields(
		segment240(bank, "B"),
		febrabanBParty(),
		[]field{
			blank(211, 225, "Código/Documento do Favorecido"),
			lit(226, 226, "Aviso ao Favorecido", "0"),
			zero(227, 232, "Uso Exclusivo para o SIAPE"),
			blank(233, 240, "Uso Exclusivo FEBRABAN/CNAB"),
		},
	)}
}

// febrabanBParty is positions 15-210 of segment B of a transfer.
func febrabanBParty() []field {
	return append([]field{
		blank(15, 17, "Uso Exclusivo FEBRABAN/CNAB"),
		num(18, 18, "Tipo de Inscrição do Favorecido", "beneficiary.document", benefDocKind),
		taxID(19, 32, "Nº de Inscrição do Favorecido", "beneficiary.document", benefDoc),
		blank(33, 62, "Nome da Rua, Av, Pça, Etc"),
		zero(63, 67, "Nº do Local"),
		blank(68, 82, "Casa, Apto, Etc"),
		blank(83, 97, "Bairro"),
		blank(98, 117, "Nome da Cidade"),
		zero(118, 122, "CEP"),
		zero(123, 125, "Complemento do CEP"),
		blank(126, 127, "Sigla do Estado"),
	}, febrabanBAmounts()...)
}

// febrabanBAmounts is 128-210 of segment B of a transfer: the due date and
// amounts of the document paid, which a credit transfer does not send.
func febrabanBAmounts() []field {
	return []field{
		zero(128, 135, "Data do Vencimento (Nominal)"),
		zero(136, 150, "Valor do Documento (Nominal)"),
		zero(151, 165, "Valor do Abatimento"),
		zero(166, 180, "Valor do Desconto"),
		zero(181, 195, "Valor da Mora"),
		zero(196, 210, "Valor da Multa"),
	}
}

// febrabanJ is segment J (G063, L002, L003, P009, P010) with currency 09
// (G065, Real).
func febrabanJ(bank string) record {
	return record{name: "segment J", detail: true, fields: fields(
		segment240(bank, "J"),
		movement240(),
		[]field{
			digits(18, 61, "Código de Barras", "barcode", barcode),
			text(62, 91, "Nome do Cedente", "beneficiary.name", benefName),
			date(92, 99, "Data do Vencimento (Nominal)", "due", due),
			num(100, 114, "Valor do Título (Nominal)", "nominal", nominal),
			num(115, 129, "Valor do Desconto + Abatimento", "discount", discount),
			num(130, 144, "Valor da Mora + Multa", "surcharge", surcharge),
			date(145, 152, "Data do Pagamento", "date", payDate),
			num(153, 167, "Valor do Pagamento", "amount", amount),
			zero(168, 182, "Quantidade da Moeda"),
			text(183, 202, "Nº do Docto Atribuído pela Empresa", "reference", reference),
			blank(203, 222, "Nº do Docto Atribuído pelo Banco"),
			lit(223, 224, "Código de Moeda", "09"),
			blank(225, 230, "Uso Exclusivo FEBRABAN/CNAB"),
			blank(231, 240, "Códigos das Ocorrências p/ Retorno"),
		},
	)}
}

// febrabanJ52 is segment J-52 with the bank's movement code in 16-17:
// FEBRABAN's C004 lists 01 (entrada) and no 00, but Banco do Brasil,
// Santander and Sicoob write 00 (inclusão) in a payment remittance.
func febrabanJ52(bank, movement string) record {
	return record{name: "segment J-52", detail: true, fields: fields(
		segment240(bank, "J"),
		[]field{
			blank(15, 15, "Uso Exclusivo FEBRABAN/CNAB"),
			lit(16, 17, "Código de Movimento Remessa", movement),
			lit(18, 19, "Identificação Registro Opcional", "52"),
		},
		j52Parties240(),
	)}
}

// savingsForma is G029 with 05 (crédito em conta poupança) for a
// transfer to a savings account at the payer's own bank: 01 crédito em
// conta corrente, 05 crédito em conta poupança, 41 and 43 TED, 45 PIX,
// 30 and 31 boletos.
func savingsForma(s *state) string {
	if s.p.Kind == KindTransfer && !s.isTED() && s.p.Account.Type == AccountSavings {
		return "05"
	}
	return febrabanForma(s)
}

// withFields returns a copy of r in which each of repl takes the place of
// the field with the same positions: a bank's difference from FEBRABAN
// in one field. A replacement with no such field is a mistake in the
// tables and panics when the package loads.
func withFields(r record, repl ...field) record {
	out := r
	out.fields = append([]field(nil), r.fields...)
	for _, f := range repl {
		i := slices.IndexFunc(out.fields, func(g field) bool { return g.Start == f.Start && g.End == f.End })
		if i < 0 {
			panic(fmt.Sprintf("pagamento: %s has no field at %d-%d to replace", r.name, f.Start, f.End))
		}
		out.fields[i] = f
	}
	return out
}

// g031PixInfo2 is segment A's Informação 2 (178-217, G031) in FEBRABAN
// 10.11's PIX format "CCCCCCCCCCCCCCIIIIIIIIRR": the beneficiary's CPF or
// CNPJ in 14 digits, the ISPB and the account type (01 corrente, 02
// pagamento, 03 poupança) of a PIX to account data; blanks, as in any
// unused text field, for every other payment.
func g031PixInfo2() []field {
	return []field{
		text(178, 191, "Informação 2 (G031): CPF/CNPJ do recebedor", "beneficiary.document", g031Doc),
		text(192, 199, "Informação 2 (G031): ISPB", "account.ispb", pixISPB),
		text(200, 201, "Informação 2 (G031): tipo de conta", "account.type", pixAccountType),
		blank(202, 217, "Informação 2"),
	}
}

func g031Doc(s *state) string {
	if s.p.Kind != KindPIX {
		return ""
	}
	var b [14]byte
	padLeft(b[:], s.benefDoc)
	return string(b[:])
}

// pixAccountType is the account type of a PIX to account data (G031
// codes), empty for other payments.
func pixAccountType(s *state) string {
	if s.p.Kind != KindPIX {
		return ""
	}
	return pixAccountCode(s)
}
