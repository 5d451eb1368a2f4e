package cnab

import (
	"errors"
	"strings"

	"github.com/propfin/propfin/cnab/boleto"
)

// slipBeneficiary is the beneficiary as package boleto reads it.
func slipBeneficiary(r *Remittance) boleto.Beneficiary {
	b := &r.Beneficiary
	return boleto.Beneficiary{
		Bank:         r.Bank,
		Agency:       b.Agency,
		AgencyDigit:  b.AgencyDigit,
		Account:      b.Account,
		AccountDigit: b.AccountDigit,
		Wallet:       b.Wallet,
		Covenant:     b.Covenant,
		Station:      b.Station,
		Modality:     b.Modality,
	}
}

// inputName maps a boleto.FieldError's field to the JSON input field.
var inputName = map[string]string{
	"Sequence":     "our_number",
	"NossoNumero":  "our_number",
	"Agency":       "beneficiary.agency",
	"AgencyDigit":  "beneficiary.agency_digit",
	"Account":      "beneficiary.account",
	"AccountDigit": "beneficiary.account_digit",
	"Wallet":       "beneficiary.wallet",
	"Covenant":     "beneficiary.covenant",
	"Station":      "beneficiary.station",
	"Modality":     "beneficiary.modality",
	"Bank":         "bank",
}

// failSlip records an error of package boleto under the input field it
// names.
func (s *state) failSlip(err error) {
	var fe *boleto.FieldError
	if errors.As(err, &fe) {
		name := inputName[fe.Field]
		if name == "" {
			name = strings.ToLower(fe.Field)
		}
		s.Fail(name, fe.Reason)
		return
	}
	s.Fail("our_number", err.Error())
}

// checkSlipBeneficiary checks the beneficiary against the bank's nosso
// número rule once, on the header, so that a beneficiary the rule cannot
// use is reported once, as a remittance problem, rather than on every
// title.
func checkSlipBeneficiary(s *state) {
	if err := s.slip.Validate(); err != nil {
		s.failSlip(err)
	}
}

// prepareNossoNumero computes the current title's nosso número and check
// digit.
func prepareNossoNumero(s *state) {
	nn, err := boleto.NewNossoNumero(s.slip, s.t.OurNumber)
	if err != nil {
		s.failSlip(err)
		return
	}
	s.ourNumber, s.ourDigit = nn.Number, nn.Digit
}
