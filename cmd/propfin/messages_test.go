package main

import (
	"strings"
	"testing"
)

// TestSettingsNamedInErrors: a bad id flag says what it wants, not the
// flag package's "parse error"; a DATABASE_URL that does not read is
// named; the --data-dir flag's usage reads as a folder.
func TestSettingsNamedInErrors(t *testing.T) {
	t.Setenv("DATABASE_URL", "notaurl%%")
	t.Setenv("REDIS_URL", "redis://127.0.0.1:1")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"apikey", "revoke", "--id", "abc", "--reason", "r"},
			`invalid value "abc" for flag -id: must be a positive whole number, an id as the list commands show it`},
		{[]string{"apikey", "create", "--company-id", "-3", "--reason", "r"}, `for flag -company-id: must be a positive whole number`},
		{[]string{"apikey", "create", "-h"}, "-data-dir folder"},
		{[]string{"migrate"}, "propfin migrate: DATABASE_URL: "},
		{[]string{"serve"}, "propfin serve: DATABASE_URL: "},
	} {
		code, _, errs := runOut(c.args...)
		if !strings.Contains(errs, c.want) || (code == 0) != (c.args[len(c.args)-1] == "-h") {
			t.Errorf("%v: exit %d, stderr\n%s\nwant it to say %q", c.args, code, errs, c.want)
		}
	}
}
