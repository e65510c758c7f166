package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/toolexplorer/toolexplorer/internal/jsonpointer"
	"github.com/toolexplorer/toolexplorer/internal/jsonschema"
	"github.com/toolexplorer/toolexplorer/internal/jsonschema/kind"
	"github.com/toolexplorer/toolexplorer/internal/pattern"
	"github.com/toolexplorer/toolexplorer/internal/textdist"
)

// schemaBase is the absolute base under which tool schemas are compiled, so
// that no message ever shows a path of the machine that compiled them.
const schemaBase = "https://toolexplorer.invalid/tools/"

// printer formats validation messages. It is made on first use: making it
// looks up the language's number formats, which every process would pay at
// start, confined children included, that never validates anything.
var printer = sync.OnceValue(func() *message.Printer { return message.NewPrinter(language.English) })

// FieldError is one failing field: a JSON pointer into the arguments (or the
// output) and a message a person understands. Path "" is the whole value.
// It is tooling.FieldError's shape.
type FieldError struct {
	Path    string `json:"path"`
	Message string `json:"message"`
	Keyword string `json:"keyword,omitempty"`
}

func (f FieldError) String() string {
	p := f.Path
	if p == "" {
		p = "(arguments)"
	}
	return p + ": " + f.Message
}

// Schema is a compiled JSON Schema and what Execute needs from it.
//
// Compiled for calls, it keeps what every call needs (the quick check, the
// defaults, the parameter names) but not the library's compiled schema, a
// graph of about 700 bytes a keyword-bearing node that a tool's schema
// holds a dozen or more of: a value the quick check accepts is valid
// without it. The graph is compiled again from raw the first time a value
// needs it (one the quick check refuses, whose errors it words, or any
// value of a schema without a quick check) and kept from then on.
type Schema struct {
	raw      json.RawMessage                   // as the tool declared it
	where    string                            // the absolute id raw compiles under
	which    string                            // "input" or "output", for messages
	full     atomic.Pointer[jsonschema.Schema] // the library's compiled schema, compiled on first need
	params   []string                          // top-level property names, sorted
	noParams bool                              // an object schema that accepts only {}
	defaults *defaultsPlan                     // nil when no property has a default
	quick    *quick                            // the fast check of valid values; nil when the schema has no such check
	regexps  map[string]*pattern.Regexp        // every expression of the schema, by source: compiled once, one pause state each
	patterns map[string]*pattern.Regexp        // the backtracking expressions, by source, for messages on timeouts
}

// Params are the top-level property names, sorted.
func (s *Schema) Params() []string { return s.params }

// NoParams reports whether s is an object schema that accepts only {}.
func (s *Schema) NoParams() bool { return s.noParams }

// ApplyDefaults fills the schema's defaults into obj and reports whether it
// changed anything.
func (s *Schema) ApplyDefaults(obj map[string]any) bool { return s.defaults.apply(obj) }

// HasQuick reports whether s has its fast check of valid values (compiled
// for calls, and the schema has such a check).
func (s *Schema) HasQuick() bool { return s.quick != nil }

type refuseLoader struct{}

func (refuseLoader) Load(u string) (any, error) {
	return nil, fmt.Errorf("external $ref %q is not loaded: put the schema under $defs and refer to it as \"#/$defs/...\"", u)
}

// EmptyObject is the input of a tool that declares none.
var EmptyObject = json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)

// Compile compiles raw under an absolute id named after the tool.
// With requireObject, the root must say "type": "object".
func Compile(tool, which string, raw json.RawMessage, requireObject bool) (*Schema, error) {
	doc, err := parseJSON(raw)
	if err != nil {
		// The library's decoder, for the message the registry has always given.
		if doc, err = jsonschema.UnmarshalJSON(bytes.NewReader(raw)); err != nil {
			return nil, fmt.Errorf("%s schema is not valid JSON: %v", which, err)
		}
	}
	if requireObject {
		obj, ok := doc.(map[string]any)
		if !ok || !typeIsObject(obj["type"]) {
			return nil, fmt.Errorf("%s schema must have \"type\": \"object\" at its root (tool arguments are a JSON object)", which)
		}
	}
	loc := schemaBase + url.PathEscape(tool) + "/" + which + ".json"
	s := &Schema{raw: raw, where: loc, which: which}
	compiled, err := s.compileGraph(doc, true)
	if err != nil {
		return nil, err
	}
	for name := range compiled.Properties {
		s.params = append(s.params, name)
	}
	sort.Strings(s.params)
	s.noParams = len(compiled.Properties) == 0 && compiled.AdditionalProperties == false &&
		compiled.PatternProperties == nil && compiled.Ref == nil && compiled.AllOf == nil &&
		compiled.AnyOf == nil && compiled.OneOf == nil && compiled.If == nil && compiled.MinProperties == nil &&
		compiled.DynamicRef == nil && compiled.Not == nil
	s.quick = compileQuick(compiled)
	s.defaults = planDefaults(compiled)
	if problems := s.defaults.check("", map[*defaultsPlan]bool{}); len(problems) > 0 {
		return nil, fmt.Errorf("%s schema: %s", which, strings.Join(problems, "; "))
	}
	s.defaults.forget(map[*defaultsPlan]bool{})
	return s, nil
}

// compileGraph compiles the library's schema from doc, the decoded raw. The
// first time (first), it records the schema's expressions; later it reuses
// them, so that an expression paused after a timeout stays paused.
func (s *Schema) compileGraph(doc any, first bool) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.UseLoader(refuseLoader{})
	compiling := true // the engine also checks values of format "regex" later: those are not recorded
	// While compiling, each expression compiles once: checking the schema
	// against its meta-schema compiles its patterns (format "regex"), then
	// compiling the schema wants them again.
	c.UseRegexpEngine(func(expr string) (jsonschema.Regexp, error) {
		if re := s.regexps[expr]; compiling && re != nil {
			return re, nil // one expression, one pause state
		}
		re, err := pattern.Compile(expr)
		if err != nil {
			return nil, err
		}
		if compiling && first {
			if s.regexps == nil {
				s.regexps = map[string]*pattern.Regexp{}
			}
			s.regexps[expr] = re
			if re.Backtracking() {
				if s.patterns == nil {
					s.patterns = map[string]*pattern.Regexp{}
				}
				s.patterns[expr] = re
			}
		}
		return re, nil
	})
	c.AssertFormat()
	if err := c.AddResource(s.where, doc); err != nil {
		return nil, fmt.Errorf("%s schema: %v", s.which, err)
	}
	compiled, err := c.Compile(s.where)
	compiling = false
	if err != nil {
		return nil, fmt.Errorf("%s schema does not compile: %s", s.which, compileProblems(err, s.where))
	}
	return compiled, nil
}

// HoldsGraph reports whether s holds the library's compiled schema, which
// it compiles when a value first needs it.
func (s *Schema) HoldsGraph() bool { return s.full.Load() != nil }

// graph is the library's compiled schema, compiled again from raw on first
// need and kept from then on.
func (s *Schema) graph() (*jsonschema.Schema, error) {
	if g := s.full.Load(); g != nil {
		return g, nil
	}
	doc, err := parseJSON(s.raw)
	if err != nil {
		if doc, err = jsonschema.UnmarshalJSON(bytes.NewReader(s.raw)); err != nil {
			return nil, err
		}
	}
	g, err := s.compileGraph(doc, false)
	if err != nil {
		return nil, err
	}
	if !s.full.CompareAndSwap(nil, g) {
		g = s.full.Load()
	}
	return g, nil
}

// compileProblems says on one line what is wrong with a schema that does not
// compile: each failing keyword with its place in the schema ("pattern at
// /properties/email: ..."), or the compiler's message without the schema's
// internal location.
func compileProblems(err error, loc string) string {
	var se *jsonschema.SchemaValidationError
	var ve *jsonschema.ValidationError
	if !errors.As(err, &se) || !errors.As(se.Err, &ve) {
		return strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), loc, "")), " ")
	}
	type problem struct{ path, keyword, msg string }
	var out []problem
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		p := problem{msg: e.ErrorKind.LocalizedString(printer())}
		if f, ok := e.ErrorKind.(*kind.Format); ok && f.Want == "regex" && f.Err != nil {
			p.msg = f.Err.Error()
		}
		if n := len(e.InstanceLocation); n > 0 {
			p.path, p.keyword = jsonpointer.Join(e.InstanceLocation[:n-1]), e.InstanceLocation[n-1]
		}
		out = append(out, p)
	}
	walk(ve)
	sort.Slice(out, func(i, j int) bool {
		if out[i].path != out[j].path {
			return out[i].path < out[j].path
		}
		return out[i].keyword < out[j].keyword
	})
	lines := make([]string, 0, len(out))
	for _, p := range out {
		where := "at the root"
		switch {
		case p.keyword != "" && p.path == "":
			where = p.keyword + " at the root"
		case p.keyword != "":
			where = p.keyword + " at " + p.path
		}
		line := where + ": " + strings.Join(strings.Fields(p.msg), " ")
		if len(lines) == 0 || lines[len(lines)-1] != line {
			lines = append(lines, line)
		}
	}
	return strings.Join(lines, "; ")
}

func typeIsObject(t any) bool {
	switch t := t.(type) {
	case string:
		return t == "object"
	case []any:
		return len(t) == 1 && t[0] == "object"
	}
	return false
}

// Decode decodes one JSON value, numbers as json.Number, and refuses
// trailing data, with parseJSON (same values as encoding/json with
// UseNumber, about three times faster). Errors say where the JSON breaks.
func Decode(b []byte) (any, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, errors.New("malformed JSON: empty input (send {} for no arguments)")
	}
	v, err := parseJSON(b)
	if err == nil {
		return v, nil
	}
	var se *jsonSyntaxError
	if !errors.As(err, &se) {
		return nil, fmt.Errorf("malformed JSON: %v", err)
	}
	if se.Offset >= int64(len(b)) {
		return nil, fmt.Errorf("malformed JSON: input ends early at %s", position(b, int64(len(b))))
	}
	return nil, fmt.Errorf("malformed JSON at %s: %s", position(b, se.Offset), se.Msg)
}

// position renders a byte offset as "line L, column C".
func position(b []byte, off int64) string {
	if off > int64(len(b)) {
		off = int64(len(b))
	}
	line, col := 1, 1
	for _, c := range b[:off] {
		if c == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return fmt.Sprintf("line %d, column %d", line, col)
}

// validate checks v and returns its failing fields in the order of the
// value (array items by index): the first limit of them (every one when
// limit < 1), and how many more fail. jsonschema's validator cannot stop
// early; for long arrays under schemas the quick check covers, validate
// stops once it has the first limit fields (see cut.go), and then more
// counts only the failing fields it saw (stopped is true).
func (s *Schema) Validate(v any, limit int) (fields []FieldError, more int, stopped bool) {
	if s.quick != nil && s.quick.valid(v) {
		return nil, 0, false
	}
	if s.quick != nil && limit > 0 {
		var cuts [][]string
		if short, changed := s.quick.cut(v, limit, nil, &cuts); changed {
			if fields, more, ok := s.validateFirst(short, limit, cuts); ok {
				return fields, more, true
			}
		}
	}
	fields, more, _ = s.validateFirst(v, limit, nil)
	return fields, more, false
}

// validateFirst validates v and words its first limit failing fields. With
// cuts (the places where v was cut short, see cut.go), ok says whether
// there are limit fields and all lie before every cut, so that they are
// the first limit fields of the whole value.
func (s *Schema) validateFirst(v any, limit int, cuts [][]string) (fields []FieldError, more int, ok bool) {
	g, err := s.graph()
	if err != nil {
		return []FieldError{{Message: "the schema does not compile again: " + err.Error()}}, 0, cuts == nil
	}
	err = g.Validate(v)
	if err == nil {
		return nil, 0, cuts == nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []FieldError{{Message: err.Error()}}, 0, cuts == nil
	}
	var refs []fieldRef
	s.collect(ve, &refs)
	for i := range refs {
		refs[i].seq = i
	}
	slices.SortFunc(refs, compareRefs)
	if limit < 1 {
		limit = len(refs)
	}
	out := make([]FieldError, 0, min(limit, len(refs)))
	var last FieldError
	var lastRef fieldRef
	for i, r := range refs {
		if len(out) == limit {
			// Count the rest without wording them: a field failing twice the
			// same way (the same keyword at the same place) counts once.
			if r.keyword != refs[i-1].keyword || compareLocs(r, refs[i-1]) != 0 {
				more++
			}
			continue
		}
		f := FieldError{Path: r.path(), Keyword: r.keyword, Message: s.message(r)}
		if len(out) > 0 && f == last {
			continue
		}
		out = append(out, f)
		last, lastRef = f, r
	}
	if cuts != nil {
		if len(out) < limit {
			return nil, 0, false
		}
		for _, c := range cuts {
			if compareLocs(lastRef, fieldRef{loc: c}) >= 0 {
				return nil, 0, false
			}
		}
	}
	return out, more, true
}

// fieldRef is a failing field before it is worded: where it is (loc, and
// then name for the errors that name properties), its keyword, and the
// error to word, or msg when it is already worded.
type fieldRef struct {
	loc     []string
	name    *string
	keyword string
	err     *jsonschema.ValidationError
	msg     string
	seq     int // the order found, to keep the sort stable
}

func (r fieldRef) path() string {
	p := jsonpointer.Join(r.loc)
	if r.name != nil {
		p += "/" + jsonpointer.Escape(*r.name)
	}
	return p
}

func (r fieldRef) token(i int) string {
	if i < len(r.loc) {
		return r.loc[i]
	}
	return *r.name
}

func (r fieldRef) depth() int {
	if r.name != nil {
		return len(r.loc) + 1
	}
	return len(r.loc)
}

// compareLocs orders places in the value: token by token, array indices
// by number, a place before the places inside it.
func compareLocs(a, b fieldRef) int {
	na, nb := a.depth(), b.depth()
	for i := range min(na, nb) {
		x, y := a.token(i), b.token(i)
		if x == y {
			continue
		}
		if isIndex(x) && isIndex(y) && len(x) != len(y) {
			return len(x) - len(y)
		}
		return strings.Compare(x, y)
	}
	return na - nb
}

func compareRefs(a, b fieldRef) int {
	if c := compareLocs(a, b); c != 0 {
		return c
	}
	return a.seq - b.seq
}

// isIndex reports whether a token is an array index (digits, no leading 0).
func isIndex(t string) bool {
	if t == "" || (t[0] == '0' && len(t) > 1) {
		return false
	}
	for i := 0; i < len(t); i++ {
		if t[i] < '0' || t[i] > '9' {
			return false
		}
	}
	return true
}

func (s *Schema) collect(e *jsonschema.ValidationError, out *[]fieldRef) {
	switch e.ErrorKind.(type) {
	case *kind.AnyOf, *kind.OneOf:
		s.collectAlternatives(e, out)
		return
	}
	if len(e.Causes) == 0 {
		s.leaf(e, out)
		return
	}
	for _, c := range e.Causes {
		s.collect(c, out)
	}
}

// collectAlternatives reports a failed anyOf/oneOf: the errors of the
// alternative that came closest when it matched the value's type, else one
// error naming the alternatives.
func (s *Schema) collectAlternatives(e *jsonschema.ValidationError, out *[]fieldRef) {
	loc := e.InstanceLocation
	if one, ok := e.ErrorKind.(*kind.OneOf); ok && len(one.Subschemas) > 1 {
		*out = append(*out, fieldRef{loc: loc, keyword: "oneOf",
			msg: fmt.Sprintf("matches %d alternatives (%s), but must match exactly one", len(one.Subschemas), intsList(one.Subschemas))})
		return
	}
	kw := "anyOf"
	if _, ok := e.ErrorKind.(*kind.OneOf); ok {
		kw = "oneOf"
	}
	var (
		best    []fieldRef
		sets    []string // per alternative, the properties it misses, while all it misses are properties
		missing = len(e.Causes) > 0
	)
	for _, c := range e.Causes {
		var errs []fieldRef
		s.collect(c, &errs)
		var names []string
		for _, f := range errs {
			if f.keyword != "required" || f.name == nil || !slices.Equal(f.loc, loc) {
				missing = false
				break
			}
			names = append(names, fmt.Sprintf("%q", *f.name))
		}
		if missing && len(names) > 0 {
			sets = append(sets, strings.Join(names, " and "))
		}
		typeMiss := false
		for _, f := range errs {
			if f.keyword == "type" && f.name == nil && slices.Equal(f.loc, loc) {
				typeMiss = true
			}
		}
		if typeMiss {
			continue
		}
		if best == nil || len(errs) < len(best) {
			best = errs
		}
	}
	if missing && len(sets) == len(e.Causes) {
		// Alternatives that only say which properties to give: none of
		// them is required on its own, so say the choice.
		*out = append(*out, fieldRef{loc: loc, keyword: kw, msg: "needs " + strings.Join(sets, ", or ")})
		return
	}
	if best != nil {
		*out = append(*out, best...)
		return
	}
	*out = append(*out, fieldRef{loc: loc, keyword: kw,
		msg: fmt.Sprintf("matches none of the %d allowed alternatives", len(e.Causes))})
}

func intsList(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = "#" + strconv.Itoa(n+1)
	}
	return strings.Join(s, ", ")
}

// leaf adds the failing fields of one error, not yet worded.
func (s *Schema) leaf(e *jsonschema.ValidationError, out *[]fieldRef) {
	several := func(kw string, names []string) {
		for i := range names {
			*out = append(*out, fieldRef{loc: e.InstanceLocation, name: &names[i], keyword: kw, err: e})
		}
	}
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		several("required", k.Missing)
		return
	case *kind.DependentRequired:
		several("dependentRequired", k.Missing)
		return
	case *kind.AdditionalProperties:
		several("additionalProperties", k.Properties)
		return
	}
	*out = append(*out, fieldRef{loc: e.InstanceLocation, keyword: keywordOf(e.ErrorKind), err: e})
}

// keywordOf names the keyword of an error kind.
func keywordOf(k jsonschema.ErrorKind) string {
	switch k.(type) {
	case *kind.Type:
		return "type"
	case *kind.Minimum:
		return "minimum"
	case *kind.Maximum:
		return "maximum"
	case *kind.ExclusiveMinimum:
		return "exclusiveMinimum"
	case *kind.ExclusiveMaximum:
		return "exclusiveMaximum"
	case *kind.MultipleOf:
		return "multipleOf"
	case *kind.MinLength:
		return "minLength"
	case *kind.MaxLength:
		return "maxLength"
	case *kind.Pattern:
		return "pattern"
	case *kind.MinItems:
		return "minItems"
	case *kind.MaxItems:
		return "maxItems"
	case *kind.UniqueItems:
		return "uniqueItems"
	case *kind.MinProperties:
		return "minProperties"
	case *kind.MaxProperties:
		return "maxProperties"
	case *kind.Enum:
		return "enum"
	case *kind.Const:
		return "const"
	case *kind.Format:
		return "format"
	case *kind.FalseSchema:
		return "false"
	}
	return strings.Join(k.KeywordPath(), "/")
}

// message words a failing field with a message a person understands.
func (s *Schema) message(r fieldRef) string {
	if r.msg != "" || r.err == nil {
		return r.msg
	}
	switch k := r.err.ErrorKind.(type) {
	case *kind.Required:
		return "is required but missing"
	case *kind.DependentRequired:
		return fmt.Sprintf("is required when %q is present", k.Prop)
	case *kind.AdditionalProperties:
		p := *r.name
		known := s.propertiesAt(r.err.SchemaURL)
		msg := "is not an allowed property"
		if c := closest(p, known); c != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", c)
		} else if len(known) > 0 && len(known) <= 8 {
			msg += fmt.Sprintf(" (allowed: %s)", strings.Join(known, ", "))
		}
		return msg
	case *kind.Type:
		return fmt.Sprintf("must be %s, got %s", joinOr(withArticles(k.Want)), article(k.Got))
	case *kind.Minimum:
		return fmt.Sprintf("must be at least %s, got %s", rat(k.Want), rat(k.Got))
	case *kind.Maximum:
		return fmt.Sprintf("must be at most %s, got %s", rat(k.Want), rat(k.Got))
	case *kind.ExclusiveMinimum:
		return fmt.Sprintf("must be greater than %s, got %s", rat(k.Want), rat(k.Got))
	case *kind.ExclusiveMaximum:
		return fmt.Sprintf("must be less than %s, got %s", rat(k.Want), rat(k.Got))
	case *kind.MultipleOf:
		return fmt.Sprintf("must be a multiple of %s, got %s", rat(k.Want), rat(k.Got))
	case *kind.MinLength:
		return fmt.Sprintf("must be at least %s long, got %d", nOf(k.Want, "character"), k.Got)
	case *kind.MaxLength:
		return fmt.Sprintf("must be at most %s long, got %d", nOf(k.Want, "character"), k.Got)
	case *kind.Pattern:
		if re := s.patterns[k.Want]; re != nil && re.Paused() {
			return fmt.Sprintf("could not be checked against the pattern %s in time (a match ran past %v), so it is refused", k.Want, pattern.Timeout)
		}
		return "must match the pattern " + k.Want
	case *kind.MinItems:
		return fmt.Sprintf("must have at least %s, got %d", nOf(k.Want, "item"), k.Got)
	case *kind.MaxItems:
		return fmt.Sprintf("must have at most %s, got %d", nOf(k.Want, "item"), k.Got)
	case *kind.UniqueItems:
		return fmt.Sprintf("must not repeat items: items %d and %d are equal", k.Duplicates[0], k.Duplicates[1])
	case *kind.MinProperties:
		return fmt.Sprintf("must have at least %s, got %d", nOf(k.Want, "property"), k.Got)
	case *kind.MaxProperties:
		return fmt.Sprintf("must have at most %s, got %d", nOf(k.Want, "property"), k.Got)
	case *kind.Enum:
		return strings.Replace(k.LocalizedString(printer()), "value must be", "must be", 1)
	case *kind.Const:
		return strings.Replace(k.LocalizedString(printer()), "value must be", "must be", 1)
	case *kind.Format:
		if ex, ok := formatExamples[k.Want]; ok {
			return fmt.Sprintf("must be a valid %s, like %s", k.Want, ex)
		}
		return fmt.Sprintf("must be a valid %s (%v)", k.Want, k.Err)
	case *kind.FalseSchema:
		return "is not allowed here"
	}
	return r.err.ErrorKind.LocalizedString(printer())
}

// nOf says n things: "1 item", "2 items", "1 property", "3 properties".
func nOf(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	if strings.HasSuffix(thing, "y") {
		return strconv.Itoa(n) + " " + strings.TrimSuffix(thing, "y") + "ies"
	}
	return strconv.Itoa(n) + " " + thing + "s"
}

var formatExamples = map[string]string{
	"date":      "2026-01-31",
	"date-time": "2026-01-31T15:04:05Z",
	"time":      "15:04:05Z",
	"duration":  "P3DT4H (ISO 8601)",
	"email":     "name@example.com",
	"uri":       "https://example.com/path",
	"uuid":      "123e4567-e89b-12d3-a456-426614174000",
	"ipv4":      "192.0.2.1",
	"ipv6":      "2001:db8::1",
	"hostname":  "example.com",
}

// propertiesAt lists the properties the schema at schemaURL defines, for
// did-you-mean hints on unknown properties. The decoded schema is not kept:
// the compiled one is searched for the subschema at that location.
func (s *Schema) propertiesAt(schemaURL string) []string {
	g, _ := s.graph()
	sch := findSchema(g, schemaURL, map[*jsonschema.Schema]bool{})
	if sch == nil {
		return nil
	}
	out := make([]string, 0, len(sch.Properties))
	for k := range sch.Properties {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// findSchema finds the subschema of sch (itself included) compiled from
// location loc, or nil.
func findSchema(sch *jsonschema.Schema, loc string, seen map[*jsonschema.Schema]bool) *jsonschema.Schema {
	if sch == nil || seen[sch] {
		return nil
	}
	seen[sch] = true
	if sch.Location == loc {
		return sch
	}
	var subs []*jsonschema.Schema
	add := func(v any) {
		switch v := v.(type) {
		case *jsonschema.Schema:
			subs = append(subs, v)
		case []*jsonschema.Schema:
			subs = append(subs, v...)
		}
	}
	subs = append(subs, sch.Ref, sch.RecursiveRef, sch.Not, sch.If, sch.Then, sch.Else, sch.PropertyNames,
		sch.UnevaluatedProperties, sch.Contains, sch.Items2020, sch.UnevaluatedItems, sch.ContentSchema)
	if sch.DynamicRef != nil {
		subs = append(subs, sch.DynamicRef.Ref)
	}
	subs = append(subs, sch.AllOf...)
	subs = append(subs, sch.AnyOf...)
	subs = append(subs, sch.OneOf...)
	subs = append(subs, sch.PrefixItems...)
	add(sch.AdditionalProperties)
	add(sch.Items)
	add(sch.AdditionalItems)
	for _, v := range sch.Properties {
		subs = append(subs, v)
	}
	for _, v := range sch.PatternProperties {
		subs = append(subs, v)
	}
	for _, v := range sch.DependentSchemas {
		subs = append(subs, v)
	}
	for _, v := range sch.Dependencies {
		add(v)
	}
	for _, sub := range subs {
		if found := findSchema(sub, loc, seen); found != nil {
			return found
		}
	}
	return nil
}

func rat(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func article(t string) string {
	switch t {
	case "null":
		return "null"
	case "integer", "object", "array":
		return "an " + t
	}
	return "a " + t
}

func withArticles(ts []string) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = article(t)
	}
	return out
}

func joinOr(s []string) string {
	switch len(s) {
	case 0:
		return "?"
	case 1:
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// closest returns the candidate nearest to name, if near enough to be a typo.
func closest(name string, candidates []string) string {
	return textdist.Nearest(name, candidates, max(2, len(name)/3))
}
