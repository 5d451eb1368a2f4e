package statement

import (
	"encoding/base64"
	"errors"
	"testing"
	"time"

	"github.com/propfin/propfin/api/receipt"
	"github.com/propfin/propfin/api/signedlink"
)

func testSigner(t *testing.T) *Signer {
	t.Helper()
	s, err := NewSigner(testSecret)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestTokenRoundTrip(t *testing.T) {
	t.Parallel()
	s := testSigner(t)
	now := time.Date(2024, 4, 1, 12, 0, 0, 0, time.UTC)
	exp := now.Add(DefaultLifetime)
	for _, c := range []struct {
		token string
		want  Ref
	}{
		{s.SignStatement(7, 42, exp), Ref{Kind: KindOwnerStatement, CompanyID: 7, ID: 42}},
		{s.SignIncomeReport(7, 9, 2024, exp), Ref{Kind: KindIncomeReport, CompanyID: 7, ID: 9, Year: 2024}},
		{s.SignStatement(1<<62, 1<<61, exp), Ref{Kind: KindOwnerStatement, CompanyID: 1 << 62, ID: 1 << 61}},
	} {
		if len(c.token) != 80 {
			t.Errorf("token %q has %d characters, want 80", c.token, len(c.token))
		}
		got, err := s.Verify(c.token, now)
		if err != nil || got != c.want {
			t.Errorf("Verify = %+v, %v; want %+v", got, err, c.want)
		}
		if _, err := s.Verify(c.token, exp); !errors.Is(err, ErrExpiredToken) {
			t.Errorf("at its expiry: %v, want expired", err)
		}
		if _, err := s.Verify(c.token, exp.Add(-time.Second)); err != nil {
			t.Errorf("a second before its expiry: %v", err)
		}
	}
}

func TestTokenRefused(t *testing.T) {
	t.Parallel()
	s := testSigner(t)
	now := time.Now()
	good := s.SignStatement(7, 42, now.Add(time.Hour))
	other, err := NewSigner([]byte("another secret, 32 bytes or more!!"))
	if err != nil {
		t.Fatal(err)
	}
	rs, err := receipt.NewSigner(testSecret)
	if err != nil {
		t.Fatal(err)
	}
	var b [60]byte
	b[0], b[1] = signedlink.Version, 1
	unsigned := base64.RawURLEncoding.EncodeToString(b[:])
	refused := map[string]string{
		"empty":                 "",
		"short":                 good[:79],
		"long":                  good + "A",
		"not base64url":         good[:79] + "+",
		"unsigned":              unsigned,
		"another secret":        other.SignStatement(7, 42, now.Add(time.Hour)),
		"a receipt token":       rs.Sign(receipt.KindInvoice, 7, 42, now.Add(time.Hour)),
		"a statement with year": s.sign(Ref{Kind: KindOwnerStatement, CompanyID: 7, ID: 42, Year: 2024}, now.Add(time.Hour)),
		"a report without year": s.sign(Ref{Kind: KindIncomeReport, CompanyID: 7, ID: 9}, now.Add(time.Hour)),
		"unknown kind":          s.sign(Ref{Kind: "invoice", CompanyID: 7, ID: 42}, now.Add(time.Hour)),
	}
	for i := range good {
		tampered := []byte(good)
		if tampered[i] == 'A' {
			tampered[i] = 'B'
		} else {
			tampered[i] = 'A'
		}
		refused["tampered at "+string(rune('0'+i/10))+string(rune('0'+i%10))] = string(tampered)
	}
	for name, tok := range refused {
		if ref, err := s.Verify(tok, now); !errors.Is(err, ErrInvalidToken) {
			t.Errorf("%s: Verify = %+v, %v; want invalid", name, ref, err)
		}
	}
	if _, err := NewSigner(make([]byte, MinSecretLen-1)); err == nil {
		t.Error("a 31-byte secret was accepted")
	}
}

// TestTokenFormat pins tokens made before the layout moved to package
// signedlink: links already sent out must still verify, to the same ref.
func TestTokenFormat(t *testing.T) {
	t.Parallel()
	s := testSigner(t)
	expires := time.Date(2027, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		got, token string
		want       Ref
	}{
		{s.SignStatement(7, 42, expires), "AQEAAAAAAAAABwAAAAAAAAAqAAAAAAAAazhpJY2PTL66-JP6da8JlV6IG40NvzPH4Y-gq_WcHOJpjWno",
			Ref{Kind: KindOwnerStatement, CompanyID: 7, ID: 42}},
		{s.SignIncomeReport(7, 9, 2024, expires), "AQIAAAAAAAAABwAAAAAAAAAJB-gAAAAAazhpJTq1bsT4AiLDoX2Llbo4EzQEcAy5iXJT7Rp0563jc2Oh",
			Ref{Kind: KindIncomeReport, CompanyID: 7, ID: 9, Year: 2024}},
	}
	for _, tt := range tests {
		if tt.got != tt.token {
			t.Errorf("signing %+v = %q, want %q", tt.want, tt.got, tt.token)
		}
		if got, err := s.Verify(tt.token, expires.Add(-time.Second)); err != nil || got != tt.want {
			t.Errorf("Verify(%q) = %+v, %v; want %+v", tt.token, got, err, tt.want)
		}
	}
}
