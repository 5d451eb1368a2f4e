package storage_test

import (
	"strings"
	"testing"

	"github.com/propfin/propfin/storage"
)

// TestShippedBanks: the shipped list of STR participants reads, and names
// the banks by their codes.
func TestShippedBanks(t *testing.T) {
	t.Parallel()
	if n := len(storage.ShippedBanks()); n < 400 {
		t.Errorf("the shipped list has %d banks with a code, want the Banco Central's ~450", n)
	}
	for _, c := range []struct{ code, ispb, name string }{
		{"001", "00000000", "Banco do Brasil S.A."},
		{"104", "00360305", "CAIXA ECONOMICA FEDERAL"},
		{"237", "60746948", "Banco Bradesco S.A."},
		{"341", "60701190", "ITAÚ UNIBANCO S.A."},
		{"260", "18236120", "NU PAGAMENTOS S.A. - INSTITUIÇÃO DE PAGAMENTO"},
		{"756", "02038232", "BANCO COOPERATIVO SICOOB S.A. - BANCO SICOOB"},
	} {
		b, ok := storage.BankByCode(c.code)
		if !ok || b.ISPB != c.ispb || b.Name != c.name {
			t.Errorf("bank %s: %+v %v, want ISPB %s, %s", c.code, b, ok, c.ispb, c.name)
		}
	}
	for _, code := range []string{"n/a", "0", "999", "000"} {
		if b, ok := storage.BankByCode(code); ok {
			t.Errorf("code %q is %+v", code, b)
		}
	}
}

// TestReadParticipants: the reader takes the Banco Central's file as
// published (a BOM, quoted names with commas, rows without a code) and
// refuses one it would misread.
func TestReadParticipants(t *testing.T) {
	t.Parallel()
	const header = "ISPB,Nome_Reduzido,Número_Código,Participa_da_Compe,Acesso_Principal,Nome_Extenso,Início_da_Operação\n"
	good := "\ufeff" + header +
		"00000000,BCO DO BRASIL S.A.,001,Sim,RSFN,Banco do Brasil S.A.   ,22/04/2002\n" +
		"00038166,Bacen,n/a,Não,RSFN,Banco Central do Brasil,22/04/2002\n" +
		"00122327,SANTINVEST S.A. - CFI,539,Não,RSFN,\"SANTINVEST S.A. - CREDITO, FINANCIAMENTO E INVESTIMENTOS\",17/04/2023\n"
	banks, err := storage.ReadParticipants([]byte(good))
	if err != nil || len(banks) != 2 || banks["001"].Name != "Banco do Brasil S.A." ||
		banks["539"].Name != "SANTINVEST S.A. - CREDITO, FINANCIAMENTO E INVESTIMENTOS" {
		t.Errorf("the published form: %v %v", banks, err)
	}
	for name, data := range map[string]string{
		"a code twice":   header + "00000000,A,001,Sim,RSFN,A,22/04/2002\n00000001,B,001,Sim,RSFN,B,22/04/2002\n",
		"a column less":  header + "00000000,A,001,Sim,RSFN,22/04/2002\n",
		"another header": "code,name\n001,A\n",
		"empty":          "",
	} {
		if _, err := storage.ReadParticipants([]byte(data)); err == nil {
			t.Errorf("%s: read", name)
		}
	}
}

// TestCheckBankCode: a bank column takes the code of a bank of the list.
func TestCheckBankCode(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		value, words string // words: "" for accepted
	}{
		{"001", ""},
		{"341", ""},
		{"260", ""},
		{"999", "999 is not the code of a bank"},
		{"000", "000 is not the code of a bank"},
		{"41", "3-digit code"},
		{"0341", "3-digit code"},
		{"ab1", "3-digit code"},
		{"", "3-digit code"},
	} {
		got := storage.CheckBankCode(c.value)
		if (c.words == "") != (got == "") || !strings.Contains(got, c.words) {
			t.Errorf("%q: %q, want %q", c.value, got, c.words)
		}
	}
}
