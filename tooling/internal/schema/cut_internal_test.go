package schema

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// Stopping early lists exactly the fields that validating the whole value
// lists first, whatever comes before, inside or after the long arrays, and
// falls back to the whole value when it cannot be sure.
func TestStopEarlyListsTheSameFirstFields(t *testing.T) {
	const limit = 3
	many := func(item string, n int) string {
		return "[" + strings.TrimSuffix(strings.Repeat(item+",", n), ",") + "]"
	}
	cases := []struct {
		name, schema, value string
		stops               bool
	}{
		{"one long array", `{"type":"object","properties":{"ids":{"type":"array","items":{"type":"integer"}}}}`,
			`{"ids":` + many(`"x"`, 50) + `}`, true},
		{"a field before it", `{"type":"object","properties":{"a":{"type":"string"},"ids":{"type":"array","items":{"type":"integer"}}}}`,
			`{"a":1,"ids":` + many(`"x"`, 50) + `}`, true},
		{"a field after it", `{"type":"object","properties":{"z":{"type":"string"},"ids":{"type":"array","items":{"type":"integer"}}}}`,
			`{"z":1,"ids":` + many(`"x"`, 50) + `}`, true},
		{"valid items first", `{"type":"object","properties":{"ids":{"type":"array","items":{"type":"integer"}}}}`,
			`{"ids":[1,2,3,4,5,6,7,8,9,10,11,"x",12,"y","z",13,"w","v"]}`, true},
		{"items the quick check is not sure of", `{"type":"object","properties":{"ids":{"type":"array","items":{"type":"number","maximum":10}}}}`,
			`{"ids":` + strings.TrimSuffix(many(`1.5`, 50), "]") + `,"x"]}`, false},
		{"objects in an array", `{"type":"object","properties":{"rows":{"type":"array","items":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}}}}`,
			`{"rows":` + many(`{"n":"x","m":1}`, 20) + `}`, true},
		{"arrays in an array", `{"type":"object","properties":{"m":{"type":"array","items":{"type":"array","items":{"type":"integer"}}}}}`,
			`{"m":` + many(many(`"x"`, 6), 6) + `}`, true},
		{"maxItems: never cut", `{"type":"object","properties":{"ids":{"type":"array","maxItems":5,"items":{"type":"integer"}}}}`,
			`{"ids":` + many(`"x"`, 50) + `}`, false},
		{"uniqueItems: never cut", `{"type":"object","properties":{"ids":{"type":"array","uniqueItems":true,"items":{"type":"integer"}}}}`,
			`{"ids":` + many(`"x"`, 50) + `}`, false},
		{"additional properties", `{"type":"object","additionalProperties":{"type":"array","items":{"type":"integer"}}}`,
			`{"b":` + many(`"x"`, 9) + `,"a":` + many(`"x"`, 9) + `}`, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Compile("t.x", "input", json.RawMessage(tc.schema), true)
			if err != nil {
				t.Fatal(err)
			}
			if s.quick == nil {
				t.Fatal("no quick check: the case proves nothing")
			}
			v, err := Decode([]byte(tc.value))
			if err != nil {
				t.Fatal(err)
			}
			whole, wholeMore, _ := s.validateFirst(v, limit, nil)
			got, more, stopped := s.Validate(v, limit)
			if !reflect.DeepEqual(got, whole) {
				t.Fatalf("first fields:\n%v\nwant (the whole value's):\n%v", got, whole)
			}
			if stopped != tc.stops {
				t.Fatalf("stopped early %v, want %v", stopped, tc.stops)
			}
			if stopped && (more < 1 || more > wholeMore) || !stopped && more != wholeMore {
				t.Fatalf("more %d (stopped %v), whole value: %d", more, stopped, wholeMore)
			}
		})
	}
}
