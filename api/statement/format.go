package statement

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/propfin/propfin/pix"
)

// formatCents writes an amount the Brazilian way, "R$ 1.234,56"; a
// negative amount is "-R$ 1,00" (as the receipt page writes it).
func formatCents(c Cents) string {
	neg := c < 0
	u := uint64(c)
	if neg {
		u = -u // two's complement: right for math.MinInt64 too
	}
	digits := strconv.FormatUint(u/100, 10)
	out := "R$ " + groupThousands(digits) + "," + fmt.Sprintf("%02d", u%100)
	if neg {
		out = "-" + out
	}
	return out
}

// groupThousands puts a dot between groups of three digits.
func groupThousands(digits string) string {
	var b strings.Builder
	for i, c := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte('.')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// formatDate writes a calendar date as dd/mm/yyyy in its own location;
// the zero time is "".
func formatDate(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format("02/01/2006")
}

// monthNames are the months in Portuguese, written in lower case as the
// language writes them.
var monthNames = [12]string{"janeiro", "fevereiro", "março", "abril", "maio", "junho",
	"julho", "agosto", "setembro", "outubro", "novembro", "dezembro"}

// parseMonth reads "YYYY-MM" as the first day of the month, in UTC.
func parseMonth(s string) (time.Time, error) {
	t, err := time.Parse("2006-01", s)
	if err != nil || len(s) != 7 {
		return time.Time{}, fmt.Errorf("%q is not a month written YYYY-MM", s)
	}
	return t, nil
}

// formatMonth writes "2024-03" as "março de 2024"; anything else is
// returned as given.
func formatMonth(s string) string {
	t, err := parseMonth(s)
	if err != nil {
		return s
	}
	return monthNames[t.Month()-1] + " de " + strconv.Itoa(t.Year())
}

// lastDay is the last day of the month "YYYY-MM", as dd/mm/yyyy.
func lastDay(s string) string {
	t, err := parseMonth(s)
	if err != nil {
		return ""
	}
	return formatDate(t.AddDate(0, 1, -1))
}

// formatTaxID writes a CPF as 000.000.000-00 and a CNPJ as
// 00.000.000/0000-00 (the alphanumeric CNPJ too), from the bare or the
// punctuated form; anything else is returned trimmed, as given.
func formatTaxID(s string) string {
	id := strings.TrimSpace(s)
	bare := pix.BareTaxID(id)
	switch {
	case len(bare) == 11 && isDigits(bare):
		return bare[0:3] + "." + bare[3:6] + "." + bare[6:9] + "-" + bare[9:11]
	case len(bare) == 14 && isAlnumUpper(bare[:12]) && isDigits(bare[12:]):
		return bare[0:2] + "." + bare[2:5] + "." + bare[5:8] + "/" + bare[8:12] + "-" + bare[12:14]
	}
	return id
}

// taxIDLabel names a tax id by its form: "CPF", "CNPJ" or "CPF/CNPJ".
func taxIDLabel(s string) string {
	bare := pix.BareTaxID(strings.TrimSpace(s))
	switch {
	case len(bare) == 11 && isDigits(bare):
		return "CPF"
	case len(bare) == 14:
		return "CNPJ"
	}
	return "CPF/CNPJ"
}

// partyTaxID is "CPF 123.456.789-09", or "" without a tax id.
func partyTaxID(p Party) string {
	if strings.TrimSpace(p.TaxID) == "" {
		return ""
	}
	return taxIDLabel(p.TaxID) + " " + formatTaxID(p.TaxID)
}

// destination writes where a transfer went: "PIX 123.456.789-09" (a PIX
// key that is a CPF or CNPJ is punctuated) or "Banco 341 Itaú, agência
// 1234, conta 56789-0"; "" when nothing is given.
func destination(d Destination) string {
	if k := strings.TrimSpace(d.PixKey); k != "" {
		return "PIX " + formatTaxID(k)
	}
	var parts []string
	if b := strings.TrimSpace(d.Bank); b != "" {
		parts = append(parts, "Banco "+b)
	}
	if b := strings.TrimSpace(d.Branch); b != "" {
		parts = append(parts, "agência "+b)
	}
	if a := strings.TrimSpace(d.Account); a != "" {
		parts = append(parts, "conta "+a)
	}
	return strings.Join(parts, ", ")
}

// lineText is what a line says: its description, with where a transfer
// went or the month an adjustment corrects.
func lineText(l Line) string {
	text := strings.TrimSpace(l.Description)
	switch {
	case l.Kind == Transfer && l.Transfer != nil:
		return joinText(text, "para "+destination(*l.Transfer))
	case l.Kind == Adjustment:
		return joinText(text, "corrige "+formatMonth(l.Corrects))
	}
	return text
}

func joinText(a, b string) string {
	if a == "" {
		return strings.ToUpper(b[:1]) + b[1:]
	}
	return a + " (" + b + ")"
}

// hiddenText says what the statement leaves out, or "" when nothing.
func hiddenText(h Hidden) string {
	if h.Count == 0 {
		return ""
	}
	what, sum := "1 lançamento interno não é mostrado", "soma"
	if h.Count > 1 {
		what, sum = strconv.Itoa(h.Count)+" lançamentos internos não são mostrados", "somam"
	}
	where := " e não entra no saldo"
	if h.Count > 1 {
		where = " e não entram no saldo"
	}
	if h.InBalance {
		where = ", já incluídos no saldo final"
		if h.Count == 1 {
			where = ", já incluído no saldo final"
		}
	}
	return what + " neste demonstrativo; " + sum + " " + formatCents(h.Amount) + where + "."
}

// period writes a contract's dates: "01/02/2023 a 31/01/2026", "desde
// 01/02/2023 (em vigor)", or "".
func period(start, end time.Time) string {
	switch {
	case !start.IsZero() && !end.IsZero():
		return formatDate(start) + " a " + formatDate(end)
	case !start.IsZero():
		return "desde " + formatDate(start) + " (em vigor)"
	case !end.IsZero():
		return "até " + formatDate(end)
	}
	return ""
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isAlnumUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'A' || c > 'Z') {
			return false
		}
	}
	return true
}
