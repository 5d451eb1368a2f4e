package pix

// crcTables[0] is the CRC-16/CCITT-FALSE table (polynomial 0x1021, not
// reflected); crcTables[k][b] is the contribution of byte b followed by k
// zero bytes, so that CRC16 can fold eight bytes at a time (slicing by 8).
var crcTables = func() (t [8][256]uint16) {
	for i := range t[0] {
		c := uint16(i) << 8
		for range 8 {
			if c&0x8000 != 0 {
				c = c<<1 ^ 0x1021
			} else {
				c <<= 1
			}
		}
		t[0][i] = c
	}
	for k := 1; k < 8; k++ {
		for i := range t[k] {
			prev := t[k-1][i]
			t[k][i] = prev<<8 ^ t[0][prev>>8]
		}
	}
	return t
}()

// CRC16 is CRC-16/CCITT-FALSE (polynomial 0x1021, initial value 0xFFFF,
// no reflection, no final XOR) over the bytes of s. A BR Code's check
// digit is CRC16 of everything up to and including "6304".
func CRC16(s string) uint16 {
	crc := uint16(0xFFFF)
	t := &crcTables
	for len(s) >= 8 {
		crc = t[7][s[0]^byte(crc>>8)] ^ t[6][s[1]^byte(crc)] ^
			t[5][s[2]] ^ t[4][s[3]] ^ t[3][s[4]] ^ t[2][s[5]] ^ t[1][s[6]] ^ t[0][s[7]]
		s = s[8:]
	}
	for i := 0; i < len(s); i++ {
		crc = crc<<8 ^ t[0][byte(crc>>8)^s[i]]
	}
	return crc
}

const hexUpper = "0123456789ABCDEF"

// CRC16Hex is CRC16 as four upper-case hexadecimal digits, as written in
// object 63.
func CRC16Hex(s string) string {
	c := CRC16(s)
	return string([]byte{hexUpper[c>>12], hexUpper[c>>8&0xF], hexUpper[c>>4&0xF], hexUpper[c&0xF]})
}

// parseHex4 reads four hexadecimal digits of either case.
func parseHex4(s string) (uint16, bool) {
	if len(s) != 4 {
		return 0, false
	}
	var v uint16
	for i := 0; i < 4; i++ {
		c := s[i]
		var d byte
		switch {
		case '0' <= c && c <= '9':
			d = c - '0'
		case 'A' <= c && c <= 'F':
			d = c - 'A' + 10
		case 'a' <= c && c <= 'f':
			d = c - 'a' + 10
		default:
			return 0, false
		}
		v = v<<4 | uint16(d)
	}
	return v, true
}
