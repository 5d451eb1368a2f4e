package retorno

import (
	"fmt"
	"strings"

	"github.com/propfin/propfin/pix"
)

// pixRecord is a CNAB 400 record that carries the PIX charge of a title
// (boleto híbrido). It follows the title's detail record and is attached
// to its event.
type pixRecord struct {
	typ  byte   // the record type (position 1)
	name string // the record in the bank's words
	read func(line string) (*PIX, error)
}

// santanderPIX is Santander's record type 2: the PIX key's type (2), the
// key (3-79) and the charge's txid (80-114).
var santanderPIX = &pixRecord{typ: '2', name: "PIX record (type 2)", read: readSantanderPIX}

// santanderKeyTypes are the codes of position 2 of Santander's record 2,
// in the order the DICT lists the kinds of key.
var santanderKeyTypes = map[byte]pix.KeyType{
	'1': pix.KeyCPF, '2': pix.KeyCNPJ, '3': pix.KeyPhone, '4': pix.KeyEmail, '5': pix.KeyEVP,
}

func readSantanderPIX(line string) (*PIX, error) {
	p := &PIX{Key: trimSpace(line[2:79]), TxID: trimSpace(line[79:114])}
	if c := line[1]; c != ' ' && c != '0' {
		kt, ok := santanderKeyTypes[c]
		if !ok {
			return nil, &fieldProblem{field: "Tipo de chave Pix", value: line[1:2], reason: "must be 1 (CPF), 2 (CNPJ), 3 (celular), 4 (e-mail) or 5 (chave aleatória)"}
		}
		p.KeyType = string(kt)
	}
	return p, nil
}

// itauPIX is Itaú's record type 3 ("registro opcional boleto Pix", sent
// with the confirmation of a boleto Pix, occurrence 71): the BR Code
// generated (2-391) or the error code when none was (392-394). The key,
// the charge's location and its txid are read from the BR Code.
var itauPIX = &pixRecord{typ: '3', name: "PIX record (type 3)", read: readItauPIX}

func readItauPIX(line string) (*PIX, error) {
	p := &PIX{QRCode: trimSpace(line[1:391]), Error: trimSpace(line[391:394])}
	if strings.Trim(p.Error, "0") == "" {
		p.Error = ""
	}
	if p.QRCode == "" {
		return p, nil
	}
	code, err := pix.Parse(p.QRCode)
	if err != nil {
		return nil, &fieldProblem{field: "EMV QR Code", value: p.QRCode, reason: fmt.Sprintf("not a BR Code: %v", err)}
	}
	p.Key, p.Location, p.TxID = code.Account.Key, code.Account.URL, code.TxID
	if p.TxID == "***" {
		p.TxID = "" // the BR Code's "no txid"
	}
	if p.Key != "" {
		if kt, err := pix.CheckKey(p.Key); err == nil {
			p.KeyType = string(kt)
		}
	}
	return p, nil
}

// pix400 attaches a PIX record to the title pending before it.
func (rd *Reader) pix400(line []byte, ev *Event) (bool, error) {
	p := rd.lay.pix
	if rd.skipTitle {
		return false, nil // the title's detail was reported as an error
	}
	if !rd.hasPend {
		return false, rd.lineErr(p.name, "no title detail before it")
	}
	px, err := p.read(string(line))
	if err != nil {
		return false, rd.readErr(p.name, err)
	}
	ev.PIX = px
	return false, nil
}
