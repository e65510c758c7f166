package ledger_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/toolexplorer/toolexplorer/ledger"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

func Example() {
	dir, _ := os.MkdirTemp("", "ledger-example-")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "ledger.jsonl")

	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "demo.hello", Meta: tooling.Meta{Concurrency: tooling.ReadOnly, Version: "1.0.0"},
		Run: func(context.Context, tooling.Call) (any, error) { return "hello", nil }})

	l, err := ledger.Open(ledger.Options{Path: path}) // the key is made beside it, in ledger.jsonl.key
	if err != nil {
		panic(err)
	}
	l.Attach(r)
	r.Execute(context.Background(), "demo.hello", nil, tooling.WithPrincipal(tooling.Principal{Subject: "alice", Auth: "host"}))
	r.Execute(context.Background(), "demo.nope", nil)
	if err := l.Close(); err != nil {
		panic(err)
	}

	calls, _ := ledger.Read(path, ledger.Filter{})
	for _, c := range calls {
		who := "anonymous"
		if c.Begin.Principal != nil {
			who = c.Begin.Principal.String()
		}
		outcome := c.Status
		if c.End != nil && c.End.Code != codes.OK {
			outcome += " " + string(c.End.Code)
		}
		fmt.Println(c.Begin.Tool, who, outcome)
	}
	rep, _ := ledger.Verify(path, l.PublicKey())
	fmt.Println("intact:", rep.OK())
	// Output:
	// demo.hello alice ok
	// demo.nope anonymous denied not_found
	// intact: true
}
