package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxLine bounds one line read by IOTransport, as the SDK bounds a frame.
const maxLine = sdk.DefaultMaxLineLength

// IOTransport is the SDK's transport of newline-delimited JSON-RPC over r
// and w (sdk.IOTransport; serve uses it on stdin and stdout), except that a
// line that is not a message is answered, and reading goes on, as JSON-RPC
// asks, where the SDK ends the session: a line that is not JSON gets a
// parse error (-32700), JSON that is not a JSON-RPC message, or a line over
// the SDK's length bound, an invalid request (-32600), each with id null
// (or the message's id, when it has one). So does a batch (a JSON array)
// once the client asked for a protocol without batches (2025-06-18 and
// later). Blank lines are skipped. Closing the connection closes r and w.
func IOTransport(r io.ReadCloser, w io.WriteCloser) sdk.Transport {
	return &ioTransport{r: r, w: w}
}

type ioTransport struct {
	r io.ReadCloser
	w io.WriteCloser
}

func (t *ioTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	w := &lockedWriter{w: t.w}
	f := &lineFilter{in: bufio.NewReader(t.r), closer: t.r, out: w, batches: true}
	// Each Read gives at most one line, which the filter bounded.
	return (&sdk.IOTransport{Reader: f, Writer: w, MaxLineLength: -1}).Connect(ctx)
}

// lockedWriter serializes the SDK's writes (one message a Write) and the
// filter's error answers.
type lockedWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

func (l *lockedWriter) Close() error { return l.w.Close() }

// lineFilter reads lines and passes on those the SDK takes as messages; it
// answers the others itself.
type lineFilter struct {
	in      *bufio.Reader
	closer  io.Closer
	out     io.Writer
	pending []byte // the rest of the line being passed on
	batches bool   // the protocol the client asked for has batches
	err     error  // the read error, once every line before it is passed on
}

func (f *lineFilter) Close() error { return f.closer.Close() }

func (f *lineFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		line, tooLong, err := f.readLine()
		if err != nil {
			f.err = err
		}
		if tooLong {
			f.answer(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: a line over %d bytes", maxLine))
			continue
		}
		f.take(line)
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

// readLine reads one line, without its end; tooLong: it was over maxLine
// bytes and was read to its end and dropped. err is the read's error (the
// line before it, if any, is returned with it).
func (f *lineFilter) readLine() (line []byte, tooLong bool, err error) {
	var buf []byte
	for {
		chunk, err := f.in.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(chunk) > maxLine+1 {
				tooLong, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err != nil:
			return buf, tooLong, err
		}
		return buf, tooLong, nil
	}
}

// take passes line on when the SDK will read it as a message, and answers
// it otherwise.
func (f *lineFilter) take(line []byte) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	if !json.Valid(line) {
		f.answer(nil, jsonrpc.CodeParseError, "Parse error: the line is not JSON")
		return
	}
	if line[0] == '[' {
		if msg := f.checkBatch(line); msg != "" {
			f.answer(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: "+msg)
			return
		}
	} else {
		m, err := jsonrpc.DecodeMessage(line)
		if err != nil {
			f.answer(line, jsonrpc.CodeInvalidRequest, "Invalid Request: not a JSON-RPC 2.0 message")
			return
		}
		if r, ok := m.(*jsonrpc.Request); ok && r.Method == "initialize" {
			var p struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			_ = json.Unmarshal(r.Params, &p)
			// The SDK takes batches below 2025-06-18 only; a version it
			// does not support negotiates a later one.
			f.batches = p.ProtocolVersion == "2024-11-05" || p.ProtocolVersion == "2025-03-26"
		}
	}
	f.pending = append(line, '\n')
}

// checkBatch says why a batch is refused, "" when the SDK takes it.
func (f *lineFilter) checkBatch(line []byte) string {
	if !f.batches {
		return "batches are not part of the protocol asked for (2025-06-18 and later): send one message a line"
	}
	var raw []json.RawMessage
	if json.Unmarshal(line, &raw) != nil || len(raw) == 0 {
		return "an empty batch"
	}
	ids := map[jsonrpc.ID]bool{}
	for _, r := range raw {
		m, err := jsonrpc.DecodeMessage(r)
		if err != nil {
			return "a batch with an element that is not a JSON-RPC 2.0 message"
		}
		if req, ok := m.(*jsonrpc.Request); ok && req.ID.IsValid() {
			if ids[req.ID] {
				return "a batch with two requests of one id"
			}
			ids[req.ID] = true
		}
	}
	return ""
}

// answer writes the error response of a line the SDK is not given.
func (f *lineFilter) answer(line []byte, code int64, msg string) {
	_, _ = f.out.Write(errorResponse(line, code, msg))
}

// errorResponse is a JSON-RPC error response, with a newline, to the
// message msg: with its id when msg is an object with a valid one, null
// otherwise.
func errorResponse(msg []byte, code int64, text string) []byte {
	id := json.RawMessage("null")
	var v struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(msg, &v) == nil && len(v.ID) > 0 {
		var x any
		if json.Unmarshal(v.ID, &x) == nil && x != nil {
			if _, err := jsonrpc.MakeID(x); err == nil {
				id = v.ID
			}
		}
	}
	b, _ := json.Marshal(struct { // never fails
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: text}})
	return append(b, '\n')
}
