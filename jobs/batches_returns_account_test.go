package jobs

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/propfin/propfin/cnab/retorno"
	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// TestCheckFileAccount: a return file is of the account named when its
// bank is, and its agency and account where it names them, leading zeros
// aside and the check digit allowed inside the number.
func TestCheckFileAccount(t *testing.T) {
	t.Parallel()
	acc := &storage.BankAccount{ID: 7, Bank: "341", Agency: "1234", Account: "12345", AccountDigit: "1"}
	cases := []struct {
		name  string
		bank  string
		benef retorno.Account
		want  string // "" when the file is the account's
	}{
		{"the same numbers", "341", retorno.Account{Agency: "1234", Account: "12345", AccountDigit: "1"}, ""},
		{"zero-padded", "341", retorno.Account{Agency: "01234", Account: "0000012345"}, ""},
		{"the digit inside the number", "341", retorno.Account{Agency: "1234", Account: "0123451"}, ""},
		{"names no account", "341", retorno.Account{}, ""},
		{"another bank", "237", retorno.Account{}, `account 7 is at bank "341"; the file is of bank 237`},
		{"another agency", "341", retorno.Account{Agency: "4321", Account: "12345"}, "account 7 is at agency 1234; the file is of agency 4321"},
		{"another account", "341", retorno.Account{Agency: "1234", Account: "54321", AccountDigit: "9"},
			"account 7 is account 12345-1; the file is of account 54321-9"},
		{"another digit", "341", retorno.Account{Agency: "1234", Account: "123452"}, "account 7 is account 12345-1; the file is of account 123452"},
	}
	// a cooperative's header names its own account, the titles the
	// beneficiary's (Sicoob 240): the file is of the account its titles name
	coop := retorno.Header{Bank: "341", Beneficiary: retorno.Account{Agency: "4190", Account: "73808"}}
	if err := checkFileAccount(acc, coop, fileAccounts(coop, retorno.Account{Agency: "1234", Account: "12345"})); err != nil {
		t.Errorf("the header another account, the titles the account's: %v", err)
	}
	if err := checkFileAccount(acc, coop, fileAccounts(coop, retorno.Account{Agency: "4190", Account: "73808"})); err == nil {
		t.Error("header and titles of another account: taken")
	}
	for _, c := range cases {
		err := checkFileAccount(acc, retorno.Header{Bank: c.bank}, fileAccounts(retorno.Header{}, c.benef))
		var got string
		var e *finance.Error
		if errors.As(err, &e) && e.Code == finance.Invalid && len(e.Problems) == 1 && e.Problems[0].Field == "account_id" {
			got = e.Problems[0].Message
		} else if err != nil {
			got = "unexpected: " + err.Error()
		}
		if got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestSispagFileAccount: the upload's account check reads an Itaú SISPAG
// payment return's header where SISPAG lays the debited account out
// (agency 53-57, account 59-70, DAC 72), not at the positions of Itaú's
// collection header (54-57, 66-70): on the public file, the account
// named is taken, another account is refused naming the file's, and a
// file whose agency or account differs only in the positions the
// collection header does not read (53, 59-65) is refused.
func TestSispagFileAccount(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "cnab", "retorno", "testdata", "real", "341_240_pagamento_keeper-cnab240.ret"))
	if err != nil {
		t.Fatal(err)
	}
	header := func(at int, s string) []byte {
		out := slices.Clone(data)
		copy(out[at-1:], s)
		return out
	}
	acc := &storage.BankAccount{ID: 7, Bank: "341", Agency: "772", Account: "69637", AccountDigit: "3"}
	other := &storage.BankAccount{ID: 7, Bank: "341", Agency: "772", Account: "69638", AccountDigit: "3"}
	cases := []struct {
		name    string
		content []byte
		acc     *storage.BankAccount
		want    string // "" when the file is the account's
	}{
		{"the account's file", data, acc, ""},
		{"another account", data, other, "account 7 is account 69638-3; the file is of account 000000069637-3"},
		{"an account longer than five digits", header(59, "000012369637"), acc,
			"account 7 is account 69637-3; the file is of account 000012369637-3"},
		{"an agency of five digits", header(53, "10772"), acc, "account 7 is at agency 772; the file is of agency 10772"},
	}
	for _, c := range cases {
		err := CheckReturnFile(context.Background(), nil, 0, PaymentBatchKind, c.content, c.acc)
		var got string
		var e *finance.Error
		if errors.As(err, &e) && e.Code == finance.Invalid && len(e.Problems) == 1 && e.Problems[0].Field == "account_id" {
			got = e.Problems[0].Message
		} else if err != nil {
			got = "unexpected: " + err.Error()
		}
		if got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
