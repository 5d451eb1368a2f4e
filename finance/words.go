package finance

import "fmt"

// Dias is a count of days as the Portuguese of the ledger's descriptions
// writes it: "1 dia", "2 dias" (and "0 dias").
func Dias(n int) string {
	if n == 1 || n == -1 {
		return fmt.Sprintf("%d dia", n)
	}
	return fmt.Sprintf("%d dias", n)
}

// Days is a count of days as the English of messages writes it: "1 day",
// "2 days" (and "0 days").
func Days(n int) string {
	if n == 1 || n == -1 {
		return fmt.Sprintf("%d day", n)
	}
	return fmt.Sprintf("%d days", n)
}
