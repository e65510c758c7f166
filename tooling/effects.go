package tooling

import (
	"strconv"
	"strings"

	"github.com/toolexplorer/toolexplorer/internal/jsonenc"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
	"github.com/toolexplorer/toolexplorer/tooling/internal/confinehook"
)

// confinedEffects notes, in the end Event's Detail (keys "effect.NAME",
// which the ledger keeps as the record's effects), what the parent knows
// of the side effects of a confined call whose child ran: the paths it
// could write and the ports it could connect to (the write and connect
// grants of its profile), and the protected names it created, which were
// moved aside after it. What the child did inside its grants is its own
// account, and not noted.
func (r *Registry) confinedEffects(res *Result, e *entry) {
	cr := confinehook.Installed()
	if !res.ran || cr == nil { // not run, or run unconfined: no grants
		return
	}
	prof, _, _, err := r.profileOf(cr, e.tool.Name, e.tool.Meta.Confine)
	if err != nil {
		return
	}
	g := prof.Granted()
	add := func(k, v string) {
		if res.detail == nil {
			res.detail = make(map[string]string, 3)
		}
		res.detail["effect."+k] = v
	}
	if len(g.Write) > 0 {
		b, _ := jsonenc.Marshal(g.Write)
		add("write_grants", string(b))
	}
	if len(g.ConnectTCP) > 0 {
		ports := make([]string, len(g.ConnectTCP))
		for i, p := range g.ConnectTCP {
			ports[i] = strconv.Itoa(int(p))
		}
		add("connect_ports", strings.Join(ports, ","))
	}
	if res.Code == codes.SandboxDenied {
		// The sandbox's words (package sandbox/confine): "the call created
		// OLD -> NEW[, ...], a protected name (...)".
		if _, rest, ok := strings.Cut(res.Message, "the call created "); ok {
			if moved, _, ok := strings.Cut(rest, ", a protected name"); ok {
				add("moved_aside", moved)
			}
		}
	}
}
