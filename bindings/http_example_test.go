package bindings_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/toolexplorer/toolexplorer/bindings"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// An HTTP tool declared in a tools file: a GET with a path parameter and a
// mapped response, and a POST whose JSON body places the arguments, run in
// shadow mode so that it shows what it would send.
func ExampleLoad_http() {
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"weather": {"city": "Lyon", "celsius": 14.5}, "source": "demo"}`)
	}))
	defer api.Close()

	dir, _ := os.MkdirTemp("", "tools")
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "weather.yaml")
	os.WriteFile(file, []byte(`sources:
  weather:
    http:
      base_url: `+api.URL+`/v1
      headers: {Authorization: "Bearer ${WEATHER_TOKEN}"}
      allow_private: true   # the demo server listens on 127.0.0.1
tools:
  - name: weather.now
    description: The weather in a city now.
    input:
      type: object
      properties: {city: {type: string}}
      required: [city]
    meta: {effects: [read, network], concurrency: read_only}
    binding:
      http:
        source: weather
        path: /cities/{city}/now
        response: {data: /weather, error: /message}
  - name: weather.report
    description: Report the weather seen in a city.
    input:
      type: object
      properties: {city: {type: string}, celsius: {type: number}}
      required: [city, celsius]
    meta: {effects: [write, network]}
    shadow: true
    binding:
      http:
        source: weather
        method: POST
        path: /reports
        body: {city: "{city}", reading: {celsius: {$arg: celsius}, unit: C}}
`), 0o600)

	env := func(name string) (string, bool) { return "t0ken", name == "WEATHER_TOKEN" }
	set, err := bindings.Load([]string{file}, bindings.Options{Env: env})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer set.Close()
	r := tooling.NewRegistry()
	r.Register(set.Tools()...)

	res, _ := r.Execute(context.Background(), "weather.now", json.RawMessage(`{"city": "Lyon"}`))
	fmt.Println(string(res.Output))

	res, _ = r.Execute(context.Background(), "weather.report", json.RawMessage(`{"city": "Lyon", "celsius": 14.5}`), tooling.WithConsent())
	var shadow struct {
		Method  string
		Headers map[string]string
		Body    any
	}
	json.Unmarshal(res.Output, &shadow)
	body, _ := json.Marshal(shadow.Body)
	fmt.Println(shadow.Method, shadow.Headers["Authorization"], string(body))
	// Output:
	// {"city":"Lyon","celsius":14.5}
	// POST Bearer ${WEATHER_TOKEN} {"city":"Lyon","reading":{"celsius":14.5,"unit":"C"}}
}
