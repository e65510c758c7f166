package bindings

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling"
)

const baseURLFile = `sources:
  api:
    http:
      base_url: ${API_URL}/v1
      allow_private: true
tools:
  - name: api.ping
    description: Ping.
    input: {type: object}
    meta: {effects: [read, network], concurrency: read_only}
    binding:
      http: {source: api, path: /ping, response: {text: true}}
`

// TestBaseURLFromTheEnvironment: a source's base_url takes ${NAME} from
// the environment as the file loads; an unset one is a load error that
// names the variable.
func TestBaseURLFromTheEnvironment(t *testing.T) {
	srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "pong "+r.URL.Path)
	})
	dir := writeFiles(t, map[string]string{"api.yaml": baseURLFile})
	set, err := Load([]string{dir}, Options{Env: env(map[string]string{"API_URL": srv.URL})})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	r := tooling.NewRegistry()
	if err := set.Register(r); err != nil {
		t.Fatal(err)
	}
	res, _ := r.Execute(context.Background(), "api.ping", nil)
	if !res.OK() || string(res.Output) != `"pong /v1/ping"` {
		t.Fatalf("api.ping: %s %s %s", res.Code, res.Message, res.Output)
	}

	_, err = Load([]string{dir}, Options{Env: env(map[string]string{})})
	if err == nil || !strings.Contains(err.Error(), "base_url: environment variable API_URL is not set") {
		t.Fatalf("Load without API_URL: %v", err)
	}
}
