package openapi

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

type inner struct {
	Code string `json:"code"`
}

type embedded struct {
	Flat int `json:"flat"`
}

type sample struct {
	embedded
	ID       int64             `json:"id"`
	Name     *string           `json:"name"`
	Tags     []string          `json:"tags,omitempty"`
	Rate     json.RawMessage   `json:"rate" openapi:"number,null"`
	Amount   json.Number       `json:"amount"`
	When     time.Time         `json:"when"`
	Inner    inner             `json:"inner"`
	Extra    map[string]bool   `json:"extra"`
	Skipped  string            `json:"-"`
	hidden   string            // unexported: not encoded
	Anything any               `json:"anything,omitzero"`
	Nested   *[]map[string]int `json:"nested"`
	Later    []int64           `json:"later" openapi:"nullable"`
}

func TestSchemaOf(t *testing.T) {
	t.Parallel()
	r := Reflector{Known: map[reflect.Type]*Schema{reflect.TypeFor[time.Time](): {Type: "string", Format: "date-time"}}}
	s, err := r.SchemaFor(sample{})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(s)
	want := `{"type":"object","properties":{"amount":{"type":"number"},"anything":{},` +
		`"extra":{"type":"object","additionalProperties":{"type":"boolean"}},"flat":{"type":"integer","format":"int64"},` +
		`"id":{"type":"integer","format":"int64"},"inner":{"type":"object","properties":{"code":{"type":"string"}},` +
		`"additionalProperties":false,"required":["code"]},` +
		`"later":{"type":["array","null"],"items":{"type":"integer","format":"int64"}},"name":{"type":["string","null"]},` +
		`"nested":{"type":["array","null"],"items":{"type":"object","additionalProperties":{"type":"integer","format":"int64"}}},` +
		`"rate":{"type":["number","null"]},"tags":{"type":"array","items":{"type":"string"}},` +
		`"when":{"type":"string","format":"date-time"}},"additionalProperties":false,` +
		`"required":["flat","id","name","rate","amount","when","inner","extra","nested","later"]}`
	if string(got) != want {
		t.Errorf("schema\n%s\nwant\n%s", got, want)
	}
}

type selfEncoded struct{}

func (selfEncoded) MarshalJSON() ([]byte, error) { return []byte(`"x"`), nil }

type loop struct {
	Next *loop `json:"next"`
}

func TestSchemaOfRefuses(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		v    any
		want string
	}{
		{selfEncoded{}, "encodes itself"},
		{struct {
			V selfEncoded `json:"v"`
		}{}, "encodes itself"},
		{loop{}, "refers to itself"},
		{map[int]string{}, "string keys"},
		{make(chan int), "no JSON form"},
	} {
		_, err := Reflector{}.SchemaFor(c.v)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%T: %v, want an error saying %q", c.v, err, c.want)
		}
	}
}

func TestNullable(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   *Schema
		want string
	}{
		{String(), `{"type":["string","null"]}`},
		{Enum("a", "b"), `{"type":["string","null"],"enum":["a","b",null]}`},
		{Nullable(Integer()), `{"type":["integer","null"],"format":"int64"}`},
		{Ref("invoices"), `{"anyOf":[{"$ref":"#/components/schemas/invoices"},{"type":"null"}]}`},
		{&Schema{Ref: SchemaRef("Decimal2"), Type: "number"}, // the type beside a $ref: null still an alternative
			`{"anyOf":[{"$ref":"#/components/schemas/Decimal2","type":"number"},{"type":"null"}]}`},
		{Any(), `{}`},
	} {
		orig, _ := json.Marshal(c.in)
		got, _ := json.Marshal(Nullable(c.in))
		if string(got) != c.want {
			t.Errorf("Nullable(%s) = %s, want %s", orig, got, c.want)
		}
		if after, _ := json.Marshal(c.in); string(after) != string(orig) {
			t.Errorf("Nullable changed its argument: %s, was %s", after, orig)
		}
	}
}
