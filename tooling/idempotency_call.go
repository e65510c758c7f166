package tooling

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"

	"github.com/toolexplorer/toolexplorer/internal/jsonenc"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
	"github.com/toolexplorer/toolexplorer/tooling/idempotency"
)

// idemLeaseMargin is how long past its deadline a keyed call's claim
// lasts: the time to check its output and complete the claim.
const idemLeaseMargin = 10 * time.Second

// keyDigest is the store key of the idempotency key k of principal p: a
// digest, so that neither the store nor an event holds the key, scoped by
// tenant and subject, so that one principal's key never meets another's.
func keyDigest(p *Principal, k string) string {
	h := sha256.New()
	h.Write([]byte("toolexplorer idempotency key\x00"))
	h.Write([]byte(p.Tenant))
	h.Write([]byte{0})
	h.Write([]byte(p.Subject))
	h.Write([]byte{0})
	h.Write([]byte(k))
	return hex.EncodeToString(h.Sum(nil))
}

// callDigest says what a keyed call does: its tool and its arguments,
// defaults included, in one encoding (keys sorted).
func callDigest(c *Call) string {
	h := sha256.New()
	h.Write([]byte(c.Tool))
	h.Write([]byte{0})
	b, err := jsonenc.Marshal(c.Args)
	if err != nil {
		b = c.Raw()
	}
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}

// idemStore is the registry's store, made on first use.
func (r *Registry) idemStore() idempotency.Store {
	if s := r.idem.Load(); s != nil {
		return *s
	}
	s := idempotency.NewMemory()
	if r.idem.CompareAndSwap(nil, &s) {
		return s
	}
	return *r.idem.Load()
}

// keyed is a call that takes part in idempotency: its store, key and
// digest.
type keyed struct {
	store       idempotency.Store
	key, digest string
}

// keyedCall returns the idempotency of a call that passed consent, nil
// when the call has no key or its tool takes none.
func (r *Registry) keyedCall(e *entry, call *Call, o *callOptions) *keyed {
	if o.idemKey == "" || !e.tool.Meta.IdempotencyKeys {
		return nil
	}
	return &keyed{store: r.idemStore(), key: keyDigest(&call.Principal, o.idemKey), digest: callDigest(call)}
}

// keptOutcome is a kept outcome, as the store holds it (encoded as JSON).
type keptOutcome struct {
	CallID     string          `json:"call_id"`
	Status     string          `json:"status"`
	Code       codes.Code      `json:"code,omitempty"`
	Message    string          `json:"message,omitempty"`
	Hint       string          `json:"hint,omitempty"`
	Fields     []FieldError    `json:"fields,omitempty"`
	MoreFields int             `json:"more_fields,omitempty"`
	Output     json.RawMessage `json:"output,omitempty"`
	Plan       json.RawMessage `json:"plan,omitempty"`
	Dropped    int             `json:"dropped,omitempty"` // the size of an output over the byte cap, not kept
	Time       time.Time       `json:"time"`
}

// claim claims k for the call, reporting whether the call goes on to run.
// It does not when a call with the key ran (res is then its replay), the
// key is in use for something else (idempotency_conflict), the store
// failed (unavailable) or ctx ended while the call waited.
func (r *Registry) claim(ctx context.Context, res *Result, k *keyed, pol *toolPolicy) bool {
	start := time.Now()
	rec, err := k.store.Claim(ctx, k.key, k.digest, pol.timeout+idemLeaseMargin)
	if waited := time.Since(start); waited > time.Millisecond {
		res.Wait += waited
	}
	switch {
	case err != nil && ctx.Err() != nil:
		r.interrupted(res, ctx, ctx.Err(), false)
		return false
	case err != nil:
		res.failf(codes.Unavailable, "%s is unavailable: its idempotency store failed: %v", res.Tool, err)
		res.cause = err
		return false
	case rec == nil:
		res.decide("idempotency", "key claimed: the outcome will be kept")
		return true
	case rec.Pending || rec.Digest != k.digest:
		r.conflict(res, rec)
		return false
	}
	var out keptOutcome
	if err := json.Unmarshal(rec.Outcome, &out); err != nil {
		res.failf(codes.Unavailable, "%s is unavailable: the outcome kept for its idempotency key cannot be read: %v", res.Tool, err)
		res.cause = err
		return false
	}
	if out.Dropped > 0 {
		notKept(res, &out)
		return false
	}
	res.replay(&out)
	return false
}

// notKept refuses the repeat of a call whose output was over the byte cap
// and was not kept: replaying it without its output would pass for a
// success with an empty output, and running it again would do its write
// twice. The refusal says that the call ran, how it ended and how large its
// output was.
func notKept(res *Result, out *keptOutcome) {
	how := "ok"
	if out.Code != codes.OK {
		how = string(out.Code)
	}
	res.failf(codes.IdempotencyConflict, "the call made with this idempotency key ran (call %s at %s, %s) but its output (%s) was over the config idempotency.max_bytes and was not kept; the tool did not run again",
		out.CallID, out.Time.Format(time.RFC3339), how, byteSize(int64(out.Dropped)))
	res.Hint = "the first call's result had the output; raise idempotency.max_bytes to replay such outputs, or use a new key only to run the call again"
}

// conflict refuses a call whose key holds rec, of another call.
func (r *Registry) conflict(res *Result, rec *idempotency.Record) {
	what := "a call that completed"
	if rec.Pending {
		what = "a call that is running"
	} else {
		var out keptOutcome
		if json.Unmarshal(rec.Outcome, &out) == nil && out.CallID != "" {
			what = "call " + out.CallID
		}
	}
	res.failf(codes.IdempotencyConflict, "the idempotency key was used by %s with another tool or other arguments", what)
	res.Hint = "use a new key for a new call; repeat a call with its own key and the same arguments"
}

// replay makes res the outcome out of the call that ran.
func (res *Result) replay(out *keptOutcome) {
	res.Code, res.Message, res.Hint, res.Fields, res.MoreFields = out.Code, out.Message, out.Hint, out.Fields, out.MoreFields
	res.Output, res.Plan = out.Output, out.Plan
	res.Replayed = true
	res.ran = out.Status != statusDenied // it ran, as its status says, in the call that ran
	res.decide("idempotency", "replayed the outcome of call "+out.CallID+" ("+out.Time.Format(time.RFC3339)+"); the tool did not run")
}

// complete ends k's claim after the call: it keeps the outcome of a call
// whose tool started (ok, or an error of the tool or its run), and gives
// the claim up for a refusal, which is never kept.
func (r *Registry) complete(ctx context.Context, res *Result, k *keyed) {
	ctx = context.WithoutCancel(ctx)
	status := statusOf(res.Code, res.ran)
	if status == statusDenied {
		if err := k.store.Complete(ctx, k.key, nil, 0); err != nil {
			res.decide("idempotency", "the claim could not be given up: "+err.Error())
		}
		return
	}
	cfg := r.cfg.Load()
	out := keptOutcome{CallID: res.CallID, Status: status, Code: res.Code, Message: res.Message, Hint: res.Hint,
		Fields: res.Fields, MoreFields: res.MoreFields, Output: res.Output, Plan: res.Plan, Time: time.Now().UTC()}
	b, err := jsonenc.Marshal(&out)
	kept := "outcome kept for " + cfg.IdempotencyTTL.String()
	if err == nil && int64(len(b)) > cfg.IdempotencyMaxBytes {
		// Only that the call ran is kept: a repeat is refused, never run
		// again nor answered without the output.
		out.Dropped, out.Output, out.Plan = len(res.Output)+len(res.Plan), nil, nil
		b, err = jsonenc.Marshal(&out)
		kept = "the output (" + byteSize(int64(out.Dropped)) + ") is over the config idempotency.max_bytes and was not kept: a repeat with this key is refused for " +
			cfg.IdempotencyTTL.String() + ", not run again"
	}
	if err == nil {
		err = k.store.Complete(ctx, k.key, &idempotency.Record{Digest: k.digest, Outcome: b}, cfg.IdempotencyTTL)
	}
	if err != nil {
		res.decide("idempotency", "the outcome could not be kept: "+err.Error())
		res.Hint = "the idempotency store failed: a repeat of this call may run again"
		return
	}
	res.decide("idempotency", kept)
}
