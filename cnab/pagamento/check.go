package pagamento

import (
	"github.com/propfin/propfin/pix"

	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/cnab"
	"github.com/propfin/propfin/cnab/boleto"
	"github.com/propfin/propfin/cnab/fixedwidth"
)

// checkRemittance records the problems of the remittance itself.
func checkRemittance(s *state) {
	r := s.rem
	if r.Sequence <= 0 {
		s.Fail("sequence", "the file sequence number (NSA) must be 1 or more")
	}
	if r.Created.IsZero() {
		s.Fail("created", "the generation date is required")
	} else if !cnab.ValidDate(cnab.DateOf(r.Created)) {
		s.Fail("created", "must be a date between 2000 and 2099")
	}
	p := &r.Payer
	if strings.TrimSpace(p.Name) == "" {
		s.Fail("payer.name", "required")
	}
	s.payerDoc = cnab.BareDocument(p.Document)
	if !pix.ValidTaxID(s.payerDoc) {
		s.Fail("payer.document", "not a valid CPF or CNPJ")
	}
	requireDigits(s, "payer.agency", p.Agency, 5)
	requireDigits(s, "payer.account", p.Account, 12)
	if n := len(p.AccountDigit); n == 0 || n > 2 {
		s.Fail("payer.account_digit", "required, one or two characters")
	}
	if len(p.AgencyDigit) > 1 {
		s.Fail("payer.agency_digit", "one character at most")
	}
	s.payerZIP = cnab.OnlyDigits(p.Address.ZIP)
	if p.Address.ZIP != "" && len(s.payerZIP) != 8 {
		s.Fail("payer.address.zip", "want the 8-digit CEP")
	}
	if p.Address.Number != "" && !isDigits(p.Address.Number) {
		s.Fail("payer.address.number", "digits only")
	}
	if st := p.Address.State; st != "" && (len(st) != 2 || !isLetter(st[0]) || !isLetter(st[1])) {
		s.Fail("payer.address.state", "want the two-letter state (UF)")
	}
	if s.bank.checkPayer != nil {
		s.bank.checkPayer(s)
	}
}

// requireDigits records an error unless v is 1 to max digits.
func requireDigits(s *state, input, v string, max int) {
	switch {
	case v == "":
		s.Fail(input, "required")
	case !isDigits(v):
		s.Fail(input, "digits only")
	case len(strings.TrimLeft(v, "0")) > max:
		s.Fail(input, "at most "+strconv.Itoa(max)+" digits")
	}
}

// checkPayment records the problems of the current payment and derives
// its values.
func checkPayment(s *state) {
	p := s.p
	checkReference(s, p.Reference)
	s.amount = cents(s, p.Amount, p.Cents, "amount")
	if s.amount == 0 && !s.Failed() {
		s.Fail("amount", "required, more than zero")
	}
	if !cnab.ValidDate(p.Date) {
		s.Fail("date", "required, a date between 2000 and 2099")
	}
	if strings.TrimSpace(p.Beneficiary.Name) == "" {
		s.Fail("beneficiary.name", "required")
	}
	s.benefDoc = cnab.BareDocument(p.Beneficiary.Document)
	if !pix.ValidTaxID(s.benefDoc) {
		s.Fail("beneficiary.document", "not a valid CPF or CNPJ")
	}
	switch p.Kind {
	case KindTransfer:
		checkAccount(s, true)
		if p.TEDPurpose != "" && (len(p.TEDPurpose) != 5 || !isDigits(p.TEDPurpose)) {
			s.Fail("ted_purpose", "want the five-digit BCB purpose code")
		}
	case KindPIX:
		checkAccount(s, s.bank.pixByBankCode)
		checkISPB(s)
		switch p.Account.Type {
		case "", AccountChecking, AccountSavings, AccountPayment:
		default:
			s.Fail("account.type", "want checking, savings or payment")
		}
	case KindPIXKey:
		checkKey(s)
	case KindBoleto:
		checkBoleto(s)
	case "":
		s.Fail("kind", "required: transfer, pix, pix_key or boleto")
	default:
		s.Fail("kind", "unknown kind "+strconv.Quote(string(p.Kind))+": want transfer, pix, pix_key or boleto")
	}
	checkPIXFile(s)
	if !s.Failed() && s.bank.checkPayment != nil {
		s.bank.checkPayment(s)
	}
	if !s.Failed() {
		s.forma = s.bank.forma(s)
	}
}

// checkPIXFile applies the rule of a PIX file: with Remittance.PIX set
// every payment must be a PIX one; without it, a bank that takes PIX
// payments only in a file of their own refuses them.
func checkPIXFile(s *state) {
	p := s.p
	known := p.Kind == KindTransfer || p.Kind == KindPIX || p.Kind == KindPIXKey || p.Kind == KindBoleto
	isPIX := p.Kind == KindPIX || p.Kind == KindPIXKey
	switch {
	case !known:
	case s.rem.PIX && !isPIX:
		s.Fail("kind", "this file is a PIX file (pix set): it takes PIX payments only")
	case !s.rem.PIX && isPIX && s.bank.pixFileOnly:
		s.Fail("kind", "bank "+s.rem.Bank+" takes PIX payments in a file of their own: set pix in the remittance")
	}
}

// checkReference requires a reference that the bank will return exactly
// as it was sent: at most 20 characters the layouts accept as they are.
func checkReference(s *state, ref string) {
	if strings.TrimSpace(ref) == "" {
		s.Fail("reference", "required: the payment's own identifier (seu número)")
		return
	}
	var buf [20]byte
	tr, rep := fixedwidth.PutText(buf[:], ref)
	switch {
	case tr:
		s.Fail("reference", "longer than the 20 characters the bank returns")
	case rep:
		s.Fail("reference", "has characters the bank does not accept, so it would not come back unchanged")
	}
}

// cents reads an amount given either in reais or in integer cents.
func cents(s *state, reais decimal.Decimal, c int64, input string) int64 {
	if !reais.IsZero() && c != 0 {
		s.Fail(input, "give amount or amount_cents, not both")
		return 0
	}
	if c != 0 {
		if c < 0 {
			s.Fail(input, "must not be negative")
			return 0
		}
		return c
	}
	return reaisToCents(s, reais, input)
}

// maxCents is the largest amount the 15-digit amount fields can carry.
const maxCents = 999_999_999_999_999

func reaisToCents(s *state, reais decimal.Decimal, input string) int64 {
	if reais.Sign() < 0 {
		s.Fail(input, "must not be negative")
		return 0
	}
	c := reais.Shift(2)
	if !c.IsInteger() {
		s.Fail(input, "has fractions of a cent")
		return 0
	}
	if c.GreaterThan(decimal.NewFromInt(maxCents)) {
		s.Fail(input, "too large")
		return 0
	}
	return c.IntPart()
}

// checkAccount checks the credited account of a transfer or PIX.
func checkAccount(s *state, bankRequired bool) {
	a := &s.p.Account
	if a.Bank != "" || bankRequired {
		if len(a.Bank) != 3 || !isDigits(a.Bank) {
			s.Fail("account.bank", "required, the three-digit bank code")
		}
	}
	requireDigits(s, "account.agency", a.Agency, 5)
	requireDigits(s, "account.account", a.Account, 12)
	if n := len(a.AccountDigit); n == 0 || n > 2 {
		s.Fail("account.account_digit", "required, one or two characters")
	}
	if len(a.AgencyDigit) > 1 {
		s.Fail("account.agency_digit", "one character at most")
	}
}

// checkISPB checks the institution's ISPB of a PIX to account data:
// eight digits, required unless the bank's layout has no place for it.
func checkISPB(s *state) {
	ispb := s.p.Account.ISPB
	switch {
	case ispb == "" && s.bank.pixByBankCode:
	case len(ispb) != 8 || !isDigits(ispb):
		s.Fail("account.ispb", "required for a PIX to account data, 8 digits")
	}
}

// checkBoleto reads the barcode and checks the amounts of a boleto.
func checkBoleto(s *state) {
	p := s.p
	digits := cnab.OnlyDigits(p.Barcode)
	var err error
	switch len(digits) {
	case 0:
		s.Fail("barcode", "required for a boleto: the 44-digit barcode or the 47-digit line")
		return
	case 47:
		s.barcode, err = boleto.ParseLine(p.Barcode)
	default:
		s.barcode, err = boleto.ParseBarcode(p.Barcode)
	}
	if err != nil {
		s.Fail("barcode", err.Error())
		return
	}
	if !cnab.ValidDate(p.Due) {
		s.Fail("due", "required for a boleto, a date between 2000 and 2099")
	} else if f := s.barcode.Factor(); f != 0 {
		if want, err := boleto.Factor(p.Due.Time()); err == nil && want != f {
			s.Fail("due", "differs from the due date in the barcode (factor "+strconv.Itoa(f)+")")
		}
	}
	s.nominal = s.barcode.Amount()
	if s.nominal == 0 {
		s.nominal = reaisToCents(s, p.Nominal, "nominal")
		if s.nominal == 0 {
			s.Fail("nominal", "required: the barcode carries no amount")
		}
	} else if !p.Nominal.IsZero() {
		if c := reaisToCents(s, p.Nominal, "nominal"); c != s.nominal {
			s.Fail("nominal", "differs from the amount in the barcode")
		}
	}
	s.discount = reaisToCents(s, p.Discount, "discount")
	s.surcharge = reaisToCents(s, p.Surcharge, "surcharge")
	if !s.Failed() && s.amount != s.nominal-s.discount+s.surcharge {
		s.Fail("amount", "must be the nominal amount "+formatCents(s.nominal)+" less discount plus surcharge")
	}
}

func formatCents(c int64) string { return decimal.New(c, -2).StringFixed(2) }

func isDigits(v string) bool {
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return false
		}
	}
	return v != ""
}

func isLetter(c byte) bool { return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' }
