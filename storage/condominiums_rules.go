package storage

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/propfin/propfin/finance"
)

// The rules around a condominium's writes: its author, and its unit-type
// groups, written as the JSON text of the groups column and stored as rows
// of condominium_groups and condominium_group_purposes (docs/api.md,
// "Condominiums").

// Bounds of one groups text.
const (
	MaxGroups          = 1000
	MaxPurposesByGroup = 100
)

// groupFigures are a group's figures by stored name, each with the name
// the spec's sample request gives it (the minimum values).
var groupFigures = [][2]string{
	{"area_total", "area_total_min"},
	{"bathroom", "bathroom_min"},
	{"bedroom", "bedroom_min"},
	{"room", "room_min"},
	{"suite", "suite_min"},
}

// purposeFields are the texts of a purpose beside its type.
var purposeFields = []string{"amount", "condominium", "iptu_amount"}

// groupInput is one checked group of a groups text.
type groupInput struct {
	ID       int64
	Texts    map[string]*string // title, status and the figures by stored name
	Purposes []purposeInput
}

// purposeInput is one checked purpose of a group.
type purposeInput struct {
	Type  string
	Texts map[string]*string
}

// groupsMemo is the key of the checked groups in Change.Memo.
const groupsMemo = "condominium.groups"

// stampAuthor signs a condominium's write with the acting user when the
// body does not: created_by on create, updated_by on create and update.
func stampAuthor(_ context.Context, _ pgx.Tx, c *Change) error {
	if c.Op == OpDelete || c.Scope.UserID == 0 {
		return nil
	}
	if c.Op == OpCreate && !c.Given("created_by") {
		c.Set("created_by", c.Scope.UserID)
	}
	if !c.Given("updated_by") {
		c.Set("updated_by", c.Scope.UserID)
	}
	return nil
}

// checkGroups parses and checks the groups text of a write, naming every
// problem by its place (groups.1.purposes.0.type), and hands the groups to
// writeGroups. A group's id (an update's) must be a group of the
// condominium written.
func checkGroups(ctx context.Context, tx pgx.Tx, c *Change) error {
	if c.Op == OpDelete || !c.Given("groups") {
		return nil
	}
	text, _ := c.New.Values["groups"].(string)
	groups, problems := parseGroups(text, c.Op == OpCreate)
	if len(problems) == 0 && c.Op == OpUpdate {
		var err error
		if problems, err = foreignGroups(ctx, tx, c.Scope.CompanyID, c.ID, groups); err != nil {
			return err
		}
	}
	if len(problems) > 0 {
		return finance.InvalidInput(problems)
	}
	c.Remember(groupsMemo, groups)
	return nil
}

// parseGroups reads a groups text: a JSON array of group objects. null
// (no text) is no groups.
func parseGroups(text string, create bool) ([]groupInput, []finance.Problem) {
	if strings.TrimSpace(text) == "" || strings.TrimSpace(text) == "null" {
		return nil, nil
	}
	var elems []json.RawMessage
	if err := decodeNumbers(text, &elems); err != nil || (elems == nil && strings.TrimSpace(text) != "[]") {
		return nil, []finance.Problem{{Field: "groups", Message: "must be a string holding a JSON array of groups"}}
	}
	if len(elems) > MaxGroups {
		return nil, []finance.Problem{{Field: "groups", Message: fmt.Sprintf("must have at most %d groups", MaxGroups)}}
	}
	var problems []finance.Problem
	groups := make([]groupInput, len(elems))
	seen := map[int64]bool{}
	for i, raw := range elems {
		prefix := "groups." + strconv.Itoa(i)
		g, ps := parseGroup(prefix, raw, create)
		if g.ID != 0 && seen[g.ID] {
			ps = append(ps, finance.Problem{Field: prefix + ".id", Message: "is given more than once"})
		}
		seen[g.ID] = true
		groups[i] = g
		problems = append(problems, ps...)
	}
	return groups, problems
}

// parseGroup reads one group object.
func parseGroup(prefix string, raw json.RawMessage, create bool) (groupInput, []finance.Problem) {
	g := groupInput{Texts: map[string]*string{}}
	obj, problems := objectOf(prefix, raw)
	if obj == nil {
		return g, problems
	}
	allowed := []string{"id", "title", "status", "purposes"}
	for _, f := range groupFigures {
		allowed = append(allowed, f[0], f[1])
	}
	problems = append(problems, unknownKeys(prefix, obj, allowed)...)
	if v, ok := obj["id"]; ok && string(v) != "null" {
		if create {
			problems = append(problems, finance.Problem{Field: prefix + ".id", Message: "cannot be given on create"})
		} else if err := json.Unmarshal(v, &g.ID); err != nil || g.ID < 1 {
			problems = append(problems, finance.Problem{Field: prefix + ".id", Message: "must be a positive integer"})
		}
	}
	problems = append(problems, readText(prefix, obj, "title", "title", true, g.Texts)...)
	problems = append(problems, readText(prefix, obj, "status", "status", false, g.Texts)...)
	for _, f := range groupFigures {
		_, hasSchema := obj[f[0]]
		if _, hasSample := obj[f[1]]; hasSample && hasSchema {
			problems = append(problems, finance.Problem{Field: prefix + "." + f[1], Message: "cannot be given together with " + f[0]})
			continue
		}
		problems = append(problems, readText(prefix, obj, f[0], f[0], false, g.Texts)...)
		problems = append(problems, readText(prefix, obj, f[1], f[0], false, g.Texts)...)
	}
	purposes, ps := parsePurposes(prefix+".purposes", obj["purposes"])
	g.Purposes = purposes
	return g, append(problems, ps...)
}

// parsePurposes reads a group's purposes: an array of objects, or null.
func parsePurposes(prefix string, raw json.RawMessage) ([]purposeInput, []finance.Problem) {
	if raw == nil || string(raw) == "null" {
		return nil, nil
	}
	var elems []json.RawMessage
	if err := decodeNumbers(string(raw), &elems); err != nil || elems == nil {
		return nil, []finance.Problem{{Field: prefix, Message: "must be an array of purposes"}}
	}
	if len(elems) > MaxPurposesByGroup {
		return nil, []finance.Problem{{Field: prefix, Message: fmt.Sprintf("must have at most %d purposes", MaxPurposesByGroup)}}
	}
	var problems []finance.Problem
	purposes := make([]purposeInput, len(elems))
	for i, el := range elems {
		at := prefix + "." + strconv.Itoa(i)
		p := purposeInput{Texts: map[string]*string{}}
		obj, ps := objectOf(at, el)
		if obj != nil {
			ps = append(ps, unknownKeys(at, obj, append([]string{"type"}, purposeFields...))...)
			texts := map[string]*string{}
			ps = append(ps, readText(at, obj, "type", "type", true, texts)...)
			if t := texts["type"]; t != nil {
				p.Type = *t
				if !slices.Contains(PurposeTypes, p.Type) {
					ps = append(ps, finance.Problem{Field: at + ".type", Message: "must be one of: " + strings.Join(PurposeTypes, ", ")})
				}
			}
			for _, f := range purposeFields {
				ps = append(ps, readText(at, obj, f, f, false, p.Texts)...)
			}
		}
		purposes[i] = p
		problems = append(problems, ps...)
	}
	return purposes, problems
}

// decodeNumbers decodes JSON text into v keeping numbers as json.Number.
func decodeNumbers(text string, v any) error {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("more than one JSON value")
	}
	return nil
}

// objectOf reads a JSON object, or says at prefix that it is not one.
func objectOf(prefix string, raw json.RawMessage) (map[string]json.RawMessage, []finance.Problem) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return nil, []finance.Problem{{Field: prefix, Message: "must be an object"}}
	}
	return obj, nil
}

// unknownKeys names the keys of obj outside allowed, in order.
func unknownKeys(prefix string, obj map[string]json.RawMessage, allowed []string) []finance.Problem {
	var problems []finance.Problem
	for _, k := range sortedKeys(obj) {
		if !slices.Contains(allowed, k) {
			problems = append(problems, finance.Problem{Field: prefix + "." + k, Message: "unknown field"})
		}
	}
	return problems
}

// readText reads obj[key] into texts[name]: a string, or a number kept as
// written, or null. A required text must be given and not blank.
func readText(prefix string, obj map[string]json.RawMessage, key, name string, required bool, texts map[string]*string) []finance.Problem {
	field := prefix + "." + key
	raw, given := obj[key]
	raw = bytes.TrimSpace(raw)
	if !given && !required {
		return nil
	}
	if !given || string(raw) == "null" {
		if required {
			return []finance.Problem{{Field: field, Message: "is required"}}
		}
		if _, set := texts[name]; !set {
			texts[name] = nil
		}
		return nil
	}
	var s string
	switch {
	case len(raw) > 0 && raw[0] == '"':
		if err := json.Unmarshal(raw, &s); err != nil {
			return []finance.Problem{{Field: field, Message: "must be a string"}}
		}
	case len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9'):
		s = string(raw)
	default:
		return []finance.Problem{{Field: field, Message: "must be a string"}}
	}
	switch {
	case !utf8.ValidString(s):
		return []finance.Problem{{Field: field, Message: "must be valid UTF-8 text"}}
	case strings.ContainsRune(s, 0):
		return []finance.Problem{{Field: field, Message: "must not contain NUL characters"}}
	case required && s == "":
		return []finance.Problem{{Field: field, Message: "is required"}}
	case required && strings.TrimSpace(s) == "":
		return []finance.Problem{{Field: field, Message: "cannot be blank"}}
	}
	texts[name] = &s
	return nil
}

// foreignGroups names the group ids of an update that are not groups of
// the condominium written.
func foreignGroups(ctx context.Context, tx pgx.Tx, companyID, condominiumID int64, groups []groupInput) ([]finance.Problem, error) {
	var ids []int64
	for _, g := range groups {
		if g.ID != 0 {
			ids = append(ids, g.ID)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	var ours []int64
	err := tx.QueryRow(ctx, `SELECT coalesce(array_agg(id), '{}') FROM condominium_groups
		WHERE company_id = $1 AND condominium_id = $2 AND id = any($3)`, companyID, condominiumID, ids).Scan(&ours)
	if err != nil {
		return nil, fmt.Errorf("check groups of condominium %d: %w", condominiumID, err)
	}
	var problems []finance.Problem
	for i, g := range groups {
		if g.ID != 0 && !slices.Contains(ours, g.ID) {
			problems = append(problems, finance.Problem{Field: "groups." + strconv.Itoa(i) + ".id",
				Message: fmt.Sprintf("no group with id %d on this condominium", g.ID)})
		}
	}
	return problems, nil
}

// writeGroups stores the groups checkGroups read: the condominium's groups
// become exactly those given. A group given with its id is rewritten in
// place (its id, and the units of it, stay); the others are new; the
// groups not given are deleted. Each group's purposes are replaced.
func writeGroups(ctx context.Context, tx pgx.Tx, c *Change) error {
	groups, ok := c.Memo[groupsMemo].([]groupInput)
	if !ok || c.Op == OpDelete {
		return nil
	}
	company, condominium := c.Scope.CompanyID, c.ID
	kept := []int64{}
	for _, g := range groups {
		if g.ID != 0 {
			kept = append(kept, g.ID)
		}
	}
	if _, err := tx.Exec(ctx, `DELETE FROM condominium_groups WHERE company_id = $1 AND condominium_id = $2
		AND NOT (id = any($3))`, company, condominium, kept); err != nil {
		return fmt.Errorf("delete groups of condominium %d: %w", condominium, err)
	}
	var pGroup []int64
	var pType, pAmount, pFee, pTax []*string
	for _, g := range groups {
		id, err := writeGroup(ctx, tx, company, condominium, g)
		if err != nil {
			return err
		}
		for _, p := range g.Purposes {
			pGroup, pType = append(pGroup, id), append(pType, &p.Type)
			pAmount, pFee, pTax = append(pAmount, p.Texts["amount"]), append(pFee, p.Texts["condominium"]), append(pTax, p.Texts["iptu_amount"])
		}
	}
	if len(pGroup) == 0 {
		return nil
	}
	_, err := tx.Exec(ctx, `INSERT INTO condominium_group_purposes
		(company_id, condominium_id, group_id, type, amount, condominium, iptu_amount)
		SELECT $1, $2, g, t, a, f, x FROM unnest($3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[]) AS u(g, t, a, f, x)`,
		company, condominium, pGroup, pType, pAmount, pFee, pTax)
	if err != nil {
		return fmt.Errorf("write purposes of condominium %d: %w", condominium, err)
	}
	return nil
}

// writeGroup inserts a new group, or rewrites a kept one and removes its
// purposes; its id.
func writeGroup(ctx context.Context, tx pgx.Tx, company, condominium int64, g groupInput) (int64, error) {
	t := g.Texts
	if g.ID == 0 {
		var id int64
		err := tx.QueryRow(ctx, `INSERT INTO condominium_groups
			(company_id, condominium_id, title, status, area_total, bathroom, bedroom, room, suite)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
			company, condominium, t["title"], t["status"], t["area_total"], t["bathroom"], t["bedroom"], t["room"], t["suite"]).Scan(&id)
		if err != nil {
			return 0, fmt.Errorf("write a group of condominium %d: %w", condominium, err)
		}
		return id, nil
	}
	_, err := tx.Exec(ctx, `UPDATE condominium_groups SET title = $3, status = $4, area_total = $5, bathroom = $6,
		bedroom = $7, room = $8, suite = $9, updated_at = now() WHERE company_id = $1 AND id = $2`,
		company, g.ID, t["title"], t["status"], t["area_total"], t["bathroom"], t["bedroom"], t["room"], t["suite"])
	if err != nil {
		return 0, fmt.Errorf("rewrite group %d: %w", g.ID, err)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM condominium_group_purposes WHERE company_id = $1 AND group_id = $2`, company, g.ID); err != nil {
		return 0, fmt.Errorf("replace the purposes of group %d: %w", g.ID, err)
	}
	return g.ID, nil
}
