package policy

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cedar-policy/cedar-go"
	cedarast "github.com/cedar-policy/cedar-go/ast"
	"github.com/cedar-policy/cedar-go/types"
	xast "github.com/cedar-policy/cedar-go/x/exp/ast"
	"github.com/cedar-policy/cedar-go/x/exp/schema"
	"github.com/cedar-policy/cedar-go/x/exp/schema/validate"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// PolicyFile is a file of Cedar policies: its name (for positions in
// errors and refusals) and its text.
type PolicyFile struct {
	Name string
	Text []byte
}

// Cedar decides calls by Cedar policies, as an Authorizer. A request is
//
//	principal  User::"SUBJECT" ("anonymous" for the anonymous principal),
//	           in Role::"ROLE" for each role and Tenant::"TENANT"; its
//	           attributes: subject, tenant, roles, scopes, auth, client
//	action     Action::"TOOL", in the action group Action::"GROUP"
//	resource   Tool::"TOOL"; attributes name, group, effects, risk, read_only
//	context    origin, effects (Set<String>), risk ("low", "medium",
//	           "high"), now (the time of the call, a datetime), hour (0 to
//	           23) and weekday ("monday") in the clock's time zone,
//	           tenant (the attributes of the principal's tenant, as
//	           WithTenants gives them) and arguments (the validated
//	           arguments, as far as CedarSchema maps their types)
//
// As Cedar has it, a call is allowed when some permit policy is satisfied
// and no forbid policy is: a forbid wins over any permit, and a tool no
// permit covers is refused. The refusal names the deciding policy: its
// @id annotation, else its file and line.
type Cedar struct {
	policies []namedPolicy
	visible  []namedPolicy // permits without their conditions, and unconditional forbids
	now      func() time.Time
	tenants  *tenantAttrs

	mu    sync.RWMutex
	tools map[string]*cedarTool // by name, filled as tools are first called

	users sync.Map // principalKey → cedar.Entity: the principals seen lately
	nUser atomic.Int64
}

// maxUsers bounds the principals whose entities Cedar keeps made: past
// it, it forgets them all and starts again.
const maxUsers = 4096

type namedPolicy struct {
	id        cedar.PolicyID
	name      string // "@id (file:line)" or "file:line"
	permitted string // the decision of a call it permits
	p         *cedar.Policy
}

// cedarTool is what a call of one tool needs: its resource entity, the
// parts of its context that do not change and its argument type.
type cedarTool struct {
	uid     types.EntityUID
	action  types.EntityUID
	entity  types.Entity // the tool, the resource
	actionE types.Entity // the action, in its group
	effects types.Set
	risk    types.String
	// effectsV and riskV are effects and risk as values, made once: a
	// call's context holds them without allocating.
	effectsV, riskV cedar.Value
	args            *argType
}

// NewCedar parses the policies of files and validates each against the
// schema CedarSchema makes of tools and the tenants' attributes
// (strictly, as Cedar's validator does): a policy that does not parse, or
// names a tool, attribute or argument the schema does not have, or
// compares values of different types, is refused with its file and line.
// Of opts, WithClock (the time of a call) and WithTenants count.
func NewCedar(files []PolicyFile, tools []tooling.Tool, opts ...Option) (*Cedar, error) {
	o := optionsOf(opts)
	tenants, err := newTenantAttrs(o.tenants)
	if err != nil {
		return nil, err
	}
	var s schema.Schema
	if err := s.UnmarshalCedar([]byte(cedarSchema(tools, tenants.typ))); err != nil {
		return nil, fmt.Errorf("policy: the schema made of the tools does not parse: %v", err)
	}
	rs, err := s.Resolve()
	if err != nil {
		return nil, fmt.Errorf("policy: the schema made of the tools does not resolve: %v", err)
	}
	v := validate.New(rs)
	c := &Cedar{tools: map[string]*cedarTool{}, now: o.now, tenants: tenants}
	var errs []error
	ids := map[string]string{}
	for _, f := range files {
		list, err := cedar.NewPolicyListFromBytes(f.Name, f.Text)
		if err != nil {
			errs = append(errs, parseError(f.Name, err))
			continue
		}
		for _, p := range list {
			pos := p.Position()
			where := f.Name + ":" + strconv.Itoa(pos.Line)
			name := where
			if id, ok := p.Annotations()["id"]; ok && id != "" {
				name = string(id)
				if other, dup := ids[name]; dup {
					errs = append(errs, fmt.Errorf("policy: %s: a policy with @id(%q) is at %s already", where, name, other))
				}
				ids[name] = where
			}
			if err := v.Policy(name, (*xast.Policy)(p.AST())); err != nil {
				msg := strings.ReplaceAll(err.Error(), "for policy `"+name+"`, ", "")
				errs = append(errs, fmt.Errorf("policy: %s:%d: %s does not validate against the tools' schema: %s", f.Name, pos.Line, describePolicy(p, name), msg))
				continue
			}
			id := cedar.PolicyID(strconv.Itoa(len(c.policies)))
			np := namedPolicy{id: id, name: name, p: p}
			if name != where {
				np.name = name + " (" + where + ")"
			}
			np.permitted = "permitted by Cedar policy " + np.name
			c.policies = append(c.policies, np)
			if vp := scopeOnly(p); vp != nil {
				c.visible = append(c.visible, namedPolicy{id: id, name: np.name, p: vp})
			}
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	for i := range tools {
		c.tools[tools[i].Name] = newCedarTool(&tools[i])
	}
	return c, nil
}

// parsePos is where the Cedar parser says a document goes wrong.
var parsePos = regexp.MustCompile(`^(?:parser error: )?parse error at <input>:(\d+):(\d+) (.*)$`)

// parseError names the file, line and column of a policy file that does
// not parse.
func parseError(file string, err error) error {
	if m := parsePos.FindStringSubmatch(err.Error()); m != nil {
		return fmt.Errorf("policy: %s:%s:%s: not Cedar: %s", file, m[1], m[2], m[3])
	}
	return fmt.Errorf("policy: %s: not Cedar: %v", file, strings.TrimPrefix(err.Error(), "parser error: "))
}

func describePolicy(p *cedar.Policy, name string) string {
	kind := "permit"
	if p.Effect() == cedar.Forbid {
		kind = "forbid"
	}
	if _, ok := p.Annotations()["id"]; ok {
		return fmt.Sprintf("%s policy %q", kind, name)
	}
	return "the " + kind + " policy"
}

// scopeOnly is what Visible asks of p: a permit without its conditions
// (some arguments may satisfy them), or a forbid that has none (it refuses
// whatever the arguments); nil for a forbid with conditions.
func scopeOnly(p *cedar.Policy) *cedar.Policy {
	a := *(*xast.Policy)(p.AST())
	if p.Effect() == cedar.Forbid {
		if len(a.Conditions) > 0 {
			return nil
		}
		return p
	}
	a.Conditions = nil
	return cedar.NewPolicyFromAST((*cedarast.Policy)(&a))
}

func newCedarTool(t *tooling.Tool) *cedarTool {
	m := &t.Meta
	var effects []cedar.Value
	for _, e := range strings.Split(m.Effects.String(), "|") {
		if e != "none" {
			effects = append(effects, cedar.String(e))
		}
	}
	ct := &cedarTool{
		uid:     cedar.NewEntityUID("Tool", cedar.String(t.Name)),
		action:  cedar.NewEntityUID("Action", cedar.String(t.Name)),
		effects: cedar.NewSet(effects...),
		risk:    cedar.String(string(m.EffectiveSafety())),
		args:    toolArgs(t),
	}
	ct.effectsV, ct.riskV = ct.effects, ct.risk
	ct.actionE = cedar.Entity{UID: ct.action, Parents: cedar.NewEntityUIDSet(cedar.NewEntityUID("Action", cedar.String(toolGroup(t.Name)))),
		Attributes: cedar.NewRecord(nil)}
	ct.entity = cedar.Entity{UID: ct.uid, Parents: cedar.NewEntityUIDSet(), Attributes: cedar.NewRecord(cedar.RecordMap{
		"name":      cedar.String(t.Name),
		"group":     cedar.String(toolGroup(t.Name)),
		"effects":   ct.effects,
		"risk":      ct.risk,
		"read_only": cedar.Boolean(m.Effects&(tooling.EffectWrite|tooling.EffectProcess) == 0),
	})}
	return ct
}

// tool is the request parts of the tool t (looked up by name; made from t
// for a tool registered after the policies were loaded).
func (c *Cedar) tool(t *tooling.Tool) *cedarTool {
	c.mu.RLock()
	ct := c.tools[t.Name]
	c.mu.RUnlock()
	if ct != nil {
		return ct
	}
	ct = newCedarTool(t)
	c.mu.Lock()
	c.tools[t.Name] = ct
	c.mu.Unlock()
	return ct
}

// userEntity is the principal p as a Cedar entity.
func userEntity(p tooling.Principal) cedar.Entity {
	subject := p.Subject
	if subject == "" {
		subject = "anonymous"
	}
	parents := make([]cedar.EntityUID, 0, len(p.Roles)+1)
	roles := make([]cedar.Value, len(p.Roles))
	for i, r := range p.Roles {
		parents = append(parents, cedar.NewEntityUID("Role", cedar.String(r)))
		roles[i] = cedar.String(r)
	}
	if p.Tenant != "" {
		parents = append(parents, cedar.NewEntityUID("Tenant", cedar.String(p.Tenant)))
	}
	scopes := make([]cedar.Value, len(p.Scopes))
	for i, s := range p.Scopes {
		scopes[i] = cedar.String(s)
	}
	return cedar.Entity{
		UID:     cedar.NewEntityUID("User", cedar.String(subject)),
		Parents: cedar.NewEntityUIDSet(parents...),
		Attributes: cedar.NewRecord(cedar.RecordMap{
			"subject": cedar.String(p.Subject),
			"tenant":  cedar.String(p.Tenant),
			"roles":   cedar.NewSet(roles...),
			"scopes":  cedar.NewSet(scopes...),
			"auth":    cedar.String(p.Auth),
			"client":  cedar.String(p.Client),
		}),
	}
}

// requestEntities are the entities of a request: the user, the tool and
// the action.
type requestEntities [3]cedar.Entity

func (e *requestEntities) Get(uid cedar.EntityUID) (cedar.Entity, bool) {
	for i := range e {
		if e[i].UID == uid {
			return e[i], true
		}
	}
	return cedar.Entity{}, false
}

type policyList []namedPolicy

func (l policyList) All() iter.Seq2[cedar.PolicyID, *cedar.Policy] {
	return func(yield func(cedar.PolicyID, *cedar.Policy) bool) {
		for _, p := range l {
			if !yield(p.id, p.p) {
				return
			}
		}
	}
}

// Visible reports whether some permit policy's scope takes in p calling
// t, and no forbid without conditions refuses it: conditions on the
// arguments are left to the call.
func (c *Cedar) Visible(p tooling.Principal, origin tooling.Origin, t *tooling.Tool) bool {
	ct := c.tool(t)
	d, _ := c.decide(policyList(c.visible), p, origin, ct, cedar.NewRecord(nil))
	return d == cedar.Allow
}

// Allow decides the call by the policies; a refusal names the deciding
// policy, and an allowed call gets a "policy" decision naming the permit.
func (c *Cedar) Allow(_ context.Context, call *tooling.Call) error {
	t := tooling.Tool{Name: call.Tool, Meta: call.Meta()}
	ct := c.tool(&t)
	args, err := ct.args.value(anyMap(call.Args))
	if err != nil {
		return fmt.Errorf("the arguments cannot be given to the Cedar policies: %v", err)
	}
	d, diag := c.decide(policyList(c.policies), call.Principal, call.Origin, ct, args.(cedar.Record))
	if d == cedar.Allow {
		if len(diag.Reasons) == 1 {
			call.Decide("policy", c.policy(diag.Reasons[0].PolicyID).permitted)
		} else {
			call.Decide("policy", "permitted by Cedar policy "+c.names(diag.Reasons))
		}
		return nil
	}
	if len(diag.Reasons) > 0 {
		return errors.New("forbidden by Cedar policy " + c.names(diag.Reasons))
	}
	msg := "no Cedar policy permits " + call.Tool + " for " + describe(call.Principal, call.Origin)
	if len(diag.Errors) > 0 {
		msg += fmt.Sprintf(" (%s failed: %s)", c.name(diag.Errors[0].PolicyID), diag.Errors[0].Message)
	}
	return errors.New(msg)
}

func anyMap(m map[string]any) any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// user is the entity of p, made once for each principal seen lately.
func (c *Cedar) user(p tooling.Principal) cedar.Entity {
	// Each string is preceded by its length, so that no two principals
	// share a key whatever bytes their strings hold.
	b := make([]byte, 0, 64)
	add := func(s string) {
		b = strconv.AppendInt(b, int64(len(s)), 10)
		b = append(b, ':')
		b = append(b, s...)
	}
	for _, s := range [...]string{p.Subject, p.Tenant, p.Auth, p.Client} {
		add(s)
	}
	b = strconv.AppendInt(b, int64(len(p.Roles)), 10)
	for _, r := range p.Roles {
		add(r)
	}
	b = append(b, '/')
	for _, s := range p.Scopes {
		add(s)
	}
	key := string(b)
	if e, ok := c.users.Load(key); ok {
		return e.(cedar.Entity)
	}
	e := userEntity(p)
	if c.nUser.Add(1) > maxUsers {
		c.users.Clear()
		c.nUser.Store(1)
	}
	c.users.Store(key, e)
	return e
}

func (c *Cedar) decide(list policyList, p tooling.Principal, origin tooling.Origin, ct *cedarTool, args cedar.Record) (cedar.Decision, cedar.Diagnostic) {
	user := c.user(p)
	ents := requestEntities{user, ct.entity, ct.actionE}
	now, hour, weekday := callTime(c.now())
	req := cedar.Request{
		Principal: user.UID,
		Action:    ct.action,
		Resource:  ct.uid,
		Context: cedar.NewRecord(cedar.RecordMap{
			"origin":    originValue(origin),
			"effects":   ct.effectsV,
			"risk":      ct.riskV,
			"now":       now,
			"hour":      hour,
			"weekday":   weekday,
			"tenant":    c.tenants.of(p.Tenant),
			"arguments": args,
		}),
	}
	return cedar.Authorize(list, &ents, req)
}

// names names the policies of reasons, in the order they were loaded.
func (c *Cedar) names(reasons []cedar.DiagnosticReason) string {
	out := make([]string, len(reasons))
	for i, r := range reasons {
		out[i] = c.name(r.PolicyID)
	}
	return strings.Join(out, ", ")
}

func (c *Cedar) name(id cedar.PolicyID) string { return c.policy(id).name }

// policy is the policy of id, which is its place in c.policies.
func (c *Cedar) policy(id cedar.PolicyID) *namedPolicy {
	i, err := strconv.Atoi(string(id))
	if err != nil || i < 0 || i >= len(c.policies) {
		return &namedPolicy{name: string(id), permitted: "permitted by Cedar policy " + string(id)}
	}
	return &c.policies[i]
}

var _ tooling.Authorizer = (*Cedar)(nil)
