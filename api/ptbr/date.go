package ptbr

import (
	"strconv"
	"time"
)

// Date writes a calendar date as dd/mm/yyyy, in t's own location; the zero
// time is "".
func Date(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format("02/01/2006")
}

// monthNames are the months in Portuguese, in lower case as the language
// writes them.
var monthNames = [12]string{"janeiro", "fevereiro", "março", "abril", "maio", "junho",
	"julho", "agosto", "setembro", "outubro", "novembro", "dezembro"}

// MonthName is a month's name in lower case, "março"; a month out of
// January to December is "".
func MonthName(m time.Month) string {
	if m < time.January || m > time.December {
		return ""
	}
	return monthNames[m-1]
}

// MonthYear writes t's month and year, "março de 2024", in t's own
// location.
func MonthYear(t time.Time) string {
	return MonthName(t.Month()) + " de " + strconv.Itoa(t.Year())
}
