package pix

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Static is what a static payload carries: a key and the receiver's name
// and city, with an optional amount, txid and description.
type Static struct {
	Key  string `json:"key"`
	Name string `json:"name"` // merchant name, at most 25 characters
	City string `json:"city"` // merchant city, at most 15 characters
	// Amount is decimal text with a dot and at most two decimals, such
	// as "1234.50"; empty lets the payer type the amount.
	Amount string `json:"amount,omitempty"`
	// TxID is at most 25 letters and digits; empty is written as "***".
	TxID        string `json:"txid,omitempty"`
	Description string `json:"description,omitempty"`
}

// Dynamic is what a dynamic payload carries: the charge location URL,
// written without its scheme, the receiver's name and city, and an
// optional amount (54), which the BCB PIX manual allows in a dynamic code
// beside the charge's own.
type Dynamic struct {
	URL  string `json:"url"`
	Name string `json:"name"`
	City string `json:"city"`
	// Amount is decimal text as in [Static]; empty writes no object 54.
	Amount string `json:"amount,omitempty"`
}

// Static gives back what [BuildStatic] was given for a static payload.
func (p Payload) Static() Static {
	s := Static{
		Key:         p.Account.Key,
		Name:        p.MerchantName,
		City:        p.MerchantCity,
		Amount:      p.Amount,
		TxID:        p.TxID,
		Description: p.Account.Description,
	}
	if s.TxID == noTxID {
		s.TxID = ""
	}
	return s
}

// Dynamic gives back what [BuildDynamic] was given for a dynamic payload.
func (p Payload) Dynamic() Dynamic {
	return Dynamic{URL: p.Account.URL, Name: p.MerchantName, City: p.MerchantCity, Amount: p.Amount}
}

// BuildStatic writes a static payload (objects in the order of the BCB
// PIX manual's example, no point of initiation, MCC 0000). Text is taken
// as given: use [Fold] first for text with accents. The error is a
// [Problems] naming each invalid input field.
func BuildStatic(s Static) (string, error) {
	var probs Problems
	if s.Key == "" {
		probs = append(probs, Problem{CodeMissing, FieldKey, "the key is missing"})
	} else if _, kp := checkKey(s.Key); len(kp) > 0 {
		probs = append(probs, kp...)
	}
	txid := s.TxID
	if txid == "" {
		txid = noTxID
	}
	probs = append(probs, checkTxID(txid)...)
	probs = append(probs, checkBuildAmount(s.Amount)...)
	account := emv("00", GUI) + emv("01", s.Key)
	if s.Description != "" {
		var c checker
		c.charset(FieldDescription, "description", s.Description)
		probs = append(probs, c.probs...)
		room := max(maxTemplate-utf8.RuneCountInString(account)-4, 0)
		if n := utf8.RuneCountInString(s.Description); n > room {
			probs = append(probs, Problem{CodeTooLong, FieldDescription, fmt.Sprintf(
				"description has %d characters; beside this key the merchant account template (99 characters) leaves room for %d",
				n, room)})
		}
		account += emv("02", s.Description)
	}
	probs = append(probs, checkReceiver(s.Name, s.City)...)
	if len(probs) > 0 {
		return "", probs
	}
	var b strings.Builder
	b.WriteString(emv("00", formatVersion1))
	b.WriteString(emv("26", account))
	b.WriteString(emv("52", "0000") + emv("53", currencyBRL) + amountObject(s.Amount))
	b.WriteString(emv("58", countryBrazil) + emv("59", s.Name) + emv("60", s.City))
	b.WriteString(emv("62", emv("05", txid)))
	return finish(b.String())
}

// checkBuildAmount checks an amount to build with; empty is no amount.
func checkBuildAmount(amount string) Problems {
	if amount == "" {
		return nil
	}
	if msg := checkAmount(amount); msg != "" {
		return Problems{{CodeInvalidAmount, FieldAmount, "amount " + msg}}
	}
	return nil
}

// amountObject is object 54, or nothing for no amount.
func amountObject(amount string) string {
	if amount == "" {
		return ""
	}
	return emv("54", amount)
}

// BuildDynamic writes a dynamic payload: point of initiation 12, the
// location URL in the PIX template, the amount when given, txid "***" (the
// charge's txid comes from the location), as in the BCB PIX manual's
// example.
func BuildDynamic(d Dynamic) (string, error) {
	var probs Problems
	if d.URL == "" {
		probs = append(probs, Problem{CodeMissing, FieldURL, "the location URL is missing"})
	} else {
		probs = append(probs, checkURL(d.URL)...)
	}
	probs = append(probs, checkBuildAmount(d.Amount)...)
	probs = append(probs, checkReceiver(d.Name, d.City)...)
	if len(probs) > 0 {
		return "", probs
	}
	payload := emv("00", formatVersion1) + emv("01", InitiationDynamic) +
		emv("26", emv("00", GUI)+emv("25", d.URL)) +
		emv("52", "0000") + emv("53", currencyBRL) + amountObject(d.Amount) + emv("58", countryBrazil) +
		emv("59", d.Name) + emv("60", d.City) + emv("62", emv("05", noTxID))
	return finish(payload)
}

func checkReceiver(name, city string) Problems {
	var probs Problems
	if name == "" {
		probs = append(probs, Problem{CodeMissing, FieldMerchantName, "the receiver name is missing"})
	}
	if city == "" {
		probs = append(probs, Problem{CodeMissing, FieldMerchantCity, "the receiver city is missing"})
	}
	probs = append(probs, checkText(FieldMerchantName, "receiver name", name, maxName)...)
	return append(probs, checkText(FieldMerchantCity, "receiver city", city, maxCity)...)
}

func checkText(field, name, value string, limit int) Problems {
	var c checker
	c.text(field, name, value, limit)
	return c.probs
}

// emv writes one data object; callers keep values within 99 characters.
func emv(id, value string) string {
	n := utf8.RuneCountInString(value)
	if n < 10 {
		return id + "0" + strconv.Itoa(n) + value
	}
	return id + strconv.Itoa(n) + value
}

// finish appends the CRC and checks the result, so that nothing invalid
// leaves the package.
func finish(payload string) (string, error) {
	payload += "6304"
	payload += CRC16Hex(payload)
	if _, probs := Validate(payload); len(probs) > 0 {
		return "", fmt.Errorf("building PIX payload: %w", probs)
	}
	return payload, nil
}
