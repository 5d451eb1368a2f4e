package pix

import "testing"

// Typical payloads: a bank's static code with key, description, amount
// and postal code, and the BCB sandbox's dynamic code.
func BenchmarkValidate(b *testing.B) {
	for _, bm := range []struct{ name, payload string }{
		{"static", bankStaticEmail},
		{"dynamic", bcbSandboxDynamic},
	} {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(bm.payload)))
			for b.Loop() {
				if _, probs := Validate(bm.payload); len(probs) > 0 {
					b.Fatal(probs)
				}
			}
		})
	}
}
