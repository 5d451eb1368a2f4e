package jobs

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

// plainPixPayload is PixValidatePayload read by encoding/json alone: what
// its own scanner must agree with. A null entry is refused.
type plainPixPayload struct {
	Payloads []*string `json:"payloads"`
}

func decodeBoth(raw []byte) (fast, std []string, fastErr, stdErr error) {
	var f PixValidatePayload
	fastErr = f.UnmarshalJSON(raw)
	var s plainPixPayload
	stdErr = decodeStrict(raw, &s)
	for _, p := range s.Payloads {
		if p == nil {
			stdErr = errors.New("a null entry")
			break
		}
		std = append(std, *p)
	}
	return f.Payloads, std, fastErr, stdErr
}

func TestPixPayloadScanner(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{
		`{"payloads":["a","b"]}`,
		`{"payloads":[]}`,
		` {"payloads":[ "a" , "b" ]} `,
		`{"payloads":["with \"quote\" and \\ and \n","\u00e9","é","\ud800"]}`,
		"{\"payloads\":[\"\xff\xfe\"]}",
		"{\"payloads\":[\"tab\there\"]}",
		`{"payloads":["a",]}`,
		`{"payloads":["a" "b"]}`,
		`{"payloads":["a"]}]}`,
		`{"payloads":["a"]} x`,
		`{"payloads":[1]}`,
		`{"payloads":["unterminated]}`,
		`{"payloads":["a"],"other":1}`,
		`{"other":1,"payloads":["a"]}`,
		`{ "payloads" : ["a"] }`,
		`{"payloads":null}`,
		`{"payloads":[null]}`,
		`{"payloads":["a",null]}`,
		`{"payloads":["x"],"payloads":["y"]}`,
		"\v{\"payloads\":[\"a\"]}",
		"{\"payloads\":[\"a\"]}\u00a0",
		"\f{\"payloads\":[\"a\"]}\f",
		`null`,
		``,
	} {
		fast, std, fastErr, stdErr := decodeBoth([]byte(raw))
		if (fastErr == nil) != (stdErr == nil) || (fastErr == nil && !slices.Equal(fast, std)) {
			t.Errorf("%q: scanner %q (%v), encoding/json %q (%v)", raw, fast, fastErr, std, stdErr)
		}
	}
}

func FuzzPixPayloadScanner(f *testing.F) {
	for _, seed := range []string{`{"payloads":["a","b"]}`, `{"payloads":["\"",  "x\\u0041"]}`, `{"payloads":["a"]}]}`,
		"\v{\"payloads\":[\"a\"]}", "{\"payloads\":[\"a\"]}\u00a0"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		fast, std, fastErr, stdErr := decodeBoth(raw)
		if (fastErr == nil) != (stdErr == nil) || (fastErr == nil && !slices.Equal(fast, std)) {
			t.Fatalf("%q: scanner %q (%v), encoding/json %q (%v)", raw, fast, fastErr, std, stdErr)
		}
	})
}

func TestPixPayloadScannerOnALongList(t *testing.T) {
	t.Parallel()
	payloads, _ := pixPayloads(t, 3_000)
	payloads[10] = `quote " backslash \ newline` + "\n"
	raw, err := json.Marshal(PixValidatePayload{Payloads: payloads})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(raw), `{"payloads":[`) {
		t.Fatalf("the API's form changed: %.40s", raw)
	}
	var got PixValidatePayload
	if err := got.UnmarshalJSON(raw); err != nil || !slices.Equal(got.Payloads, payloads) {
		t.Fatalf("round trip: %v", err)
	}
}
