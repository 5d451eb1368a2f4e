package benchdata

import (
	"testing"

	"github.com/propfin/propfin/storage"
)

// TestTaxIDs: the generated CPFs and CNPJs have the check digits the API
// checks, and known ones come out right.
func TestTaxIDs(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ got, want string }{
		{cpf(111_444_777), "11144477735"},
		{cnpj(11_222_333), "11222333000181"},
	} {
		if c.got != c.want {
			t.Errorf("got %s, want %s", c.got, c.want)
		}
	}
	for n := int64(1); n < 2_000; n += 7 {
		for _, id := range []string{cpf(n * 104_729), cnpj(n * 7_919)} {
			if msg := storage.CheckTaxID(id); msg != "" {
				t.Fatalf("%s: %s", id, msg)
			}
		}
	}
}
