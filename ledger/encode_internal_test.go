package ledger

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// The writer's encoder writes what encoding/json reads back as the same
// record, every field set, strings with quotes, controls, HTML and
// non-ASCII included; and leaves empty fields out as omitempty would.
func TestAppendRecordRoundTrips(t *testing.T) {
	full := Record{Seq: 7, Kind: KindEnd, Time: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), Session: "s", Call: "c\"1",
		Tool: "t.x", Version: "1.0.0", Origin: tooling.OriginLLM,
		Principal: &tooling.Principal{Subject: "al<i>ce", Tenant: "acme", Roles: []string{"r1", "r\\2"}, Scopes: []string{"s"}, Auth: "oauth", Client: "cli 1"},
		Policy:    "p", Profile: "pr", ArgsSHA256: "a", ArgsSize: 12, Idempotency: "i", Mode: "shadow", State: tooling.StatePaused, Replayed: true, Status: "ok", Code: "x_y",
		OutputSHA256: "o", OutputSize: 3, WaitMS: 0.001, RunMS: 12.5,
		Governance: []tooling.Decision{{Step: "policy", Detail: "allowed for ålice\n"}},
		Detail:     map[string]string{"b": "2", "a": "1\t"}, Effects: map[string]string{"host": "api.example.com:443", "method": "POST"}, PID: 9, Host: "h", Lost: 4, Note: "n",
		Covers: 6, CoversHash: "ch", Key: "k", Sig: "sig", Prev: "prev"}
	for _, rec := range []Record{full, {Seq: 1, Kind: KindOpen, Time: full.Time}, {Seq: 2, Kind: KindBegin, Principal: &tooling.Principal{Auth: "local"}}} {
		b := appendRecord(nil, &rec)
		var back Record
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if !reflect.DeepEqual(back, rec) {
			t.Errorf("round trip of %s:\n got %+v\nwant %+v", b, back, rec)
		}
		std, _ := json.Marshal(rec)
		var viaStd map[string]any
		var viaOwn map[string]any
		json.Unmarshal(std, &viaStd)
		json.Unmarshal(b, &viaOwn)
		if !reflect.DeepEqual(viaStd, viaOwn) {
			t.Errorf("fields differ from encoding/json:\n own %s\n std %s", b, std)
		}
	}
}
