package tooling

import (
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// Event is what Audit hooks see of a call: who, what, how it ended, and
// digests and sizes of the arguments and output, never their content.
type Event struct {
	End       bool // false for the event a call begins with, true for its end
	Time      time.Time
	CallID    string
	Tool      string
	Version   string // the tool's Meta.Version; "" when unversioned or not found
	Origin    Origin
	Principal Principal
	// IdempotencySHA256 is the hex SHA-256 of the call's idempotency key
	// (WithIdempotencyKey), never the key; "" when it has none.
	IdempotencySHA256 string
	ArgsSHA256        string // hex; of the arguments as sent
	ArgsSize          int
	OutputSHA256      string // end only, when there is output
	OutputSize        int
	Status            string     // end only: as Result.Status
	Code              codes.Code // end only
	Wait, Run         time.Duration
	// State is set on the event of a change of a tool's state (SetState,
	// or Configure), to its new state: such an event is no call (no
	// CallID; End set), its Principal is who changed it, and Detail holds
	// its "reason" and "replacement".
	State State
	// Replayed: end only, as Result.Replayed.
	Replayed bool
	// Detail is what the tool said of the call for the audit trail
	// (Call.SetDetail), end only; nil when it said nothing. Never content.
	Detail map[string]string
	// Governance is the call's decisions (Result.Governance), end only:
	// the policy that allowed it, consent, rate, deadline, locks, the
	// confinement profile's hash (step "confine", "profile HASH"), and what
	// the tool and middleware decided (a retry, a shadow call).
	Governance []Decision
}

func digest(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	sum := sha256.Sum256(b)
	var h [2 * sha256.Size]byte
	hex.Encode(h[:], sum[:])
	return string(h[:]) // one allocation, where hex.EncodeToString makes two
}
