package receipt

import (
	"encoding/base64"
	"encoding/xml"
	"fmt"
	"sort"
	"strings"
	"testing"
)

// svgSymbol is the part of the barcode SVG a scanner sees: the bars.
type svgSymbol struct {
	ViewBox string `xml:"viewBox,attr"`
	Bars    []struct {
		X     int `xml:"x,attr"`
		Width int `xml:"width,attr"`
	} `xml:"g>rect"`
}

// readWidths returns the element widths between the quiet zones (bar,
// space, bar, ...) and the quiet zones' widths.
func readWidths(t *testing.T, svg []byte) (widths []int, left, right int) {
	t.Helper()
	var s svgSymbol
	if err := xml.Unmarshal(svg, &s); err != nil {
		t.Fatalf("barcode SVG does not parse: %v", err)
	}
	var total, height int
	if _, err := fmt.Sscanf(s.ViewBox, "0 0 %d %d", &total, &height); err != nil {
		t.Fatalf("viewBox %q: %v", s.ViewBox, err)
	}
	if len(s.Bars) == 0 {
		t.Fatal("barcode has no bars")
	}
	sort.Slice(s.Bars, func(i, j int) bool { return s.Bars[i].X < s.Bars[j].X })
	end := s.Bars[0].X
	for i, b := range s.Bars {
		if i > 0 {
			if b.X <= end {
				t.Fatalf("bar %d at %d overlaps or touches the previous one (ends %d)", i, b.X, end)
			}
			widths = append(widths, b.X-end)
		}
		widths = append(widths, b.Width)
		end = b.X + b.Width
	}
	return widths, s.Bars[0].X, total - end
}

// decodeI2of5 reads digits back from element widths by the standard's
// rule, independently of the encoder's table: each digit has two wide
// elements of five, the first four weighing 1, 2, 4 and 7; a sum of 11 is 0.
func decodeI2of5(t *testing.T, widths []int) string {
	t.Helper()
	narrow := widths[0]
	isWide := func(w int) bool { return w >= 2*narrow }
	if len(widths) < 7 || fmt.Sprint(widths[:4]) != fmt.Sprint([]int{narrow, narrow, narrow, narrow}) {
		t.Fatalf("start pattern is %v, want four narrow elements", widths[:min(4, len(widths))])
	}
	stop := widths[len(widths)-3:]
	if !isWide(stop[0]) || isWide(stop[1]) || isWide(stop[2]) {
		t.Fatalf("stop pattern is %v, want wide bar, narrow space, narrow bar", stop)
	}
	body := widths[4 : len(widths)-3]
	if len(body)%10 != 0 {
		t.Fatalf("%d elements between start and stop, want a multiple of 10", len(body))
	}
	var digits strings.Builder
	for i := 0; i < len(body); i += 10 {
		for _, off := range []int{0, 1} { // bars, then spaces
			var els []int
			for j := off; j < 10; j += 2 {
				els = append(els, body[i+j])
			}
			digits.WriteByte(decodeDigit(t, els, isWide))
		}
	}
	return digits.String()
}

func decodeDigit(t *testing.T, els []int, isWide func(int) bool) byte {
	t.Helper()
	weights := []int{1, 2, 4, 7, 0}
	sum, wides := 0, 0
	for k, w := range els {
		if isWide(w) {
			sum += weights[k]
			wides++
		}
	}
	if wides != 2 {
		t.Fatalf("digit elements %v have %d wide, want 2", els, wides)
	}
	if sum == 11 {
		sum = 0
	}
	if sum > 9 {
		t.Fatalf("digit elements %v sum to %d", els, sum)
	}
	return byte('0' + sum)
}

func TestBarcodeSVGDecodes(t *testing.T) {
	t.Parallel()
	tests := []string{
		testBarcode,
		"0123456789",
		"9876543210",
		"00",
		"99",
		"00000000000000000000000000000000000000000000",
	}
	for _, digits := range tests {
		svg, err := barcodeSVG(digits)
		if err != nil {
			t.Fatalf("barcodeSVG(%s): %v", digits, err)
		}
		widths, left, right := readWidths(t, svg)
		if got := decodeI2of5(t, widths); got != digits {
			t.Errorf("barcode of %s decodes to %s", digits, got)
		}
		if left < 10*widths[0] || right < 10*widths[0] {
			t.Errorf("quiet zones %d and %d, want at least 10 narrow widths", left, right)
		}
	}
}

func TestBarcodeSVGGeometry(t *testing.T) {
	t.Parallel()
	svg, err := barcodeSVG(testBarcode)
	if err != nil {
		t.Fatal(err)
	}
	widths, _, _ := readWidths(t, svg)
	sum := 0
	for _, w := range widths {
		sum += w
	}
	if sum != 405 { // 4 start + 44 digits of 9 units + 5 stop, at 3:1
		t.Errorf("symbol is %d narrow units wide, want 405", sum)
	}
	if !strings.Contains(string(svg), `width="133.5mm" height="13mm"`) {
		t.Errorf("SVG does not print at 133.5 x 13 mm: %.200s", svg)
	}
}

func TestBarcodeSVGRefuses(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"", "1", "123", "12a4", "１２"} {
		if _, err := barcodeSVG(in); err == nil {
			t.Errorf("barcodeSVG(%q) succeeded, want an error", in)
		}
	}
}

func TestBarcodeDataURI(t *testing.T) {
	t.Parallel()
	uri, err := barcodeDataURI(testBarcode)
	if err != nil {
		t.Fatal(err)
	}
	const prefix = "data:image/svg+xml;base64,"
	if !strings.HasPrefix(string(uri), prefix) {
		t.Fatalf("data URI starts %.40q", uri)
	}
	svg, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(string(uri), prefix))
	if err != nil {
		t.Fatal(err)
	}
	widths, _, _ := readWidths(t, svg)
	if got := decodeI2of5(t, widths); got != testBarcode {
		t.Errorf("data URI barcode decodes to %s, want %s", got, testBarcode)
	}
}
