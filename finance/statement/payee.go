package statement

import (
	"regexp"
	"strings"
)

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

// destinationRe is the account form Destination writes.
var destinationRe = regexp.MustCompile(`^Banco ([0-9]{3})(?:, agência ([0-9]+)(?:-([0-9A-Za-z]{1,2}))?)?, conta ([0-9]+)(?:-([0-9A-Za-z]{1,2}))?$`)

// ParseDestination reads back what Destination wrote (a statement's line
// keeps it as text): "PIX <key>" gives the key alone, "Banco <code>,
// agência <n>, conta <n>" the account alone. Anything else, "" among it,
// is not a destination: ok is false.
func ParseDestination(text string) (p Payee, ok bool) {
	if key, found := strings.CutPrefix(text, "PIX "); found {
		return Payee{PixKey: key}, key != ""
	}
	m := destinationRe.FindStringSubmatch(text)
	if m == nil {
		return Payee{}, false
	}
	return Payee{Bank: m[1], Agency: m[2], AgencyDigit: m[3], Account: m[4], AccountDigit: m[5]}, true
}
