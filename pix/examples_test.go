package pix

import (
	"strconv"
	"strings"
)

// Payloads published by others, each with its source.
const (
	// BCB, Manual de Padrões para Iniciação do Pix, static BR Code example
	// (random key, no amount).
	bcbStatic = "00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-426655440000" +
		"5204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D"
	// Same manual, dynamic BR Code example.
	bcbDynamic = "00020101021226700014br.gov.bcb.pix2548pix.example.com/8b3da2f39a4140d1a91abd93113bd441" +
		"5204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***630464E4"
	// Same manual, composite example: static with amount 100.50 plus an
	// unreserved template (80) for a recurrence.
	bcbComposite = "00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-426655440000" +
		"5204000053039865406100.505802BR5913Fulano de Tal6008BRASILIA62070503***" +
		"80740014br.gov.bcb.pix2552pix.example.com/rec/2353c790eefb11eaadc10242ac12000263042875"
	// BCB, Manual do BR Code 2.0.1: a code shared by PIX and two other
	// arrangements (objects 04, 27 and 80), 270 characters. Valid EMV with a
	// matching CRC, but its txid has a hyphen, which the PIX manual forbids.
	bcbBRCode = "00020104141234567890123426580014BR.GOV.BCB.PIX0136123e4567-e12b-12d1-a456-426655440000" +
		"27300012BR.COM.OUTRO011001234567895204000053039865406123.455802BR5917NOME DO RECEBEDOR6008BRASILIA" +
		"61087007490062190515RP12345678-201980390012BR.COM.OUTRO01190123.ABCD.3456.WXYZ6304AD38"
	// A bank app's static code with e-mail key, description, amount and
	// postal code (thalesog/pix-utils test data).
	bankStaticEmail = "00020126580014BR.GOV.BCB.PIX0119nubank@thalesog.com0213PIX de Testes" +
		"52040000530398654041.005802BR5914Thales Ogliari6009SAO PAULO61080540900062070503***6304581E"
	// BCB's PIX sandbox dynamic code (thalesog/pix-utils test data).
	bcbSandboxDynamic = "00020126940014br.gov.bcb.pix2572qr-h.sandbox.pix.bcb.gov.br/rest/api/v2/cfe8166acaff4a62a18b7b766ef57c70" +
		"5204000053039865802BR5903Pix6008BRASILIA62070503***6304C7D7"
	// A generator's code that a payer app refused (piggly-dev/php-pix
	// issue 5): accented city, 28-character name. Lengths count
	// characters and the CRC covers the UTF-8 bytes, so it parses cleanly.
	accentedCity = "00020101021126330014br.gov.bcb.pix0111002051041185204000053039865406350.005802BR" +
		"5928Leone Parise Vieira da Silva6006Maceió62070503***6304E5FB"
	// A bank's dynamic code posted as broken (bacen/pix-api issue 318): the
	// name's declared length (33) is larger than the name, so the
	// following objects are misread.
	brokenNameLength = "00020101021226770014BR.GOV.BCB.PIX2555api.itau/pix/qr/v2/ed71c5c8-6b03-4a13-b780-f9782f774f52" +
		"52040000530398654061308.95802BR5933LiveRoupasEsportivasLtda.-Me6016JaraguádoSul61088925716062070503***630485B0"
)

// tlv writes one EMV data object, independently of the package's own
// writer.
func tlv(id, value string) string {
	n := len([]rune(value))
	l := strconv.Itoa(n)
	if n < 10 {
		l = "0" + l
	}
	return id + l + value
}

// withCRC joins objects and appends a correct CRC.
func withCRC(objects ...string) string {
	s := strings.Join(objects, "") + "6304"
	return s + CRC16Hex(s)
}

// Objects of a valid static payload, to change one at a time.
var (
	oFormat   = "000201"
	oAccount  = tlv("26", tlv("00", "br.gov.bcb.pix")+tlv("01", "123e4567-e12b-12d1-a456-426655440000"))
	oMCC      = "52040000"
	oCurrency = "5303986"
	oCountry  = "5802BR"
	oName     = tlv("59", "Fulano de Tal")
	oCity     = tlv("60", "BRASILIA")
	oTxID     = tlv("62", tlv("05", "***"))
)

// account writes a PIX merchant account template from sub-objects.
func account(subs ...string) string {
	return tlv("26", tlv("00", "br.gov.bcb.pix")+strings.Join(subs, ""))
}

// static is a valid payload with some objects replaced: keys are the
// variables above' values, mapped to their replacement ("" drops it).
func static(replace map[string]string) string {
	objs := []string{oFormat, oAccount, oMCC, oCurrency, oCountry, oName, oCity, oTxID}
	var kept []string
	for _, o := range objs {
		if r, ok := replace[o]; ok {
			if r != "" {
				kept = append(kept, r)
			}
			continue
		}
		kept = append(kept, o)
	}
	return withCRC(kept...)
}
