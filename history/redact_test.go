package history_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/history"
	"github.com/toolexplorer/toolexplorer/tooling"
)

func TestRedact(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{
		"pin":{"type":"string","writeOnly":true},
		"conn":{"type":"object","properties":{"dsn":{"type":"string","writeOnly":true},"host":{"type":"string"}}},
		"list":{"type":"array","items":{"type":"object","properties":{"code":{"type":"string","writeOnly":true}}}},
		"headers":{"type":"object","additionalProperties":{"type":"string","writeOnly":true}},
		"login":{"$ref":"#/$defs/login"},
		"choice":{"oneOf":[{"type":"string"},{"type":"object","properties":{"code":{"type":"string","writeOnly":true}}}]}},
		"$defs":{"login":{"type":"object","properties":{"user":{"type":"string"},"pass":{"type":"string","writeOnly":true}}}}}`)
	for _, tc := range []struct{ name, in, want string }{
		{"nothing secret is kept as given", `{ "text": "hi", "max_tokens": 5 }`, `{ "text": "hi", "max_tokens": 5 }`},
		{"names", `{"password":"p","apiKey":"k","api_key":"k","access_token":"t","client-secret":"s","Authorization":"b","private_key":"x","key":"plain"}`,
			`{"Authorization":"[redacted]","access_token":"[redacted]","apiKey":"[redacted]","api_key":"[redacted]","client-secret":"[redacted]","key":"plain","password":"[redacted]","private_key":"[redacted]"}`},
		{"writeOnly in the schema", `{"pin":"1234","text":"x"}`, `{"pin":"[redacted]","text":"x"}`},
		{"nested objects", `{"conn":{"dsn":"postgres://u:p@h","host":"h","auth":{"user":"u"}}}`,
			`{"conn":{"auth":"[redacted]","dsn":"[redacted]","host":"h"}}`},
		{"arrays", `{"list":[{"code":"1"},{"code":"2","n":1}]}`, `{"list":[{"code":"[redacted]"},{"code":"[redacted]","n":1}]}`},
		{"additionalProperties", `{"headers":{"X-Id":"abc"}}`, `{"headers":{"X-Id":"[redacted]"}}`},
		{"a whole secret object", `{"token":{"a":1}}`, `{"token":"[redacted]"}`},
		{"not an object", `[1,2]`, `[1,2]`},
		{"not JSON", `{"password":`, `"[redacted]"`},
		{"writeOnly through $ref and oneOf", `{"login":{"user":"u","pass":"p"},"choice":{"code":"c"}}`,
			`{"choice":{"code":"[redacted]"},"login":{"pass":"[redacted]","user":"u"}}`},
		{"a reference to a variable is kept, the secret being its value", `{"token":"{{token}}","Authorization":"Bearer {{ token }}","pin":"{{pin}}"}`,
			`{"token":"{{token}}","Authorization":"Bearer {{ token }}","pin":"{{pin}}"}`},
		{"a secret beside a reference is not", `{"password":"hunter2{{x}}","api_key":"{{a}} {{b}} k3y"}`, `{"api_key":"[redacted]","password":"[redacted]"}`},
		{"numbers keep their digits", `{"n":12345678901234567890,"secret":1}`, `{"n":12345678901234567890,"secret":"[redacted]"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := history.Redact(schema, json.RawMessage(tc.in))
			if string(got) != tc.want {
				t.Errorf("Redact(%s)\n got %s\nwant %s", tc.in, got, tc.want)
			}
		})
	}
}

func TestSecretName(t *testing.T) {
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"password", true}, {"db_password", true}, {"passwd", true}, {"pwd", true}, {"userPwd", true},
		{"passphrase", true}, {"passcode", true}, {"secret", true}, {"client_secret", true},
		{"token", true}, {"accessToken", true}, {"refresh_token", true}, {"credentials", true}, {"credential", true},
		{"Authorization", true}, {"auth", true}, {"X-Auth-Token", true}, {"basic_auth", true},
		{"bearer", true}, {"bearer_token", true}, {"cookie", true}, {"Set-Cookie", true}, {"cookies", true},
		{"jwt", true}, {"id_jwt", true}, {"otp", true}, {"totp", true}, {"otp_code", true},
		{"pin", true}, {"card_pin", true}, {"PIN", true},
		{"apiKey", true}, {"api-key", true}, {"APIKey", true}, {"api_key", true}, {"apikey", true},
		{"private_key", true}, {"privateKey", true}, {"privatekey", true}, {"access_key", true}, {"secret_key", true},
		{"signing_key", true}, {"session_id", true}, {"sessionId", true}, {"sessionid", true}, {"session_key", true},
		{"max_tokens", false}, {"key", false}, {"monkey", false}, {"tokenizer", false}, {"keyboard", false},
		{"author", false}, {"spinner", false}, {"session", false}, {"user_id", false}, {"pinned", false},
		{"cookbook", false}, {"key_id", false}, {"path", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := history.SecretName(tc.name); got != tc.want {
				t.Errorf("SecretName(%q) = %v, want %v", tc.name, got, tc.want)
			}
			// The name's value is redacted in stored arguments, at any depth.
			args := `{"outer":{"` + tc.name + `":"v4lue-x"}}`
			got := string(history.Redact(nil, json.RawMessage(args)))
			if redacted := !strings.Contains(got, "v4lue-x"); redacted != tc.want {
				t.Errorf("Redact(%s) = %s", args, got)
			}
		})
	}
}

// A value redacted in the arguments is redacted wherever the result shows
// it: a tool that echoes its input, a server that quotes it in an error.
func TestSetArgsRedactsEchoedValues(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"code":{"type":"string","writeOnly":true},"pin":{"type":"integer"}}}`)
	res := &tooling.Result{CallID: "c1", Tool: "t.echo", Status: "ok",
		Output:     json.RawMessage(`{"echo":"hunter2","quoted":"pass \"hunter2\"","pin":4321,"n":43210,"keys":{"hunter2":1},"code":"s\u0026cr\u003ct-x","short":"ab","text":"abacus"}`),
		Message:    `login as "hunter2" failed`,
		Hint:       "try hunter2 again",
		Fields:     []tooling.FieldError{{Path: "/x", Message: "hunter2 is wrong"}},
		Governance: []tooling.Decision{{Step: "binding", Detail: "sent hunter2"}},
		Stack:      "panic: hunter2",
	}
	e := history.Entry{Tool: "t.echo", Result: res}
	e.SetArgs(schema, json.RawMessage(`{"password":"hunter2","pin":4321,"code":"s&cr<t-x","token":"ab","user":"bob"}`))
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	for _, leak := range []string{"hunter2", `"pin":4321`, `s&cr<t-x`, `s\u0026cr`, `"short":"ab"`} {
		if strings.Contains(string(b), leak) {
			t.Errorf("%s is kept:\n%s", leak, b)
		}
	}
	for _, kept := range []string{`"n":43210`, `"text":"abacus"`, `"user":"bob"`, `"call_id":"c1"`, `"tool":"t.echo"`, `"status":"ok"`} {
		if !strings.Contains(string(b), kept) {
			t.Errorf("%s is lost:\n%s", kept, b)
		}
	}
	if strings.Contains(string(res.Output), "[redacted]") || res.Message != `login as "hunter2" failed` || res.Fields[0].Message != "hunter2 is wrong" || res.Governance[0].Detail != "sent hunter2" {
		t.Error("the caller's Result was changed")
	}
	// Nothing secret: the result is kept as it is.
	e = history.Entry{Result: res}
	e.SetArgs(schema, json.RawMessage(`{"user":"hunter2"}`))
	if e.Result != res {
		t.Error("a result with nothing to redact was copied")
	}
}
