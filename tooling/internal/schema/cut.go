package schema

import "strconv"

// Stopping early on long arrays
//
// jsonschema's validator reports every failing field and cannot be stopped, so an array of
// 10,000 failing items costs 10,000 errors before the first max_field_errors of them are listed.
// For a schema the quick check covers (no unions, conditionals or other keywords that make one
// place in the value depend on another), each array item is checked against its items schema
// alone. cut then shortens each long array right after the item that brings its count of items
// the quick check does not accept to limit+1 (every item the validator refuses is among those),
// and the validator checks that shorter value. Arrays whose own keywords depend on their length
// (minItems, maxItems, uniqueItems) or that a $ref also governs are never cut.
//
// The answer is kept only when the first limit failing fields all lie before every place cut
// off: then they are exactly the first limit fields of the whole value. Otherwise the whole value
// is validated as before.

// cut returns v with its long arrays cut short as described above, whether anything was cut,
// and adds the place of each first item cut off to cuts (loc is v's place).
func (q *quick) cut(v any, limit int, loc []string, cuts *[][]string) (any, bool) {
	if q == nil || q.never || q.ref != nil {
		return v, false
	}
	switch x := v.(type) {
	case map[string]any:
		var out map[string]any
		for name, val := range x {
			sub := q.props[name]
			if sub == nil && !q.noExtra {
				sub = q.extra
			}
			if sub == nil || !composite(val) {
				continue
			}
			nv, changed := sub.cut(val, limit, append(loc[:len(loc):len(loc)], name), cuts)
			if !changed {
				continue
			}
			if out == nil {
				out = make(map[string]any, len(x))
				for k, w := range x {
					out[k] = w
				}
			}
			out[name] = nv
		}
		if out == nil {
			return v, false
		}
		return out, true
	case []any:
		if q.items == nil {
			return v, false
		}
		n := len(x)
		if q.minItems < 0 && q.maxItems < 0 && !q.unique {
			suspects := 0
			for i, it := range x {
				if !q.items.valid(it) {
					if suspects++; suspects > limit {
						n = i + 1
						break
					}
				}
			}
		}
		var out []any
		if n < len(x) {
			out = x[:n:n]
			*cuts = append(*cuts, append(loc[:len(loc):len(loc)], strconv.Itoa(n)))
		}
		for i, it := range x[:n] {
			if !composite(it) {
				continue
			}
			nv, changed := q.items.cut(it, limit, append(loc[:len(loc):len(loc)], strconv.Itoa(i)), cuts)
			if !changed {
				continue
			}
			if out == nil || &out[0] == &x[0] {
				out = append([]any(nil), x[:n]...)
			}
			out[i] = nv
		}
		if out == nil {
			return v, false
		}
		return out, true
	}
	return v, false
}

func composite(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return true
	}
	return false
}
