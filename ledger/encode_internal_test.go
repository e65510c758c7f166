package ledger

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
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

// FuzzAppendRecord: the writer's encoder writes, byte for byte, what
// json.Marshal writes of the same record (without its hash), whatever its
// strings (quotes, controls, HTML, invalid UTF-8, U+2028), numbers
// (negative, tiny and huge floats), times, principal, decisions and maps.
func FuzzAppendRecord(f *testing.F) {
	f.Add(uint64(7), "end", int64(1767322445), int64(6), "s", "c\"1", "t.x", "al<i>ce", "r\\2", "policy", "allowed for ålice\n", "effect.host", "api.example.com:443", 12, 0.001, 12.5, true, int64(4))
	f.Add(uint64(1), "begin", int64(0), int64(0), "", "", "", "", "", "", "", "", "", 0, 0.0, 0.0, false, int64(0))
	f.Add(uint64(1<<63), "\u2028\xff", int64(-62135596800), int64(999999999), "\x00", "\t", "&", "", "r", "", "", "", "\x7f", -3, 1e-7, 1e21, false, int64(-1))
	f.Add(uint64(2), "state", int64(253402300799), int64(1), "x", "y", "z", "a", "", "b", "c", "d", "e", 1, -0.000001, 123456789.123456789, true, int64(9))
	f.Fuzz(func(t *testing.T, seq uint64, kind string, sec, nsec int64, session, call, tool, subject, role, step, detail, key, value string, size int, wait, run float64, replayed bool, lost int64) {
		if math.IsNaN(wait) || math.IsInf(wait, 0) || math.IsNaN(run) || math.IsInf(run, 0) {
			t.Skip("encoding/json refuses NaN and infinities; a record's times are never either")
		}
		tm := time.Unix(sec, nsec%1e9).UTC()
		if y := tm.Year(); y < 0 || y > 9999 {
			t.Skip("encoding/json refuses years outside 0 to 9999; a record's time is the clock's")
		}
		rec := Record{Seq: seq, Kind: kind, Time: tm, Session: session, Call: call, Tool: tool, Version: value, Origin: tooling.Origin(key),
			Policy: step, Profile: detail, ArgsSHA256: call, ArgsSize: size, Idempotency: key, Mode: value, State: tooling.State(subject),
			Replayed: replayed, Status: session, Code: codes.Code(role), OutputSHA256: tool, OutputSize: -size, WaitMS: wait, RunMS: run,
			PID: size, Host: subject, Lost: lost, Note: detail, Covers: seq / 2, CoversHash: value, Key: key, Sig: role, Prev: kind}
		if subject != "" || role != "" {
			rec.Principal = &tooling.Principal{Subject: subject, Tenant: value}
			if role != "" {
				rec.Principal.Roles = []string{role, key}
				rec.Principal.Scopes = []string{detail}
				rec.Principal.Auth, rec.Principal.Client = step, session
			}
		} else if replayed {
			rec.Principal = &tooling.Principal{} // an empty principal: {}
		}
		if step != "" {
			rec.Governance = []tooling.Decision{{Step: step, Detail: detail}, {Step: key, Detail: ""}}
		}
		if key != "" {
			rec.Detail = map[string]string{key: value, key + "2": detail, "mode": step}
			rec.Effects = map[string]string{value: key}
		}
		want, err := json.Marshal(&rec)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendRecord(nil, &rec); string(got) != string(want) {
			t.Fatalf("the encoder differs from encoding/json:\n got %s\nwant %s", got, want)
		}
	})
}
