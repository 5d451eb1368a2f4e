package storage

import (
	"bytes"
	_ "embed"
	"encoding/csv"
	"fmt"
	"strings"
	"sync"
)

// The banks an account or a person's bank data may name: the institutions
// of the Banco Central do Brasil's list of STR participants that have a
// bank code (Número_Código, the three digits of COMPE, TED and CNAB
// files), shipped as published (banks/README.md says from where and when).

//go:embed banks/ParticipantesSTR.csv
var participantsSTR []byte

// Bank is an institution of the list: its code, ISPB and name.
type Bank struct {
	Code string // "341"
	ISPB string // "60701190"
	Name string // "ITAÚ UNIBANCO S.A."
}

// banksByCode is the shipped list by code, read once.
var banksByCode = sync.OnceValue(func() map[string]Bank {
	banks, err := readParticipants(participantsSTR)
	if err != nil {
		panic("storage: shipped banks/ParticipantesSTR.csv: " + err.Error())
	}
	return banks
})

// BankByCode returns the bank of a three-digit code, false when no
// participant of the shipped list has it.
func BankByCode(code string) (Bank, bool) {
	b, ok := banksByCode()[code]
	return b, ok
}

// CheckBankCode accepts a bank's three-digit code that the shipped list
// of STR participants holds (Column.Check of the bank columns).
func CheckBankCode(v string) string {
	if len(v) != 3 || strings.Trim(v, "0123456789") != "" {
		return "must be the bank's 3-digit code (001, 341)"
	}
	if _, ok := BankByCode(v); !ok {
		return fmt.Sprintf("%s is not the code of a bank: no participant of the Banco Central's list of STR participants has it", v)
	}
	return ""
}

// participant columns of ParticipantesSTR.csv, by position (the header's
// names carry accents and, in the Banco Central's download, a BOM).
const (
	colISPB = iota
	colShortName
	colCode
	_ // Participa_da_Compe
	_ // Acesso_Principal
	colName
	_ // Início_da_Operação
	participantColumns
)

// readParticipants reads the list's rows that have a three-digit code
// (the others, the Banco Central's own systems and B3's, have "n/a" or
// "0"). A code given twice is an error.
func readParticipants(data []byte) (map[string]Bank, error) {
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte("\ufeff"))))
	r.FieldsPerRecord = participantColumns
	rows, err := r.ReadAll()
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 || rows[0][colISPB] != "ISPB" {
		return nil, fmt.Errorf("want the header ISPB,Nome_Reduzido,Número_Código,...")
	}
	banks := make(map[string]Bank, len(rows))
	for _, row := range rows[1:] {
		code := strings.TrimSpace(row[colCode])
		if len(code) != 3 || strings.Trim(code, "0123456789") != "" {
			continue
		}
		if b, dup := banks[code]; dup {
			return nil, fmt.Errorf("code %s is both ISPB %s and %s", code, b.ISPB, row[colISPB])
		}
		name := strings.TrimSpace(row[colName])
		if name == "" {
			name = strings.TrimSpace(row[colShortName])
		}
		banks[code] = Bank{Code: code, ISPB: strings.TrimSpace(row[colISPB]), Name: name}
	}
	return banks, nil
}
