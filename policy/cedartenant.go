package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/cedar-policy/cedar-go"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// anyTenant is the entry of WithTenants whose attributes every tenant has.
const anyTenant = "*"

// tenantAttrs are the tenants' attributes as Cedar sees them: the record
// type of context.tenant, and each tenant's record.
type tenantAttrs struct {
	typ    *argType
	byName map[string]cedar.Value // records, as values: a call's context holds them without allocating
	others cedar.Value            // of a tenant not listed, and of no tenant
}

// newTenantAttrs checks attrs (WithTenants) and makes their Cedar type
// and records; the errors name the tenant and attribute.
func newTenantAttrs(attrs map[string]map[string]any) (*tenantAttrs, error) {
	t := &tenantAttrs{typ: &argType{kind: "Record", fields: map[string]argField{}}, byName: map[string]cedar.Value{}}
	var errs []error
	first := map[string]string{} // attribute → the tenant whose type it has
	for _, tenant := range slices.Sorted(maps.Keys(attrs)) {
		for _, name := range slices.Sorted(maps.Keys(attrs[tenant])) {
			if !cedarIdent.MatchString(name) {
				errs = append(errs, fmt.Errorf("policy: tenant %s: attribute %q is not an identifier (letters, digits and _)", tenant, name))
				continue
			}
			at, err := attrType(attrs[tenant][name])
			if err != nil {
				errs = append(errs, fmt.Errorf("policy: tenant %s: attribute %s: %v", tenant, name, err))
				continue
			}
			f, seen := t.typ.fields[name]
			switch {
			case !seen:
				t.typ.fields[name] = argField{t: at}
				t.typ.order = append(t.typ.order, name)
				first[name] = tenant
			case at.kind == "Set" && at.elem == nil:
				// An empty list takes the type the attribute has elsewhere.
			case f.t.kind == "Set" && f.t.elem == nil && at.kind == "Set":
				f.t = at
				t.typ.fields[name] = f
				first[name] = tenant
			case !sameType(f.t, at):
				errs = append(errs, fmt.Errorf("policy: tenant %s: attribute %s is %s, and %s for tenant %s", tenant, name, typeName(at), typeName(f.t), first[name]))
			}
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	slices.Sort(t.typ.order)
	for name, f := range t.typ.fields {
		if f.t.kind == "Set" && f.t.elem == nil {
			f.t.elem = &argType{kind: "String"} // only ever empty
		}
		_, f.required = attrs[anyTenant][name]
		t.typ.fields[name] = f
	}
	record := func(tenant string) (cedar.Value, error) {
		merged := maps.Clone(attrs[anyTenant])
		if merged == nil {
			merged = map[string]any{}
		}
		maps.Copy(merged, attrs[tenant])
		v, err := t.typ.value(normalize(merged))
		if err != nil {
			return nil, fmt.Errorf("policy: tenant %s: %v", tenant, err)
		}
		return v, nil
	}
	var err error
	if t.others, err = record(anyTenant); err != nil {
		return nil, err
	}
	for tenant := range attrs {
		if tenant == anyTenant {
			continue
		}
		if t.byName[tenant], err = record(tenant); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// of is the record of tenant's attributes.
func (t *tenantAttrs) of(tenant string) cedar.Value {
	if r, ok := t.byName[tenant]; ok {
		return r
	}
	return t.others
}

// attrType is the Cedar type of an attribute's value; a Set whose elem is
// nil for an empty list.
func attrType(v any) (*argType, error) {
	switch x := normalize(v).(type) {
	case string:
		return &argType{kind: "String"}, nil
	case bool:
		return &argType{kind: "Bool"}, nil
	case int64:
		return &argType{kind: "Long"}, nil
	case []any:
		set := &argType{kind: "Set"}
		for _, e := range x {
			et, err := attrType(e)
			if err != nil || et.kind == "Set" {
				return nil, fmt.Errorf("a list holds only strings, integers or booleans")
			}
			if set.elem != nil && set.elem.kind != et.kind {
				return nil, fmt.Errorf("a list holds values of one type: %s and %s", typeName(set.elem), typeName(et))
			}
			set.elem = et
		}
		return set, nil
	}
	return nil, fmt.Errorf("%v is not a string, an integer, a boolean or a list of one of those", v)
}

// normalize makes the numbers of v (from JSON or Go) int64, where they are
// integers, and its lists []any.
func normalize(v any) any {
	switch x := v.(type) {
	case int:
		return int64(x)
	case float64:
		if x == float64(int64(x)) {
			return int64(x)
		}
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
	case []string:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalize(e)
		}
		return out
	}
	return v
}

func sameType(a, b *argType) bool {
	if a.kind != b.kind {
		return false
	}
	if a.kind == "Set" {
		return a.elem == nil || b.elem == nil || sameType(a.elem, b.elem)
	}
	return true
}

// typeName names a type for people, with its article: "a string", "a
// list of integers".
func typeName(t *argType) string {
	plural := map[string]string{"String": "strings", "Long": "integers", "Bool": "booleans"}
	switch {
	case t.kind == "Set" && t.elem == nil:
		return "an empty list"
	case t.kind == "Set":
		return "a list of " + plural[t.elem.kind]
	}
	return map[string]string{"String": "a string", "Long": "an integer", "Bool": "a boolean"}[t.kind]
}

// callTime is the context of a call's time: now as a datetime, and the
// hour (0 to 23) and the day of the week ("monday") in now's time zone.
func callTime(t time.Time) (now, hour, weekday cedar.Value) {
	return cedar.NewDatetime(t), hours[t.Hour()], weekdays[t.Weekday()]
}

// hours, weekdays and origins are values made once, so that a call's
// context holds them without allocating.
var (
	hours    [24]cedar.Value
	weekdays [7]cedar.Value
	origins  = map[tooling.Origin]cedar.Value{}
)

func init() {
	for h := range hours {
		hours[h] = cedar.Long(h)
	}
	for d := range weekdays {
		weekdays[d] = cedar.String(strings.ToLower(time.Weekday(d).String()))
	}
	for _, o := range []tooling.Origin{tooling.OriginApp, tooling.OriginUI, tooling.OriginLLM, tooling.OriginSystem, ""} {
		origins[o] = cedar.String(o)
	}
}

// originValue is o as a Cedar value.
func originValue(o tooling.Origin) cedar.Value {
	if v, ok := origins[o]; ok {
		return v
	}
	return cedar.String(o)
}
