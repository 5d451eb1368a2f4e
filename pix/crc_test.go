package pix

import "testing"

func TestCRC16CheckValue(t *testing.T) {
	t.Parallel()
	// The catalogue check value of CRC-16/CCITT-FALSE.
	if got := CRC16Hex("123456789"); got != "29B1" {
		t.Fatalf("CRC16Hex(123456789) = %s, want 29B1", got)
	}
	if got := CRC16(""); got != 0xFFFF {
		t.Fatalf("CRC16(\"\") = %04X, want the initial value FFFF", got)
	}
	if got := CRC16Hex("A"); got != "B915" {
		t.Fatalf("CRC16Hex(A) = %s, want B915", got)
	}
}

func TestCRC16PublishedPayloads(t *testing.T) {
	t.Parallel()
	for name, p := range map[string]string{
		"bcb static": bcbStatic, "bcb dynamic": bcbDynamic, "bcb composite": bcbComposite,
		"br code manual": bcbBRCode, "bank e-mail": bankStaticEmail, "sandbox": bcbSandboxDynamic,
		"accented city (UTF-8 bytes)": accentedCity,
	} {
		n := len(p) - 4
		if got := CRC16Hex(p[:n]); got != p[n:] {
			t.Errorf("%s: CRC16Hex = %s, payload says %s", name, got, p[n:])
		}
	}
}

func TestParseHex4(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]uint16{"1D3D": 0x1D3D, "1d3d": 0x1D3D, "ffff": 0xFFFF, "0000": 0} {
		if got, ok := parseHex4(in); !ok || got != want {
			t.Errorf("parseHex4(%q) = %04X, %v; want %04X", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "1D3", "1D3DD", "1G3D", " 1D3"} {
		if _, ok := parseHex4(in); ok {
			t.Errorf("parseHex4(%q) accepted", in)
		}
	}
}

// crcBitwise is the textbook bit-at-a-time CRC-16/CCITT-FALSE, to check
// the table-driven one against.
func crcBitwise(s string) uint16 {
	crc := uint16(0xFFFF)
	for i := 0; i < len(s); i++ {
		crc ^= uint16(s[i]) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc
}

func TestCRC16MatchesBitwise(t *testing.T) {
	t.Parallel()
	for n := range len(bcbBRCode) + 1 {
		for _, s := range []string{bcbBRCode[:n], accentedCity[:min(n, len(accentedCity))]} {
			if got, want := CRC16(s), crcBitwise(s); got != want {
				t.Fatalf("CRC16(%q) = %04X, bitwise %04X", s, got, want)
			}
		}
	}
}

func FuzzCRC16(f *testing.F) {
	f.Add("123456789")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := CRC16(s), crcBitwise(s); got != want {
			t.Fatalf("CRC16(%q) = %04X, bitwise %04X", s, got, want)
		}
	})
}
