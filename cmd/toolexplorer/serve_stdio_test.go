package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// TestServeBadLines: lines on serve's stdin that are not JSON-RPC messages
// are answered with a JSON-RPC error, and serving goes on: the requests
// after them are answered, and serve exits 0 when stdin ends.
func TestServeBadLines(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		code := run(context.Background(), []string{"serve"}, inR, outW, &stderr)
		outW.Close()
		done <- code
	}()
	lines := bufio.NewScanner(outR)
	lines.Buffer(nil, 1<<20)
	type reply struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	send := func(line string) reply {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatalf("write %q: %v (stderr: %s)", line, err, stderr.String())
		}
		if !lines.Scan() {
			t.Fatalf("after %q: no reply, stdout ended (%v); stderr: %s", line, lines.Err(), stderr.String())
		}
		var r reply
		if err := json.Unmarshal(lines.Bytes(), &r); err != nil {
			t.Fatalf("after %q: reply %q: %v", line, lines.Text(), err)
		}
		return r
	}
	wantError := func(line string, code int, id string) {
		t.Helper()
		r := send(line)
		if r.Error == nil || r.Error.Code != code || string(r.ID) != id {
			t.Errorf("%q: reply id %s, error %+v; want code %d, id %s", line, r.ID, r.Error, code, id)
		}
	}
	wantError("this is not json", -32700, "null")
	wantError(`{"jsonrpc":"2.0","id":1,"method":`, -32700, "null")
	wantError(`{"id":2,"method":"ping"}`, -32600, "2")
	wantError(`[]`, -32600, "null")
	wantError(`42`, -32600, "null")

	init := send(`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if init.Error != nil || string(init.ID) != "3" || !strings.Contains(string(init.Result), `"protocolVersion":"2025-06-18"`) {
		t.Fatalf("initialize after bad lines: id %s, result %s, error %+v", init.ID, init.Result, init.Error)
	}
	if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n\n"); err != nil {
		t.Fatal(err)
	}
	// A batch, which 2025-06-18 has not: the SDK would end the session.
	wantError(`[{"jsonrpc":"2.0","id":4,"method":"ping"}]`, -32600, "null")
	wantError("\x00\xff garbage", -32700, "null")

	r := send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"demo.echo","arguments":{"text":"still here"}}}`)
	if r.Error != nil || string(r.ID) != "5" || !strings.Contains(string(r.Result), "still here") {
		t.Errorf("tools/call after bad lines: id %s, result %s, error %+v", r.ID, r.Result, r.Error)
	}

	inW.Close()
	go io.Copy(io.Discard, outR)
	if code := <-done; code != exitOK {
		t.Errorf("serve exit %d, want 0; stderr: %s", code, stderr.String())
	}
	inR.Close()
}
