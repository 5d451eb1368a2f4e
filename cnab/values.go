package cnab

// Accessors the field tables read values through. Each takes the state and
// returns one input value, normalised (documents and CEP as digits).

// Remittance and beneficiary.
func sequence(s *state) int64      { return int64(s.rem.Sequence) }
func benefName(s *state) string    { return s.rem.Beneficiary.Name }
func benefDoc(s *state) string     { return s.benefDoc }
func benefDocKind(s *state) int64  { return documentKind(benefDoc(s)) }
func agency(s *state) string       { return s.rem.Beneficiary.Agency }
func agencyDigit(s *state) string  { return s.rem.Beneficiary.AgencyDigit }
func account(s *state) string      { return s.rem.Beneficiary.Account }
func accountDigit(s *state) string { return s.rem.Beneficiary.AccountDigit }
func wallet(s *state) string       { return s.rem.Beneficiary.Wallet }
func covenant(s *state) string     { return s.rem.Beneficiary.Covenant }
func transmissionCode(s *state) string {
	return s.rem.Beneficiary.TransmissionCode
}
func created(s *state) Date { return DateOf(s.created) }
func createdTime(s *state) int64 {
	h, m, sec := s.created.Clock()
	return int64(h*10000 + m*100 + sec)
}
func version(s *state) string { return s.version }

// Counters.
func recordNumber(s *state) int64      { return int64(s.record) }
func batchRecordNumber(s *state) int64 { return int64(s.batchRecord) }
func titleCount(s *state) int64        { return int64(s.titles) }
func titleTotal(s *state) int64        { return s.total }

// Title.
func ourNumber(s *state) string      { return s.ourNumber }
func ourDigit(s *state) string       { return s.ourDigit }
func ourNumberFull(s *state) string  { return s.ourNumber + s.ourDigit }
func documentNumber(s *state) string { return s.t.DocumentNumber }
func control(s *state) string        { return s.t.Control }
func amount(s *state) int64          { return s.amount }
func due(s *state) Date              { return s.t.Due }
func issued(s *state) Date           { return s.t.Issued }
func kindCode(s *state) string       { return s.kindCode() }
func finePercent(s *state) int64     { return s.fine }
func interestPerDay(s *state) int64  { return s.interest }
func interestRate(s *state) int64    { return s.rate }

// interestValue is the amount per day or the monthly rate, whichever the
// title has, for the fields that take either by a code.
func interestValue(s *state) int64 { return s.interest + s.rate }

// interestCode returns a field value function giving perDay, monthly or
// none by the title's form of interest.
func interestCode(perDay, monthly, none int64) func(*state) int64 {
	return func(s *state) int64 {
		switch {
		case s.interest > 0:
			return perDay
		case s.rate > 0:
			return monthly
		}
		return none
	}
}
func discount(s *state) int64 { return s.discount }
func discountUntil(s *state) Date {
	if s.discount == 0 {
		return Date{}
	}
	return s.t.DiscountUntil
}
func protestDays(s *state) int64 { return int64(s.t.ProtestDays) }

// fineDate is the day the late fee starts: the day after the due date, or
// no date when there is no fee.
func fineDate(s *state) Date {
	if s.fine == 0 {
		return Date{}
	}
	return s.t.Due.next()
}

// interestDate is the day interest starts, the day after the due date.
func interestDate(s *state) Date {
	if s.interest == 0 && s.rate == 0 {
		return Date{}
	}
	return s.t.Due.next()
}

// Payer.
func payerName(s *state) string     { return s.t.Payer.Name }
func payerDoc(s *state) string      { return s.payerDoc }
func payerDocKind(s *state) int64   { return documentKind(payerDoc(s)) }
func payerAddress(s *state) string  { return s.t.Payer.Address }
func payerDistrict(s *state) string { return s.t.Payer.District }
func payerCity(s *state) string     { return s.t.Payer.City }
func payerState(s *state) string    { return s.t.Payer.State }
func payerZIP(s *state) string      { return s.payerZIP }
func payerZIP5(s *state) string     { return payerZIP(s)[:5] }
func payerZIP3(s *state) string     { return payerZIP(s)[5:] }

// Codes: 0 or 1 flags and the code of a value that may be absent.
func ifPositive(v func(*state) int64, yes, no int64) func(*state) int64 {
	return func(s *state) int64 {
		if v(s) > 0 {
			return yes
		}
		return no
	}
}

func writeOffDays(s *state) int64 { return int64(s.t.WriteOffDays) }

// dueIfFine and dueIfInterest are the due date when the title has a fee
// or interest, for the banks whose fee or interest date is the due date
// itself (charged from the day after it).
func dueIfFine(s *state) Date {
	if s.fine == 0 {
		return Date{}
	}
	return s.t.Due
}

func dueIfInterest(s *state) Date {
	if s.interest == 0 && s.rate == 0 {
		return Date{}
	}
	return s.t.Due
}
