package api

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/propfin/propfin/api/ptbr"
	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// incomeNotice is what the page and PDF of an owner's report say above
// its figures when the report is no longer the year's informe: a link
// given while it was final opens after a correction of the year was made
// (a refund, an undoing, a late credit) on no closed statement yet, or
// after the months it reads stopped being all closed. The figures shown
// are the closed statements'; the notice says which entries they leave
// out and when the corrected informe is given. "" when the report is
// final.
func incomeNotice(r *storage.IncomeReports, o storage.IncomeOwner) string {
	if incomePending(r, r.Year) != "" {
		return fmt.Sprintf("Este informe ainda não é o definitivo do ano-calendário %d: as prestações de contas de "+
			"janeiro de %d a janeiro de %d não estão todas fechadas, e os valores abaixo podem mudar.",
			r.Year, r.Year, r.Year+1)
	}
	if len(o.Unstated) == 0 {
		return ""
	}
	wait := r.ClosedThrough.Add(1)
	var what []string
	for _, c := range o.Unstated {
		if m := finance.NewMonth(c.Date.Year(), c.Date.Month()); m > wait {
			wait = m
		}
		if len(what) < shownCorrections {
			what = append(what, correctionTextPT(c))
		}
	}
	if more := len(o.Unstated) - len(what); more > 0 {
		what = append(what, strconv.Itoa(more)+" outros lançamentos")
	}
	return fmt.Sprintf("Este informe será retificado: %s ainda não %s de uma prestação de contas fechada, e os valores "+
		"abaixo não %s incluem. O informe retificado é emitido depois do fechamento de %s.",
		joinPT(what), pluralPT(len(o.Unstated), "consta", "constam"), pluralPT(len(o.Unstated), "o", "os"),
		ptbr.MonthYear(wait.First().Time()))
}

// correctionTextPT says in Portuguese what an entry on no closed
// statement is and the month of the year it counts in (correctionText's
// words for the owner).
func correctionTextPT(c storage.IncomeCorrection) string {
	counts := ptbr.MonthYear(c.Day.Time())
	switch c.Kind {
	case storage.CorrectionRefund:
		return fmt.Sprintf("o estorno da fatura %d em %s, que devolve um pagamento de %s (conta em %s)",
			c.InvoiceID, ptbr.Date(c.Date.Time()), ptbr.Date(c.Day.Time()), counts)
	case storage.CorrectionUndone:
		return fmt.Sprintf("o pagamento da fatura %d de %s, desfeito em %s (conta em %s)",
			c.InvoiceID, ptbr.Date(c.Day.Time()), ptbr.Date(c.Date.Time()), counts)
	}
	if c.InvoiceID == 0 {
		return fmt.Sprintf("um lançamento de %s (conta em %s)", ptbr.Date(c.Date.Time()), counts)
	}
	return fmt.Sprintf("os lançamentos da fatura %d de %s (contam em %s, quando o inquilino pagou, em %s)",
		c.InvoiceID, ptbr.Date(c.Date.Time()), counts, ptbr.Date(c.Day.Time()))
}

// joinPT joins items as Portuguese does: "a", "a e b", "a; b e c".
func joinPT(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], "; ") + " e " + items[len(items)-1]
}

// pluralPT is one when n is 1, else many.
func pluralPT(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
