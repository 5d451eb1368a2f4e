package retorno

import (
	"strconv"
	"strings"

	"github.com/propfin/propfin/cnab"
)

// detect finds the layout of a file from its first line: its length
// (240 or 400 characters), then the header's record type, its
// remittance/return code and the bank code (positions 1-3 in CNAB 240,
// 77-79 in CNAB 400).
func detect(line string) (*layout, error) {
	var bank string
	var width cnab.Layout
	n := len(line)
	if n >= 8 && n < 240 && line[3:8] == "00000" {
		line, n = padBlanks(line, 240), 240 // a CNAB 240 header whose trailing blanks were stripped
	}
	switch n {
	case 240:
		width = cnab.CNAB240
		if line[7] != '0' || line[3:7] != "0000" {
			return nil, refused("the first line is not a CNAB 240 file header (lot %q, record type %q at positions 4-8)", line[3:7], line[7])
		}
		switch line[142] {
		case '2':
		case '1':
			return nil, refused("this is a remittance (code 1 at position 143 of the header), not a return file")
		default:
			return nil, refused("the header's remittance/return code (position 143) is %q, a return file has 2", line[142])
		}
		bank = line[0:3]
	case 400:
		width = cnab.CNAB400
		if line[0] != '0' {
			return nil, refused("the first line is not a CNAB 400 header (record type %q at position 1)", line[0])
		}
		if line[1] == '1' || line[2:9] == "REMESSA" {
			return nil, refused("this is a remittance (REMESSA), not a return file")
		}
		if line[1] != '2' || line[2:9] != "RETORNO" {
			return nil, refused("the header does not say RETORNO (positions 2-9: %q)", line[1:9])
		}
		bank = line[76:79]
		if bank == "353" {
			bank = "033" // Santander's old code, still in its CNAB 400 header
		}
	default:
		return nil, refused("the first line has %d characters: CNAB files have lines of 240 or 400", len(line))
	}
	lay, ok := layouts[layoutKey{bank, width}]
	if !ok {
		return nil, refused("bank %q%s, CNAB %d: not a return layout read here (read: %s)",
			bank, headerBankName(line, width), width, strings.Join(Supported(), ", "))
	}
	return lay, nil
}

// readHeader reads what the file header says. Its fields are informative:
// a value that does not parse is left zero.
func readHeader(lay *layout, line string) Header {
	h := Header{Bank: lay.bank, BankName: lay.bankName, Layout: lay.width, Document: lay.document}
	if lay.width == cnab.CNAB240 {
		h.Company = fromLatin1(strings.TrimSpace(line[72:102]))
		h.Covenant = strings.TrimSpace(line[32:52])
		h.Created, _ = parseDate(line[143:151])
		h.Sequence, _ = strconv.Atoi(line[157:163])
	} else {
		h.Company = fromLatin1(strings.TrimSpace(line[46:76]))
		h.Created, _ = parseDate(line[94:100])
		if lay.sequence != [2]int{} {
			h.Sequence, _ = strconv.Atoi(line[lay.sequence[0]-1 : lay.sequence[1]])
		}
	}
	if lay.header != nil {
		lay.header(&h, line)
	}
	if rec := lay.headerAccountOf(line); rec != nil {
		var ev Event
		var texts []byte
		_ = lay.read(rec, []byte(line), &ev, &texts) // text fields only: cannot fail
		h.Beneficiary = ev.Beneficiary
	}
	return h
}

// headerAccountOf is the table of the account in the file header line:
// the payment return's where the bank lays it out apart (Itaú's SISPAG)
// and line is such a header, else the layout's.
func (l *layout) headerAccountOf(line string) *record {
	if p := l.payment; p != nil && p.headerAccount != nil && p.isHeader(line) {
		return p.headerAccount
	}
	return l.headerAccount
}

// headerBankName is the bank's name as the header writes it (CNAB 400
// 80-94, CNAB 240 103-132), in parentheses, or "" when it is blank.
func headerBankName(line string, width cnab.Layout) string {
	name := line[79:94]
	if width == cnab.CNAB240 {
		name = line[102:132]
	}
	if name = strings.TrimSpace(fromLatin1(name)); name == "" {
		return ""
	}
	return " (" + name + ")"
}
