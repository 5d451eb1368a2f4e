package statement

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/propfin/propfin/api/ptbr"
)

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
	return ptbr.MonthYear(t)
}

// monthTitle is the name of month i of a year (0 is January) as a
// table's heading writes it: "Março".
func monthTitle(i int) string {
	name := ptbr.MonthName(time.Month(i + 1))
	if name == "" {
		return ""
	}
	return strings.ToUpper(name[:1]) + name[1:]
}

// lastDay is the last day of the month "YYYY-MM", as dd/mm/yyyy.
func lastDay(s string) string {
	t, err := parseMonth(s)
	if err != nil {
		return ""
	}
	return ptbr.Date(t.AddDate(0, 1, -1))
}

// partyTaxID is "CPF 123.456.789-09", or "" without a tax id.
func partyTaxID(p Party) string {
	if strings.TrimSpace(p.TaxID) == "" {
		return ""
	}
	return ptbr.TaxIDLabel(p.TaxID) + " " + ptbr.TaxID(p.TaxID)
}

// destination writes where a transfer went: "PIX 123.456.789-09" (a PIX
// key that is a CPF or CNPJ is punctuated) or "Banco 341 Itaú, agência
// 1234, conta 56789-0"; "" when nothing is given.
func destination(d Destination) string {
	if k := strings.TrimSpace(d.PixKey); k != "" {
		return "PIX " + ptbr.TaxID(k)
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
	case l.Kind == Transfer:
		if l.Transfer == nil || destination(*l.Transfer) == "" {
			return joinText(text, "destino não registrado")
		}
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
	return what + " neste demonstrativo; " + sum + " " + ptbr.Cents(h.Amount) + where + "."
}

// period writes a contract's dates: "01/02/2023 a 31/01/2026", "desde
// 01/02/2023 (em vigor)", or "".
func period(start, end time.Time) string {
	switch {
	case !start.IsZero() && !end.IsZero():
		return ptbr.Date(start) + " a " + ptbr.Date(end)
	case !start.IsZero():
		return "desde " + ptbr.Date(start) + " (em vigor)"
	case !end.IsZero():
		return "até " + ptbr.Date(end)
	}
	return ""
}
