package statement

import "strings"

// Payee is the bank account and PIX key an owner is paid to, as the
// owner's person record holds them.
type Payee struct {
	Bank         string // the 3-digit code
	Agency       string
	AgencyDigit  string
	Account      string
	AccountDigit string
	PixKey       string
}

// Destination says where a transfer paid by method went, in Portuguese:
// "PIX <key>" for a transfer by PIX (or when the owner has a key and no
// account), else "Banco <code>, agência <n>, conta <n>"; "" when the
// owner has neither.
func (p Payee) Destination(method string) string {
	hasAccount := p.Bank != "" && p.Account != ""
	if p.PixKey != "" && (method == "pix" || !hasAccount) {
		return "PIX " + p.PixKey
	}
	if !hasAccount {
		return ""
	}
	var b strings.Builder
	b.WriteString("Banco " + p.Bank)
	if p.Agency != "" {
		b.WriteString(", agência " + withDigit(p.Agency, p.AgencyDigit))
	}
	b.WriteString(", conta " + withDigit(p.Account, p.AccountDigit))
	return b.String()
}

func withDigit(n, digit string) string {
	if digit == "" {
		return n
	}
	return n + "-" + digit
}
