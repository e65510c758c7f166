package mcp

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// httpTap is an HTTP server's transport seen from the client, as tap is
// a stdio server's: it reports the JSON-RPC messages in the bodies of the
// requests it sends and of the responses it gets (a JSON body, or each
// event of a stream as it arrives), and so notes the tools the server runs
// only as tasks.
type httpTap struct {
	next http.RoundTripper
	st   *tapState
}

func (t *httpTap) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPost && req.Body != nil && req.Body != http.NoBody {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(b))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
		t.st.seenJSON(b, true)
	}
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	switch ctype, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); ctype {
	case "application/json":
		resp.Body = &tapBody{ReadCloser: resp.Body, st: t.st, json: true}
	case "text/event-stream":
		resp.Body = &tapBody{ReadCloser: resp.Body, st: t.st}
	}
	return resp, nil
}

// seenJSON notes the message (or batch of messages) in b.
func (c *tapState) seenJSON(b []byte, sent bool) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return
	}
	if b[0] == '[' {
		var batch []json.RawMessage
		if json.Unmarshal(b, &batch) == nil {
			for _, m := range batch {
				c.seenJSON(m, sent)
			}
		}
		return
	}
	if m, err := jsonrpc.DecodeMessage(b); err == nil {
		c.seen(m, sent)
	}
}

// tapBody passes a response's body on to the client unchanged and reports
// its messages: a JSON body when it has been read to its end, an event
// stream's "data" at the end of each event.
type tapBody struct {
	io.ReadCloser
	st   *tapState
	json bool

	mu   sync.Mutex
	buf  []byte // a JSON body so far, or the stream's line not yet ended
	data []byte // the event's data so far
	done bool
}

func (b *tapBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done {
		return n, err
	}
	b.buf = append(b.buf, p[:n]...)
	if b.json {
		if err != nil {
			b.done = true
			if err == io.EOF {
				b.st.seenJSON(b.buf, false)
			}
			b.buf = nil
		}
		return n, err
	}
	for {
		i := bytes.IndexByte(b.buf, '\n')
		if i < 0 {
			break
		}
		line := bytes.TrimSuffix(b.buf[:i], []byte("\r"))
		b.buf = b.buf[i+1:]
		switch {
		case len(line) == 0: // the event ends
			if len(b.data) > 0 {
				b.st.seenJSON(b.data, false)
			}
			b.data = b.data[:0]
		case bytes.HasPrefix(line, []byte("data:")):
			v := bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" "))
			if len(b.data) > 0 {
				b.data = append(b.data, '\n')
			}
			b.data = append(b.data, v...)
		}
	}
	if err != nil {
		b.done = true
	}
	return n, err
}
