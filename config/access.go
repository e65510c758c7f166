package config

import (
	"encoding/json"
	"fmt"
	"time"
)

// Access is who may see and call which tools (the "access" key): rules
// that allow or deny tool patterns by subject, tenant, role, scope and
// origin. Deny wins over allow. The zero value has no rules: everyone
// sees and may call every tool.
type Access struct {
	// DefaultDeny refuses every tool no allow rule lets the caller call
	// ("default": "deny"). Default false ("allow").
	DefaultDeny bool
	// Rules are checked together; a deny that applies wins.
	Rules []AccessRule
	// Cedar are files of Cedar policies ("cedar"), resolved against the
	// config file's directory. Nil: none.
	Cedar []string
	// Tenants are the attributes of each tenant that Cedar policies read
	// as context.tenant ("tenants"): strings, integers, booleans and lists
	// of one of those, by tenant name; "*" holds those of every tenant.
	// Nil: none.
	Tenants map[string]map[string]any
}

// AccessRule is one rule of Access. Each list narrows whom it applies to
// (the caller must have one entry of every list that is not empty).
type AccessRule struct {
	Name                             string
	Deny                             bool // "effect": "deny"; default "allow"
	Tools                            []string
	Subjects, Tenants, Roles, Scopes []string
	Origins                          []string
	// ReadOnly narrows the rule to tools without write or process effects.
	ReadOnly bool
}

// applyAccess reads the "access" section, which the schema checked.
func (p *problems) applyAccess(obj map[string]any, cfg *Config) {
	a, ok := obj["access"].(map[string]any)
	if !ok {
		return
	}
	cfg.Access.DefaultDeny = a["default"] == "deny"
	if tenants, ok := a["tenants"].(map[string]any); ok {
		cfg.Access.Tenants = make(map[string]map[string]any, len(tenants))
		for name, v := range tenants {
			attrs, _ := v.(map[string]any)
			cfg.Access.Tenants[name] = attrs
		}
	}
	for _, f := range stringList(a["cedar"]) {
		cfg.Access.Cedar = append(cfg.Access.Cedar, besideConfig(p.source, f))
	}
	rules, _ := a["rules"].([]any)
	for _, v := range rules {
		r, _ := v.(map[string]any)
		name, _ := r["name"].(string)
		readOnly, _ := r["read_only"].(bool)
		cfg.Access.Rules = append(cfg.Access.Rules, AccessRule{
			Name: name, Deny: r["effect"] == "deny", Tools: stringList(r["tools"]),
			Subjects: stringList(r["subjects"]), Tenants: stringList(r["tenants"]), Roles: stringList(r["roles"]),
			Scopes: stringList(r["scopes"]), Origins: stringList(r["origins"]), ReadOnly: readOnly,
		})
	}
}

// Budget bounds what each subject, or each tenant, may spend on the tools
// it names over a window (the "budgets" key).
type Budget struct {
	Name  string
	Tools []string
	// PerTenant counts per tenant ("per": "tenant"); default per subject.
	PerTenant bool
	// Window is "minute", "hour", "day" or a duration.
	Window                   time.Duration
	Calls, BytesIn, BytesOut int64
	// CPUMillis bounds the CPU time of confined calls ("cpu_ms").
	CPUMillis int64
}

// applyBudgets reads the "budgets" section, which the schema checked.
func (p *problems) applyBudgets(obj map[string]any, cfg *Config) {
	list, _ := obj["budgets"].([]any)
	for i, v := range list {
		b, _ := v.(map[string]any)
		name, _ := b["name"].(string)
		out := Budget{Name: name, Tools: stringList(b["tools"]), PerTenant: b["per"] == "tenant"}
		switch w, _ := b["window"].(string); w {
		case "minute":
			out.Window = time.Minute
		case "hour":
			out.Window = time.Hour
		case "day":
			out.Window = 24 * time.Hour
		default:
			d, err := time.ParseDuration(w)
			if err != nil || d <= 0 {
				p.add(fmt.Sprintf("/budgets/%d/window", i), "%q is not minute, hour, day or a positive duration", w)
			}
			out.Window = d
		}
		out.Calls, out.BytesIn, out.BytesOut = intOf(b["calls"]), intOf(b["bytes_in"]), intOf(b["bytes_out"])
		out.CPUMillis = intOf(b["cpu_ms"])
		cfg.Budgets = append(cfg.Budgets, out)
	}
}

func intOf(v any) int64 {
	switch n := v.(type) {
	case float64:
		return int64(n)
	case json.Number:
		i, _ := n.Int64()
		return i
	}
	return 0
}

// Limit bounds how often each subject, or each tenant, may call the tools
// it names (the "limits" key).
type Limit struct {
	Name  string
	Tools []string
	// PerTenant keeps a bucket per tenant ("per": "tenant"); default per
	// subject.
	PerTenant bool
	// PerMinute is calls a minute; Burst how many may come at once (0: 1).
	PerMinute float64
	Burst     int
}

// applyLimits reads the "limits" section, which the schema checked.
func (p *problems) applyLimits(obj map[string]any, cfg *Config) {
	list, _ := obj["limits"].([]any)
	for _, v := range list {
		l, _ := v.(map[string]any)
		name, _ := l["name"].(string)
		cfg.Limits = append(cfg.Limits, Limit{Name: name, Tools: stringList(l["tools"]), PerTenant: l["per"] == "tenant",
			PerMinute: floatOf(l["per_minute"]), Burst: int(intOf(l["burst"]))})
	}
}

func floatOf(v any) float64 {
	switch n := v.(type) {
	case float64:
		return n
	case json.Number:
		f, _ := n.Float64()
		return f
	}
	return 0
}
