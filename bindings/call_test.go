package bindings

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// loadInto loads files and adds their tools to a new registry.
func loadInto(t *testing.T, files map[string]string, opts Options) (*Set, *tooling.Registry) {
	t.Helper()
	s, err := Load([]string{writeFiles(t, files)}, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	r := tooling.NewRegistry()
	if err := r.Replace(nil, s.Tools()); err != nil {
		t.Fatal(err)
	}
	return s, r
}

type events struct {
	mu  sync.Mutex
	end []tooling.Event
}

func (e *events) Observe(_ context.Context, ev tooling.Event) {
	if ev.End {
		e.mu.Lock()
		e.end = append(e.end, ev)
		e.mu.Unlock()
	}
}

func decision(res *tooling.Result, step string) []string {
	var out []string
	for _, d := range res.Governance {
		if d.Step == step {
			out = append(out, d.Detail)
		}
	}
	return out
}

const credYAML = `sources:
  api:
    http: {}
tools:
  - name: api.get
    input: {type: object, properties: {fail: {type: boolean}}}
    meta: {effects: [read], concurrency: read_only}
    binding:
      http:
        source: api
        token: "Bearer ${API_TOKEN}"
        region: "${REGION:-eu}"
`

func TestCredentialsMissingIsUnavailable(t *testing.T) {
	f := useFakes(t)
	f.set("api", &fakeBehaviour{})
	// The loader finds references wherever they are in the binding and its
	// source; the fake kind's fields hold them here.
	env := map[string]string{}
	s2, r2 := loadInto(t, map[string]string{"f.yaml": credYAML}, Options{Env: mapEnv(env)})
	if got := strings.Join(s2.tools[0].required, ","); got != "API_TOKEN" {
		t.Fatalf("required variables %q, want API_TOKEN (REGION has a default)", got)
	}
	res, err := r2.Execute(context.Background(), "api.get", nil)
	if !errors.Is(err, codes.Unavailable) || !strings.Contains(res.Message, "environment variable API_TOKEN is not set") {
		t.Fatalf("call without the variable: %v", err)
	}
	env["API_TOKEN"] = "t0ps3cret-value"
	if _, err := r2.Execute(context.Background(), "api.get", nil); err != nil {
		t.Fatalf("call with the variable: %v", err)
	}
}

func mapEnv(m map[string]string) Env {
	var mu sync.Mutex
	return func(name string) (string, bool) {
		mu.Lock()
		defer mu.Unlock()
		v, ok := m[name]
		return v, ok
	}
}

// A binding that puts a credential in its error or its output (a server
// echoing a header, a driver quoting its DSN) never shows it: the value
// becomes ${NAME}.
func TestCredentialsRedactedFromOutputAndErrors(t *testing.T) {
	f := useFakes(t)
	const secret = "t0ps3cret-value"
	env := Options{Env: mapEnv(map[string]string{"API_TOKEN": secret})}
	f.set("api", &fakeBehaviour{do: func(_ context.Context, req *Request) (Outcome, error) {
		tok, err := expand("Bearer ${API_TOKEN}", req.Env)
		if err != nil {
			return Outcome{}, err
		}
		if req.Args["fail"] == true {
			return Outcome{}, errors.New("server refused " + tok)
		}
		return Outcome{Output: map[string]any{"echo": tok}, Status: "200 " + tok}, nil
	}})
	_, r := loadInto(t, map[string]string{"f.yaml": credYAML}, env)
	ev := &events{}
	remove := r.Audit(ev.Observe)
	ok, err := r.Execute(context.Background(), "api.get", nil)
	if err != nil {
		t.Fatal(err)
	}
	failed, failErr := r.Execute(context.Background(), "api.get", json.RawMessage(`{"fail": true}`))
	remove()
	for _, res := range []*tooling.Result{ok, failed} {
		b, _ := json.Marshal(res)
		if strings.Contains(string(b), secret) {
			t.Fatalf("the secret is in a result: %s", b)
		}
		if !strings.Contains(string(b), "${API_TOKEN}") {
			t.Fatalf("the reference is not in the result: %s", b)
		}
	}
	if failErr == nil || strings.Contains(failErr.Error(), secret) || strings.Contains(failErr.(*tooling.Error).Err.Error(), secret) {
		t.Fatalf("error: %v", failErr)
	}
	for _, e := range ev.end {
		b, _ := json.Marshal(e)
		if strings.Contains(string(b), secret) {
			t.Fatalf("the secret is in an event: %s", b)
		}
	}
}

const writeYAML = `sources:
  w: {http: {}}
  ws: {http: {}, shadow: true}
tools:
  - name: w.send
    meta: {effects: [write]}
    binding: {http: {source: w}}
  - name: w.send_shadow
    shadow: true
    meta: {effects: [write]}
    binding: {http: {source: w}}
  - name: w.send_src_shadow
    meta: {effects: [write]}
    binding: {http: {source: ws}}
  - name: w.read
    meta: {effects: [read], concurrency: read_only}
    binding: {http: {source: r}}
`

func TestShadowPerToolSourceAndGlobal(t *testing.T) {
	f := useFakes(t)
	var mu sync.Mutex
	sent := map[string]int{}
	for _, src := range []string{"w", "ws"} {
		f.set(src, &fakeBehaviour{writes: true, do: func(_ context.Context, req *Request) (Outcome, error) {
			if req.Shadow {
				return Outcome{Output: map[string]any{"would_send": "POST /orders"}, Status: "shadow"}, nil
			}
			mu.Lock()
			sent[req.Tool]++
			mu.Unlock()
			return Outcome{Output: map[string]any{"id": 1}, Status: "201 Created"}, nil
		}})
	}
	files := map[string]string{"f.yaml": strings.Replace(writeYAML, "  ws: {http: {}, shadow: true}", "  ws: {http: {}, shadow: true}\n  r: {http: {}}", 1)}
	s, r := loadInto(t, files, Options{})
	ev := &events{}
	remove := r.Audit(ev.Observe)
	defer remove()
	call := func(name string) *tooling.Result {
		t.Helper()
		res, err := r.Execute(context.Background(), name, nil, tooling.WithConsent())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res
	}
	if res := call("w.send"); string(res.Output) != `{"id":1}` || decision(res, "shadow") != nil {
		t.Fatalf("active write: %s %+v", res.Output, res.Governance)
	}
	for _, name := range []string{"w.send_shadow", "w.send_src_shadow"} {
		res := call(name)
		if string(res.Output) != `{"shadow":true,"would_send":"POST /orders"}` || len(decision(res, "shadow")) != 1 {
			t.Fatalf("%s: %s %+v", name, res.Output, res.Governance)
		}
	}
	s.SetShadow(true)
	if res := call("w.send"); !strings.Contains(string(res.Output), `"shadow":true`) {
		t.Fatalf("global shadow: %s", res.Output)
	}
	if res := call("w.read"); strings.Contains(string(res.Output), "shadow") || decision(res, "shadow") != nil {
		t.Fatalf("a read in shadow mode runs as usual: %s", res.Output)
	}
	s.SetShadow(false)
	if sent["w.send"] != 1 || sent["w.send_shadow"] != 0 || sent["w.send_src_shadow"] != 0 {
		t.Fatalf("writes sent: %v", sent)
	}
	remove()
	modes := map[string]int{}
	for _, e := range ev.end {
		modes[e.Detail["mode"]]++
		if e.Detail["binding"] != "http" || e.Detail["attempts"] != "1" || e.Detail["source"] == "" || e.Detail["status"] == "" {
			t.Fatalf("event detail %v", e.Detail)
		}
	}
	if modes["shadow"] != 3 || modes["active"] != 2 {
		t.Fatalf("modes in events: %v", modes)
	}
}

// flaky fails with a *TransientError n times, then succeeds; it records
// when each attempt came.
type flaky struct {
	mu    sync.Mutex
	n     int
	after time.Duration
	at    []time.Time
}

func (f *flaky) do(context.Context, *Request) (Outcome, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.at = append(f.at, time.Now())
	if len(f.at) <= f.n {
		return Outcome{}, &TransientError{Err: errors.New("503 Service Unavailable"), After: f.after}
	}
	return Outcome{Output: map[string]any{"ok": true}, Status: "200 OK"}, nil
}

const retryYAML = `sources:
  r: {http: {}}
  w: {http: {}}
tools:
  - name: t.read
    meta: {effects: [read], concurrency: read_only, timeout: 60s}
    binding: {http: {source: r}}
  - name: t.write
    meta: {effects: [write], timeout: 60s}
    binding: {http: {source: w}}
  - name: t.write_idem
    meta: {effects: [write], idempotent: true, timeout: 60s}
    binding: {http: {source: w}}
`

func TestRetries(t *testing.T) {
	cases := []struct {
		name     string
		tool     string
		writes   bool
		failures int
		after    time.Duration
		opts     []tooling.Option
		attempts int
		ok       bool
	}{
		{"a read is retried", "t.read", false, 2, 0, nil, 3, true},
		{"a read gives up", "t.read", false, 10, 0, nil, maxAttempts, false},
		{"a write is not retried", "t.write", true, 1, 0, nil, 1, false},
		{"an idempotent write is retried", "t.write_idem", true, 1, 0, nil, 2, true},
		{"a write with a key is retried", "t.write", true, 1, 0, []tooling.Option{tooling.WithIdempotencyKey("k")}, 2, true},
		{"Retry-After is honoured", "t.read", false, 1, 7 * time.Second, nil, 2, true},
		{"Retry-After past the deadline stops", "t.read", false, 1, 2 * time.Minute, nil, 1, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := useFakes(t)
				fl := &flaky{n: c.failures, after: c.after}
				f.set("r", &fakeBehaviour{do: fl.do})
				f.set("w", &fakeBehaviour{writes: true, do: fl.do})
				s, err := Load([]string{writeFiles(t, map[string]string{"f.yaml": retryYAML})}, Options{})
				if err != nil {
					t.Fatal(err)
				}
				r := tooling.NewRegistry()
				if err := r.Replace(nil, s.Tools()); err != nil {
					t.Fatal(err)
				}
				res, err := r.Execute(context.Background(), c.tool, nil, append(c.opts, tooling.WithConsent())...)
				if (err == nil) != c.ok {
					t.Fatalf("Execute: %v, want ok %v", err, c.ok)
				}
				if len(fl.at) != c.attempts {
					t.Fatalf("%d attempts, want %d; governance %+v", len(fl.at), c.attempts, res.Governance)
				}
				if b := decision(res, "binding"); len(b) != 1 || !strings.Contains(b[0], plural(c.attempts, "attempt")) {
					t.Fatalf("binding decision %q", b)
				}
				if c.attempts > 1 && len(decision(res, "retry")) < c.attempts-1 {
					t.Fatalf("retries not in the governance steps: %+v", res.Governance)
				}
				for i := 1; i < len(fl.at); i++ {
					gap := fl.at[i].Sub(fl.at[i-1])
					if gap <= 0 || gap > maxInterval && gap != c.after {
						t.Fatalf("attempt %d came %v after the one before", i+1, gap)
					}
					if c.after > 0 && gap < c.after {
						t.Fatalf("attempt %d came %v after the one before, before Retry-After %v", i+1, gap, c.after)
					}
				}
				_ = s.Close()
			})
		})
	}
}

func TestMarkShadow(t *testing.T) {
	type out struct {
		Rows int `json:"rows"`
	}
	cases := []struct {
		in   any
		want string
	}{
		{map[string]any{"a": 1}, `{"a":1,"shadow":true}`},
		{&out{Rows: 2}, `{"rows":2,"shadow":true}`},
		{map[string]any{"shadow": "x"}, `{"request":{"shadow":"x"},"shadow":true}`},
		{json.RawMessage(`{"shadow":true,"b":1}`), `{"b":1,"shadow":true}`},
		{[]int{1}, `{"request":[1],"shadow":true}`},
	}
	for _, c := range cases {
		b, err := json.Marshal(markShadow(c.in))
		if err != nil || string(b) != c.want {
			t.Errorf("markShadow(%v) = %s, %v; want %s", c.in, b, err, c.want)
		}
	}
}

// A credential holding every character that JSON or HTML escaping changes
// is redacted on the output's values, not on its encoding; so are the
// forms of it that a server or the project makes: upper case, base64 of
// the value and of an HTTP Basic credential built from it, URL escapes.
func TestCredentialsRedactedWhateverTheEncoding(t *testing.T) {
	const secret = "s3cr&t<key>\"'\\/\x01\x1f\t\n\u2028\u2029é€😀-tail"
	basic := base64.StdEncoding.EncodeToString([]byte("user:" + secret))
	forms := map[string]string{
		"plain":      secret,
		"upper":      strings.ToUpper(secret),
		"base64":     base64.StdEncoding.EncodeToString([]byte(secret)),
		"base64url":  base64.RawURLEncoding.EncodeToString([]byte(secret)),
		"basic":      "Basic " + basic,
		"query":      url.QueryEscape(secret),
		"in_text":    "the key is " + secret + ", keep it",
		"html_json":  mustMarshal(t, secret), // json.Marshal's \u0026 \u003c escapes, as text
		"ascii_json": `{"echo":"s3cr\u0026t\u003Ckey\u003E\"'\\/\u0001\u001F\t\n\u2028\u2029\u00e9\u20ac\ud83d\ude00-tail"}`,
	}
	f := useFakes(t)
	f.set("api", &fakeBehaviour{do: func(_ context.Context, req *Request) (Outcome, error) {
		tok, err := expand("${API_TOKEN}", req.Env)
		if err != nil {
			return Outcome{}, err
		}
		if req.Args["fail"] == true {
			return Outcome{}, errors.New("server refused " + forms["upper"] + " and " + forms["base64"] + " for " + tok)
		}
		out := map[string]any{"key " + tok: "a key", "list": []any{tok, map[string]any{"deep": tok}}}
		for k, v := range forms {
			out[k] = v
		}
		return Outcome{Output: out, Status: "200 OK"}, nil
	}})
	_, r := loadInto(t, map[string]string{"f.yaml": credYAML}, Options{Env: mapEnv(map[string]string{"API_TOKEN": secret})})
	res, err := r.Execute(context.Background(), "api.get", nil)
	if err != nil {
		t.Fatal(err)
	}
	leaks := func(s string) bool {
		if strings.Contains(strings.ToLower(s), strings.ToLower(secret)) || strings.Contains(s, "s3cr&t") || strings.Contains(s, `s3cr\u0026t`) {
			return true
		}
		for _, k := range []string{"base64", "base64url", "query", "html_json"} {
			if strings.Contains(s, forms[k]) {
				return true
			}
		}
		// The value's own bytes inside the Basic credential's encoding.
		if strings.Contains(s, basic[8:40]) || strings.Contains(s, `t\u003ckey`) || strings.Contains(strings.ToLower(s), `\u20ac\ud83d`) {
			return true
		}
		return false
	}
	if leaks(string(res.Output)) {
		t.Fatalf("a form of the secret is in the output:\n%s", res.Output)
	}
	var out map[string]any
	if err := json.Unmarshal(res.Output, &out); err != nil {
		t.Fatal(err)
	}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			if leaks(v) {
				t.Errorf("a form of the secret is in the output's value %q", v)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for k, e := range v {
				walk(k)
				walk(e)
			}
		}
	}
	walk(out)
	for _, k := range []string{"plain", "upper", "base64", "base64url", "query"} {
		if out[k] != "${API_TOKEN}" {
			t.Errorf("%s: %q, want ${API_TOKEN}", k, out[k])
		}
	}
	if out["in_text"] != "the key is ${API_TOKEN}, keep it" || out["key ${API_TOKEN}"] != "a key" {
		t.Errorf("the secret inside a text or a key: %v", out)
	}
	failed, err := r.Execute(context.Background(), "api.get", json.RawMessage(`{"fail": true}`))
	if err == nil || leaks(err.Error()) || leaks(failed.Message) {
		t.Fatalf("error: %v", err)
	}
}

func mustMarshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
