package cnab

import "strings"

// Caixa Econômica Federal (104), CNAB 240: "Leiaute de Arquivo Eletrônico
// Padrão CNAB 240 – Cobrança Bancária CAIXA – SIGCB", MO 67.118 v010,
// vigência 29.06.2018. Positions below are the document's "Posição De/Até"
// columns; field numbers (08.3P ...) are in the comments where the record
// departs from the FEBRABAN pieces.
var caixa240 = register(&spec{
	bank: "104", bankName: "Caixa Econômica Federal", layout: CNAB240,
	versions: []string{"101"},
	interest: interestEither,
	eol:      "\r\n", finalEOL: true,
	required: []string{"agency", "agency_digit", "covenant"},
	kinds: map[Kind]string{
		KindDuplicataMercantil: "02", KindDuplicataServico: "04", KindNotaPromissoria: "12",
		KindRecibo: "17", KindOther: "99",
	},
	maxProtest:       90,
	checkBeneficiary: caixa240Beneficiary,
	prepare:          caixa240Prepare,
	prepareDrop:      caixa240Number,
	header:           []*record{&caixa240FileHeader},
	batchHeader:      &caixa240BatchHeader,
	detail:           []*record{&caixa240P, &caixa240Q, &caixa240R},
	batchTrail:       &caixa240BatchTrailer,
	trailer:          []*record{&caixa240FileTrailer},
})

// caixaBatchVersion is the batch layout version (07.1) that goes with the
// file layout version (20.0).
func caixaBatchVersion(s *state) string { return "060" }

var caixa240FileHeader = record{name: "file header", fields: fields(
	fileHeaderStart240("104"),
	[]field{
		zero(33, 52, "Uso Exclusivo CAIXA"),
		digits(53, 57, "Agência Mantenedora da Conta", "beneficiary.agency", agency),
		text(58, 58, "Dígito Verificador da Agência", "beneficiary.agency_digit", agencyDigit),
		digits(59, 64, "Código do Beneficiário", "beneficiary.covenant", covenant),
		zero(65, 71, "Uso Exclusivo CAIXA"),
		zero(72, 72, "Uso Exclusivo CAIXA"),
	},
	fileHeaderFile240("CAIXA ECONOMICA FEDERAL", version),
	[]field{
		blank(172, 191, "Uso Exclusivo CAIXA"),
		text(192, 211, "Situação do Arquivo", "test", caixaFileSituation),
		blank(212, 215, "Versão do Aplicativo"),
		blank(216, 240, "Uso Exclusivo FEBRABAN/CNAB"),
	},
)}

var caixa240BatchHeader = record{name: "batch header", fields: fields(
	batchHeaderStart240("104", caixaBatchVersion, false),
	[]field{
		digits(34, 39, "Código do Beneficiário", "beneficiary.covenant", covenant),
		zero(40, 53, "Uso Exclusivo CAIXA"),
		digits(54, 58, "Agência Mantenedora da Conta", "beneficiary.agency", agency),
		text(59, 59, "Dígito Verificador da Agência", "beneficiary.agency_digit", agencyDigit),
		digits(60, 65, "Código do Beneficiário", "beneficiary.covenant", covenant),
		zero(66, 72, "Código do Modelo de Boleto Personalizado"),
		zero(73, 73, "Uso Exclusivo CAIXA"),
	},
	batchHeaderEnd240(),
)}

var caixa240P = record{name: "segment P", fields: fields(
	segment240("104", "P"),
	[]field{
		digits(18, 22, "Agência Mantenedora da Conta", "beneficiary.agency", agency),
		text(23, 23, "Dígito Verificador da Agência", "beneficiary.agency_digit", agencyDigit),
		digits(24, 29, "Código do Beneficiário", "beneficiary.covenant", covenant),
		zero(30, 37, "Uso Exclusivo CAIXA"),
		zero(38, 39, "Uso Exclusivo CAIXA"),
		lit(40, 40, "Modalidade da Carteira (SINCO)", "0"),
		digits(41, 57, "Modalidade da Carteira (SIGCB) e Identificação do Título no Banco", "our_number", ourNumber),
		lit(58, 58, "Código da Carteira", "1"),
		lit(59, 59, "Forma de Cadastramento do Título no Banco", "1"),
		lit(60, 60, "Tipo de Documento", "2"),
		lit(61, 61, "Identificação da Emissão do Boleto", "2"),
		lit(62, 62, "Identificação da Entrega do Boleto", "0"),
		text(63, 73, "Número do Documento de Cobrança", "document_number", documentNumber),
		blank(74, 77, "Uso Exclusivo CAIXA"),
	},
	titleP240(),
	[]field{
		zero(101, 105, "Agência Encarregada da Cobrança"),
		lit(106, 106, "Dígito Verificador da Agência", "0"),
	},
	chargesP240(3, interestDate),
	[]field{
		text(196, 220, "Identificação do Título na Empresa", "document_number", documentNumber),
		num(221, 221, "Código para Protesto", "protest_days", ifPositive(protestDays, 1, 3)),
		num(222, 223, "Número de Dias para Protesto", "protest_days", protestDays),
		num(224, 224, "Código para Baixa/Devolução", "protest_days", ifPositive(protestDays, 2, 1)),
		text(225, 227, "Número de Dias para Baixa/Devolução", "write_off_days", caixaWriteOff),
		lit(228, 229, "Código da Moeda", "09"),
		zero(230, 239, "Uso Exclusivo CAIXA"),
		blank(240, 240, "Autorização de Pagamento Parcial e/ou Divergente"),
	},
)}

var caixa240Q = record{name: "segment Q", fields: fields(
	segment240("104", "Q"),
	payerQ240(),
	[]field{
		zero(210, 212, "Cód. Bco. Corresp. na Compensação"),
		blank(213, 232, "Nosso Nº no Banco Correspondente"),
		blank(233, 240, "Uso Exclusivo FEBRABAN/CNAB"),
	},
)}

var caixa240R = record{name: "segment R", fields: fields(
	segment240("104", "R"),
	discountsFineR240(fineDate),
	[]field{
		blank(90, 99, "Informação ao Pagador"),
		blank(100, 139, "Mensagem 3"),
		blank(140, 179, "Mensagem 4"),
		blank(180, 229, "Uso Exclusivo CAIXA"),
		blank(230, 240, "Uso Exclusivo FEBRABAN/CNAB"),
	},
)}

var caixa240BatchTrailer = record{name: "batch trailer", fields: fields(
	batchTrailerStart240("104"),
	simpleTotals240(),
	[]field{
		zero(47, 52, "Quantidade de Títulos em Cobrança Caucionada"),
		zero(53, 69, "Valor Total dos Títulos em Carteiras Caucionadas"),
		zero(70, 75, "Quantidade de Títulos em Cobrança Descontada"),
		zero(76, 92, "Valor Total dos Títulos em Carteiras Descontadas"),
		blank(93, 123, "Uso Exclusivo FEBRABAN/CNAB"),
		blank(124, 240, "Uso Exclusivo FEBRABAN/CNAB"),
	},
)}

var caixa240FileTrailer = record{name: "file trailer", fields: fields(
	fileTrailerStart240("104"),
	[]field{
		blank(30, 35, "Uso Exclusivo FEBRABAN/CNAB"),
		blank(36, 240, "Uso Exclusivo FEBRABAN/CNAB"),
	},
)}

// caixaFileSituation is note G022: REMESSA-TESTE while the bank validates
// the beneficiary's files, REMESSA-PRODUCAO after.
func caixaFileSituation(s *state) string {
	if s.rem.Test {
		return "REMESSA-TESTE"
	}
	return "REMESSA-PRODUCAO"
}

// caixaWriteOff is note C029: the days for baixa/devolução, or blanks.
// Without a protest the code (224) is 1 and blanks ask for the bank's
// default (five days after the due date). With a protest the code is 2 (do
// not write off) and the days stay blank too: by Caixa's reading of the
// field, 000 is "write off the day after the due date", which would take
// the title away before its protest.
func caixaWriteOff(s *state) string {
	if s.t.ProtestDays > 0 || s.t.WriteOffDays == 0 {
		return ""
	}
	d := itoa(s.t.WriteOffDays)
	for len(d) < 3 {
		d = "0" + d
	}
	return d
}

// Caixa's write-off term, note C029: "pode ser de 05 a 120 dias corridos"
// after the due date.
const (
	caixaMinWriteOff = 5
	caixaMaxWriteOff = 120
)

func caixa240Prepare(s *state) {
	if d := s.t.ProtestDays; d == 1 {
		s.Fail("protest_days", "Caixa protests after 2 to 90 days")
	}
	switch d := s.t.WriteOffDays; {
	case d == 0:
	case s.t.ProtestDays > 0:
		s.Warn("write_off_days", "not written: with a protest Caixa takes code 2 (do not write off) in 224, "+
			"the title going to protest after protest_days; give one or the other")
	case d < caixaMinWriteOff || d > caixaMaxWriteOff:
		s.Fail("write_off_days", "Caixa writes titles off after "+itoa(caixaMinWriteOff)+" to "+itoa(caixaMaxWriteOff)+" days")
	}
	caixa240Number(s)
}

// caixa240Beneficiary refuses a 7-digit Código do Beneficiário with the
// reason: layout 101 holds 6 digits, and Caixa's 7-digit codes go with
// layout 107 (batch 067), which is not written here.
func caixa240Beneficiary(s *state) {
	c := strings.TrimLeft(s.rem.Beneficiary.Covenant, "0")
	if len(c) == 7 && strings.Trim(c, "0123456789") == "" {
		s.Fail("beneficiary.covenant", "has 7 digits: Caixa's 7-digit beneficiary codes need SIGCB layout 107 (batch 067), "+
			"which propfin does not write yet; layout 101 holds 6 digits")
	}
}

// caixa240Number checks the nosso número of a title or a drop.
func caixa240Number(s *state) {
	if len(s.ourNumber) != 17 {
		s.Fail("our_number", "Caixa SIGCB needs a 17-digit nosso número")
	}
}
