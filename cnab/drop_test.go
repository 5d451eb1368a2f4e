package cnab

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

// span is a field of a record at the positions the bank's document
// prints, with the document's name.
type span struct {
	start, end int
	name       string
}

// dropLayout is what the drop test checks of one layout, transcribed from
// the bank's document (docs/cnab.md): where the movement code is, the
// fields that identify the title (the drop must carry them as the entry
// did), a few fields of the entry the drop leaves empty, and the line of
// the second title's entry in the layout's golden.
type dropLayout struct {
	movement  span
	same      []span
	empty     []span
	entryLine int
}

// cnab400Drop is the CNAB 400 layouts' common part: movement 109-110,
// seu número 111-120, due date 121-126, amount 127-139; issue date
// 151-156 and the payer's CPF/CNPJ 221-234 empty.
func cnab400Drop(movement string, ours ...span) dropLayout {
	return dropLayout{
		movement: span{109, 110, movement},
		same: append(ours,
			span{111, 120, "Seu número"}, span{121, 126, "Data de vencimento"}, span{127, 139, "Valor do título"}),
		empty:     []span{{151, 156, "Data de emissão"}, {221, 234, "CPF/CNPJ do pagador"}},
		entryLine: 3,
	}
}

// cnab240Drop is the CNAB 240 layouts' common part of segment P:
// movement 16-17 (C004), due date 78-85, amount 86-100; issue date
// 110-117 and protest code 221 empty.
func cnab240Drop(entryLine int, ours ...span) dropLayout {
	return dropLayout{
		movement: span{16, 17, "Código de Movimento Remessa"},
		same:     append(ours, span{78, 85, "Data de Vencimento do Título"}, span{86, 100, "Valor Nominal do Título"}),
		empty: []span{{110, 117, "Data da Emissão do Título"}, {221, 221, "Código para Protesto"},
			{107, 108, "Espécie do Título"}},
		entryLine: entryLine,
	}
}

var dropLayouts = map[string]dropLayout{
	"001_400": cnab400Drop("Comando", span{64, 80, "Nosso-Número"}, span{39, 63, "Código de Controle da Empresa"}),
	"033_400": cnab400Drop("Código da ocorrência", span{63, 70, "Nosso número"}, span{38, 62, "Número de controle do participante"}),
	"041_400": cnab400Drop("Código de ocorrência", span{63, 72, "Nosso número"}, span{38, 62, "Identificação do título para o beneficiário"}),
	"237_400": cnab400Drop("Identificação da ocorrência", span{71, 82, "Identificação do Título no Banco"}, span{38, 62, "Nº Controle do Participante"}),
	"341_400": cnab400Drop("Cód. de Ocorrência", span{63, 70, "Nosso Número"}, span{38, 62, "Uso da Empresa"}),
	"748_400": cnab400Drop("Instrução", span{48, 56, "Nosso número Sicredi"}),
	"756_400": cnab400Drop("Comando/Movimento", span{63, 74, "Nosso Número e DV"}, span{38, 62, "Número de Controle do Participante"}),
	"001_240": cnab240Drop(6, span{38, 57, "Identificação do Título no Banco"}, span{63, 77, "Número do Documento de Cobrança"},
		span{196, 220, "Identificação do Título na Empresa"}),
	"033_240": cnab240Drop(6, span{45, 57, "Identificação do título no Banco"}, span{63, 77, "Nº do documento"},
		span{196, 220, "Identificação do título na empresa"}),
	"041_240": cnab240Drop(6, span{38, 47, "Nosso número"}, span{63, 77, "Número do documento de cobrança"},
		span{196, 220, "Identificação do título na empresa"}),
	"104_240": cnab240Drop(6, span{43, 57, "Identificação do Título no Banco"}, span{63, 73, "Número do Documento de Cobrança"},
		span{196, 220, "Identificação do Título na Empresa"}),
	"237_240": cnab240Drop(6, span{46, 57, "Nosso Número e dígito"}, span{63, 77, "Número do Documento de Cobrança"},
		span{196, 220, "Identificação do Título na Empresa"}),
	"341_240": cnab240Drop(5, span{41, 49, "Nosso Número e DAC"}, span{63, 72, "Nº do Documento"}, span{196, 220, "Uso da Empresa"}),
	"748_240": cnab240Drop(6, span{38, 57, "Identificação do título no banco"}, span{63, 77, "Nº do documento de cobrança"},
		span{196, 220, "Identificação do título na empresa"}),
	"756_240": cnab240Drop(6, span{38, 57, "Nosso Número"}, span{63, 77, "Número do Documento de Cobrança"},
		span{196, 220, "Identificação do Título na Empresa"}),
}

// writeWithDrop writes a testdata remittance's first title and a drop of
// its second, and returns the file and the second title.
func writeWithDrop(t *testing.T, key string) ([]byte, Title) {
	t.Helper()
	rem, titles := sample(t, key)
	var buf bytes.Buffer
	w, err := NewWriter(&buf, rem, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(titles[0]); err != nil {
		t.Fatal(err)
	}
	second := titles[1]
	d := Drop{OurNumber: second.OurNumber, DocumentNumber: second.DocumentNumber, Control: second.Control,
		Amount: second.Amount, Due: second.Due}
	if err := w.Drop(d); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if w.Titles() != 1 || w.Drops() != 1 {
		t.Errorf("titles %d, drops %d; want 1 and 1", w.Titles(), w.Drops())
	}
	return buf.Bytes(), second
}

// TestDropGolden writes, for every layout, a remittance of one title and a
// drop of another (testdata/drops/<bank>_<layout>.rem, -update rewrites
// them), and reads the drop's record at the document's positions: the
// movement code 02 where the entry has 01, the title's identification as
// its entry carries it, and the entry's other fields empty.
func TestDropGolden(t *testing.T) {
	t.Parallel()
	for key := range specs {
		name := key.bank + "_" + itoa(int(key.layout))
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sp := specs[key]
			got, _ := writeWithDrop(t, name)
			golden := filepath.Join("testdata", "drops", name+".rem")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("output differs from %s:\n%s", golden, firstDiff(got, want))
			}
			dl, ok := dropLayouts[name]
			if !ok {
				t.Fatalf("no drop positions for %s", name)
			}
			lines := fileLines(got, sp)
			trailers := 1
			if key.layout == CNAB240 {
				trailers = 2
			}
			drop := lines[len(lines)-trailers-1]
			entries, _ := writeInput(t, filepath.Join("testdata", name+".json"))
			entry := fileLines(entries, sp)[dl.entryLine-1]
			checkDropLine(t, dl, drop, entry)
		})
	}
}

// fileLines splits a file into its records.
func fileLines(data []byte, sp *spec) []string {
	data = bytes.TrimSuffix(data, []byte(sp.eof))
	data = bytes.TrimSuffix(data, []byte(sp.eol))
	return strings.Split(string(data), sp.eol)
}

func checkDropLine(t *testing.T, dl dropLayout, drop, entry string) {
	t.Helper()
	at := func(line string, s span) string { return line[s.start-1 : s.end] }
	if got := at(drop, dl.movement); got != "02" {
		t.Errorf("drop %s (%d-%d) = %q, want 02", dl.movement.name, dl.movement.start, dl.movement.end, got)
	}
	if got := at(entry, dl.movement); got != "01" {
		t.Errorf("entry %s (%d-%d) = %q, want 01", dl.movement.name, dl.movement.start, dl.movement.end, got)
	}
	for _, s := range dl.same {
		got, want := at(drop, s), at(entry, s)
		if got != want || strings.Trim(want, " 0") == "" {
			t.Errorf("drop %s (%d-%d) = %q, want the entry's %q", s.name, s.start, s.end, got, want)
		}
	}
	for _, s := range dl.empty {
		if got := at(drop, s); strings.Trim(got, "0") != "" && strings.Trim(got, " ") != "" {
			t.Errorf("drop %s (%d-%d) = %q, want it empty", s.name, s.start, s.end, got)
		}
	}
}

// TestDropTrailers checks that a drop counts in the trailers: the file's
// records, and where a trailer totals the titles (CNAB 240 batch trailer
// 24-46; Santander 400 8-20; Banrisul 400 28-40), one more title and its
// amount.
func TestDropTrailers(t *testing.T) {
	t.Parallel()
	totals := map[string]span{
		"033_400": {8, 20, "Valor total dos títulos"},
		"041_400": {28, 40, "Total geral dos valores dos títulos"},
	}
	for key, sp := range specs {
		name := key.bank + "_" + itoa(int(key.layout))
		got, second := writeWithDrop(t, name)
		lines := fileLines(got, sp)
		_, titles := sample(t, name)
		sum := titles[0].Amount.Add(second.Amount)
		if key.layout == CNAB400 {
			last := lines[len(lines)-1]
			if n := last[394:400]; n != zeroPad(itoa(len(lines)), 6) {
				t.Errorf("%s: trailer record number %s, want %d", name, n, len(lines))
			}
			if s, ok := totals[name]; ok {
				if v := last[s.start-1 : s.end]; v != zeroPad(centsText(sum), s.end-s.start+1) {
					t.Errorf("%s: %s = %s, want %s", name, s.name, v, centsText(sum))
				}
			}
			continue
		}
		file, batch := lines[len(lines)-1], lines[len(lines)-2]
		if n := file[23:29]; n != zeroPad(itoa(len(lines)), 6) {
			t.Errorf("%s: file trailer record count %s, want %d", name, n, len(lines))
		}
		if n := batch[17:23]; n != zeroPad(itoa(len(lines)-2), 6) {
			t.Errorf("%s: batch trailer record count %s, want %d", name, n, len(lines)-2)
		}
		if strings.TrimSpace(batch[23:46]) == "" {
			continue // the layout has no titles' totals (Santander)
		}
		if n, v := batch[23:29], batch[29:46]; n != "000002" || v != zeroPad(centsText(sum), 17) {
			t.Errorf("%s: batch trailer titles %s total %s, want 2 and %s", name, n, v, centsText(sum))
		}
	}
}

func zeroPad(s string, n int) string { return strings.Repeat("0", n-len(s)) + s }

func centsText(d decimal.Decimal) string { return d.Shift(2).StringFixed(0) }

// TestDropProblems checks a drop's own checks, that a rejected drop leaves
// the file whole (the titles after it are written and the file closes),
// and that problems count drops in the stream's indexes.
func TestDropProblems(t *testing.T) {
	t.Parallel()
	rem, titles := sample(t, "341_400")
	var buf bytes.Buffer
	w, err := NewWriter(&buf, rem, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = w.Drop(Drop{Amount: decimal.RequireFromString("1.005")})
	var ps Problems
	if !errors.As(err, &ps) {
		t.Fatalf("a bad drop: %v, want Problems", err)
	}
	fields := map[string]bool{}
	for _, p := range ps {
		fields[p.Field] = true
		if p.Title != 0 {
			t.Errorf("problem %v: index %d, want 0", p, p.Title)
		}
	}
	for _, f := range []string{"our_number", "document_number", "amount", "due"} {
		if !fields[f] {
			t.Errorf("no problem on %s in %v", f, ps)
		}
	}
	err = w.Write(Title{})
	if !errors.As(err, &ps) || ps[0].Title != 1 {
		t.Fatalf("a bad title after a bad drop: %v, want Problems of title 1", err)
	}
	w2, _ := NewWriter(&bytes.Buffer{}, rem, nil)
	_ = w2.Drop(Drop{})
	if err := w2.Write(titles[0]); err != nil {
		t.Fatal(err)
	}
	if err := w2.Close(); err != nil {
		t.Errorf("a file with a rejected drop: Close = %v, want it whole", err)
	}
	if w2.Drops() != 0 || w2.Titles() != 1 {
		t.Errorf("drops %d titles %d, want 0 and 1", w2.Drops(), w2.Titles())
	}
}
