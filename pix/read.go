package pix

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// read scans the top-level objects and the templates inside them.
func (c *checker) read(payload string) {
	c.ascii = c.ascii || isASCII(payload)
	sc := scanner{s: payload, ascii: c.ascii, base: c.base}
	for first := true; ; first = false {
		status := sc.next()
		o := &sc.obj
		switch status {
		case scanDone:
			c.complete = true
			return
		case scanSyntax, scanOverrun:
			c.probs = append(c.probs, scanProblem(FieldPayload, o, status))
			return
		}
		if first && o.id != "00" {
			c.add(CodeOrder, FieldPayloadFormat, fmt.Sprintf(
				"the payload must start with the payload format indicator (00), not object %s", o.id))
		}
		id := o.num
		if c.seen[id] {
			if !c.repeated[id] { // once per ID, however many repeats
				c.repeated[id] = true
				c.add(CodeDuplicate, fieldOf(id, o.id), fmt.Sprintf(
					"at character %d: object %s appears more than once; only the first is read", o.at+1, o.id))
			}
			continue
		}
		c.seen[id] = true
		if o.length == 0 {
			c.add(CodeEmptyValue, fieldOf(id, o.id), fmt.Sprintf(
				"at character %d: object %s has length 00; an object holds 1 to 99 characters", o.at+1, o.id))
			continue
		}
		c.assign(id, o)
		if id == 63 {
			if sc.pos < len(payload) {
				c.add(CodeAfterCRC, FieldCRC, fmt.Sprintf(
					"the CRC (63) must be the last object, but %d characters follow it",
					utf8.RuneCountInString(payload[sc.pos:])))
				return
			}
			c.crcPos, c.crcLast = o.pos, true
		}
	}
}

// fieldOf names a top-level object for problems.
func fieldOf(id int, raw string) string {
	switch id {
	case 0:
		return FieldPayloadFormat
	case 1:
		return FieldPointOfInitiation
	case 52:
		return FieldMCC
	case 53:
		return FieldCurrency
	case 54:
		return FieldAmount
	case 58:
		return FieldCountry
	case 59:
		return FieldMerchantName
	case 60:
		return FieldMerchantCity
	case 61:
		return FieldPostalCode
	case 62:
		return FieldAdditionalData
	case 63:
		return FieldCRC
	}
	return raw
}

func (c *checker) assign(id int, o *object) {
	p := &c.p
	switch {
	case id == 0:
		p.FormatIndicator = o.value
	case id == 1:
		p.PointOfInitiation = o.value
	case 26 <= id && id <= 51:
		c.merchantAccount(o)
	case id == 52:
		p.MCC = o.value
	case id == 53:
		p.Currency = o.value
	case id == 54:
		p.Amount = o.value
	case id == 58:
		p.Country = o.value
	case id == 59:
		p.MerchantName = o.value
	case id == 60:
		p.MerchantCity = o.value
	case id == 61:
		p.PostalCode = o.value
	case id == 62:
		c.additionalData(o)
	case id == 63:
		p.CRC = o.value
	default:
		p.Other = append(p.Other, Object{ID: o.id, Value: o.value})
		if id == 64 || id >= 80 { // the language and unreserved templates
			c.readTemplate(o, o.id, nil)
		}
	}
}

// subScanner reads the objects of a template's value.
func (c *checker) subScanner(o *object) scanner {
	return scanner{s: o.value, base: o.at + 4, ascii: c.ascii || isASCII(o.value)}
}

// guiOf finds object 00 in a template without reporting anything.
func guiOf(value string) string {
	if len(value) >= 4+len(GUI) && value[:4] == "0014" {
		return value[4 : 4+len(GUI)] // the usual case: the PIX GUI first
	}
	sc := scanner{s: value}
	for {
		if sc.next() != scanOK {
			return ""
		}
		if sc.obj.id == "00" {
			return sc.obj.value
		}
	}
}

// readTemplate reads a template's objects, reporting structural problems,
// duplicates and empty objects under field, and hands each usable object
// to use (when not nil). It reports whether the template was read to its
// end.
func (c *checker) readTemplate(o *object, field string, use func(sub object)) bool {
	var seen, repeated [100]bool
	sc := c.subScanner(o)
	for {
		status := sc.next()
		sub := &sc.obj
		switch status {
		case scanDone:
			return true
		case scanOK:
		default:
			c.probs = append(c.probs, scanProblem(field, sub, status))
			return false
		}
		switch {
		case seen[sub.num]:
			if !repeated[sub.num] {
				repeated[sub.num] = true
				c.add(CodeDuplicate, field, fmt.Sprintf(
					"at character %d: object %s appears more than once in the template; only the first is read",
					sub.at+1, sub.id))
			}
		case sub.length == 0:
			seen[sub.num] = true
			c.add(CodeEmptyValue, field, fmt.Sprintf(
				"at character %d: object %s has length 00; an object holds 1 to 99 characters", sub.at+1, sub.id))
		default:
			seen[sub.num] = true
			if use != nil {
				use(*sub) // a copy: a pointer into sc would move it to the heap
			}
		}
	}
}

// merchantAccount reads a merchant account template (26 to 51): the first
// one with the PIX GUI is the PIX account, others are kept as they are.
func (c *checker) merchantAccount(o *object) {
	if !strings.EqualFold(guiOf(o.value), GUI) || c.p.Account.ID != "" {
		c.p.Other = append(c.p.Other, Object{ID: o.id, Value: o.value})
		c.readTemplate(o, o.id, nil)
		return
	}
	a := &c.p.Account
	a.ID = o.id
	c.brokenAccount = !c.readTemplate(o, FieldMerchantAccount, func(sub object) {
		switch sub.id {
		case "00":
			a.GUI = sub.value
		case "01":
			a.Key = sub.value
		case "02":
			a.Description = sub.value
		case "25":
			a.URL = sub.value
		default:
			a.Other = append(a.Other, Object{ID: sub.id, Value: sub.value})
		}
	})
}

// additionalData reads template 62: the txid (05) and other objects.
func (c *checker) additionalData(o *object) {
	c.brokenAdditional = !c.readTemplate(o, FieldAdditionalData, func(sub object) {
		if sub.id == "05" {
			c.p.TxID = sub.value
			c.hasTxID = true
			return
		}
		c.p.AdditionalData = append(c.p.AdditionalData, Object{ID: sub.id, Value: sub.value})
	})
}
