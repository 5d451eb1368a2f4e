package retorno

import (
	"fmt"
	"strings"
)

// paymentLayout is a bank's CNAB 240 payment return (pagamento a
// fornecedores): segments A (and B) for transfers, J (and J-52) for paid
// boletos. The return carries up to five two-character occurrence codes
// in positions 231-240 of each segment; the first says what happened to
// the payment, and all of them are the event's reasons.
type paymentLayout struct {
	document   string
	segA, segJ *record
	// segB, when set, is read for the occurrence codes it carries.
	segB  *record
	codes occTable
	// codeIndex finds the entries of codes (built by register).
	codeIndex codeIndex
	// headerAccount, when set, is the account in the file header of a
	// payment return where the bank lays it out apart from its collection
	// header; isHeader tells such a header from a collection return's.
	headerAccount *record
	isHeader      func(line string) bool
}

// occurrences240 is positions 231-240 of a payment segment.
func occurrences240() field {
	return fd(231, 240, "Códigos das Ocorrências para Retorno", kindCodes, toReasons)
}

// febrabanPayment is the FEBRABAN 240 payment return ("Layout Padrão
// FEBRABAN 240 posições", Pagamentos, segments A, B, J and J-52), as
// Banco do Brasil, Santander, Bradesco (Multipag) and Sicoob print it; the
// codes are FEBRABAN's table G059.
var febrabanPayment = paymentLayout{
	document: "FEBRABAN 240 Pagamentos (segmentos A, B, J, J-52), códigos de ocorrência G059",
	segA: &record{name: "segment A", fields: []field{
		fd(44, 73, "Nome do Favorecido", kindText, toPayer),
		fd(74, 93, "Nº do Docum. Atribuído p/ Empresa", kindText, toDocument),
		fd(94, 101, "Data do Pagamento", kindDate8, toDue),
		fd(120, 134, "Valor do Pagamento", kindMoney, toAmount),
		fd(135, 154, "Nº do Docum. Atribuído pelo Banco", kindText, toOurNumber),
		fd(155, 162, "Data Real da Efetivação Pagto", kindDate8, toDate),
		fd(163, 177, "Valor Real da Efetivação do Pagto", kindMoney, toPaid),
		occurrences240(),
	}},
	segJ: &record{name: "segment J", fields: []field{
		fd(18, 61, "Código de Barras", kindDigits, toBarcode),
		fd(62, 91, "Nome do Beneficiário", kindText, toPayer),
		fd(92, 99, "Data do Vencimento (Nominal)", kindDate8, toDue),
		fd(100, 114, "Valor do Título (Nominal)", kindMoney, toAmount),
		fd(115, 129, "Valor do Desconto + Abatimento", kindMoney, toDiscountAbatement),
		fd(130, 144, "Valor da Mora + Multa", kindMoney, toInterest),
		fd(145, 152, "Data do Pagamento", kindDate8, toDate),
		fd(153, 167, "Valor do Pagamento", kindMoney, toPaid),
		fd(183, 202, "Nº do Docto Atribuído pela Empresa", kindText, toDocument),
		fd(203, 222, "Nº do Docto Atribuído pelo Banco", kindText, toOurNumber),
		occurrences240(),
	}},
	codes: febrabanPaymentCodes,
}

// itauPayment is Itaú's SISPAG return ("SISPAG – Sistema de Contas a
// Pagar Itaú, Layout de Arquivos CNAB240", versions 080 to 086): its own
// positions for the bank's number and its own occurrence codes (note 8).
var itauPayment = paymentLayout{
	document: "Itaú SISPAG – Layout de Arquivos CNAB240 (segmentos A, B, J, J-52), nota 8 (ocorrências)",
	segA: &record{name: "segment A", fields: []field{
		fd(44, 73, "Nome do Favorecido", kindText, toPayer),
		fd(74, 93, "Seu Número", kindText, toDocument),
		fd(94, 101, "Data de Pagamento", kindDate8, toDue),
		fd(120, 134, "Valor do Pagamento", kindMoney, toAmount),
		fd(135, 149, "Nosso Número", kindText, toOurNumber),
		fd(155, 162, "Data Efetiva", kindDate8, toDate),
		fd(163, 177, "Valor Efetivo", kindMoney, toPaid),
		occurrences240(),
	}},
	segB: &record{name: "segment B", fields: []field{occurrences240()}},
	segJ: &record{name: "segment J", fields: []field{
		fd(18, 61, "Código de Barras", kindDigits, toBarcode),
		fd(62, 91, "Nome do Favorecido", kindText, toPayer),
		fd(92, 99, "Data do Vencimento (Nominal)", kindDate8, toDue),
		fd(100, 114, "Valor do Título (Nominal)", kindMoney, toAmount),
		fd(115, 129, "Valor do Desconto + Abatimento", kindMoney, toDiscountAbatement),
		fd(130, 144, "Valor da Mora + Multa", kindMoney, toInterest),
		fd(145, 152, "Data do Pagamento", kindDate8, toDate),
		fd(153, 167, "Valor do Pagamento", kindMoney, toPaid),
		fd(183, 202, "Seu Número", kindText, toDocument),
		fd(216, 230, "Nosso Número", kindText, toOurNumber),
		occurrences240(),
	}},
	codes:         itauPaymentCodes,
	headerAccount: sispagHeaderAccount,
	isHeader:      sispagHeader,
}

// sispagHeaderAccount is the debited account in SISPAG's file header:
// agency 53-57 and account 59-70 each with a blank after it, then the
// DAC (72). Itaú's collection header has them at 54-57 and 66-70.
var sispagHeaderAccount = &record{name: "file header", fields: []field{
	fd(53, 57, "Número Agência Debitada", kindText, toAgency),
	fd(59, 70, "Número de C/C Debitada", kindText, toAccount),
	fd(72, 72, "DAC da Agência/Conta Debitada", kindText, toAccountDigit),
}}

// sispagHeader reports a SISPAG file header: it names its layout's
// version (080 to 086) at 15-17, which are blanks in Itaú's collection
// header (9-17).
func sispagHeader(line string) bool {
	v := line[14:17]
	return allDigits(v) && v != "000"
}

// paymentComplements are the segments of a payment batch that complete
// a payment (B, C, J-52, W, Y) or authenticate it (Z), skipped where not
// read; any other segment (a tax payment's N or O, which no remittance of
// package cnab/pagamento sends) is an error on its line.
const paymentComplements = "BCJWYZ"

// payment240 reads the segments of a payment batch (seg, in upper
// case). A segment A or J starts a payment; B (at Itaú) adds its
// occurrence codes; J-52 and the other complements carry nothing read
// here.
func (rd *Reader) payment240(line []byte, seg byte, ev *Event) (bool, error) {
	p := rd.lay.payment
	var rec *record
	switch {
	case seg == 'A':
		rec = p.segA
	case seg == 'J' && string(line[17:19]) != "52":
		rec = p.segJ
	case seg == 'B' && p.segB != nil:
		if rd.skipTitle || !rd.hasPend {
			return false, nil
		}
		if err := rd.lay.read(p.segB, line, ev, &rd.texts); err != nil {
			rd.skipTitle = true
			rd.hasPend = false
			return false, rd.readErr(p.segB.name, err)
		}
		return false, nil
	case strings.IndexByte(paymentComplements, seg) >= 0:
		return false, nil
	default:
		return false, rd.lineErr("", fmt.Sprintf("segment %q: not a segment of a payment batch (A and J are read, B, C, J-52, W, Y and Z complete them)", seg))
	}
	if rd.hasPend {
		rd.unread(line)
		rd.emitPending(ev)
		return true, nil
	}
	rd.start(ev, KindPayment)
	if err := rd.lay.read(rec, line, ev, &rd.texts); err != nil {
		rd.skipTitle = true
		return false, rd.readErr(rec.name, err)
	}
	rd.hasPend, rd.skipTitle = true, false
	return false, nil
}

// describePayment sets a payment's code (the first of its occurrence
// codes), its class and the meaning of every code.
func describePayment(codes *codeIndex, ev *Event) {
	ev.Code = ""
	if len(ev.Reasons) > 0 {
		ev.Code = ev.Reasons[0].Code
	}
	codes.describe(ev)
	for i := range ev.Reasons {
		o, _ := codes.lookup(ev.Reasons[i].Code)
		ev.Reasons[i].Description = o.text
	}
}
