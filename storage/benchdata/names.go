package benchdata

import (
	"fmt"
	"math/rand/v2"
)

// What persons and buildings are named and where they are: a few dozen
// of each, combined by the generator.
var (
	firstNames = []string{"Ana", "Bruno", "Carla", "Daniel", "Eduarda", "Felipe", "Gabriela", "Henrique", "Isabela",
		"João", "Larissa", "Marcos", "Natália", "Otávio", "Patrícia", "Rafael", "Sofia", "Thiago", "Vanessa", "Wagner",
		"Beatriz", "Caio", "Fernanda", "Gustavo", "Juliana", "Leonardo", "Mariana", "Pedro", "Renata", "Vinícius"}
	surnames = []string{"Silva", "Santos", "Oliveira", "Souza", "Rodrigues", "Ferreira", "Alves", "Pereira", "Lima",
		"Gomes", "Costa", "Ribeiro", "Martins", "Carvalho", "Almeida", "Lopes", "Soares", "Fernandes", "Vieira", "Barbosa",
		"Rocha", "Dias", "Nascimento", "Andrade", "Moreira", "Nunes", "Marques", "Machado", "Mendes", "Freitas"}
	streets = []string{"Rua das Flores", "Avenida Paulista", "Rua Augusta", "Rua XV de Novembro", "Avenida Brasil",
		"Rua Sete de Setembro", "Rua da Consolação", "Avenida Atlântica", "Rua dos Andradas", "Rua Marechal Deodoro",
		"Avenida Getúlio Vargas", "Rua Tiradentes", "Rua Santos Dumont", "Avenida Rio Branco", "Rua Dom Pedro II",
		"Rua Barão do Rio Branco", "Rua Voluntários da Pátria", "Avenida Afonso Pena", "Rua Padre Anchieta", "Rua Bahia"}
	districts = []string{"Centro", "Jardim América", "Vila Mariana", "Boa Vista", "Santa Cecília", "Bela Vista",
		"Jardim Europa", "Cidade Nova", "Parque das Nações", "Vila Nova"}
	cities = []struct{ name, state, zip string }{
		{"São Paulo", "SP", "01"}, {"Rio de Janeiro", "RJ", "20"}, {"Belo Horizonte", "MG", "30"},
		{"Curitiba", "PR", "80"}, {"Porto Alegre", "RS", "90"}, {"Salvador", "BA", "40"},
		{"Campinas", "SP", "13"}, {"Florianópolis", "SC", "88"}, {"Recife", "PE", "50"}, {"Goiânia", "GO", "74"},
	}
	billDescriptions = []string{"Conta de energia", "Conta de água", "Internet e telefone", "Material de escritório",
		"Honorários contábeis", "Aluguel da loja", "Limpeza", "Manutenção de sistemas", "Publicidade em portais",
		"Tarifas bancárias"}
)

// personName is a first name and two surnames, from n.
func personName(n int) string {
	return firstNames[n%len(firstNames)] + " " + surnames[(n/len(firstNames))%len(surnames)] + " " +
		surnames[(n/7+3)%len(surnames)]
}

// companyName is a company's name, from n: a surname, a trade and its
// legal form.
func companyName(n int) string {
	trades := []string{"Comércio", "Serviços", "Consultoria", "Distribuidora", "Tecnologia", "Alimentos"}
	return surnames[n%len(surnames)] + " " + surnames[(n/len(surnames)+5)%len(surnames)] + " " +
		trades[(n/7)%len(trades)] + " Ltda"
}

// address is a Brazilian address drawn from r.
type address struct {
	zip, street, number, district, city, state string
}

func newAddress(r *rand.Rand) address {
	c := cities[r.IntN(len(cities))]
	return address{
		zip:      fmt.Sprintf("%s%06d", c.zip, r.IntN(1_000_000)),
		street:   streets[r.IntN(len(streets))],
		number:   fmt.Sprint(1 + r.IntN(3000)),
		district: districts[r.IntN(len(districts))],
		city:     c.name,
		state:    c.state,
	}
}

// cpf is a valid CPF (11 digits, check digits computed) made from n.
func cpf(n int64) string {
	return withCheckDigits(fmt.Sprintf("%09d", n%1_000_000_000), []int{10, 9, 8, 7, 6, 5, 4, 3, 2},
		[]int{11, 10, 9, 8, 7, 6, 5, 4, 3, 2})
}

// cnpj is a valid CNPJ (14 digits, check digits computed) of branch 0001
// made from n.
func cnpj(n int64) string {
	return withCheckDigits(fmt.Sprintf("%08d0001", n%100_000_000), []int{5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2},
		[]int{6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2})
}

// withCheckDigits appends the two modulo-11 check digits of the
// Brazilian tax ids, weighted by w1 and then w2.
func withCheckDigits(base string, w1, w2 []int) string {
	digit := func(s string, w []int) byte {
		sum := 0
		for i, c := range []byte(s) {
			sum += int(c-'0') * w[i]
		}
		if r := sum % 11; r >= 2 {
			return byte('0' + 11 - r)
		}
		return '0'
	}
	s := base + string(digit(base, w1))
	return s + string(digit(s, w2))
}
