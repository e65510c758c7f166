package ledger

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// The kinds of records.
const (
	KindBegin      = "begin"      // a call began
	KindEnd        = "end"        // a call ended (Status, Code)
	KindCheckpoint = "checkpoint" // a signature over the record before it
	KindOpen       = "open"       // a process opened the ledger (PID, Host)
	KindClose      = "close"      // that process closed it
	KindLost       = "lost"       // Lost records could not be written (Note says why)
	KindRecovered  = "recovered"  // a torn last line was set aside (Note says where)
	KindState      = "state"      // a tool's state changed (State; Detail: reason, replacement), by Principal
)

// Record is one line of a ledger. Begin and end records describe a call;
// the others describe the ledger itself. It never holds a call's arguments
// or output: only their SHA-256 digests and sizes.
type Record struct {
	Seq     uint64    `json:"seq"`
	Kind    string    `json:"kind"`
	Time    time.Time `json:"time"`
	Session string    `json:"session,omitempty"` // the writing process's session (its open record)

	Call      string             `json:"call,omitempty"`
	Tool      string             `json:"tool,omitempty"`
	Version   string             `json:"version,omitempty"`
	Origin    tooling.Origin     `json:"origin,omitempty"`
	Principal *tooling.Principal `json:"principal,omitempty"`
	// Policy is the digest of the policy in force (Options.Policy).
	Policy string `json:"policy,omitempty"`
	// Profile is the hash of the confinement profile a confined call ran
	// under (end only).
	Profile     string `json:"profile,omitempty"`
	ArgsSHA256  string `json:"args_sha256,omitempty"`
	ArgsSize    int    `json:"args_size,omitempty"`
	Idempotency string `json:"idempotency_sha256,omitempty"` // of the idempotency key
	// Mode is "shadow" for a call the tool made in shadow mode (end only).
	Mode string `json:"mode,omitempty"`
	// State is a tool's new state, for a state record.
	State tooling.State `json:"state,omitempty"`
	// Replayed is set on the end of a call whose outcome was replayed
	// from an earlier call with the same idempotency key, without running.
	Replayed     bool               `json:"replayed,omitempty"`
	Status       string             `json:"status,omitempty"`
	Code         codes.Code         `json:"code,omitempty"`
	OutputSHA256 string             `json:"output_sha256,omitempty"`
	OutputSize   int                `json:"output_size,omitempty"`
	WaitMS       float64            `json:"wait_ms,omitempty"`
	RunMS        float64            `json:"run_ms,omitempty"`
	Governance   []tooling.Decision `json:"governance,omitempty"`
	// Detail is what the tool reported of the call (tooling.Call.SetDetail):
	// its side effects as it sees them, such as a binding's backend, mode
	// and response size.
	Detail map[string]string `json:"detail,omitempty"`
	// Effects are the call's side effects as the tool or the registry
	// recorded them (end only; the Detail keys "effect.NAME", as NAME): a
	// binding's host:port and method, statement digest and rows, stream or
	// subject and bytes published; a confined call's write grants and the
	// protected names moved aside after it. Never content.
	Effects map[string]string `json:"effects,omitempty"`

	PID  int    `json:"pid,omitempty"`  // open
	Host string `json:"host,omitempty"` // open
	Lost int64  `json:"lost,omitempty"` // lost
	Note string `json:"note,omitempty"` // lost, recovered

	// Covers and CoversHash are the record a checkpoint signs: the one
	// before it. Sig is the ed25519 signature (base64) of checkpointMessage.
	Covers     uint64 `json:"covers,omitempty"`
	CoversHash string `json:"covers_hash,omitempty"`
	Key        string `json:"key,omitempty"` // the signing key's fingerprint
	Sig        string `json:"sig,omitempty"`

	Prev string `json:"prev"`           // the hash of the record before, "" for the first
	Hash string `json:"hash,omitempty"` // SHA-256 of the line without this field

	// who is the principal of a record on its way to the writer, which
	// points Principal at it: one allocation less per record.
	who tooling.Principal
}

// hashSuffix is how every line ends: `,"hash":"` 64 hex digits `"}`.
const (
	hashKey    = `,"hash":"`
	hashSuffix = len(hashKey) + 64 + 2
)

// encode appends rec's line (with its hash, and a newline) to buf and
// returns the hash. rec.Hash must be empty.
func encode(buf *bytes.Buffer, rec *Record) (string, error) {
	body := appendRecord(buf.AvailableBuffer(), rec)
	sum := sha256.Sum256(body)
	var h [2 * sha256.Size]byte
	hex.Encode(h[:], sum[:])
	buf.Write(body[:len(body)-1]) // in place: AvailableBuffer shares buf's memory
	buf.WriteString(hashKey)
	buf.Write(h[:])
	buf.WriteString("\"}\n")
	return string(h[:]), nil
}

var errNoHash = errors.New(`the line does not end with its "hash"`)

// decode parses line (without its newline), checks that its hash is that of
// the rest of it, and returns the record.
func decode(line []byte) (*Record, error) {
	if len(line) < hashSuffix+2 || !bytes.HasPrefix(line[len(line)-hashSuffix:], []byte(hashKey)) || !bytes.HasSuffix(line, []byte(`"}`)) {
		return nil, errNoHash
	}
	h := string(line[len(line)-66 : len(line)-2])
	body := make([]byte, 0, len(line)-hashSuffix+1)
	body = append(append(body, line[:len(line)-hashSuffix]...), '}')
	var rec Record
	if err := json.Unmarshal(line, &rec); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(body)
	if hex.EncodeToString(sum[:]) != h || rec.Hash != h {
		return &rec, errBadHash
	}
	return &rec, nil
}

var errBadHash = errors.New("its hash is not that of its content: it was edited")

// fromEvent is the record of an audit event.
func fromEvent(ev *tooling.Event, policy string) Record {
	rec := Record{Kind: KindBegin, Time: ev.Time.UTC(), Call: ev.CallID, Tool: ev.Tool, Version: ev.Version, Origin: ev.Origin,
		Policy: policy, ArgsSHA256: ev.ArgsSHA256, ArgsSize: ev.ArgsSize, Idempotency: ev.IdempotencySHA256}
	rec.who = ev.Principal
	if ev.State != "" {
		rec.Kind, rec.State, rec.Detail = KindState, ev.State, ev.Detail
		return rec
	}
	if !ev.End {
		return rec
	}
	rec.Kind = KindEnd
	rec.Status, rec.Code, rec.Replayed = ev.Status, ev.Code, ev.Replayed
	rec.OutputSHA256, rec.OutputSize = ev.OutputSHA256, ev.OutputSize
	rec.WaitMS, rec.RunMS = ms(ev.Wait), ms(ev.Run)
	rec.Governance = ev.Governance
	rec.Detail, rec.Effects = splitEffects(ev.Detail)
	if ev.Detail["mode"] == "shadow" {
		rec.Mode = "shadow"
	}
	for _, d := range ev.Governance {
		if d.Step == "shadow" {
			rec.Mode = "shadow"
		}
		if h, ok := strings.CutPrefix(d.Detail, "profile "); ok && d.Step == "confine" {
			rec.Profile = h
		}
	}
	return rec
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// effectPrefix begins the Detail keys that are side effects.
const effectPrefix = "effect."

// splitEffects parts detail into what is not a side effect and the side
// effects, keyed without effectPrefix. detail itself is left as it is.
func splitEffects(detail map[string]string) (rest, effects map[string]string) {
	n := 0
	for k := range detail {
		if strings.HasPrefix(k, effectPrefix) {
			n++
		}
	}
	if n == 0 {
		return detail, nil
	}
	effects = make(map[string]string, n)
	if len(detail) > n {
		rest = make(map[string]string, len(detail)-n)
	}
	for k, v := range detail {
		if name, ok := strings.CutPrefix(k, effectPrefix); ok {
			effects[name] = v
		} else {
			rest[k] = v
		}
	}
	return rest, effects
}
