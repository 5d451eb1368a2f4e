package pix

import (
	"bytes"
	"errors"
	"flag"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func dark(img image.Image, x, y int) bool {
	r, g, b, _ := img.At(x, y).RGBA()
	return r+g+b < 3*0x8000
}

func TestQRPNG(t *testing.T) {
	t.Parallel()
	data, err := QRPNG(bcbStatic, 300)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	// 138 bytes at level M need version 8 (version 7 holds 122): 49
	// modules, 57 with the quiet zone, 5 pixels each within 300.
	const modules, scale = 49, 5
	side := (modules + 2*quietZone) * scale
	if b := img.Bounds(); b.Dx() != side || b.Dy() != side {
		t.Fatalf("image is %v, want %dx%d", b, side, side)
	}
	for i := range side {
		for _, p := range [][2]int{{i, 0}, {0, i}, {i, side - 1}, {side - 1, i}, {i, quietZone*scale - 1}} {
			if p[1] == quietZone*scale-1 && (p[0] < quietZone*scale || p[0] >= side-quietZone*scale) {
				continue
			}
			if p[1] != quietZone*scale-1 && dark(img, p[0], p[1]) {
				t.Fatalf("quiet zone pixel %v is dark", p)
			}
		}
	}
	// The three finder patterns: a dark 7x7 ring with a light ring inside.
	for _, corner := range [][2]int{{0, 0}, {modules - 7, 0}, {0, modules - 7}} {
		at := func(mx, my int) bool {
			return dark(img, (corner[0]+mx+quietZone)*scale+scale/2, (corner[1]+my+quietZone)*scale+scale/2)
		}
		if !at(0, 0) || !at(6, 6) || !at(6, 0) || at(1, 1) || at(5, 5) || !at(3, 3) {
			t.Fatalf("no finder pattern at module %v", corner)
		}
	}
	golden := filepath.Join("testdata", "bcb_static.png")
	if *update {
		if err := os.WriteFile(golden, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, want) {
		t.Fatalf("PNG differs from %s (run go test -update after checking it scans)", golden)
	}
}

func TestQRPNGSizeLimits(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ size, want int }{
		{0, 57},             // one pixel per module (version 8: 49 + 8)
		{56, 57},            // smaller than the symbol: still one per module
		{1 << 30, 71 * 57},  // capped at MaxQRSize: 4096/57 = 71 pixels per module
		{57*3 + 56, 57 * 3}, // whole pixels per module, never more than size
	} {
		data, err := QRPNG(bcbStatic, tt.size)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := png.DecodeConfig(bytes.NewReader(data))
		if err != nil || cfg.Width != tt.want || cfg.Height != tt.want {
			t.Errorf("size %d gives %dx%d, %v; want %d", tt.size, cfg.Width, cfg.Height, err, tt.want)
		}
	}
}

func TestQRPNGRefusesInvalidPayload(t *testing.T) {
	t.Parallel()
	_, err := QRPNG(bcbStatic[:len(bcbStatic)-4]+"0000", 300)
	var probs Problems
	if !errors.As(err, &probs) || !probs.Has(CodeCRCMismatch, FieldCRC) {
		t.Fatalf("QRPNG of a wrong CRC: %v", err)
	}
}
