package ledger

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"
)

// appendRecord appends rec as a JSON object, without its hash, to b: the
// fields of Record's tags in their order, empty ones left out as
// encoding/json's omitempty would, byte for byte what json.Marshal writes
// (FuzzAppendRecord checks it). It is what the writer hashes and writes;
// json.Unmarshal reads it back. It exists because encoding/json's
// reflection would cost the writer more than the call it records.
func appendRecord(b []byte, rec *Record) []byte {
	b = append(b, `{"seq":`...)
	b = strconv.AppendUint(b, rec.Seq, 10)
	b = appendStr(b, "kind", rec.Kind, true)
	b = append(b, `,"time":"`...)
	b = rec.Time.AppendFormat(b, time.RFC3339Nano)
	b = append(b, '"')
	b = appendStr(b, "session", rec.Session, false)
	b = appendStr(b, "call", rec.Call, false)
	b = appendStr(b, "tool", rec.Tool, false)
	b = appendStr(b, "version", rec.Version, false)
	b = appendStr(b, "origin", string(rec.Origin), false)
	if p := rec.Principal; p != nil {
		b = append(b, `,"principal":{`...)
		n := len(b)
		b = appendStr(b, "subject", p.Subject, false)
		b = appendStr(b, "tenant", p.Tenant, false)
		b = appendList(b, "roles", p.Roles)
		b = appendList(b, "scopes", p.Scopes)
		b = appendStr(b, "auth", p.Auth, false)
		b = appendStr(b, "client", p.Client, false)
		if len(b) > n && b[n] == ',' {
			b = append(b[:n], b[n+1:]...)
		}
		b = append(b, '}')
	}
	b = appendStr(b, "policy", rec.Policy, false)
	b = appendStr(b, "profile", rec.Profile, false)
	b = appendStr(b, "args_sha256", rec.ArgsSHA256, false)
	b = appendInt(b, "args_size", int64(rec.ArgsSize))
	b = appendStr(b, "idempotency_sha256", rec.Idempotency, false)
	b = appendStr(b, "mode", rec.Mode, false)
	b = appendStr(b, "state", string(rec.State), false)
	if rec.Replayed {
		b = append(b, `,"replayed":true`...)
	}
	b = appendStr(b, "status", rec.Status, false)
	b = appendStr(b, "code", string(rec.Code), false)
	b = appendStr(b, "output_sha256", rec.OutputSHA256, false)
	b = appendInt(b, "output_size", int64(rec.OutputSize))
	b = appendFloat(b, "wait_ms", rec.WaitMS)
	b = appendFloat(b, "run_ms", rec.RunMS)
	if len(rec.Governance) > 0 {
		b = append(b, `,"governance":[`...)
		for i, d := range rec.Governance {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"step":`...)
			b = appendQuoted(b, d.Step)
			b = append(b, `,"detail":`...)
			b = appendQuoted(b, d.Detail)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = appendMap(b, "detail", rec.Detail)
	b = appendMap(b, "effects", rec.Effects)
	b = appendInt(b, "pid", int64(rec.PID))
	b = appendStr(b, "host", rec.Host, false)
	b = appendInt(b, "lost", rec.Lost)
	b = appendStr(b, "note", rec.Note, false)
	if rec.Covers != 0 {
		b = append(b, `,"covers":`...)
		b = strconv.AppendUint(b, rec.Covers, 10)
	}
	b = appendStr(b, "covers_hash", rec.CoversHash, false)
	b = appendStr(b, "key", rec.Key, false)
	b = appendStr(b, "sig", rec.Sig, false)
	b = appendStr(b, "prev", rec.Prev, true)
	return append(b, '}')
}

// appendMap appends m with its keys sorted, as encoding/json writes a map.
func appendMap(b []byte, key string, m map[string]string) []byte {
	if len(m) == 0 {
		return b
	}
	var buf [16]string
	keys := buf[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, `":{`...)
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendQuoted(b, k)
		b = append(b, ':')
		b = appendQuoted(b, m[k])
	}
	return append(b, '}')
}

func appendStr(b []byte, key, v string, always bool) []byte {
	if v == "" && !always {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return appendQuoted(b, v)
}

func appendInt(b []byte, key string, v int64) []byte {
	if v == 0 {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return strconv.AppendInt(b, v, 10)
}

// appendFloat writes v as encoding/json does: the shortest decimal, with
// an exponent ("1e-7", "1e+21") below 1e-6 and from 1e21 on.
func appendFloat(b []byte, key string, v float64) []byte {
	if v == 0 {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	if abs := math.Abs(v); abs >= 1e-6 && abs < 1e21 {
		return strconv.AppendFloat(b, v, 'f', -1, 64)
	}
	b = strconv.AppendFloat(b, v, 'e', -1, 64)
	if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		b[n-2] = b[n-1] // e-07 as e-7
		b = b[:n-1]
	}
	return b
}

func appendList(b []byte, key string, vs []string) []byte {
	if len(vs) == 0 {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, `":[`...)
	for i, v := range vs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendQuoted(b, v)
	}
	return append(b, ']')
}

// appendQuoted appends s as a JSON string: printable ASCII as it is, the
// rest through encoding/json.
func appendQuoted(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' || c >= utf8.RuneSelf {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
