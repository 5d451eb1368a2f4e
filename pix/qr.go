package pix

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"

	"github.com/boombuler/barcode/qr"
)

// quietZone is the white border, in modules, that the QR code standard
// (ISO/IEC 18004) requires around the symbol.
const quietZone = 4

// MaxQRSize caps the size asked of QRPNG, in pixels, so that a caller
// passing a size through cannot make it allocate without bound.
const MaxQRSize = 4096

// QRPNG draws a valid payload as a black-on-white QR code PNG, at error
// correction level M, with the standard 4-module quiet zone. Each module
// is drawn as a square of whole pixels, as large as fits in size pixels
// (at least one), so the image is at most size pixels wide (size is
// capped at [MaxQRSize]) unless size is smaller than the symbol itself.
// An invalid payload is refused with its [Problems].
func QRPNG(payload string, size int) ([]byte, error) {
	if _, probs := Validate(payload); len(probs) > 0 {
		return nil, fmt.Errorf("drawing PIX QR code: %w", probs)
	}
	code, err := qr.Encode(payload, qr.M, qr.Auto)
	if err != nil {
		return nil, fmt.Errorf("encoding PIX QR code: %w", err)
	}
	modules := code.Bounds().Dx()
	side := modules + 2*quietZone
	scale := max(min(size, MaxQRSize)/side, 1)
	img := image.NewPaletted(image.Rect(0, 0, side*scale, side*scale),
		color.Palette{color.White, color.Black})
	row := make([]uint8, side*scale) // one pixel row of a module row
	for y := range modules {
		clear(row)
		for x := range modules {
			if isDark(code.At(x, y)) {
				start := (x + quietZone) * scale
				for i := start; i < start+scale; i++ {
					row[i] = 1
				}
			}
		}
		for py := (y + quietZone) * scale; py < (y+quietZone+1)*scale; py++ {
			copy(img.Pix[py*img.Stride:], row)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("writing PIX QR code PNG: %w", err)
	}
	return buf.Bytes(), nil
}

func isDark(c color.Color) bool {
	y := color.Gray16Model.Convert(c).(color.Gray16).Y
	return y < 0x8000
}
