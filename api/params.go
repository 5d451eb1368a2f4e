package api

import (
	"net/url"
	"strings"
)

// param is one key=value pair of a query string, decoded, in the order the
// caller sent it (the order of includes follows it).
type param struct {
	key, value string
	raw        string // the pair as sent, kept for page links
}

// parseParams splits a raw query string into ordered, decoded pairs.
// A pair that cannot be decoded is reported by its raw text.
func parseParams(rawQuery string) ([]param, []string) {
	var params []param
	var bad []string
	for _, pair := range strings.Split(rawQuery, "&") {
		if pair == "" {
			continue
		}
		rawKey, rawValue, _ := strings.Cut(pair, "=")
		key, err1 := url.QueryUnescape(rawKey)
		value, err2 := url.QueryUnescape(rawValue)
		if err1 != nil || err2 != nil {
			bad = append(bad, pair)
			continue
		}
		params = append(params, param{key: key, value: value, raw: pair})
	}
	return params, bad
}

// noQuery checks the query string of a route that takes no parameters:
// each one but `_` (the usual cache buster) is a 422 `unknown query
// parameter`, as on the routes that take some.
func noQuery(rawQuery string) error {
	p := &queryParser{}
	for _, kv := range p.params(rawQuery) {
		if kv.key != "_" {
			p.fail(kv.key, "unknown query parameter")
		}
	}
	return p.err()
}

// listParam reports whether key names a parameter whose value is a comma
// list of names: sort, fields and each include[path].
func listParam(key string) bool {
	return key == "sort" || key == "fields" || strings.HasPrefix(key, "include[")
}

// joinLists reads the forms common HTTP clients send for an array into the
// comma list of sort, fields and include[path]: the bracket form
// (sort[]=-a&sort[]=b, axios's default) is the parameter itself, and the
// repeats of one parameter (sort=-a&sort=b, openapi-fetch's and Python
// requests' default) are one value, their values joined by commas in the
// order sent, at the place of the first. Every other parameter is kept as
// sent.
func joinLists(params []param) []param {
	out := make([]param, 0, len(params))
	first := map[string]int{}
	for _, kv := range params {
		if name, ok := strings.CutSuffix(kv.key, "[]"); ok && listParam(name) && !strings.HasSuffix(name, "[]") {
			kv.key = name
		}
		if !listParam(kv.key) {
			out = append(out, kv)
			continue
		}
		if i, seen := first[kv.key]; seen {
			out[i].value = joinList(out[i].value, kv.value)
			out[i].raw += "&" + kv.raw
			continue
		}
		first[kv.key] = len(out)
		out = append(out, kv)
	}
	return out
}

// joinList adds a repeat's value to a list: an empty repeat adds nothing
// (`include[payer]=&include[payer]=name` names the column name), so that
// the joined list never holds an empty item.
func joinList(list, value string) string {
	switch {
	case value == "":
		return list
	case list == "":
		return value
	}
	return list + "," + value
}
