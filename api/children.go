package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// parseChild checks the array a body gives for the child collection ch of
// a create (every element an add) or an update (adds, edits by id, deletes
// by id with delete: true). Each element is checked with the child
// resource's declaration; its problems are named `items.2.amount`.
func parseChild(child *storage.Resource, ch storage.Child, raw json.RawMessage, create bool) ([]storage.ChildWrite, []finance.Problem) {
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil || elems == nil {
		return nil, []finance.Problem{{Field: ch.Name, Message: "must be an array of objects"}}
	}
	if len(elems) > storage.MaxChildWrites {
		return nil, []finance.Problem{{Field: ch.Name, Message: fmt.Sprintf("must have at most %d elements", storage.MaxChildWrites)}}
	}
	if create && ch.Required && len(elems) == 0 {
		return nil, []finance.Problem{{Field: ch.Name, Message: "is required"}}
	}
	var problems []finance.Problem
	writes := make([]storage.ChildWrite, 0, len(elems))
	for i, elem := range elems {
		prefix := ch.Name + "." + strconv.Itoa(i) + "."
		fail := func(field, msg string) {
			problems = append(problems, finance.Problem{Field: prefix + field, Message: msg})
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(elem, &obj); err != nil || obj == nil {
			problems = append(problems, finance.Problem{Field: prefix[:len(prefix)-1], Message: "must be an object"})
			continue
		}
		var cw storage.ChildWrite
		rawID, hadID := obj["id"]
		if hadID {
			delete(obj, "id")
			if create {
				fail("id", "cannot be given on create")
			} else if err := json.Unmarshal(rawID, &cw.ID); err != nil || cw.ID < 1 {
				fail("id", "must be a positive integer")
			}
		}
		if rawDelete, given := obj["delete"]; given {
			delete(obj, "delete")
			switch {
			case create:
				fail("delete", "cannot be given on create")
			case json.Unmarshal(rawDelete, &cw.Delete) != nil:
				fail("delete", "must be true or false")
			case cw.Delete && !hadID:
				fail("id", "is required to delete")
			}
		}
		// an element without id is an add: the child's required columns apply
		w, err := parseWrite(nil, child, obj, cw.ID == 0 && !cw.Delete)
		if err != nil {
			for _, p := range childProblemsOf(err) {
				fail(p.Field, p.Message)
			}
		}
		if !cw.Delete {
			cw.Write = w
		}
		writes = append(writes, cw)
	}
	return writes, problems
}

// childProblemsOf returns the problems of a 422, or one naming the body.
func childProblemsOf(err error) []finance.Problem {
	var coded *finance.Error
	if errors.As(err, &coded) && coded.Code == finance.Invalid && len(coded.Problems) > 0 {
		return coded.Problems
	}
	return []finance.Problem{{Field: "body", Message: "is invalid"}}
}

// parseDeleteOptions reads the query of a DELETE: only the resource's
// declared boolean options (and `_`, the cache buster), each once, as
// true/false or 1/0.
func parseDeleteOptions(res *storage.Resource, rawQuery string) (map[string]bool, error) {
	values, err := url.ParseQuery(rawQuery)
	if err != nil {
		return nil, finance.InvalidInput([]finance.Problem{{Field: "query", Message: "is not a valid query string"}})
	}
	opts := map[string]bool{}
	var problems []finance.Problem
	for _, name := range sortedValueKeys(values) {
		vs := values[name]
		switch {
		case name == "_":
			continue
		case !res.AcceptsDeleteOption(name):
			problems = append(problems, finance.Problem{Field: name, Message: "unknown query parameter"})
		case len(vs) > 1:
			problems = append(problems, finance.Problem{Field: name, Message: "is given more than once"})
		default:
			switch vs[0] {
			case "true", "1":
				opts[name] = true
			case "false", "0":
				opts[name] = false
			default:
				problems = append(problems, finance.Problem{Field: name, Message: "must be true or false"})
			}
		}
	}
	if len(problems) > 0 {
		return nil, finance.InvalidInput(problems)
	}
	return opts, nil
}

func sortedValueKeys(v url.Values) []string {
	obj := make(map[string]json.RawMessage, len(v))
	for k := range v {
		obj[k] = nil
	}
	return sortedKeys(obj)
}
