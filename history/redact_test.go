package history_test

import (
	"encoding/json"
	"testing"

	"github.com/toolexplorer/toolexplorer/history"
)

func TestRedact(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{
		"pin":{"type":"string","writeOnly":true},
		"conn":{"type":"object","properties":{"dsn":{"type":"string","writeOnly":true},"host":{"type":"string"}}},
		"list":{"type":"array","items":{"type":"object","properties":{"code":{"type":"string","writeOnly":true}}}},
		"headers":{"type":"object","additionalProperties":{"type":"string","writeOnly":true}}}}`)
	for _, tc := range []struct{ name, in, want string }{
		{"nothing secret is kept as given", `{ "text": "hi", "max_tokens": 5 }`, `{ "text": "hi", "max_tokens": 5 }`},
		{"names", `{"password":"p","apiKey":"k","api_key":"k","access_token":"t","client-secret":"s","Authorization":"b","private_key":"x","key":"plain"}`,
			`{"Authorization":"[redacted]","access_token":"[redacted]","apiKey":"[redacted]","api_key":"[redacted]","client-secret":"[redacted]","key":"plain","password":"[redacted]","private_key":"[redacted]"}`},
		{"writeOnly in the schema", `{"pin":"1234","text":"x"}`, `{"pin":"[redacted]","text":"x"}`},
		{"nested objects", `{"conn":{"dsn":"postgres://u:p@h","host":"h","auth":{"password":"p"}}}`,
			`{"conn":{"auth":{"password":"[redacted]"},"dsn":"[redacted]","host":"h"}}`},
		{"arrays", `{"list":[{"code":"1"},{"code":"2","n":1}]}`, `{"list":[{"code":"[redacted]"},{"code":"[redacted]","n":1}]}`},
		{"additionalProperties", `{"headers":{"X-Id":"abc"}}`, `{"headers":{"X-Id":"[redacted]"}}`},
		{"a whole secret object", `{"token":{"a":1}}`, `{"token":"[redacted]"}`},
		{"not an object", `[1,2]`, `[1,2]`},
		{"not JSON", `{"password":`, `"[redacted]"`},
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
	for name, want := range map[string]bool{
		"password": true, "db_password": true, "passwd": true, "token": true, "accessToken": true, "apiKey": true,
		"api-key": true, "APIKey": true, "secret_key": true, "credentials": true, "passphrase": true,
		"max_tokens": false, "key": false, "monkey": false, "tokenizer": false, "keyboard": false,
	} {
		if got := history.SecretName(name); got != want {
			t.Errorf("SecretName(%q) = %v, want %v", name, got, want)
		}
	}
}
