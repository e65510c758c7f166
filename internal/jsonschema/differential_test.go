package jsonschema_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	upstream "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toolexplorer/toolexplorer/internal/choice"
	"github.com/toolexplorer/toolexplorer/internal/jsonschema"
)

// The fork must behave as upstream does: the differential test compiles
// generated schemas (valid and not, under every draft, with references,
// anchors, dynamic and recursive references, unevaluated keywords, formats
// and content) with both, and validates generated values (near the schema's
// property names and bounds, and arbitrary) with both. They must agree on
// whether the schema compiles, on the kind of error when it does not (and on
// the failing keyword locations when the meta-schema refuses it), and on
// every value's verdict and its failing keyword and instance locations.

// diffGen makes a case of the choices of a stream.
type diffGen struct {
	*choice.Stream
	draft int // 4, 6, 7, 2019 or 2020
	// clean leaves out the forms that make a schema fail to compile (wrong
	// types, references to nothing, bad patterns, anchors and ids...), so
	// that about half the cases compile and their values are compared.
	clean bool
}

func newDiffGen(b []byte) *diffGen { return &diffGen{Stream: choice.New(b)} }

func diffPick[T any](g *diffGen, from ...T) T { return choice.Pick(g.Stream, from...) }

var (
	diffNames    = []string{"a", "b", "c", "é", "", "a b", "0", "$ref", "x-y"}
	diffStrings  = []string{"", "a", "ab", "abc", "ba", "aaaa", "é", "aé😀", "1", "x y", "\x00", "a@b.example", "not an email", "2026-01-31", "2026-02-30", "2026-01-31T10:00:00Z", "10:00:00Z", "192.168.0.1", "256.1.1.1", "::1", "https://x.example/p", "a b:c", "P1D", "P", "0e3f5a1c-3f6e-4c8a-9a7b-1c2d3e4f5a6b", "host.example", "[a-", "^a$", "eyJhIjoxfQ==", "not base64!", `{"a":1}`, "/a/0", "0/a", "{x}"}
	diffPatterns = []string{"^a", "b$", "^[a-c]*$", `\d`, "^.{2}$", "é", "^$", "a|b", `^\S+$`, "[", "(?<n>a)", `\p{L}`}
	diffFormats  = []string{"date", "date-time", "time", "email", "ipv4", "ipv6", "uri", "uri-reference", "uuid", "duration", "hostname", "regex", "json-pointer", "relative-json-pointer", "uri-template", "period", "semver", "no-such-format"}
	diffNumbers  = []string{"0", "1", "2", "3", "5", "-1", "-3", "10", "100", "0.5", "1.5", "-0", "1e2", "1e400", "0.1"}
	diffTypes    = []string{"string", "number", "integer", "object", "array", "boolean", "null"}
)

func (g *diffGen) num() json.Number { return json.Number(diffPick(g, diffNumbers...)) }

func (g *diffGen) nonNeg() json.Number {
	return json.Number(diffPick(g, "0", "1", "2", "3", "5"))
}

// schema builds a root schema with its draft.
func (g *diffGen) schema() map[string]any {
	g.draft = diffPick(g, 2020, 2020, 2019, 7, 6, 4)
	g.clean = g.Chance(50)
	var defs map[string]any
	if g.clean {
		// every definition a reference may name
		defs = map[string]any{}
		for _, name := range []string{"x", "y", "z"} {
			defs[name] = g.sub(2)
		}
	}
	root := g.object(0)
	switch g.Intn(8) {
	case 0: // no $schema: the compiler's default draft
	case 1:
		if g.clean {
			break
		}
		root["$schema"] = diffPick[any](g, "https://example.com/no-such-meta", 5, "https://json-schema.org/schema")
	default:
		root["$schema"] = map[int]string{
			2020: "https://json-schema.org/draft/2020-12/schema",
			2019: "https://json-schema.org/draft/2019-09/schema",
			7:    "http://json-schema.org/draft-07/schema#",
			6:    "http://json-schema.org/draft-06/schema#",
			4:    "http://json-schema.org/draft-04/schema#",
		}[g.draft]
	}
	switch {
	case g.clean:
		root["$defs"] = defs
	case g.Chance(40):
		defs = map[string]any{}
		for range 1 + g.Intn(3) {
			defs[diffPick(g, "x", "y", "z")] = g.sub(1)
		}
		root[diffPick(g, "$defs", "definitions")] = defs
	}
	return root
}

func (g *diffGen) sub(depth int) any {
	if depth > 3 {
		return map[string]any{"type": diffPick(g, diffTypes...)}
	}
	switch g.Intn(30) {
	case 0, 1:
		if g.draft == 4 && (g.clean || g.Chance(80)) {
			return map[string]any{}
		}
		return g.Chance(70)
	case 2, 3, 4:
		return g.ref()
	case 5:
		if g.clean {
			return g.object(depth)
		}
		// a wrong schema: a number, a string, an array
		return diffPick[any](g, 1, "s", []any{})
	default:
		return g.object(depth)
	}
}

func (g *diffGen) ref() map[string]any {
	s := map[string]any{}
	if g.clean {
		switch g.Intn(4) {
		case 0:
			s["$ref"] = "#"
		case 1:
			s["$recursiveRef"] = "#"
		default:
			s["$ref"] = "#/$defs/" + diffPick(g, "x", "y", "z")
			if g.Chance(30) {
				s["type"] = diffPick(g, diffTypes...)
			}
		}
		return s
	}
	switch g.Intn(9) {
	case 0:
		s["$ref"] = "#"
	case 1:
		s["$ref"] = "#/$defs/" + diffPick(g, "x", "y", "z")
	case 2:
		s["$ref"] = "#/definitions/" + diffPick(g, "x", "y", "z")
	case 3:
		s["$ref"] = "#" + diffPick(g, "anc", "nope")
	case 4:
		s["$ref"] = diffPick(g, "#/nope", "#/properties/a", "sub.json", "http://other.example/s.json", "https://json-schema.org/draft/2020-12/schema", "%zz")
	case 5:
		s["$dynamicRef"] = diffPick(g, "#meta", "#anc", "#/$defs/x")
	case 6:
		s["$recursiveRef"] = diffPick(g, "#", "#/$defs/x")
	case 7:
		s["$ref"] = 5 // not a string
	default:
		s["$ref"] = "#/$defs/x"
		s["type"] = diffPick(g, diffTypes...)
	}
	return s
}

// object is a schema object with keywords of several kinds.
func (g *diffGen) object(depth int) map[string]any {
	s := map[string]any{}
	for range 1 + g.Intn(4) {
		g.keyword(s, depth)
	}
	if !g.clean && g.Chance(3) {
		// a keyword with a value of the wrong type, for the meta-schema to refuse
		k := diffPick(g, "type", "minLength", "properties", "required", "items", "enum", "pattern", "format", "minimum", "exclusiveMinimum", "$id", "$anchor", "allOf", "uniqueItems", "multipleOf", "dependentRequired", "const")
		s[k] = diffPick[any](g, "x", -1, 1.5, []any{}, map[string]any{}, nil, true, []any{"a", "a"})
	}
	return s
}

func (g *diffGen) subs(depth int) []any {
	var out []any
	for range g.Intn(4) {
		out = append(out, g.sub(depth+1))
	}
	return out
}

func (g *diffGen) keyword(s map[string]any, depth int) {
	switch g.Intn(34) {
	case 0, 1:
		if g.Chance(80) {
			s["type"] = diffPick(g, diffTypes...)
		} else {
			i := g.Intn(len(diffTypes))
			s["type"] = []any{diffTypes[i], diffTypes[(i+1+g.Intn(len(diffTypes)-1))%len(diffTypes)]}
		}
	case 2:
		props := map[string]any{}
		for range 1 + g.Intn(3) {
			props[diffPick(g, diffNames...)] = g.sub(depth + 1)
		}
		s["properties"] = props
	case 3:
		var req []any
		for range g.Intn(3) {
			if n := diffPick(g, diffNames...); !slices.Contains(req, any(n)) {
				req = append(req, n)
			}
		}
		s["required"] = req
	case 4:
		s["additionalProperties"] = g.sub(depth + 1)
	case 5:
		p := diffPick(g, diffPatterns...)
		if g.clean || g.Chance(70) {
			p = diffPick(g, diffPatterns[:9]...)
		}
		s["patternProperties"] = map[string]any{p: g.sub(depth + 1)}
	case 6:
		s[diffPick(g, "minProperties", "maxProperties", "minItems", "maxItems", "minLength", "maxLength", "minContains", "maxContains")] = g.nonNeg()
	case 7:
		s["propertyNames"] = g.sub(depth + 1)
	case 8:
		if g.draft >= 2019 {
			s["dependentRequired"] = map[string]any{diffPick(g, diffNames...): []any{diffPick(g, diffNames...)}}
		} else {
			s["dependencies"] = map[string]any{diffPick(g, diffNames...): diffPick[any](g, []any{diffPick(g, diffNames...)}, g.sub(depth+1))}
		}
	case 9:
		s["dependentSchemas"] = map[string]any{diffPick(g, diffNames...): g.sub(depth + 1)}
	case 10:
		s["unevaluatedProperties"] = g.sub(depth + 1)
	case 11:
		s["unevaluatedItems"] = g.sub(depth + 1)
	case 12:
		if g.draft < 2020 && g.Chance(50) {
			s["items"] = g.subs(depth)
		} else {
			s["items"] = g.sub(depth + 1)
		}
	case 13:
		s["prefixItems"] = g.subs(depth)
	case 14:
		s["additionalItems"] = g.sub(depth + 1)
	case 15:
		s["contains"] = g.sub(depth + 1)
	case 16:
		s["uniqueItems"] = g.Chance(70)
	case 17:
		s["pattern"] = diffPick(g, diffPatterns...)
		if g.clean {
			s["pattern"] = diffPick(g, diffPatterns[:9]...)
		}
	case 18:
		s["format"] = diffPick(g, diffFormats...)
		if g.clean {
			s["format"] = diffPick(g, diffFormats[:len(diffFormats)-1]...)
		}
	case 19:
		s[diffPick(g, "minimum", "maximum")] = g.num()
	case 20:
		if g.draft == 4 {
			s["exclusiveMinimum"] = g.Chance(50)
			s["minimum"] = g.num()
		} else {
			s[diffPick(g, "exclusiveMinimum", "exclusiveMaximum")] = g.num()
		}
	case 21:
		s["multipleOf"] = json.Number(diffPick(g, "1", "2", "0.5", "0.1", "3", "2", "1.5", "0", "-1"))
		if g.clean {
			s["multipleOf"] = json.Number(diffPick(g, "1", "2", "0.5", "0.1", "3", "1.5"))
		}
	case 22:
		var e []any
		for range 1 + g.Intn(3) {
			e = append(e, g.value(nil, 1))
		}
		s["enum"] = e
	case 23:
		s["const"] = g.value(nil, 1)
	case 24:
		s[diffPick(g, "allOf", "anyOf", "oneOf")] = g.subs(depth)
	case 25:
		s["not"] = g.sub(depth + 1)
	case 26:
		s["if"] = g.sub(depth + 1)
		if g.Chance(70) {
			s["then"] = g.sub(depth + 1)
		}
		if g.Chance(50) {
			s["else"] = g.sub(depth + 1)
		}
	case 27:
		for k, v := range g.ref() {
			s[k] = v
		}
	case 28:
		if g.clean {
			break
		}
		s["$anchor"] = diffPick(g, "anc", "anc", "anc", "1bad")
	case 29:
		if g.clean {
			break
		}
		s["$dynamicAnchor"] = diffPick(g, "meta", "anc")
		s["$recursiveAnchor"] = g.Chance(50)
	case 30:
		if g.clean {
			break
		}
		id := diffPick(g, "http://example.com/root.json", "sub.json", "http://example.com/other.json#", "#frag", "%zz")
		if g.draft == 4 {
			s["id"] = id
		} else {
			s["$id"] = id
		}
	case 31:
		s["contentEncoding"] = diffPick(g, "base64", "no-such")
		if g.clean {
			s["contentEncoding"] = "base64"
		}
		if g.Chance(60) {
			s["contentMediaType"] = diffPick(g, "application/json", "text/plain")
		}
		if g.Chance(40) {
			s["contentSchema"] = g.sub(depth + 1)
		}
	case 32:
		if g.clean {
			s[diffPick(g, "title", "description", "$comment")] = diffPick(g, diffStrings...)
			break
		}
		s[diffPick(g, "title", "description", "$comment", "default", "examples", "deprecated", "readOnly", "x-unknown")] = g.value(nil, 2)
	default:
		s["$defs"] = map[string]any{diffPick(g, "x", "y", "z"): g.sub(depth + 1)}
	}
}

// value is a JSON value: near s when it is a schema object, else arbitrary.
func (g *diffGen) value(s any, depth int) any {
	m, _ := s.(map[string]any)
	if depth > 3 {
		return diffPick[any](g, nil, true, json.Number("1"), "a")
	}
	kind := g.Intn(8)
	if m != nil && g.Chance(60) {
		if t, ok := m["type"].(string); ok {
			kind = map[string]int{"null": 0, "boolean": 1, "number": 2, "integer": 2, "string": 3, "array": 4, "object": 5}[t]
		} else if _, ok := m["properties"]; ok {
			kind = 5
		}
	}
	switch kind {
	case 0:
		return nil
	case 1:
		return g.Chance(50)
	case 2:
		return g.num()
	case 3:
		return diffPick(g, diffStrings...)
	case 4, 6:
		var a []any
		var items any
		if m != nil {
			items = m["items"]
		}
		for range g.Intn(4) {
			a = append(a, g.value(items, depth+1))
		}
		if a == nil {
			a = []any{}
		}
		if g.Chance(20) && len(a) > 0 {
			a = append(a, a[0])
		}
		return a
	default:
		o := map[string]any{}
		var props map[string]any
		if m != nil {
			props, _ = m["properties"].(map[string]any)
		}
		for name, ps := range props {
			if g.Chance(70) {
				o[name] = g.value(ps, depth+1)
			}
		}
		for range g.Intn(3) {
			o[diffPick(g, diffNames...)] = g.value(nil, depth+1)
		}
		return o
	}
}

// diffCase is one generated case: a schema, compiler options and values.
type diffCase struct {
	schema        []byte
	values        [][]byte
	draft         int // the compiler's default draft
	assertFormat  bool
	assertContent bool
}

func genDiffCase(b []byte) diffCase {
	g := newDiffGen(b)
	s := g.schema()
	c := diffCase{draft: diffPick(g, 0, 4, 6, 7, 2019, 2020), assertFormat: g.Chance(50), assertContent: g.Chance(30)}
	if g.clean {
		c.draft = g.draft // the schema's draft also where it has no $schema
	}
	var err error
	if c.schema, err = json.Marshal(s); err != nil {
		panic(err)
	}
	for range 1 + g.Intn(6) {
		v, err := json.Marshal(g.value(s, 0))
		if err != nil {
			panic(err)
		}
		c.values = append(c.values, v)
	}
	return c
}

const diffLoc = "http://example.com/root.json"

type refuse struct{}

func (refuse) Load(u string) (any, error) { return nil, fmt.Errorf("not loaded: %s", u) }

// outcome is what one library made of a case, in terms both share.
type outcome struct {
	// compileErr is "" when the schema compiled, else whether the
	// meta-schema refused the whole document, and where. Compile first
	// collects the document's resources, then validates it against its
	// meta-schema, then compiles what the root reaches: the first and last
	// steps meet a schema's problems in the order of map iteration (a
	// reference not found, a subschema that only a reference reaches and that
	// the meta-schema refuses, a bad pattern...), so which of those errors a
	// schema with several gets is left out: only its message is kept, for
	// the report.
	compileErr string
	compileMsg string
	verdicts   []string // per value: "valid", or the failing locations
}

// locations lists, sorted, the instance and keyword locations of every error
// of a basic output (marshalled, so that both libraries' outputs read alike).
func locations(basic any) string {
	b, err := json.Marshal(basic)
	if err != nil {
		return "unmarshalable output: " + err.Error()
	}
	var out struct {
		Errors []struct {
			KeywordLocation         string `json:"keywordLocation"`
			AbsoluteKeywordLocation string `json:"absoluteKeywordLocation"`
			InstanceLocation        string `json:"instanceLocation"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return "bad output: " + err.Error()
	}
	var locs []string
	for _, e := range out.Errors {
		inst := e.InstanceLocation
		if strings.HasSuffix(e.KeywordLocation, "/propertyNames") || strings.HasSuffix(e.KeywordLocation, "/contentSchema") {
			// Upstream keeps the validator's location slice in these errors
			// without copying it, so a later sibling's location can overwrite
			// it: which it shows depends on the order of map iteration.
			inst = "(any)"
		}
		locs = append(locs, inst+" @ "+e.KeywordLocation+" @ "+e.AbsoluteKeywordLocation)
	}
	slices.Sort(locs)
	return strings.Join(slices.Compact(locs), "\n")
}

// library is what the differential test needs of one library, whose types
// differ from the other's.
type library[S any] struct {
	// compile compiles the case's schema doc under diffLoc.
	compile   func(c diffCase, doc any) (S, error)
	unmarshal func(r io.Reader) (any, error)
	validate  func(s S, v any) error
	// meta returns the basic output of the meta-schema's refusal of the
	// whole document, if err is one; basic that of a validation error, if
	// err is one.
	meta, basic func(err error) (any, bool)
}

func (l library[S]) outcome(c diffCase) outcome {
	var o outcome
	doc, err := l.unmarshal(bytes.NewReader(c.schema))
	if err != nil {
		panic(err)
	}
	sch, err := l.compile(c, doc)
	if err != nil {
		o.compileErr, o.compileMsg = "refused", err.Error()
		if out, ok := l.meta(err); ok {
			o.compileErr = "refused by the meta-schema\n" + locations(out)
		}
		return o
	}
	for _, vb := range c.values {
		v, err := l.unmarshal(bytes.NewReader(vb))
		if err != nil {
			panic(err)
		}
		err = l.validate(sch, v)
		out, isValidation := l.basic(err)
		switch {
		case err == nil:
			o.verdicts = append(o.verdicts, "valid")
		case isValidation:
			o.verdicts = append(o.verdicts, "invalid\n"+locations(out))
		default:
			o.verdicts = append(o.verdicts, fmt.Sprintf("%T: %v", err, err))
		}
	}
	return o
}

var fork = library[*jsonschema.Schema]{
	compile: func(c diffCase, doc any) (*jsonschema.Schema, error) {
		comp := jsonschema.NewCompiler()
		comp.UseLoader(refuse{})
		drafts := map[int]*jsonschema.Draft{4: jsonschema.Draft4, 6: jsonschema.Draft6, 7: jsonschema.Draft7, 2019: jsonschema.Draft2019, 2020: jsonschema.Draft2020}
		if d := drafts[c.draft]; d != nil {
			comp.DefaultDraft(d)
		}
		c.assert(comp.AssertFormat, comp.AssertContent)
		if err := comp.AddResource(diffLoc, doc); err != nil {
			return nil, err
		}
		return comp.Compile(diffLoc)
	},
	unmarshal: jsonschema.UnmarshalJSON,
	validate:  (*jsonschema.Schema).Validate,
	meta: func(err error) (any, bool) {
		var se *jsonschema.SchemaValidationError
		var ve *jsonschema.ValidationError
		if errors.As(err, &se) && se.URL == diffLoc+"#" && errors.As(se.Err, &ve) {
			return ve.BasicOutput(), true
		}
		return nil, false
	},
	basic: func(err error) (any, bool) {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return ve.BasicOutput(), true
		}
		return nil, false
	},
}

var reference = library[*upstream.Schema]{
	compile: func(c diffCase, doc any) (*upstream.Schema, error) {
		comp := upstream.NewCompiler()
		comp.UseLoader(refuse{})
		drafts := map[int]*upstream.Draft{4: upstream.Draft4, 6: upstream.Draft6, 7: upstream.Draft7, 2019: upstream.Draft2019, 2020: upstream.Draft2020}
		if d := drafts[c.draft]; d != nil {
			comp.DefaultDraft(d)
		}
		c.assert(comp.AssertFormat, comp.AssertContent)
		if err := comp.AddResource(diffLoc, doc); err != nil {
			return nil, err
		}
		return comp.Compile(diffLoc)
	},
	unmarshal: upstream.UnmarshalJSON,
	validate:  (*upstream.Schema).Validate,
	meta: func(err error) (any, bool) {
		var se *upstream.SchemaValidationError
		var ve *upstream.ValidationError
		if errors.As(err, &se) && se.URL == diffLoc+"#" && errors.As(se.Err, &ve) {
			return ve.BasicOutput(), true
		}
		return nil, false
	},
	basic: func(err error) (any, bool) {
		var ve *upstream.ValidationError
		if errors.As(err, &ve) {
			return ve.BasicOutput(), true
		}
		return nil, false
	},
}

// assert turns on the assertions the case asks for.
func (c diffCase) assert(format, content func()) {
	if c.assertFormat {
		format()
	}
	if c.assertContent {
		content()
	}
}

// diffStats counts what the generated cases exercised.
type diffStats struct {
	cases, compiled, refused, metaRefused, valid, invalid int
}

func checkDifferential(t *testing.T, b []byte, st *diffStats) {
	t.Helper()
	c := genDiffCase(b)
	got, want := fork.outcome(c), reference.outcome(c)
	st.cases++
	if got.compileErr != want.compileErr {
		t.Fatalf("schema %s (default draft %d, format %v, content %v):\nfork compile: %s (%s)\nupstream compile: %s (%s)",
			c.schema, c.draft, c.assertFormat, c.assertContent, got.compileErr, got.compileMsg, want.compileErr, want.compileMsg)
	}
	if got.compileErr != "" {
		st.refused++
		if strings.HasPrefix(got.compileErr, "refused by the meta-schema") {
			st.metaRefused++
		}
		return
	}
	st.compiled++
	for i, v := range c.values {
		if got.verdicts[i] != want.verdicts[i] {
			t.Fatalf("schema %s (default draft %d, format %v, content %v), value %s:\nfork: %s\nupstream: %s",
				c.schema, c.draft, c.assertFormat, c.assertContent, v, got.verdicts[i], want.verdicts[i])
		}
		if got.verdicts[i] == "valid" {
			st.valid++
		} else {
			st.invalid++
		}
	}
}

// TestDifferentialGenerated runs many generated cases and checks that they
// exercise each outcome: schemas that compile and do not (the meta-schema
// refusing some), values valid and not.
func TestDifferentialGenerated(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	var st diffStats
	for i := range n {
		checkDifferential(t, choice.Seed(uint64(i)+1000), &st)
	}
	t.Logf("%+v", st)
	if st.compiled < n/4 || st.refused < n/20 || st.metaRefused < n/50 || st.valid < n/10 || st.invalid < n/4 {
		t.Errorf("the generated cases miss an outcome: %+v", st)
	}
}

func FuzzDifferential(f *testing.F) {
	for i := range 32 {
		f.Add(choice.Seed(uint64(i)))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkDifferential(t, b, &diffStats{})
	})
}
