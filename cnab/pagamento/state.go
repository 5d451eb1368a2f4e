package pagamento

import (
	"github.com/propfin/propfin/cnab"
	"github.com/propfin/propfin/cnab/boleto"
)

// state is what the field tables read from while a record is filled: the
// remittance, the current payment with the values derived from it, and
// the counters the sequence numbers and trailers need.
type state struct {
	rem  *Remittance
	bank *bank

	p *Payment
	// ProblemLog takes the problems of the current payment (Index is its
	// index in the stream) or, with Index cnab.HeaderIndex, of the
	// remittance.
	cnab.ProblemLog

	record      int    // records written to the file so far
	batch       int    // number of the current batch, from 1; 0 before the first
	batchForma  string // forma de lançamento of the current batch
	batchRecord int    // detail records in the current batch
	batchTotal  int64  // sum of the current batch's amounts, in cents
	payments    int    // payments written
	cancels     int    // cancellations written
	total       int64  // sum of the payments' amounts, in cents
	// pixNoticeGiven: the bank's notice about its PIX records (Banco do
	// Brasil's) was given, once per file.
	pixNoticeGiven bool

	// Values derived from the remittance.
	payerDoc string // digits only
	payerZIP string // digits only

	// Values derived from the current payment.
	cancel    bool   // it is a request to cancel a payment sent before
	forma     string // the bank's forma de lançamento
	amount    int64  // cents
	nominal   int64  // boleto: nominal amount, cents
	discount  int64  // boleto: discount + abatement, cents
	surcharge int64  // boleto: interest + fine, cents
	benefDoc  string // digits only
	pixKey    string // the key as written
	barcode   boleto.Barcode

	payment Payment // the current payment; p points here
}

// resetPayment makes p the current payment and forgets the values derived
// from the previous one.
func (s *state) resetPayment(p Payment) {
	s.payment = p
	s.p = &s.payment
	s.cancel = false
	s.forma, s.benefDoc, s.pixKey = "", "", ""
	s.amount, s.nominal, s.discount, s.surcharge = 0, 0, 0, 0
	s.barcode = boleto.Barcode{}
}

// documentKind is the CNAB code of a CPF (1) or CNPJ (2).
func documentKind(doc string) int64 {
	if len(doc) == 14 {
		return 2
	}
	return 1
}

// Accessors the tables read values through.

// Remittance and payer.
func sequence(s *state) int64    { return int64(s.rem.Sequence) }
func created(s *state) cnab.Date { return cnab.DateOf(s.rem.Created) }
func createdTime(s *state) int64 {
	h, m, sec := s.rem.Created.Clock()
	return int64(h*10000 + m*100 + sec)
}
func payerName(s *state) string        { return s.rem.Payer.Name }
func payerDoc(s *state) string         { return s.payerDoc }
func payerDocKind(s *state) int64      { return documentKind(s.payerDoc) }
func payerAgency(s *state) string      { return s.rem.Payer.Agency }
func payerAgencyDigit(s *state) string { return s.rem.Payer.AgencyDigit }
func payerAccount(s *state) string     { return s.rem.Payer.Account }
func payerCovenant(s *state) string    { return s.rem.Payer.Covenant }
func payerStreet(s *state) string      { return s.rem.Payer.Address.Street }
func payerNumber(s *state) string      { return s.rem.Payer.Address.Number }
func payerComplement(s *state) string  { return s.rem.Payer.Address.Complement }
func payerCity(s *state) string        { return s.rem.Payer.Address.City }
func payerState(s *state) string       { return s.rem.Payer.Address.State }
func payerZIP(s *state) string         { return s.payerZIP }
func payerZIP5(s *state) string        { return prefix(s.payerZIP, 5) }
func payerZIP3(s *state) string        { return suffixFrom(s.payerZIP, 5) }

// payerAccountDigit1 and payerAccountDigit2 split a two-character account
// check digit the FEBRABAN way (G011, G012): the first character in the
// account's digit field, the second in the agency/account digit field.
func payerAccountDigit1(s *state) string { return prefix(s.rem.Payer.AccountDigit, 1) }
func payerAccountDigit2(s *state) string { return suffixFrom(s.rem.Payer.AccountDigit, 1) }

// Counters.
func batchNumber(s *state) int64       { return int64(s.batch) }
func batchRecordNumber(s *state) int64 { return int64(s.batchRecord) }
func recordNumber(s *state) int64      { return int64(s.record) }
func batchTotal(s *state) int64        { return s.batchTotal }
func forma(s *state) string            { return s.batchForma }

// batchRecordCount counts the batch header, the detail records and the
// batch trailer.
func batchRecordCount(s *state) int64 { return int64(s.batchRecord) + 2 }

// Payment.
func reference(s *state) string      { return s.p.Reference }
func payDate(s *state) cnab.Date     { return s.p.Date }
func amount(s *state) int64          { return s.amount }
func benefName(s *state) string      { return s.p.Beneficiary.Name }
func benefDoc(s *state) string       { return s.benefDoc }
func benefDocKind(s *state) int64    { return documentKind(s.benefDoc) }
func accBank(s *state) string        { return s.p.Account.Bank }
func accISPB(s *state) string        { return s.p.Account.ISPB }
func accAgency(s *state) string      { return s.p.Account.Agency }
func accAgencyDigit(s *state) string { return s.p.Account.AgencyDigit }
func accAccount(s *state) string     { return s.p.Account.Account }
func accDigit1(s *state) string      { return prefix(s.p.Account.AccountDigit, 1) }
func accDigit2(s *state) string      { return suffixFrom(s.p.Account.AccountDigit, 1) }
func pixKey(s *state) string         { return s.pixKey }
func barcode(s *state) string        { return s.barcode.String() }
func due(s *state) cnab.Date         { return s.p.Due }
func nominal(s *state) int64         { return s.nominal }
func discount(s *state) int64        { return s.discount }
func surcharge(s *state) int64       { return s.surcharge }

// tedPurpose is the BCB purpose code of a TED; blank for other forms.
func tedPurpose(s *state) string {
	if !s.isTED() {
		return ""
	}
	if s.p.TEDPurpose == "" {
		return "00010"
	}
	return s.p.TEDPurpose
}

func (s *state) isTED() bool { return s.p.Kind == KindTransfer && s.p.Account.Bank != s.rem.Bank }

func (s *state) sameHolder() bool { return s.benefDoc == s.payerDoc }

func prefix(v string, n int) string {
	if len(v) < n {
		return v
	}
	return v[:n]
}

func suffixFrom(v string, n int) string {
	if len(v) <= n {
		return ""
	}
	return v[n:]
}
