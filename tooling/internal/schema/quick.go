package schema

import (
	"encoding/json"
	"math/big"
	"strconv"
	"unicode/utf8"

	"github.com/toolexplorer/toolexplorer/internal/jsonschema"
)

// quick is a check compiled from a schema that uses only the common keywords (type, properties,
// required, additionalProperties, items, bounds on lengths, sizes and integers, string enums,
// pattern, format, uniqueItems of strings). It decides the common case, valid arguments, in a
// fraction of the general validator's time, which works through every number with exact
// rational arithmetic and builds its bookkeeping for errors it will not report.
//
// valid answers true only when the general validator accepts the value; false means "ask the
// general validator", which then also words the errors. A schema with any other keyword gets no
// quick check (compileQuick returns nil), and so does any value quick is not sure of (a number
// with a fraction or an exponent, an enum of other than strings).
type quick struct {
	never bool       // the false schema: nothing is valid
	ref   *quick     // $ref (draft 2019-09 and later, where its siblings apply too)
	types quickTypes // allowed types; 0 allows every type

	enum    map[string]struct{} // non-nil: the value is one of these strings
	format  *jsonschema.Format
	pattern jsonschema.Regexp

	minLen, maxLen int // -1: no bound

	num *quickBounds // integer bounds, nil for none

	props    map[string]*quick
	required []string
	noExtra  bool   // additionalProperties: false
	extra    *quick // additionalProperties as a schema
	minProps int    // -1: no bound
	maxProps int

	items    *quick
	minItems int // -1: no bound
	maxItems int
	unique   bool // uniqueItems (checked for strings; other items go to the validator)
}

type quickTypes uint8

const (
	qNull quickTypes = 1 << iota
	qBoolean
	qNumber
	qInteger
	qString
	qArray
	qObject
)

// quickBounds are numeric keywords whose values are integers that fit an int64.
type quickBounds struct {
	min, max, exMin, exMax int64
	has                    uint8 // which of min, max, exMin, exMax are set (bits 0-3)
	multipleOf             int64 // 0: none
}

// compileQuick returns the quick check of s, or nil when s uses a keyword it does not cover or
// refers to itself.
func compileQuick(s *jsonschema.Schema) *quick {
	return (&quickCompiler{open: map[*jsonschema.Schema]bool{}, done: map[*jsonschema.Schema]*quick{}}).compile(s)
}

// quickCompiler compiles each schema once (a definition reached by many paths is shared: a
// chain of $defs each referring twice to the next must not take exponential time); open holds
// the schemas being compiled, to tell a cycle.
type quickCompiler struct {
	open map[*jsonschema.Schema]bool
	done map[*jsonschema.Schema]*quick
}

func (c *quickCompiler) compile(s *jsonschema.Schema) *quick {
	if s == nil || c.open[s] {
		return nil
	}
	if q, ok := c.done[s]; ok {
		return q
	}
	c.open[s] = true
	q := c.compileNew(s)
	delete(c.open, s)
	c.done[s] = q
	return q
}

func (c *quickCompiler) compileNew(s *jsonschema.Schema) *quick {
	if s.Bool != nil {
		return &quick{never: !*s.Bool, minLen: -1, maxLen: -1, minProps: -1, maxProps: -1, minItems: -1, maxItems: -1}
	}
	// Before draft 2019-09 a $ref's siblings are partly ignored: left to the validator.
	if s.Ref != nil && s.DraftVersion < 2019 || s.RecursiveRef != nil || s.DynamicRef != nil || s.Const != nil || s.Not != nil ||
		len(s.AllOf) > 0 || len(s.AnyOf) > 0 || len(s.OneOf) > 0 || s.If != nil || s.Then != nil || s.Else != nil ||
		len(s.Dependencies) > 0 || len(s.DependentRequired) > 0 || len(s.DependentSchemas) > 0 ||
		s.PropertyNames != nil || len(s.PatternProperties) > 0 || s.UnevaluatedProperties != nil ||
		s.UnevaluatedItems != nil || s.Contains != nil || s.MinContains != nil || s.MaxContains != nil ||
		len(s.PrefixItems) > 0 || s.AdditionalItems != nil || s.ContentEncoding != nil ||
		s.ContentMediaType != nil || s.ContentSchema != nil || len(s.Extensions) > 0 ||
		s.Format != nil && s.Format.Name == "regex" {
		return nil
	}
	q := &quick{format: s.Format, pattern: s.Pattern, minLen: intOr(s.MinLength), maxLen: intOr(s.MaxLength),
		required: s.Required, minProps: intOr(s.MinProperties), maxProps: intOr(s.MaxProperties),
		minItems: intOr(s.MinItems), maxItems: intOr(s.MaxItems), unique: s.UniqueItems}
	if s.Ref != nil {
		if q.ref = c.compile(s.Ref); q.ref == nil {
			return nil
		}
	}
	if s.Types != nil {
		for _, t := range s.Types.ToStrings() {
			switch t {
			case "null":
				q.types |= qNull
			case "boolean":
				q.types |= qBoolean
			case "number":
				q.types |= qNumber
			case "integer":
				q.types |= qInteger
			case "string":
				q.types |= qString
			case "array":
				q.types |= qArray
			case "object":
				q.types |= qObject
			default:
				return nil
			}
		}
	}
	if s.Enum != nil {
		q.enum = make(map[string]struct{}, len(s.Enum.Values))
		for _, v := range s.Enum.Values {
			str, ok := v.(string)
			if !ok {
				return nil
			}
			q.enum[str] = struct{}{}
		}
	}
	var ok bool
	if q.num, ok = compileBounds(s); !ok {
		return nil
	}
	if len(s.Properties) > 0 {
		q.props = make(map[string]*quick, len(s.Properties))
		for name, sub := range s.Properties {
			if q.props[name] = c.compile(sub); q.props[name] == nil {
				return nil
			}
		}
	}
	switch a := s.AdditionalProperties.(type) {
	case nil:
	case bool:
		q.noExtra = !a
	case *jsonschema.Schema:
		if q.extra = c.compile(a); q.extra == nil {
			return nil
		}
	default:
		return nil
	}
	items := s.Items2020
	if s.DraftVersion < 2020 {
		switch it := s.Items.(type) {
		case nil:
		case *jsonschema.Schema:
			items = it
		default:
			return nil
		}
	}
	if items != nil {
		if q.items = c.compile(items); q.items == nil {
			return nil
		}
	}
	return q
}

func intOr(p *int) int {
	if p == nil {
		return -1
	}
	return *p
}

// compileBounds takes the numeric keywords when each is an integer that fits an int64.
func compileBounds(s *jsonschema.Schema) (*quickBounds, bool) {
	var b quickBounds
	for i, r := range []*big.Rat{s.Minimum, s.Maximum, s.ExclusiveMinimum, s.ExclusiveMaximum} {
		if r == nil {
			continue
		}
		if !r.IsInt() || !r.Num().IsInt64() {
			return nil, false
		}
		v := r.Num().Int64()
		switch i {
		case 0:
			b.min = v
		case 1:
			b.max = v
		case 2:
			b.exMin = v
		case 3:
			b.exMax = v
		}
		b.has |= 1 << i
	}
	if m := s.MultipleOf; m != nil {
		if !m.IsInt() || !m.Num().IsInt64() || m.Num().Int64() <= 0 {
			return nil, false
		}
		b.multipleOf = m.Num().Int64()
	}
	if b.has == 0 && b.multipleOf == 0 {
		return nil, true
	}
	return &b, true
}

// valid reports whether v is certainly valid; false leaves the answer to the general validator.
func (q *quick) valid(v any) bool {
	if q.never || q.ref != nil && !q.ref.valid(v) {
		return false
	}
	switch x := v.(type) {
	case string:
		if !q.allows(qString) || q.enum != nil && !inEnum(q.enum, x) {
			return false
		}
		if q.minLen >= 0 || q.maxLen >= 0 {
			n := utf8.RuneCountInString(x)
			if q.minLen >= 0 && n < q.minLen || q.maxLen >= 0 && n > q.maxLen {
				return false
			}
		}
		if q.pattern != nil && !q.pattern.MatchString(x) {
			return false
		}
	case json.Number:
		integer := isIntegerLiteral(string(x))
		if q.enum != nil || q.types != 0 && q.types&qNumber == 0 && !(integer && q.types&qInteger != 0) {
			return false
		}
		if q.num != nil {
			if !integer {
				return false
			}
			n, err := strconv.ParseInt(string(x), 10, 64)
			if err != nil || !q.num.holds(n) {
				return false
			}
		}
	case bool:
		if !q.allows(qBoolean) || q.enum != nil {
			return false
		}
	case nil:
		if !q.allows(qNull) || q.enum != nil {
			return false
		}
	case map[string]any:
		if !q.allows(qObject) || q.enum != nil || !q.object(x) {
			return false
		}
	case []any:
		if !q.allows(qArray) || q.enum != nil || !q.array(x) {
			return false
		}
	default:
		return false
	}
	return q.format == nil || q.format.Validate(v) == nil
}

func (q *quick) allows(t quickTypes) bool { return q.types == 0 || q.types&t != 0 }

func inEnum(set map[string]struct{}, s string) bool {
	_, ok := set[s]
	return ok
}

func (q *quick) object(obj map[string]any) bool {
	if q.minProps >= 0 && len(obj) < q.minProps || q.maxProps >= 0 && len(obj) > q.maxProps {
		return false
	}
	for _, name := range q.required {
		if _, ok := obj[name]; !ok {
			return false
		}
	}
	for name, val := range obj {
		if sub, ok := q.props[name]; ok {
			if !sub.valid(val) {
				return false
			}
			continue
		}
		if q.noExtra || q.extra != nil && !q.extra.valid(val) {
			return false
		}
	}
	return true
}

func (q *quick) array(arr []any) bool {
	if q.minItems >= 0 && len(arr) < q.minItems || q.maxItems >= 0 && len(arr) > q.maxItems {
		return false
	}
	if q.unique && len(arr) > 1 && !uniqueStrings(arr) {
		return false
	}
	if q.items != nil {
		for _, it := range arr {
			if !q.items.valid(it) {
				return false
			}
		}
	}
	return true
}

// uniqueStrings reports whether arr holds distinct strings only (anything else: not sure).
func uniqueStrings(arr []any) bool {
	if len(arr) > 16 {
		seen := make(map[string]struct{}, len(arr))
		for _, a := range arr {
			s, ok := a.(string)
			if !ok {
				return false
			}
			if _, dup := seen[s]; dup {
				return false
			}
			seen[s] = struct{}{}
		}
		return true
	}
	for i, a := range arr {
		s, ok := a.(string)
		if !ok {
			return false
		}
		for _, b := range arr[:i] {
			if b.(string) == s {
				return false
			}
		}
	}
	return true
}

func (b *quickBounds) holds(n int64) bool {
	switch {
	case b.has&1 != 0 && n < b.min, b.has&2 != 0 && n > b.max,
		b.has&4 != 0 && n <= b.exMin, b.has&8 != 0 && n >= b.exMax:
		return false
	}
	return b.multipleOf == 0 || n%b.multipleOf == 0
}

// isIntegerLiteral reports whether a JSON number is written without a fraction or exponent.
func isIntegerLiteral(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && !(c == '-' && i == 0) {
			return false
		}
	}
	return true
}
