package schema

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/internal/choice"
)

// The quick check answers "valid" without the general validator, so it is tested against the
// validator on generated schemas and values: schemas from the keywords quick claims to decide
// (type, properties, required, additionalProperties, items, length, size and integer bounds,
// string enums, pattern, format, uniqueItems, $ref with siblings from draft 2019-09 on) mixed with
// forms it must refuse (other keywords, fractional or huge bounds, enums of other than strings,
// tuple items, $ref before draft 2019-09, cycles), under every draft; and for each schema values
// near it (mostly conforming, at and across each bound, numbers written every way JSON allows)
// and a few arbitrary ones.
//
// Two claims are checked: quick accepts only what the validator accepts, and a schema gets a
// quick check exactly when it uses nothing quick refuses. Quick's "false" claims nothing (it
// means "ask the validator"); TestQuickGenerated checks that it is not the common answer on
// valid values.

// quickGen is a stream of choices: the fuzzer's bytes first, then a generator seeded from them,
// so that short inputs still give whole schemas and the fuzzer's mutations steer the first
// choices.
type quickGen struct {
	*choice.Stream
	draft int // 4, 6, 7, 2019 or 2020

	defs    map[string]any // the definitions made so far, by name
	refused bool           // a form quick must refuse was used (at a place reachable from the root)
}

func newQuickGen(b []byte) *quickGen {
	return &quickGen{Stream: choice.New(b), defs: map[string]any{}}
}

func pick[T any](g *quickGen, from ...T) T { return choice.Pick(g.Stream, from...) }

var (
	quickGenNames    = []string{"a", "b", "c", "é", "", "a b", "0"}
	quickGenStrings  = []string{"", "a", "ab", "abc", "b", "ba", "aaaa", "é", "aé😀", "1", "12", "x y", "A", "\x00", "\n", "\ufffd", "a@b.example", "not an email", "2026-01-31", "2026-02-30", "2026-01-31T10:00:00Z", "10:00:00Z", "192.168.0.1", "256.1.1.1", "https://x.example/p", "a b:c", "P1D", "P", "0e3f5a1c-3f6e-4c8a-9a7b-1c2d3e4f5a6b", "host.example", "[a-", "^a$"}
	quickGenPatterns = []string{"^a", "b$", "^[a-c]*$", `\d`, "^.{2}$", "é", "^$", "a|b", `^\S+$`}
	quickGenFormats  = []string{"date", "date-time", "time", "email", "ipv4", "ipv6", "uri", "uuid", "duration", "hostname", "regex", "no-such-format"}
	quickGenInts     = []string{"0", "1", "2", "3", "5", "-1", "-3", "-5", "10", "100", "-0"}
)

// schema builds a whole tool input schema: an object at the root, its definitions, a draft.
func (g *quickGen) schema() map[string]any {
	g.draft = pick(g, 2020, 2020, 2019, 7, 6, 4)
	root := g.object(0)
	root["type"] = "object"
	switch g.draft {
	case 2019:
		root["$schema"] = "https://json-schema.org/draft/2019-09/schema"
	case 7, 6, 4:
		root["$schema"] = "http://json-schema.org/draft-0" + strconv.Itoa(g.draft) + "/schema#"
	}
	if len(g.defs) > 0 {
		root[g.defsKey()] = g.defs
	}
	return root
}

func (g *quickGen) defsKey() string {
	if g.draft < 2019 {
		return "definitions"
	}
	return "$defs"
}

// sub is any schema at nesting depth.
func (g *quickGen) sub(depth int) any {
	if depth > 3 {
		return g.leaf()
	}
	switch g.Intn(20) {
	case 0:
		if g.draft == 4 { // no boolean schemas yet
			return map[string]any{}
		}
		return true
	case 1:
		if g.draft == 4 {
			g.refused = true
			return map[string]any{"not": map[string]any{}}
		}
		return false
	case 2, 3:
		return g.ref(depth)
	case 4, 5, 6:
		return g.object(depth)
	case 7, 8:
		return g.array(depth)
	case 9:
		// no type: keywords of several kinds at once
		s := map[string]any{}
		g.objectKeywords(s, depth)
		g.stringKeywords(s)
		g.numberKeywords(s)
		g.arrayKeywords(s, depth)
		g.maybeRefused(s) // last: nothing overwrites what it adds
		return s
	default:
		return g.leaf()
	}
}

// leaf is a schema for a string, a number, an integer, a boolean or null (or a union of them).
func (g *quickGen) leaf() map[string]any {
	s := map[string]any{}
	switch g.Intn(8) {
	case 0, 1, 2:
		s["type"] = "string"
		g.stringKeywords(s)
	case 3, 4:
		s["type"] = "integer"
		g.numberKeywords(s)
	case 5:
		s["type"] = "number"
		g.numberKeywords(s)
	case 6:
		s["type"] = pick(g, "boolean", "null")
	default:
		s["type"] = pick[any](g, []any{"string", "null"}, []any{"integer", "string"}, []any{"number", "boolean"}, []any{"integer"}, []any{"string", "array"})
		g.stringKeywords(s)
		g.numberKeywords(s)
	}
	g.maybeRefused(s)
	return s
}

func (g *quickGen) stringKeywords(s map[string]any) {
	if g.Chance(30) {
		s["minLength"] = json.Number(strconv.Itoa(g.Intn(4)))
	}
	if g.Chance(30) {
		s["maxLength"] = json.Number(strconv.Itoa(g.Intn(5)))
	}
	if g.Chance(20) {
		s["pattern"] = pick(g, quickGenPatterns...)
	}
	if g.Chance(20) {
		f := pick(g, quickGenFormats...)
		s["format"] = f
		if f == "regex" {
			g.refused = true
		}
	}
	if g.Chance(25) {
		var enum []any
		for range 1 + g.Intn(4) {
			if e := pick(g, quickGenStrings...); !slices.Contains(enum, any(e)) { // draft 4 wants them distinct
				enum = append(enum, e)
			}
		}
		if g.Chance(25) {
			enum = append(enum, pick[any](g, nil, json.Number("1"), true, json.Number("1.0"), []any{}, map[string]any{}))
			g.refused = true
		}
		s["enum"] = enum
	}
}

func (g *quickGen) numberKeywords(s map[string]any) {
	bound := func() json.Number {
		if g.Chance(12) {
			g.refused = true
			return json.Number(pick(g, "0.5", "-1.5", "1e20", "9223372036854775808", "-9223372036854775809", "1e-3"))
		}
		if g.Chance(5) {
			return json.Number(pick(g, "2.0", "1e1", "9223372036854775807", "-9223372036854775808")) // integers all the same
		}
		return json.Number(pick(g, quickGenInts...))
	}
	for _, k := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"} {
		if !g.Chance(20) {
			continue
		}
		if g.draft == 4 && (k == "exclusiveMinimum" || k == "exclusiveMaximum") {
			// draft 4: a boolean that makes minimum or maximum exclusive
			if s["minimum"] != nil && k == "exclusiveMinimum" || s["maximum"] != nil && k == "exclusiveMaximum" {
				s[k] = g.Chance(50)
			}
			continue
		}
		s[k] = bound()
	}
	if g.Chance(15) {
		if g.Chance(15) {
			g.refused = true
			s["multipleOf"] = json.Number(pick(g, "0.5", "1.5", "1e20"))
		} else {
			s["multipleOf"] = json.Number(strconv.Itoa(1 + g.Intn(4)))
		}
	}
}

func (g *quickGen) object(depth int) map[string]any {
	s := map[string]any{"type": "object"}
	g.objectKeywords(s, depth)
	g.maybeRefused(s)
	return s
}

func (g *quickGen) objectKeywords(s map[string]any, depth int) {
	if g.Chance(85) {
		props := map[string]any{}
		for range g.Intn(4) {
			if name := pick(g, quickGenNames...); props[name] == nil { // no schema made and dropped
				props[name] = g.sub(depth + 1)
			}
		}
		s["properties"] = props
	}
	if g.Chance(40) && !(g.draft == 4 && g.Chance(50)) {
		req := []any{pick(g, quickGenNames...)}
		if name := pick(g, quickGenNames...); name != req[0] {
			req = append(req, name)
		}
		s["required"] = req
	}
	switch g.Intn(6) {
	case 0:
		s["additionalProperties"] = false
	case 1:
		s["additionalProperties"] = true
	case 2:
		s["additionalProperties"] = g.sub(depth + 1)
	}
	if g.Chance(15) {
		s["minProperties"] = json.Number(strconv.Itoa(g.Intn(3)))
	}
	if g.Chance(15) {
		s["maxProperties"] = json.Number(strconv.Itoa(g.Intn(4)))
	}
}

func (g *quickGen) array(depth int) map[string]any {
	s := map[string]any{"type": "array"}
	g.arrayKeywords(s, depth)
	g.maybeRefused(s)
	return s
}

func (g *quickGen) arrayKeywords(s map[string]any, depth int) {
	if g.Chance(75) {
		if g.draft < 2020 && g.Chance(10) {
			s["items"] = []any{g.sub(depth + 1)} // a tuple
			g.refused = true
		} else {
			s["items"] = g.sub(depth + 1)
		}
	}
	if g.Chance(25) {
		s["minItems"] = json.Number(strconv.Itoa(g.Intn(3)))
	}
	if g.Chance(25) {
		s["maxItems"] = json.Number(strconv.Itoa(g.Intn(4)))
	}
	if g.Chance(30) {
		s["uniqueItems"] = g.Chance(80)
	}
}

// ref puts a schema under the definitions and refers to it, sometimes with siblings, sometimes
// to a definition being built (a cycle) or to the root.
func (g *quickGen) ref(depth int) map[string]any {
	if g.Chance(8) {
		g.refused = true // a cycle through the root
		return map[string]any{"$ref": "#"}
	}
	name := "d" + strconv.Itoa(len(g.defs))
	g.defs[name] = true // reserved; a cycle back to it is possible while it is built
	if g.Chance(5) {
		g.defs[name] = map[string]any{"$ref": "#/" + g.defsKey() + "/" + name}
		g.refused = true
	} else {
		g.defs[name] = g.sub(depth + 1)
	}
	s := map[string]any{"$ref": "#/" + g.defsKey() + "/" + name}
	if g.draft < 2019 {
		g.refused = true
	}
	if g.Chance(30) {
		g.stringKeywords(s)
		if g.Chance(50) {
			s["type"] = pick(g, "string", "integer", "object")
		}
	}
	return s
}

// maybeRefused adds, now and then, a keyword quick leaves to the validator (one the schema's
// draft has: a keyword a draft does not know is ignored by the validator too).
func (g *quickGen) maybeRefused(s map[string]any) {
	if !g.Chance(10) {
		return
	}
	leaf := func() any { return g.leaf() }
	type form struct {
		from, to int // the drafts that have the keyword
		add      func()
	}
	var forms []form
	for _, f := range []form{
		{4, 2020, func() { s["not"] = leaf() }},
		{4, 2020, func() { s["anyOf"] = []any{leaf(), leaf()} }},
		{4, 2020, func() { s["oneOf"] = []any{leaf(), leaf()} }},
		{4, 2020, func() { s["allOf"] = []any{leaf()} }},
		{4, 2020, func() { s["patternProperties"] = map[string]any{"^a": leaf()} }},
		{4, 2020, func() { s["enum"] = []any{json.Number("1"), "a"} }},
		{4, 7, func() { s["dependencies"] = map[string]any{"a": []any{"b"}} }},
		{4, 7, func() { s["dependencies"] = map[string]any{"a": leaf()} }},
		{4, 2019, func() { s["items"], s["additionalItems"] = []any{leaf()}, false }},
		{6, 2020, func() { s["const"] = pick[any](g, "a", json.Number("1"), nil, map[string]any{}) }},
		{6, 2020, func() { s["contains"] = leaf() }},
		{6, 2020, func() { s["propertyNames"] = map[string]any{"maxLength": json.Number("1")} }},
		{7, 2020, func() { s["if"], s["then"] = leaf(), leaf() }},
		{7, 2020, func() { s["if"], s["else"] = leaf(), leaf() }},
		{2019, 2020, func() { s["dependentRequired"] = map[string]any{"a": []any{"b"}} }},
		{2019, 2020, func() { s["dependentSchemas"] = map[string]any{"a": leaf()} }},
		{2019, 2020, func() { s["unevaluatedProperties"] = false }},
		{2019, 2020, func() { s["unevaluatedItems"] = leaf() }},
		{2019, 2020, func() { s["minContains"], s["contains"] = json.Number("1"), leaf() }},
		{2020, 2020, func() { s["prefixItems"] = []any{leaf()} }},
		{2019, 2019, func() { s["$recursiveRef"] = "#" }},
		{2020, 2020, func() { s["$dynamicRef"] = "#" }},
	} {
		if f.from <= g.draft && g.draft <= f.to {
			forms = append(forms, f)
		}
	}
	pick(g, forms...).add()
	g.refused = true
}

// value makes a value near schema s: mostly one that conforms, with edges and mistakes.
func (g *quickGen) value(s any, depth int) any {
	if depth > 6 || g.Chance(6) {
		return g.anyValue(depth)
	}
	m, ok := s.(map[string]any)
	if !ok {
		return g.anyValue(depth)
	}
	if r, ok := m["$ref"].(string); ok && g.Chance(70) {
		if def, ok := g.defs[strings.TrimPrefix(r, "#/"+g.defsKey()+"/")]; ok {
			return g.value(def, depth+1)
		}
		return g.anyValue(depth) // "#"
	}
	if e, ok := m["enum"].([]any); ok && g.Chance(70) {
		return pick(g, e...)
	}
	var types []string
	switch t := m["type"].(type) {
	case string:
		types = []string{t}
	case []any:
		for _, x := range t {
			types = append(types, x.(string))
		}
	}
	if len(types) == 0 || g.Chance(5) {
		types = []string{"string", "integer", "number", "boolean", "null", "array", "object"}
	}
	switch pick(g, types...) {
	case "string":
		return g.stringValue(m)
	case "integer":
		return g.intValue(m)
	case "number":
		if g.Chance(50) {
			return g.intValue(m)
		}
		return json.Number(pick(g, "0.5", "-0.5", "1.5", "2.5e0", "1e-3", "3.0", "-0.0", "1E400", "5.000001", "4.999999"))
	case "boolean":
		return g.Chance(50)
	case "null":
		return nil
	case "array":
		return g.arrayValue(m, depth)
	default:
		return g.objectValue(m, depth)
	}
}

func numOr(v any, def int) int {
	if n, ok := v.(json.Number); ok {
		if i, err := strconv.Atoi(string(n)); err == nil {
			return i
		}
	}
	return def
}

func (g *quickGen) stringValue(m map[string]any) any {
	if g.Chance(60) {
		lo, hi := numOr(m["minLength"], 0), numOr(m["maxLength"], 6)
		if hi < lo {
			hi = lo
		}
		n := lo + g.Intn(hi-lo+2) // sometimes one over
		r := []rune(pick(g, "a", "b", "é", "😀", "1", " "))[0]
		out := make([]rune, n)
		for i := range out {
			out[i] = r
			if g.Chance(30) {
				out[i] = []rune(pick(g, "a", "b", "c", "é", "1", "-"))[0]
			}
		}
		return string(out)
	}
	return pick(g, quickGenStrings...)
}

// intValue is an integer at or near the bounds, written in any of JSON's ways.
func (g *quickGen) intValue(m map[string]any) any {
	var n int64
	switch g.Intn(5) {
	case 0:
		n = int64(numOr(m["minimum"], 0) + g.Intn(3) - 1)
	case 1:
		n = int64(numOr(m["maximum"], 0) + g.Intn(3) - 1)
	case 2:
		n = int64(numOr(m["exclusiveMinimum"], 0) + g.Intn(3) - 1)
	case 3:
		n = int64(numOr(m["exclusiveMaximum"], 0) + g.Intn(3) - 1)
	default:
		n = int64(g.Intn(21) - 10)
	}
	if mul := numOr(m["multipleOf"], 0); mul > 0 && g.Chance(50) {
		n -= n % int64(mul)
	}
	s := strconv.FormatInt(n, 10)
	switch g.Intn(12) {
	case 0:
		s += ".0"
	case 1:
		s += "e0"
	case 2:
		s = strconv.FormatInt(n*10, 10) + "e-1"
	case 3:
		if n == 0 {
			s = "-0"
		}
	case 4:
		s = pick(g, "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "99999999999999999999", "1e20", "0.1e1")
	}
	return json.Number(s)
}

func (g *quickGen) arrayValue(m map[string]any, depth int) any {
	lo, hi := numOr(m["minItems"], 0), numOr(m["maxItems"], 4)
	if hi < lo {
		hi = lo
	}
	n := lo + g.Intn(hi-lo+2)
	if g.Chance(5) || m["uniqueItems"] == true && g.Chance(20) {
		n = 15 + g.Intn(6) // uniqueItems takes another way above 16 items
	}
	out := make([]any, 0, n)
	items := m["items"]
	for range n {
		if len(out) > 0 && g.Chance(15) {
			out = append(out, out[g.Intn(len(out))]) // a duplicate
			continue
		}
		out = append(out, g.value(items, depth+1))
	}
	return out
}

func (g *quickGen) objectValue(m map[string]any, depth int) any {
	out := map[string]any{}
	props, _ := m["properties"].(map[string]any)
	req, _ := m["required"].([]any)
	for _, r := range req {
		if g.Chance(90) {
			name := r.(string)
			out[name] = g.value(props[name], depth+1)
		}
	}
	for name, p := range props {
		if g.Chance(60) {
			out[name] = g.value(p, depth+1)
		}
	}
	if g.Chance(20) {
		out[pick(g, "x", "a", "é")] = g.value(m["additionalProperties"], depth+1)
	}
	return out
}

// anyValue is an arbitrary small value.
func (g *quickGen) anyValue(depth int) any {
	switch g.Intn(7) {
	case 0:
		return nil
	case 1:
		return g.Chance(50)
	case 2:
		return json.Number(pick(g, append(quickGenInts, "0.5", "1e3", "-2.5", "99999999999999999999")...))
	case 3, 4:
		return pick(g, quickGenStrings...)
	case 5:
		if depth > 4 {
			return []any{}
		}
		return []any{g.anyValue(depth + 1), g.anyValue(depth + 1)}[:g.Intn(3)]
	default:
		if depth > 4 {
			return map[string]any{}
		}
		return map[string]any{pick(g, quickGenNames...): g.anyValue(depth + 1)}
	}
}

// quickGenStats counts what a run of checkQuickGenerated saw.
type quickGenStats struct {
	schemas, uncompiled, withQuick    int
	values, validatorValid, quickOnes int
}

// checkQuickGenerated makes a schema and values from b and checks quick against the validator.
func checkQuickGenerated(t *testing.T, b []byte, st *quickGenStats) {
	t.Helper()
	g := newQuickGen(b)
	doc := g.schema()
	text, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	st.schemas++
	s, err := Compile("test.quick", "input", text, true)
	if err != nil {
		st.uncompiled++ // e.g. a draft 4 schema with an empty required list
		return
	}
	if g.refused && s.quick != nil {
		t.Fatalf("quick check for a schema with a form it must refuse: %s", text)
	}
	if !g.refused && s.quick == nil {
		t.Fatalf("no quick check for a schema within quick's keywords: %s", text)
	}
	if s.quick == nil {
		return
	}
	st.withQuick++
	for range 12 {
		vt, err := json.Marshal(g.value(doc, 0))
		if err != nil {
			t.Fatal(err)
		}
		v, err := Decode(vt)
		if err != nil {
			t.Fatalf("%s: %v", vt, err)
		}
		st.values++
		verr := mustGraph(t, s).Validate(v)
		if verr == nil {
			st.validatorValid++
		}
		if s.quick.valid(v) {
			st.quickOnes++
			if verr != nil {
				t.Fatalf("quick accepts %s under %s; the validator does not: %v", vt, text, verr)
			}
		}
	}
}

// TestQuickGenerated is the bounded run of FuzzQuickGenerated that every test run makes. It also
// checks that the generator is worth its name: most schemas compile, both kinds (with and
// without a quick check) are made, and quick decides a fair share of the valid values.
func TestQuickGenerated(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	var st quickGenStats
	for i := range n {
		checkQuickGenerated(t, choice.Seed(uint64(i)), &st)
	}
	t.Logf("%+v", st)
	if st.uncompiled > st.schemas/10 {
		t.Errorf("%d of %d generated schemas do not compile", st.uncompiled, st.schemas)
	}
	if st.withQuick < st.schemas/4 || st.withQuick > st.schemas*3/4 {
		t.Errorf("%d of %d schemas have a quick check: the generator should make both kinds", st.withQuick, st.schemas)
	}
	if st.validatorValid < st.values/5 || st.quickOnes < st.validatorValid/3 {
		t.Errorf("of %d values the validator accepts %d and quick %d: too few conform, or quick hardly decides", st.values, st.validatorValid, st.quickOnes)
	}
}

// FuzzQuickGenerated: for any schema and value the generator makes from the input, quick
// accepts only what the validator accepts, and has a check exactly for the schemas within its
// keywords (see checkQuickGenerated). make fuzz runs it; regressions go under
// testdata/fuzz/FuzzQuickGenerated.
func FuzzQuickGenerated(f *testing.F) {
	for i := range 16 {
		f.Add(choice.Seed(uint64(i)))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkQuickGenerated(t, b, &quickGenStats{})
	})
}
