package pix_test

import (
	"encoding/json"
	"fmt"

	"github.com/propfin/propfin/pix"
)

func ExampleValidate() {
	payload := "00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-426655440000" +
		"5204000053039865802BR5913Fulano de Tal6008BRASÍLIA62070503***63041D3D"
	_, problems := pix.Validate(payload)
	for _, p := range problems {
		fmt.Println(p.Code, p.Field)
	}
	b, _ := json.Marshal(problems[0])
	fmt.Println(string(b))
	// Output:
	// charset merchant_city
	// crc_mismatch crc
	// {"code":"charset","field":"merchant_city","message":"merchant city (60) has 'Í' at character 5; only the EMV common character set (printable ASCII, no accents) is allowed"}
}

func ExampleNormalize() {
	stored, problems := pix.Normalize("00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-426655440000" +
		"5204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041d3d")
	fmt.Println(len(problems), stored[len(stored)-8:])
	// Output: 0 63041D3D
}

func ExampleBuildStatic() {
	payload, err := pix.BuildStatic(pix.Static{
		Key:    "12345678909",
		Name:   pix.Fold("Imobiliária São Jorge"),
		City:   pix.Fold("São Paulo"),
		Amount: "1500.00",
		TxID:   "Aluguel112026",
	})
	fmt.Println(payload, err)
	// Output: 00020126330014br.gov.bcb.pix01111234567890952040000530398654071500.005802BR5921Imobiliaria Sao Jorge6009Sao Paulo62170513Aluguel11202663041931 <nil>
}
