package cnab

import (
	"github.com/propfin/propfin/pix"

	"slices"
	"strings"
)

// checkRemittance records the problems of the remittance itself.
func checkRemittance(s *state) {
	r, sp := s.rem, s.spec
	if r.Version != "" {
		if !slices.Contains(sp.versions, r.Version) {
			s.Fail("version", "bank "+sp.bank+" CNAB "+itoa(int(sp.layout))+" accepts versions "+strings.Join(sp.versions, ", "))
		} else {
			s.version = r.Version
		}
	}
	if r.Sequence <= 0 {
		s.Fail("sequence", "the file sequence number (NSA) must be 1 or more")
	}
	if r.Created.IsZero() {
		s.Fail("created", "the generation date is required")
	}
	b := &r.Beneficiary
	if strings.TrimSpace(b.Name) == "" {
		s.Fail("beneficiary.name", "required")
	}
	s.benefDoc = bareDocument(b.Document)
	if !pix.ValidTaxID(s.benefDoc) {
		s.Fail("beneficiary.document", "not a valid CPF or CNPJ")
	}
	for _, name := range sp.required {
		if strings.TrimSpace(beneficiaryField(b, name)) == "" {
			s.Fail("beneficiary."+name, "required by bank "+sp.bank)
		}
	}
	if sp.wallets != nil && !slices.Contains(sp.wallets, b.Wallet) {
		s.Fail("beneficiary.wallet", "bank "+sp.bank+" CNAB "+itoa(int(sp.layout))+" accepts wallets "+strings.Join(sp.wallets, ", "))
	}
	if sp.checkBeneficiary != nil {
		sp.checkBeneficiary(s)
	}
	if !s.Failed() {
		checkSlipBeneficiary(s)
	}
}

func beneficiaryField(b *Beneficiary, name string) string {
	switch name {
	case "agency":
		return b.Agency
	case "agency_digit":
		return b.AgencyDigit
	case "account":
		return b.Account
	case "account_digit":
		return b.AccountDigit
	case "wallet":
		return b.Wallet
	case "wallet_variation":
		return b.WalletVariation
	case "covenant":
		return b.Covenant
	case "station":
		return b.Station
	case "transmission_code":
		return b.TransmissionCode
	case "modality":
		return b.Modality
	}
	panic("cnab: unknown beneficiary field " + name)
}

// checkTitle records the problems of the current title that do not depend
// on the bank, and derives its amounts.
func checkTitle(s *state) {
	t := s.t
	if t.OurNumber <= 0 {
		s.Fail("our_number", "required, 1 or more")
	}
	if strings.TrimSpace(t.DocumentNumber) == "" {
		s.Fail("document_number", "required")
	}
	if t.Kind != "" && s.spec.kinds[t.Kind] == "" {
		s.Fail("kind", "kind "+string(t.Kind)+" is not accepted by bank "+s.spec.bank)
	}
	s.amount = s.hundredths(t.Amount, "amount")
	if t.Amount.Sign() == 0 {
		s.Fail("amount", "must be more than zero")
	}
	if !t.Due.valid() {
		s.Fail("due", "required, a date between 2000 and 2099")
	}
	if !t.Issued.valid() {
		s.Fail("issued", "required, a date between 2000 and 2099")
	} else if t.Due.valid() && t.Due.Before(t.Issued) {
		s.Fail("due", "before the issue date")
	}
	checkPayer(s, &t.Payer)
	s.fine = s.hundredths(t.FinePercent, "fine_percent")
	if s.fine >= 100_00 {
		s.Fail("fine_percent", "must be less than 100")
	}
	s.interest = s.hundredths(t.InterestPerDay, "interest_per_day")
	s.rate = s.hundredths(t.InterestMonthlyPercent, "interest_monthly_percent")
	switch form := s.spec.interest; {
	case s.interest > 0 && s.rate > 0:
		s.Fail("interest_monthly_percent", "give interest_per_day or interest_monthly_percent, not both")
	case s.rate > 0 && form == interestPerDayOnly:
		s.Fail("interest_monthly_percent", "bank "+s.spec.bank+" CNAB "+itoa(int(s.spec.layout))+" takes interest as an amount per day (interest_per_day)")
	case s.interest > 0 && form == interestMonthlyOnly:
		s.Fail("interest_per_day", "bank "+s.spec.bank+" CNAB "+itoa(int(s.spec.layout))+" takes interest as a monthly rate (interest_monthly_percent)")
	case s.rate >= 100_00:
		s.Fail("interest_monthly_percent", "must be less than 100")
	}
	s.discount = s.hundredths(t.Discount, "discount")
	if s.discount > 0 && expiredDiscount(t) {
		// it can no longer be earned, and a bank refuses a discount date
		// before the issue date (FEBRABAN C047-A "Data do Desconto
		// Inválida"): the title goes without it, every layout alike
		s.Warn("discount_until", "the discount's last day "+t.DiscountUntil.String()+" is before the issue date "+
			t.Issued.String()+": the discount has expired and the title goes without it")
		s.discount = 0
	}
	if s.discount > 0 {
		switch {
		case s.discount >= s.amount:
			s.Fail("discount", "must be less than the amount")
		case !t.DiscountUntil.valid():
			s.Fail("discount_until", "required with a discount")
		case t.Due.valid() && t.Due.Before(t.DiscountUntil):
			s.Fail("discount_until", "after the due date")
		}
	}
	if t.WriteOffDays < 0 || t.WriteOffDays > 999 {
		s.Fail("write_off_days", "must be between 0 (bank default) and 999")
	}
	max := s.spec.maxProtest
	if max == 0 {
		max = 99
	}
	if t.ProtestDays < 0 || t.ProtestDays > max {
		s.Fail("protest_days", "must be between 0 (no protest) and "+itoa(max))
	}
}

// expiredDiscount reports whether t's discount ends before the title is
// issued (both dates valid).
func expiredDiscount(t *Title) bool {
	return t.DiscountUntil.valid() && t.Issued.valid() && t.DiscountUntil.Before(t.Issued)
}

func checkPayer(s *state, p *Payer) {
	if strings.TrimSpace(p.Name) == "" {
		s.Fail("payer.name", "required")
	}
	s.payerDoc = bareDocument(p.Document)
	if !pix.ValidTaxID(s.payerDoc) {
		s.Fail("payer.document", "not a valid CPF or CNPJ")
	}
	if strings.TrimSpace(p.Address) == "" {
		s.Fail("payer.address", "required")
	}
	if strings.TrimSpace(p.City) == "" {
		s.Fail("payer.city", "required")
	}
	if len(p.State) != 2 || !isLetter(p.State[0]) || !isLetter(p.State[1]) {
		s.Fail("payer.state", "want the two-letter state (UF)")
	}
	s.payerZIP = onlyDigits(p.ZIP)
	if len(s.payerZIP) != 8 {
		s.Fail("payer.zip", "want the 8-digit CEP")
	}
}

func isLetter(c byte) bool { return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' }
