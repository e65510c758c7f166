package tooling

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/toolexplorer/toolexplorer/internal/jsonenc"
)

// Tool is a named function that a host, a person or a language model may
// call with JSON arguments. A tool that needs nothing registers itself from
// init() in the file that defines it; one that needs a dependency is built
// by a constructor that takes it, and the host registers it before Main.
type Tool struct {
	// Name is "group.name" in lower snake case, like "demo.echo".
	Name string
	// Title is a short human name ("Echo"). Zero: none.
	Title string
	// Description says what the tool does, for people and models.
	Description string
	// Input is the JSON Schema of the arguments; its root must be
	// "type": "object". Drafts 2020-12 (the default) and 07 (by $schema);
	// $ref into $defs; formats are asserted. Zero: no arguments.
	Input json.RawMessage
	// Output is the JSON Schema the output must satisfy. Zero: unchecked.
	Output json.RawMessage
	// Meta is what the tool declares about its behaviour.
	Meta Meta
	// Source says where the tool comes from, for people choosing among
	// tools: "" for a tool compiled into the program, "file:PATH" for a tool
	// declared in a tools file, "mcp:NAME" for a tool of the MCP server NAME,
	// "tools:PATH" for a tool of an MCP tools/list file loaded in preview.
	// The registry keeps it and never acts on it.
	Source string
	// Available, when set, says why the tool cannot run now (nil: it can).
	Available func(ctx context.Context, c Call) error
	// Run does the work. It must honour ctx: a call that runs past its
	// deadline returns timeout to the caller at once, and Run's goroutine is
	// counted as abandoned until it returns.
	Run func(ctx context.Context, c Call) (any, error)
}

// Call is what a tool receives: the call's identity and its arguments, with
// schema defaults filled in. Everything a tool needs arrives here, in ctx
// (per-call values under typed context keys) or from the constructor that
// built it (its dependencies); tools never reach for the default registry.
type Call struct {
	ID     string
	Tool   string
	Origin Origin
	// Principal is who makes the call (WithPrincipal, or the principal
	// the call's ctx carries); the zero Principal is the anonymous one.
	Principal Principal
	Consent   bool
	// IdempotencyKey is the caller's key for this call
	// (WithIdempotencyKey): a call repeated with the same key has the effect
	// of one. "" when none.
	IdempotencyKey string
	// Args are the decoded arguments: strings, bool, json.Number, []any,
	// map[string]any and nil. Never nil for a call that passed validation.
	Args map[string]any
	// Workspace is the directory a confined tool works in (the config's
	// confinement workspace), "" for a call that is not confined.
	Workspace string

	raw      json.RawMessage // the arguments as sent, nil when defaults changed them
	meta     *Meta           // the tool's
	stage    *stage          // for the innermost Handler, while middleware runs
	reg      *Registry
	confined bool     // set only in a confined child (see RunProgram)
	programs []string // the tool's Meta.Confine.Exec, in a confined child
	progress func(Progress)
	notes    *notes // where Decide and SetDetail write; nil in a confined child
}

// notes is what a running tool reports of its own governance (Decide,
// SetDetail), handed to the call's Result and end Event when it returns.
type notes struct {
	mu        sync.Mutex
	closed    bool // the call has returned: later notes are dropped
	decisions []Decision
	detail    map[string]string
}

// Decide adds a governance decision of the tool's own, such as a retry or
// a call made in shadow mode, to the call's Result, after the registry's.
// It does nothing once the call has returned, and in a confined child.
func (c Call) Decide(step, detail string) {
	if n := c.notes; n != nil {
		n.mu.Lock()
		if !n.closed {
			n.decisions = append(n.decisions, Decision{Step: step, Detail: detail})
		}
		n.mu.Unlock()
	}
}

// SetDetail sets key to value in the Detail of the call's end Event, for
// observers that keep an audit trail (what backend a call reached, how many
// attempts it took). A key beginning "effect." names a side effect of the
// call (a host called, rows changed, bytes published), which the ledger
// keeps as its record's effects. Never put arguments, output or secrets
// there. It does nothing once the call has returned, and in a confined
// child.
func (c Call) SetDetail(key, value string) {
	if n := c.notes; n != nil {
		n.mu.Lock()
		if !n.closed {
			if n.detail == nil {
				n.detail = make(map[string]string)
			}
			n.detail[key] = value
		}
		n.mu.Unlock()
	}
}

// close stops taking notes and returns those taken.
func (n *notes) close() ([]Decision, map[string]string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.closed = true
	return n.decisions, n.detail
}

// Progress is one progress report of a running call.
type Progress struct {
	Done    float64 // how much is done, increasing from report to report
	Total   float64 // the whole, 0 when unknown
	Message string  // what is being done, "" when there is nothing to say
}

// ReportProgress says how far the call is: done of total (0 when unknown),
// with an optional message. It does nothing when the caller asked for no
// progress, and in a confined child.
func (c Call) ReportProgress(done, total float64, message string) {
	if c.progress != nil {
		c.progress(Progress{Done: done, Total: total, Message: message})
	}
}

// Meta returns what the tool declares. Its slices are the registry's: do
// not modify them.
func (c Call) Meta() Meta {
	if c.meta == nil {
		return Meta{}
	}
	return *c.meta
}

// Raw returns the arguments as JSON, defaults included.
func (c Call) Raw() json.RawMessage {
	if c.raw != nil {
		return c.raw
	}
	b, err := jsonenc.Marshal(c.Args)
	if err != nil {
		return json.RawMessage(`{}`)
	}
	return b
}

// Decode unmarshals the arguments (defaults included) into v. It refuses
// arguments holding two keys that differ only in case ("path" and "PATH"):
// encoding/json matches struct fields regardless of case, so either could
// land in the field while the schema checked only one of them.
func (c Call) Decode(v any) error {
	if a, b, ok := caseTwins(c.Args); ok {
		return fmt.Errorf("tooling: arguments hold keys %q and %q, which differ only in case: Decode refuses them", a, b)
	}
	return json.Unmarshal(c.Raw(), v)
}

// caseTwins finds two keys of one object, at any depth, equal but for case.
func caseTwins(v any) (string, string, bool) {
	switch v := v.(type) {
	case map[string]any:
		if len(v) > 1 {
			seen := make(map[string]string, len(v))
			for k := range v {
				f := strings.ToLower(k)
				if other, dup := seen[f]; dup {
					return other, k, true
				}
				seen[f] = k
			}
		}
		for _, e := range v {
			if a, b, ok := caseTwins(e); ok {
				return a, b, true
			}
		}
	case []any:
		for _, e := range v {
			if a, b, ok := caseTwins(e); ok {
				return a, b, true
			}
		}
	}
	return "", "", false
}
