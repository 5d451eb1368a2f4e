package boleto

import "time"

// The due-date factor (fator de vencimento) is the number of days from the
// base date 1997-10-07 to the due date, in four digits. It reached 9999 on
// 2025-02-21 and restarted at 1000 on 2025-02-22; it restarts at 1000 every
// 9000 days. Factor 0000 means a slip without a due date.
const (
	factorMin   = 1000
	factorMax   = 9999
	factorCycle = factorMax - factorMin + 1 // 9000 days
)

// Window around the reference date in which a factor is read back as a
// date, from FEBRABAN's rule for the factor's restart (Comunicado FEBRABAN
// 082/2012): from 3000 days before to 5500 days after. The window is 8501
// days wide, less than one cycle of 9000, so at most one date matches.
const (
	WindowBefore = 3000
	WindowAfter  = 5500
)

var factorBase = time.Date(1997, time.October, 7, 0, 0, 0, 0, time.UTC)

// civilDays is the number of whole calendar days from the base date to the
// date of t, in t's own location (the time of day is ignored).
func civilDays(t time.Time) int {
	y, m, d := t.Date()
	return int((time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() - factorBase.Unix()) / 86400)
}

// Factor returns the due-date factor of a due date (its calendar date in
// its own location). The zero time has factor 0, a slip without a due date.
// A date before 2000-07-03 (factor 1000 of the first cycle) is an error.
func Factor(due time.Time) (int, error) {
	if due.IsZero() {
		return 0, nil
	}
	days := civilDays(due)
	if days < factorMin {
		return 0, fieldErr("", "Due", due.Format(time.DateOnly), "before 2000-07-03, the first date a factor can express")
	}
	return (days-factorMin)%factorCycle + factorMin, nil
}

// FactorDate returns the due date that a factor stands for, as the one date
// with that factor from WindowBefore days before to WindowAfter days after
// the calendar date of ref (normally today). It returns false for factor 0
// (no due date), for a factor outside 1000-9999, and when no date in the
// window has the factor (the 499 factors just past ref+5500 days).
// The date is at midnight UTC.
func FactorDate(factor int, ref time.Time) (time.Time, bool) {
	if factor < factorMin || factor > factorMax {
		return time.Time{}, false
	}
	lo := civilDays(ref) - WindowBefore
	// The first day at or after lo whose factor is factor.
	offset := ((factor-factorMin)-(lo-factorMin))%factorCycle + factorCycle
	days := lo + offset%factorCycle
	if days > lo+WindowBefore+WindowAfter || days < factorMin {
		return time.Time{}, false
	}
	return factorBase.AddDate(0, 0, days), true
}
