package cnab

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// spot is one field of a golden file checked against the bank's document:
// line is 1-based, start and end are the positions the document prints,
// want is what the testdata input puts there (text fields may omit their
// trailing spaces).
type spot struct {
	line       int
	start, end int
	name       string
	want       string
}

// positions lists, for each golden, fields read at the positions of the
// bank's layout document cited in docs/cnab.md. They are transcribed from
// the documents separately from the tables in the layout files, so a
// mistake in a table shows here.
var positions = map[string][]spot{
	"237_400": {
		{1, 1, 1, "Identificação do Registro", "0"},
		{1, 2, 2, "Identificação do Arquivo Remessa", "1"},
		{1, 3, 9, "Literal Remessa", "REMESSA"},
		{1, 10, 11, "Código de Serviço", "01"},
		{1, 12, 26, "Literal Serviço", "COBRANCA"},
		{1, 27, 46, "Código da Empresa", "00000000000004567890"},
		{1, 47, 76, "Nome da Empresa", "IMOBILIARIA CONCEICAO & FILHOS"},
		{1, 77, 79, "Número do Bradesco na Câmara de Compensação", "237"},
		{1, 80, 94, "Nome do Banco por Extenso", "BRADESCO"},
		{1, 95, 100, "Data da Gravação do Arquivo", "030325"},
		{1, 109, 110, "Identificação do sistema", "MX"},
		{1, 111, 117, "Nº Seqüencial de Remessa", "0000042"},
		{1, 395, 400, "Nº Seqüencial do Registro", "000001"},
		{2, 1, 1, "Identificação do Registro", "1"},
		{2, 21, 37, "Identificação da Empresa Beneficiária no Banco", "00090123400123456"},
		{2, 38, 62, "Nº Controle do Participante", "INV-2025-03-0001"},
		{2, 66, 66, "Campo de Multa", "0"},
		{2, 71, 81, "Identificação do Título no Banco", "00000000001"},
		{2, 93, 93, "Condição para Emissão da Papeleta de Cobrança", "2"},
		{2, 109, 110, "Identificação da ocorrência", "01"},
		{2, 111, 120, "Nº do Documento", "ALUG-0001"},
		{2, 121, 126, "Data do Vencimento do Título", "100325"},
		{2, 127, 139, "Valor do Título", "0000000150000"},
		{2, 148, 149, "Espécie de Título", "01"},
		{2, 150, 150, "Identificação", "N"},
		{2, 151, 156, "Data da emissão do Título", "010325"},
		{2, 157, 160, "1ª e 2ª instrução", "0000"},
		{2, 219, 220, "Tipo de Inscrição do Pagador", "01"},
		{2, 221, 234, "Nº Inscrição do Pagador", "00012345678909"},
		{2, 235, 274, "Nome do Pagador", "JOAO DA SILVA ARAUJO"},
		{2, 275, 314, "Endereço Completo", "RUA DAS ACACIAS, 123 APTO 45"},
		{2, 327, 331, "CEP", "90000"},
		{2, 332, 334, "Sufixo do CEP", "123"},
		{2, 395, 400, "Nº Seqüencial do Registro", "000002"},
		{3, 66, 66, "Campo de Multa", "2"},
		{3, 67, 70, "Percentual de multa", "0200"},
		{3, 71, 81, "Identificação do Título no Banco", "00000000002"},
		{3, 148, 149, "Espécie de Título", "05"},
		{3, 157, 158, "1ª instrução (protestar)", "06"},
		{3, 159, 160, "2ª instrução (dias)", "10"},
		{3, 161, 173, "Valor a ser cobrado por Dia de Atraso", "0000000000078"},
		{3, 174, 179, "Data Limite P/Concessão de Desconto", "050425"},
		{3, 180, 192, "Valor do Desconto", "0000000005000"},
		{3, 219, 220, "Tipo de Inscrição do Pagador", "02"},
		{3, 221, 234, "Nº Inscrição do Pagador", "11444777000161"},
		{3, 235, 274, "Nome do Pagador", "CONDOMINIO EDIFICIO SAO LUIS"},
		{3, 395, 400, "Nº Seqüencial do Registro", "000003"},
		{4, 1, 1, "Identificação Registro", "9"},
		{4, 395, 400, "Número Seqüencial de Registro", "000004"},
	},
	"341_400": {
		{1, 1, 1, "Tipo de Registro", "0"},
		{1, 2, 2, "Operação", "1"},
		{1, 3, 9, "Literal de Remessa", "REMESSA"},
		{1, 10, 11, "Código do Serviço", "01"},
		{1, 12, 26, "Literal de Serviço", "COBRANCA"},
		{1, 27, 30, "Agência", "1234"},
		{1, 31, 32, "Zeros", "00"},
		{1, 33, 37, "Conta", "12345"},
		{1, 38, 38, "DAC", "1"},
		{1, 47, 76, "Nome da Empresa", "IMOBILIARIA CONCEICAO & FILHOS"},
		{1, 77, 79, "Código do Banco", "341"},
		{1, 80, 94, "Nome do Banco", "BANCO ITAU SA"},
		{1, 95, 100, "Data de Geração", "030325"},
		{1, 395, 400, "Número Seqüencial", "000001"},
		{2, 1, 1, "Tipo de Registro", "1"},
		{2, 2, 3, "Código de Inscrição", "02"},
		{2, 4, 17, "Número de Inscrição", "11222333000181"},
		{2, 18, 21, "Agência", "1234"},
		{2, 24, 28, "Conta", "12345"},
		{2, 29, 29, "DAC", "1"},
		{2, 38, 62, "Uso da Empresa", "INV-2025-03-0001"},
		{2, 63, 70, "Nosso Número", "00000001"},
		{2, 71, 83, "Qtde de Moeda", "0000000000000"},
		{2, 84, 86, "Nº da Carteira", "109"},
		{2, 108, 108, "Carteira", "I"},
		{2, 109, 110, "Cód. de Ocorrência", "01"},
		{2, 111, 120, "Nº do Documento", "ALUG-0001"},
		{2, 121, 126, "Vencimento", "100325"},
		{2, 127, 139, "Valor do Título", "0000000150000"},
		{2, 140, 142, "Código do Banco", "341"},
		{2, 148, 149, "Espécie", "01"},
		{2, 150, 150, "Aceite", "N"},
		{2, 151, 156, "Data de Emissão", "010325"},
		{2, 157, 158, "Instrução 1", "00"},
		{2, 219, 220, "Código de Inscrição", "01"},
		{2, 221, 234, "Número de Inscrição", "00012345678909"},
		{2, 235, 264, "Nome", "JOAO DA SILVA ARAUJO"},
		{2, 275, 314, "Logradouro", "RUA DAS ACACIAS, 123 APTO 45"},
		{2, 315, 326, "Bairro", "JARDIM BOTAN"},
		{2, 327, 334, "CEP", "90000123"},
		{2, 335, 349, "Cidade", "PORTO ALEGRE"},
		{2, 350, 351, "Estado", "RS"},
		{2, 386, 391, "Data de Mora", "000000"},
		{2, 392, 393, "Prazo", "00"},
		{2, 395, 400, "Número Seqüencial", "000002"},
		{3, 63, 70, "Nosso Número", "00000002"},
		{3, 148, 149, "Espécie", "05"},
		{3, 157, 158, "Instrução 1 (protestar)", "09"},
		{3, 161, 173, "Juros de 1 Dia", "0000000000078"},
		{3, 174, 179, "Desconto Até", "050425"},
		{3, 180, 192, "Valor do Desconto", "0000000005000"},
		{3, 386, 391, "Data de Mora", "110425"},
		{3, 392, 393, "Prazo", "10"},
		{3, 395, 400, "Número Seqüencial", "000003"},
		{4, 1, 1, "Tipo de Registro (multa)", "2"},
		{4, 2, 2, "Código da Multa", "2"},
		{4, 3, 10, "Data da Multa", "10042025"},
		{4, 11, 23, "Multa", "0000000000200"},
		{4, 395, 400, "Número Seqüencial", "000004"},
		{5, 1, 1, "Tipo de Registro", "9"},
		{5, 395, 400, "Número Seqüencial", "000005"},
	},
	"001_400": {
		{1, 1, 1, "Identificação do Registro Header", "0"},
		{1, 2, 2, "Tipo de Operação", "1"},
		{1, 3, 9, "Identificação por Extenso do Tipo de Operação", "REMESSA"},
		{1, 10, 11, "Identificação do Tipo de Serviço", "01"},
		{1, 12, 19, "Identificação por Extenso do Tipo de Serviço", "COBRANCA"},
		{1, 27, 30, "Prefixo da Agência", "1234"},
		{1, 31, 31, "DV do Prefixo da Agência", "3"},
		{1, 32, 39, "Número da Conta Corrente", "12345678"},
		{1, 40, 40, "DV do Número da Conta Corrente", "9"},
		{1, 41, 46, "Complemento do Registro", "000000"},
		{1, 47, 76, "Nome do Cedente", "IMOBILIARIA CONCEICAO & FILHOS"},
		{1, 77, 94, "001BANCODOBRASIL", "001BANCODOBRASIL"},
		{1, 95, 100, "Data da Gravação", "030325"},
		{1, 101, 107, "Seqüencial da Remessa", "0000042"},
		{1, 130, 136, "Número do Convênio Líder", "1234567"},
		{1, 395, 400, "Seqüencial do Registro", "000001"},
		{2, 1, 1, "Identificação do Registro Detalhe", "7"},
		{2, 2, 3, "Tipo de Inscrição do Cedente", "02"},
		{2, 4, 17, "Número do CPF/CNPJ do Cedente", "11222333000181"},
		{2, 18, 21, "Prefixo da Agência", "1234"},
		{2, 22, 22, "DV do Prefixo da Agência", "3"},
		{2, 23, 30, "Número da Conta Corrente do Cedente", "12345678"},
		{2, 31, 31, "DV do Número da Conta Corrente", "9"},
		{2, 32, 38, "Número do Convênio de Cobrança do Cedente", "1234567"},
		{2, 39, 63, "Código de Controle da Empresa", "INV-2025-03-0001"},
		{2, 64, 80, "Nosso-Número", "12345670000000001"},
		{2, 81, 84, "Número da Prestação e Grupo de Valor", "0000"},
		{2, 92, 94, "Variação da Carteira", "019"},
		{2, 95, 101, "Conta Caução e Número do Borderô", "0000000"},
		{2, 102, 106, "Tipo de Cobrança", ""},
		{2, 107, 108, "Carteira de Cobrança", "17"},
		{2, 109, 110, "Comando", "01"},
		{2, 111, 120, "Seu Número", "ALUG-0001"},
		{2, 121, 126, "Data de Vencimento", "100325"},
		{2, 127, 139, "Valor do Título", "0000000150000"},
		{2, 140, 142, "Número do Banco", "001"},
		{2, 148, 149, "Espécie de Titulo", "01"},
		{2, 150, 150, "Aceite do Título", "N"},
		{2, 151, 156, "Data de Emissão", "010325"},
		{2, 157, 158, "Instrução Codificada (não protestar)", "07"},
		{2, 219, 220, "Tipo de Inscrição do Sacado", "01"},
		{2, 221, 234, "Número do CNPJ ou CPF do Sacado", "00012345678909"},
		{2, 235, 271, "Nome do Sacado", "JOAO DA SILVA ARAUJO"},
		{2, 275, 314, "Endereço do Sacado", "RUA DAS ACACIAS, 123 APTO 45"},
		{2, 315, 326, "Bairro do Sacado", "JARDIM BOTAN"},
		{2, 327, 334, "CEP do Endereço do Sacado", "90000123"},
		{2, 335, 349, "Cidade do Sacado", "PORTO ALEGRE"},
		{2, 350, 351, "UF da Cidade do Sacado", "RS"},
		{2, 392, 393, "Número de Dias Para Protesto", "00"},
		{2, 395, 400, "Seqüencial de Registro", "000002"},
		{3, 64, 80, "Nosso-Número", "12345670000000002"},
		{3, 148, 149, "Espécie de Titulo", "05"},
		{3, 157, 158, "Instrução Codificada (protesto em dias corridos)", "06"},
		{3, 161, 173, "Juros de Mora por Dia de Atraso", "0000000000078"},
		{3, 174, 179, "Data Limite para Concessão de Desconto", "050425"},
		{3, 180, 192, "Valor do Desconto", "0000000005000"},
		{3, 392, 393, "Número de Dias Para Protesto", "10"},
		{3, 395, 400, "Seqüencial de Registro", "000003"},
		{4, 1, 1, "Identificação do Registro Transação", "5"},
		{4, 2, 3, "Tipo de Serviço", "99"},
		{4, 4, 4, "Código de Multa", "2"},
		{4, 5, 10, "Data de Inicio da Cobrança da Multa", "110425"},
		{4, 11, 22, "Valor/Percentual da Multa", "000000000200"},
		{4, 395, 400, "Número Seqüencial do Registro no Arquivo", "000004"},
		{5, 1, 1, "Identificação do Registro Trailer", "9"},
		{5, 395, 400, "Número Seqüencial do Registro no Arquivo", "000005"},
	},
}

func TestPositions(t *testing.T) {
	t.Parallel()
	for key := range specs {
		name := key.bank + "_" + itoa(int(key.layout))
		if len(positions[name]) == 0 {
			t.Errorf("%s: no position checks", name)
		}
	}
	for name, spots := range positions {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(filepath.Join("testdata", name+".rem"))
			if err != nil {
				t.Fatal(err)
			}
			lines := bytes.FieldsFunc(data, func(r rune) bool { return r == '\r' || r == '\n' })
			for _, sp := range spots {
				width := sp.end - sp.start + 1
				if len(sp.want) > width {
					t.Errorf("line %d %d-%d %s: test value %q wider than the field", sp.line, sp.start, sp.end, sp.name, sp.want)
					continue
				}
				if sp.line > len(lines) {
					t.Errorf("line %d %s: file has %d lines", sp.line, sp.name, len(lines))
					continue
				}
				got := string(lines[sp.line-1][sp.start-1 : sp.end])
				want := sp.want + strings.Repeat(" ", width-len(sp.want))
				if got != want {
					t.Errorf("line %d positions %d-%d (%s): got %q, want %q", sp.line, sp.start, sp.end, sp.name, got, want)
				}
			}
		})
	}
}
