package bindings_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/toolexplorer/toolexplorer/bindings"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// A tools file's write tool in shadow mode: the request is built and
// returned, with the credential as its reference, and nothing is sent.
func ExampleLoad() {
	dir, _ := os.MkdirTemp("", "tools")
	defer os.RemoveAll(dir)
	_ = os.WriteFile(filepath.Join(dir, "crm.yaml"), []byte(`
sources:
  crm:
    http:
      base_url: https://crm.example.com/api
      headers: {Authorization: "Bearer ${CRM_TOKEN}"}
tools:
  - name: crm.add_note
    title: Add a note
    description: Add a note to a customer.
    input:
      type: object
      properties:
        customer: {type: string, description: The customer's id.}
        text: {type: string, description: The note.}
      required: [customer, text]
      additionalProperties: false
    meta: {effects: [write, network]}
    shadow: true
    binding:
      http: {source: crm, method: POST, path: "/customers/{customer}/notes", body: {text: "{text}"}}
`), 0o600)

	env := func(name string) (string, bool) { return "t0ken", name == "CRM_TOKEN" }
	set, err := bindings.Load([]string{dir}, bindings.Options{Env: env})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer set.Close()
	reg := tooling.NewRegistry()
	if err := set.Register(reg); err != nil {
		fmt.Println(err)
		return
	}
	res, err := reg.Execute(context.Background(), "crm.add_note", json.RawMessage(`{"customer":"c 42","text":"called back"}`), tooling.WithConsent())
	if err != nil {
		fmt.Println(err)
		return
	}
	var out struct {
		Shadow  bool              `json:"shadow"`
		Method  string            `json:"method"`
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
	}
	_ = json.Unmarshal(res.Output, &out)
	fmt.Println(out.Shadow, out.Method, out.URL)
	fmt.Println(out.Headers["Authorization"])
	// Output:
	// true POST https://crm.example.com/api/customers/c%2042/notes
	// Bearer ${CRM_TOKEN}
}
