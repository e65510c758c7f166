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
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	segjson "github.com/segmentio/encoding/json"
)

// maxLine bounds one line read by IOTransport, as the SDK bounds a frame.
const maxLine = sdk.DefaultMaxLineLength

// IOTransport is a transport of newline-delimited JSON-RPC over r and w,
// as the SDK's (sdk.IOTransport; serve uses it on stdin and stdout), with
// two differences. A line that is not a message is answered, and reading
// goes on, as JSON-RPC asks, where the SDK ends the session: a line that is
// not JSON gets a parse error (-32700), JSON that is not a JSON-RPC
// message, or a line over the SDK's length bound, an invalid request
// (-32600), each with id null (or the message's id, when it has one). So
// does a batch (a JSON array) once the client asked for a protocol without
// batches (2025-06-18 and later); on earlier protocols a batch is served as
// the SDK serves it, its responses in one array. Blank lines are skipped.
// And each line is decoded once, as the SDK decodes it (the same JSON
// decoder, with the same options), from a buffer reused from line to line:
// the SDK's own transport decodes each message three times, each with a
// fresh 32 KiB buffer. Closing the connection closes r and w.
func IOTransport(r io.ReadCloser, w io.WriteCloser) sdk.Transport {
	return &ioTransport{r: r, w: w}
}

type ioTransport struct {
	r io.ReadCloser
	w io.WriteCloser
}

func (t *ioTransport) Connect(context.Context) (sdk.Connection, error) {
	c := &lineConn{r: t.r, w: t.w, incoming: make(chan lineRead), closed: make(chan struct{})}
	c.batches.Store(true) // until initialize asks for a protocol without them
	// Reads happen on a goroutine of their own so that Close unblocks Read
	// even when r's Read does not end on Close (a process's standard input),
	// as in the SDK's transport.
	go c.readLoop()
	return c, nil
}

// lineConn is the connection of IOTransport.
type lineConn struct {
	r io.ReadCloser
	w io.WriteCloser

	incoming chan lineRead     // from readLoop
	queue    []jsonrpc.Message // the rest of the batch Read is returning (Read is never concurrent with itself)
	batches  atomic.Bool       // the protocol asked for has batches

	writeMu sync.Mutex // one message (or batch) a Write of w

	batchMu sync.Mutex
	pending map[jsonrpc.ID]*lineBatch // the batch of each request of a batch not answered yet

	closeOnce sync.Once
	closed    chan struct{}
	closeErr  error
}

// lineRead is what readLoop hands Read: a message, a batch's messages, or
// the read's error.
type lineRead struct {
	msg   jsonrpc.Message
	batch []jsonrpc.Message
	err   error
}

// lineBatch collects the responses to a batch's requests, each in the
// place of its request, until none is missing.
type lineBatch struct {
	index     map[jsonrpc.ID]int
	responses []*jsonrpc.Response
}

func (c *lineConn) SessionID() string { return "" }

func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(c.queue) > 0 {
		m := c.queue[0]
		c.queue = c.queue[1:]
		return m, nil
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	case v := <-c.incoming:
		if v.err != nil {
			return nil, v.err
		}
		if v.batch != nil {
			c.queue = v.batch[1:]
			return v.batch[0], nil
		}
		return v.msg, nil
	}
}

func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if resp, ok := msg.(*jsonrpc.Response); ok {
		if all, inBatch := c.answered(resp); inBatch {
			if all == nil {
				return nil // the batch waits for its other responses
			}
			raw := make([]json.RawMessage, len(all))
			for i, r := range all {
				b, err := jsonrpc.EncodeMessage(r)
				if err != nil {
					return fmt.Errorf("mcp: encoding a batch's response: %w", err)
				}
				raw[i] = b
			}
			data, err := json.Marshal(raw)
			if err != nil {
				return fmt.Errorf("mcp: encoding a batch's responses: %w", err)
			}
			return c.writeLine(data)
		}
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("mcp: encoding a message: %w", err)
	}
	return c.writeLine(data)
}

// writeLine writes data and a newline in one Write of w.
func (c *lineConn) writeLine(data []byte) error {
	data = append(data, '\n')
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.w.Write(data)
	return err
}

func (c *lineConn) Close() error {
	c.closeOnce.Do(func() {
		c.closeErr = errors.Join(c.r.Close(), c.w.Close())
		close(c.closed)
	})
	return c.closeErr
}

// answered files resp under its batch, if its request came in one
// (inBatch); all is then the batch's responses once resp was the last
// missing, nil before.
func (c *lineConn) answered(resp *jsonrpc.Response) (all []*jsonrpc.Response, inBatch bool) {
	c.batchMu.Lock()
	defer c.batchMu.Unlock()
	b, ok := c.pending[resp.ID]
	if !ok {
		return nil, false
	}
	delete(c.pending, resp.ID)
	b.responses[b.index[resp.ID]] = resp
	delete(b.index, resp.ID)
	if len(b.index) > 0 {
		return nil, true
	}
	return b.responses, true
}

// readLoop reads lines until r ends or the connection closes, and hands
// Read the messages among them; it answers the others.
func (c *lineConn) readLoop() {
	in := bufio.NewReaderSize(c.r, 64<<10)
	var buf []byte // the line being read, when it spans reads
	for {
		line, tooLong, err := readLine(in, &buf)
		var v lineRead
		if tooLong {
			c.answer(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: a line over %d bytes", maxLine))
		} else {
			v = c.take(line)
		}
		if v.msg != nil || v.batch != nil {
			select {
			case c.incoming <- v:
			case <-c.closed:
				return
			}
		}
		if err != nil {
			select {
			case c.incoming <- lineRead{err: err}:
			case <-c.closed:
			}
			return
		}
	}
}

// readLine reads one line, without its end, into memory of its own (a
// message keeps parts of it); tooLong: it was over maxLine bytes and was
// read to its end and dropped. err is the read's error (the line before
// it, if any, is returned with it). *buf is scratch space for a line that
// spans the reader's buffer, kept from line to line.
func readLine(in *bufio.Reader, buf *[]byte) (line []byte, tooLong bool, err error) {
	chunk, err := in.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		if len(chunk) > maxLine+1 {
			return nil, true, err
		}
		return bytes.Clone(chunk), false, err
	}
	b := append((*buf)[:0], chunk...)
	for errors.Is(err, bufio.ErrBufferFull) {
		chunk, err = in.ReadSlice('\n')
		if !tooLong {
			if len(b)+len(chunk) > maxLine+1 {
				tooLong, b = true, b[:0]
			} else {
				b = append(b, chunk...)
			}
		}
	}
	if cap(b) <= 1<<20 {
		*buf = b // keep scratch space of a usual size, not a huge line's
	}
	if tooLong {
		return nil, true, err
	}
	return bytes.Clone(b), false, err
}

// take decodes line when it is a message (or a batch the protocol has),
// and answers it otherwise.
func (c *lineConn) take(line []byte) lineRead {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return lineRead{}
	}
	if !json.Valid(line) {
		c.answer(nil, jsonrpc.CodeParseError, "Parse error: the line is not JSON")
		return lineRead{}
	}
	if line[0] == '[' {
		batch, msg := c.takeBatch(line)
		if msg != "" {
			c.answer(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: "+msg)
			return lineRead{}
		}
		return lineRead{batch: batch}
	}
	m, err := decodeMessage(line)
	if err != nil {
		c.answer(line, jsonrpc.CodeInvalidRequest, "Invalid Request: not a JSON-RPC 2.0 message")
		return lineRead{}
	}
	if r, ok := m.(*jsonrpc.Request); ok && r.Method == "initialize" {
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(r.Params, &p)
		// The SDK takes batches below 2025-06-18 only; a version it does
		// not support negotiates a later one.
		c.batches.Store(p.ProtocolVersion == "2024-11-05" || p.ProtocolVersion == "2025-03-26")
	}
	return lineRead{msg: m}
}

// takeBatch decodes a batch and files its requests, or says why it is
// refused.
func (c *lineConn) takeBatch(line []byte) (msgs []jsonrpc.Message, refused string) {
	if !c.batches.Load() {
		return nil, "batches are not part of the protocol asked for (2025-06-18 and later): send one message a line"
	}
	var raw []json.RawMessage
	if _, err := segjson.Parse(line, &raw, decodeFlags); err != nil || len(raw) == 0 {
		return nil, "an empty batch"
	}
	b := &lineBatch{index: map[jsonrpc.ID]int{}}
	for _, r := range raw {
		m, err := decodeMessage(r)
		if err != nil {
			return nil, "a batch with an element that is not a JSON-RPC 2.0 message"
		}
		if req, ok := m.(*jsonrpc.Request); ok && req.ID.IsValid() {
			if _, dup := b.index[req.ID]; dup {
				return nil, "a batch with two requests of one id"
			}
			b.index[req.ID] = len(b.responses)
			b.responses = append(b.responses, nil)
		}
		msgs = append(msgs, m)
	}
	if len(b.index) == 0 {
		return msgs, ""
	}
	c.batchMu.Lock()
	defer c.batchMu.Unlock()
	for id := range b.index {
		if _, ok := c.pending[id]; ok {
			return nil, "a batch with a request of an id still in flight"
		}
	}
	if c.pending == nil {
		c.pending = map[jsonrpc.ID]*lineBatch{}
	}
	for id := range b.index {
		c.pending[id] = b
	}
	return msgs, ""
}

// answer writes the error response of a line the SDK is not given.
func (c *lineConn) answer(line []byte, code int64, msg string) {
	b := errorResponse(line, code, msg)
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, _ = c.w.Write(b)
}

// decodeFlags are the options the SDK's JSON decoder decodes messages
// with (keys matched exactly), and one that only saves a copy: a decoded
// message's raw parts (params, result) share the line's memory, which is
// the message's own.
const decodeFlags = segjson.DontMatchCaseInsensitiveStructFields | segjson.DontCopyRawMessage

// maxDepth is the deepest nesting of objects and arrays the SDK decodes.
const maxDepth = 1000

// wireMessage is a JSON-RPC message as the SDK decodes it
// (jsonrpc.DecodeMessage): method raw, to tell a request with an empty
// method from a response.
type wireMessage struct {
	VersionTag string          `json:"jsonrpc"`
	ID         any             `json:"id,omitempty"`
	Method     json.RawMessage `json:"method"`
	Params     json.RawMessage `json:"params,omitempty"`
	Result     json.RawMessage `json:"result,omitempty"`
	Error      *jsonrpc.Error  `json:"error,omitempty"`
}

// errNotMessage is a line that is JSON but not a JSON-RPC 2.0 message.
var errNotMessage = errors.New("mcp: not a JSON-RPC 2.0 message")

// decodeMessage decodes data, one JSON value, as jsonrpc.DecodeMessage
// does, and fails where it fails.
func decodeMessage(data []byte) (jsonrpc.Message, error) {
	if tooDeep(data) {
		return nil, errNotMessage
	}
	var w wireMessage
	if _, err := segjson.Parse(data, &w, decodeFlags); err != nil {
		return nil, err
	}
	if w.VersionTag != "2.0" {
		return nil, errNotMessage
	}
	id, err := jsonrpc.MakeID(w.ID)
	if err != nil {
		return nil, err
	}
	if len(w.Method) > 0 {
		var method string
		if _, err := segjson.Parse(w.Method, &method, decodeFlags); err != nil {
			return nil, err
		}
		return &jsonrpc.Request{ID: id, Method: method, Params: w.Params}, nil
	}
	if !id.IsValid() {
		return nil, errNotMessage
	}
	resp := &jsonrpc.Response{ID: id, Result: w.Result}
	if w.Error != nil {
		resp.Error = w.Error // not a typed nil
	}
	return resp, nil
}

// tooDeep reports whether data nests objects and arrays deeper than
// maxDepth, as the SDK counts (strings skipped).
func tooDeep(data []byte) bool {
	depth, inString, escaped := 0, false, false
	for _, b := range data {
		if inString {
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
			continue
		}
		switch b {
		case '"':
			inString = true
		case '{', '[':
			if depth++; depth > maxDepth {
				return true
			}
		case '}', ']':
			if depth > 0 {
				depth--
			}
		}
	}
	return false
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
