package mcp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolexplorer/toolexplorer/mcp"
)

// sentinel is the message each differential case ends with.
const sentinel = `{"jsonrpc":"2.0","id":"sentinel","method":"ping"}`

// connOver connects transport t to in (what it reads) and returns the
// connection and what it writes.
func connOver(t *testing.T, mk func(io.ReadCloser, io.WriteCloser) sdk.Transport, in string) (sdk.Connection, *syncBuf) {
	t.Helper()
	out := &syncBuf{}
	conn, err := mk(io.NopCloser(strings.NewReader(in)), out).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn, out
}

func sdkIO(r io.ReadCloser, w io.WriteCloser) sdk.Transport {
	return &sdk.IOTransport{Reader: r, Writer: w}
}

// syncBuf is a WriteCloser safe for concurrent use.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) Close() error { return nil }

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// wire is a message as the SDK writes it, to compare decoded messages.
func wire(t *testing.T, m jsonrpc.Message) string {
	t.Helper()
	b, err := jsonrpc.EncodeMessage(m)
	if err != nil {
		t.Fatalf("encoding %#v: %v", m, err)
	}
	return fmt.Sprintf("%T %s", m, b)
}

// readAll reads messages until the sentinel or an error.
func readAll(t *testing.T, c sdk.Connection) (msgs []string, err error) {
	t.Helper()
	for {
		m, err := c.Read(context.Background())
		if err != nil {
			return msgs, err
		}
		if r, ok := m.(*jsonrpc.Request); ok && r.ID == mustID(t, "sentinel") {
			return msgs, nil
		}
		msgs = append(msgs, wire(t, m))
	}
}

func mustID(t *testing.T, v any) jsonrpc.ID {
	id, err := jsonrpc.MakeID(v)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestIOTransportDecodesAsTheSDK: each line the SDK's own stdio transport
// reads as messages, mcp.IOTransport reads as the same messages (the same
// types, ids, methods, params, results and errors); each line on which the
// SDK's ends the session, it answers with a JSON-RPC error and reads on.
func TestIOTransportDecodesAsTheSDK(t *testing.T) {
	big := strings.Repeat("é\\u00e9\\\"x", 30000) // spans the reader's buffer
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"text":"hi"}}}`,
		`{"jsonrpc":"2.0","id":"abc","method":"ping"}`,
		`{"jsonrpc":"2.0","id":1.0,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":-7,"method":"ping","params":null}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","method":"","id":2}`,
		`{"jsonrpc":"2.0","id":3,"result":{"a":[1,2,{"b":null}]}}`,
		`{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"no","data":{"x":1}}}`,
		`{"jsonrpc":"2.0","id":5,"error":null,"result":{}}`,
		`  {"params":{"z":"\u00e9\n"} , "method":"m","id":6,"jsonrpc":"2.0"}  `,
		`{"jsonrpc":"2.0","ID":7,"Method":"ping","method":"ping"}`, // keys are matched exactly
		`{"jsonrpc":"2.0","id":8,"method":"ping","extra":[1,2]}`,
		`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"a","arguments":{"text":"` + big + `"}}}`,
		`{"jsonrpc":"2.0","id":10,"method":"ping"}` + "\r",
		`[{"jsonrpc":"2.0","id":11,"method":"ping"},{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":12,"result":1}]`,
		// Lines that end the SDK's session:
		`{"jsonrpc":"1.0","id":1,"method":"ping"}`,
		`{"id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`,
		`{"jsonrpc":"2.0","id":true,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":7}`,
		`{"jsonrpc":"2.0"}`,
		`{"jsonrpc":"2.0","id":null,"result":1}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping"} {"jsonrpc":"2.0","id":2,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","params":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}`,
		`not json`,
		`{"jsonrpc":"2.0","id":1,`,
		`42`,
		`"a string"`,
		`[]`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},3]`,
	} {
		name := line
		if len(name) > 60 {
			name = name[:60]
		}
		t.Run(name, func(t *testing.T) {
			in := line + "\n" + sentinel + "\n"
			theirs, theirErr := readAll(t, must(connOver(t, sdkIO, in)))
			if trimmed := strings.TrimSpace(line); theirErr != nil && trimmed != line {
				// Whitespace around a message, which the SDK's refuses
				// after it: read as the message alone.
				theirs, theirErr = readAll(t, must(connOver(t, sdkIO, trimmed+"\n"+sentinel+"\n")))
			}
			ours, out := connOver(t, mcp.IOTransport, in)
			got, err := readAll(t, ours)
			if err != nil {
				t.Fatalf("ours: %v, before the sentinel", err)
			}
			if theirErr == nil {
				if strings.Join(got, "\n") != strings.Join(theirs, "\n") {
					t.Errorf("read\n%s\nthe SDK's read\n%s", strings.Join(got, "\n"), strings.Join(theirs, "\n"))
				}
				if out.String() != "" {
					t.Errorf("answered %s to a line the SDK reads", out)
				}
				return
			}
			// The SDK's session ends here; ours answers and reads on.
			if len(got) != 0 {
				t.Errorf("read %v from a line the SDK refuses (%v)", got, theirErr)
			}
			var answer struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   *jsonrpc.Error  `json:"error"`
			}
			if err := json.Unmarshal([]byte(out.String()), &answer); err != nil || answer.JSONRPC != "2.0" || answer.Error == nil ||
				(answer.Error.Code != jsonrpc.CodeParseError && answer.Error.Code != jsonrpc.CodeInvalidRequest) {
				t.Errorf("answer %q to a line the SDK refuses (%v): want one JSON-RPC error", out, theirErr)
			}
		})
	}
}

func must(c sdk.Connection, _ *syncBuf) sdk.Connection { return c }

// TestIOTransportWritesAsTheSDK: the messages a server writes, and the
// responses to a batch (written in any order), reach the wire as the SDK's
// own stdio transport writes them, byte for byte. A batch with a
// notification is answered too (the SDK's waits for a response to the
// notification, which never comes, and answers nothing).
func TestIOTransportWritesAsTheSDK(t *testing.T) {
	batch := `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":"b","method":"ping"}]` + "\n"
	write := func(mk func(io.ReadCloser, io.WriteCloser) sdk.Transport, batch string) string {
		conn, out := connOver(t, mk, batch)
		for range strings.Count(batch, "jsonrpc") {
			if _, err := conn.Read(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		msgs := []jsonrpc.Message{
			&jsonrpc.Request{ID: mustID(t, 9.0), Method: "sampling/createMessage", Params: json.RawMessage(`{"a":"é<>"}`)},
			&jsonrpc.Response{ID: mustID(t, "b"), Result: json.RawMessage(`{"ok":true}`)}, // completes nothing yet
			&jsonrpc.Response{ID: mustID(t, 7.0), Error: &jsonrpc.Error{Code: -32000, Message: "<no>"}},
			&jsonrpc.Response{ID: mustID(t, 1.0), Error: errors.New("plain error")}, // completes the batch
			&jsonrpc.Request{Method: "notifications/message", Params: json.RawMessage(`{"level":"info", "data":"<&>"}`)},
		}
		for _, m := range msgs {
			if err := conn.Write(context.Background(), m); err != nil {
				t.Fatal(err)
			}
		}
		return out.String()
	}
	theirs, ours := write(sdkIO, batch), write(mcp.IOTransport, batch)
	if ours != theirs {
		t.Errorf("wrote\n%s\nthe SDK's wrote\n%s", ours, theirs)
	}
	if strings.Count(ours, "\n") != 4 || !strings.Contains(ours, `[{"jsonrpc":"2.0","id":1,`) {
		t.Errorf("wrote %s: want four lines, the batch's responses in one", ours)
	}
	withNote := `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":"b","method":"ping"}]` + "\n"
	if got := write(mcp.IOTransport, withNote); got != ours {
		t.Errorf("a batch with a notification: wrote\n%s\nwant\n%s", got, ours)
	}
}

// chunkReader hands out its input a few bytes a Read.
type chunkReader struct {
	b []byte
	n int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), c.n, len(c.b))
	copy(p, c.b[:n])
	c.b = c.b[n:]
	c.n = c.n%7 + 1 // 1 to 7 bytes a read, then larger below
	return n, nil
}

// TestIOTransportLinesInPieces: lines that arrive in pieces (a few bytes a
// read, a line of several MiB across many reads of the buffer), blank
// lines and a last message without its newline are read as whole messages,
// and the end of the input is io.EOF once every message is read.
func TestIOTransportLinesInPieces(t *testing.T) {
	huge := strings.Repeat("x", 3<<20)
	in := `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n\n   \n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"a","arguments":{"text":"` + huge + `"}}}` + "\r\n" +
		`{"jsonrpc":"2.0","id":3,"method":"ping"}` // no newline: the input ends
	conn, err := mcp.IOTransport(io.NopCloser(&chunkReader{b: []byte(in), n: 1}), &syncBuf{}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for i := 1; i <= 3; i++ {
		m, err := conn.Read(context.Background())
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		r, ok := m.(*jsonrpc.Request)
		if !ok || r.ID != mustID(t, float64(i)) {
			t.Fatalf("message %d: got %s", i, wire(t, m))
		}
		if i == 2 && !bytes.Contains(r.Params, []byte(huge)) {
			t.Errorf("message 2: params of %d bytes, want the %d-byte text", len(r.Params), len(huge))
		}
	}
	if _, err := conn.Read(context.Background()); !errors.Is(err, io.EOF) {
		t.Errorf("after the last message: %v, want io.EOF", err)
	}
}

// TestIOTransportCloseUnblocksRead: Close ends a Read waiting for input
// that never comes (io.EOF), and a Read with a done context returns its
// error.
func TestIOTransportCloseUnblocksRead(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	conn, err := mcp.IOTransport(pr, &syncBuf{}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := conn.Read(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Read with a canceled context: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := conn.Read(context.Background())
		done <- err
	}()
	if err := conn.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := <-done; !errors.Is(err, io.EOF) {
		t.Errorf("Read after Close: %v, want io.EOF", err)
	}
	if err := conn.Close(); err != nil {
		t.Errorf("Close again: %v", err)
	}
}

// TestIOTransportConcurrentWrites: messages written by many goroutines at
// once, while bad lines are being answered, each reach the wire whole, on a
// line of their own.
func TestIOTransportConcurrentWrites(t *testing.T) {
	pr, pw := io.Pipe()
	out := &syncBuf{}
	conn, err := mcp.IOTransport(pr, out).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	const writers, each, bad = 8, 50, 40
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				id := mustID(t, fmt.Sprintf("w%d-%d", w, i))
				res := json.RawMessage(fmt.Sprintf(`{"text":%q}`, strings.Repeat("y", 100*i)))
				if err := conn.Write(context.Background(), &jsonrpc.Response{ID: id, Result: res}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Go(func() {
		for range bad {
			if _, err := io.WriteString(pw, "not json\n"); err != nil {
				t.Error(err)
				return
			}
		}
		pw.Close()
	})
	if _, err := conn.Read(context.Background()); !errors.Is(err, io.EOF) {
		t.Errorf("Read: %v, want io.EOF after the bad lines", err)
	}
	wg.Wait()
	conn.Close()
	seen := map[string]bool{}
	answers := 0
	sc := bufio.NewScanner(strings.NewReader(out.String()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m struct {
			ID    any            `json:"id"`
			Error *jsonrpc.Error `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("a line that is not one message: %.80q (%v)", sc.Text(), err)
		}
		if m.Error != nil {
			answers++
			continue
		}
		seen[fmt.Sprint(m.ID)] = true
	}
	if len(seen) != writers*each || answers != bad {
		t.Errorf("%d messages and %d answers on the wire, want %d and %d", len(seen), answers, writers*each, bad)
	}
}
