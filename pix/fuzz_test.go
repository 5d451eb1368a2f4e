package pix

import (
	"strings"
	"testing"
)

func FuzzValidate(f *testing.F) {
	for _, s := range []string{bcbStatic, bcbDynamic, bcbComposite, bcbBRCode, bankStaticEmail,
		bcbSandboxDynamic, accentedCity, brokenNameLength, "", "0002", "000201", "6304", "\xff\xfe", "0002é1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		parsed, perr := Parse(s)
		p, probs := Validate(s)
		for _, pr := range probs {
			if pr.Code == "" || pr.Field == "" || pr.Message == "" {
				t.Fatalf("incomplete problem %+v", pr)
			}
		}
		if len(probs) > 0 {
			if n, nprobs := Normalize(s); n != "" || len(nprobs) == 0 {
				t.Fatalf("Normalize accepted an invalid payload")
			}
			return
		}
		// A valid payload parses without structural problems, to the same
		// fields, and normalizes to itself but for the check digit's case.
		if perr != nil {
			t.Fatalf("valid payload with a Parse error: %v", perr)
		}
		parsed.Account.KeyType = p.Account.KeyType
		if parsed.MerchantName != p.MerchantName || parsed.Account.Key != p.Account.Key || parsed.CRC != p.CRC {
			t.Fatalf("Parse and Validate disagree: %+v, %+v", parsed, p)
		}
		n, nprobs := Normalize(s)
		if len(nprobs) > 0 || !strings.EqualFold(n, s) || n[:len(n)-4] != s[:len(s)-4] || strings.ToUpper(n[len(n)-4:]) != n[len(n)-4:] {
			t.Fatalf("Normalize(%q) = %q, %v", s, n, nprobs)
		}
		if _, again := Validate(n); len(again) > 0 {
			t.Fatalf("normalized payload invalid: %v", again)
		}
	})
}

func FuzzBuildStatic(f *testing.F) {
	f.Add("123e4567-e12b-12d1-a456-426655440000", "Fulano de Tal", "BRASILIA", "", "", "")
	f.Add("12345678909", "Maria", "Itabela", "10.50", "Pedido12", "Aluguel")
	f.Add("+5561912345678", "Ótica", "São Paulo", "1", "***", "")
	f.Add("pix@bcb.gov.br", "A", "B", "0.01", "", "Cafe")
	f.Fuzz(func(t *testing.T, key, name, city, amount, txid, description string) {
		in := Static{Key: key, Name: name, City: city, Amount: amount, TxID: txid, Description: description}
		payload, err := BuildStatic(in)
		if err != nil {
			if _, ok := err.(Problems); !ok {
				t.Fatalf("BuildStatic error is not Problems: %v", err)
			}
			return
		}
		p, probs := Validate(payload)
		if len(probs) > 0 {
			t.Fatalf("BuildStatic(%+v) = %q, invalid: %v", in, payload, probs)
		}
		if in.TxID == noTxID {
			in.TxID = ""
		}
		if got := p.Static(); got != in {
			t.Fatalf("round trip: got %+v, want %+v", got, in)
		}
	})
}

func FuzzBuildDynamic(f *testing.F) {
	f.Add("pix.example.com/8b3da2f39a4140d1a91abd93113bd441", "Fulano de Tal", "BRASILIA")
	f.Add("https://x", "", "")
	f.Fuzz(func(t *testing.T, url, name, city string) {
		in := Dynamic{URL: url, Name: name, City: city}
		payload, err := BuildDynamic(in)
		if err != nil {
			return
		}
		p, probs := Validate(payload)
		if len(probs) > 0 {
			t.Fatalf("BuildDynamic(%+v) = %q, invalid: %v", in, payload, probs)
		}
		if got := p.Dynamic(); got != in {
			t.Fatalf("round trip: got %+v, want %+v", got, in)
		}
	})
}
