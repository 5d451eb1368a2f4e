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

// Validating a valid payload allocates nothing: the Payload's strings are
// slices of the input, and problems are built only when found.
func TestValidateDoesNotAllocate(t *testing.T) {
	for _, p := range []string{bcbStatic, bankStaticEmail, bcbSandboxDynamic} {
		if n := testing.AllocsPerRun(100, func() { Validate(p) }); n != 0 {
			t.Errorf("Validate(%q) allocates %v times", p, n)
		}
	}
}
