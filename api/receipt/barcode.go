package receipt

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html/template"
	"math"
	"strconv"
)

// The boleto barcode is Interleaved 2 of 5 (FEBRABAN): digits are taken in
// pairs, the first digit of a pair drawn in the bars and the second in the
// spaces between them, each digit as five elements of which two are wide.
// The symbol opens with the start pattern (narrow bar, narrow space,
// narrow bar, narrow space) and closes with the stop pattern (wide bar,
// narrow space, narrow bar).
const (
	narrowUnits = 1
	wideUnits   = 3  // wide to narrow 3:1, the top of the range the standard allows
	quietUnits  = 20 // blank on each side; at unitMM, 6 mm
	// unitMM is the printed width of a narrow element, within the 0.25 to
	// 0.38 mm that boleto printing guides give; the 44-digit symbol is then
	// 121.5 mm wide plus the quiet zones.
	unitMM = 0.3
	// barHeightMM is the height FEBRABAN asks of the bars.
	barHeightMM = 13
)

// i2of5 gives, per digit, which of its five elements are wide ('w'). The
// first four positions weigh 1, 2, 4 and 7, the fifth is parity: a digit
// is the sum of the weights of its wide elements, 11 standing for 0.
var i2of5 = [10]string{
	"nnwwn", "wnnnw", "nwnnw", "wwnnn", "nnwnw",
	"wnwnn", "nwwnn", "nnnww", "wnnwn", "nwnwn",
}

// i2of5Widths returns the widths, in narrow units, of the symbol's
// elements from the start pattern to the stop pattern, alternately bar
// and space and starting with a bar. digits must be an even number of
// decimal digits.
func i2of5Widths(digits string) ([]int, error) {
	if len(digits) == 0 || len(digits)%2 != 0 || !isDigits(digits) {
		return nil, fmt.Errorf("interleaved 2 of 5 needs an even number of digits, got %q", digits)
	}
	widths := make([]int, 0, 4+len(digits)*5+3)
	widths = append(widths, narrowUnits, narrowUnits, narrowUnits, narrowUnits)
	for i := 0; i < len(digits); i += 2 {
		bars, spaces := i2of5[digits[i]-'0'], i2of5[digits[i+1]-'0']
		for j := range 5 {
			widths = append(widths, elementWidth(bars[j]), elementWidth(spaces[j]))
		}
	}
	return append(widths, wideUnits, narrowUnits, narrowUnits), nil
}

func elementWidth(c byte) int {
	if c == 'w' {
		return wideUnits
	}
	return narrowUnits
}

// barcodeSVG draws digits as an Interleaved 2 of 5 symbol: an SVG whose
// user unit is one narrow element, printed at unitMM per unit.
func barcodeSVG(digits string) ([]byte, error) {
	widths, err := i2of5Widths(digits)
	if err != nil {
		return nil, err
	}
	total := quietUnits * 2
	for _, w := range widths {
		total += w
	}
	height := int(math.Round(barHeightMM / unitMM))
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%smm" height="%dmm" viewBox="0 0 %d %d" shape-rendering="crispEdges">`,
		strconv.FormatFloat(float64(total)*unitMM, 'f', -1, 64), barHeightMM, total, height)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#fff"/><g fill="#000">`, total, height)
	x := quietUnits
	for i, w := range widths {
		if i%2 == 0 { // a bar
			fmt.Fprintf(&b, `<rect x="%d" width="%d" height="%d"/>`, x, w, height)
		}
		x += w
	}
	b.WriteString(`</g></svg>`)
	return b.Bytes(), nil
}

// barcodeDataURI is the boleto barcode as an image data: URI.
func barcodeDataURI(barcode string) (template.URL, error) {
	svg, err := barcodeSVG(stripPunct(barcode))
	if err != nil {
		return "", fmt.Errorf("drawing boleto barcode: %w", err)
	}
	return template.URL("data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString(svg)), nil
}
