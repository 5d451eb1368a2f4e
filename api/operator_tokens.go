package api

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"regexp"
	"strings"
)

// The admin tokens and their labels. PROPFIN_ADMIN_TOKEN holds one token,
// or several entries separated by commas, each `label:token`: the label
// names the operator (or the tool) in the audit log of what operators did
// (/operator/audit). A bare token is labelled "admin". A label is 1 to 40
// lower-case letters, digits, '.', '_' or '-'; an entry whose text before
// its first ':' is not one is a bare token.

// DefaultAdminLabel is the label of a token given without one.
const DefaultAdminLabel = "admin"

// AdminToken is one operators' credential and the label it is audited by.
type AdminToken struct {
	Label string
	Token string
}

var adminLabel = regexp.MustCompile(`^[a-z0-9._-]{1,40}$`)

// ParseAdminTokens reads PROPFIN_ADMIN_TOKEN: empty is none; a label
// given twice, a token given twice or an empty entry is an error.
func ParseAdminTokens(s string) ([]AdminToken, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []AdminToken
	labels, tokens := map[string]bool{}, map[string]bool{}
	for i, entry := range strings.Split(s, ",") {
		entry = strings.TrimSpace(entry)
		t := AdminToken{Label: DefaultAdminLabel, Token: entry}
		if label, token, ok := strings.Cut(entry, ":"); ok && adminLabel.MatchString(label) {
			t = AdminToken{Label: label, Token: token}
		}
		switch {
		case t.Token == "":
			return nil, fmt.Errorf("entry %d has no token (want label:token or a token)", i+1)
		case labels[t.Label]:
			return nil, fmt.Errorf("label %q is given twice", t.Label)
		case tokens[t.Token]:
			return nil, fmt.Errorf("entry %d repeats a token", i+1)
		}
		labels[t.Label], tokens[t.Token] = true, true
		out = append(out, t)
	}
	return out, nil
}

// tokenHash is a token's SHA-256 and its label.
type tokenHash struct {
	label string
	sum   [32]byte
}

// hashTokens keeps the tokens' hashes only.
func hashTokens(tokens []AdminToken) []tokenHash {
	out := make([]tokenHash, len(tokens))
	for i, t := range tokens {
		out[i] = tokenHash{label: t.Label, sum: sha256.Sum256([]byte(t.Token))}
	}
	return out
}

// match returns the label of the token given, comparing it with every
// token in constant time.
func match(hashes []tokenHash, given string) (string, bool) {
	sum := sha256.Sum256([]byte(given))
	label, found := "", false
	for _, h := range hashes {
		if subtle.ConstantTimeCompare(sum[:], h.sum[:]) == 1 {
			label, found = h.label, true
		}
	}
	return label, found
}

type operatorLabelKey struct{}

// withOperator records the label of the admin token of the request.
func withOperator(ctx context.Context, label string) context.Context {
	return context.WithValue(ctx, operatorLabelKey{}, label)
}

// operatorOf is the label of the admin token the request presented.
func operatorOf(ctx context.Context) string {
	label, _ := ctx.Value(operatorLabelKey{}).(string)
	return label
}
