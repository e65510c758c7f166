package bindings

import (
	"errors"
	"fmt"
	"strings"
)

// A queue message is built as an HTTP binding's request is: its body with
// checkBody and fillBody, its headers from templates (parseTemplate), so
// the two kinds place arguments and credentials the same way.

// queueHeader is one header of a queue binding: a template of constant
// text, {param} arguments and ${NAME} credentials.
type queueHeader struct {
	name string
	t    tmpl
}

// compileQueueHeaders checks the headers' names, constants and the
// properties they take. Names keep their spelling (they are stream fields
// for Redis) and are sorted, so messages are built the same way every time.
func compileQueueHeaders(h map[string]string, provider string, in Input) ([]queueHeader, error) {
	out := make([]queueHeader, 0, len(h))
	for _, name := range sortedKeys(h) {
		field := "headers." + name
		if err := checkQueueHeaderName(name, provider); err != nil {
			return nil, fmt.Errorf("%s: %w", field, err)
		}
		t, err := parseTemplate(h[name], true)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", field, err)
		}
		for _, sg := range t {
			if sg.kind == segLit && !validHeaderValue(sg.text) || sg.kind == segEnv && sg.hasDef && !validHeaderValue(sg.def) {
				return nil, fmt.Errorf("%s: a control character (CR, LF or another) in the value", field)
			}
		}
		if err := checkArgs(field, t, in, false); err != nil {
			return nil, err
		}
		for _, sg := range t {
			if sg.kind == segArg && in.Properties[sg.text] == "array" {
				return nil, fmt.Errorf("%s: {%s} is an array, not text", field, sg.text)
			}
		}
		out = append(out, queueHeader{name: name, t: t})
	}
	return out, nil
}

// checkQueueHeaderName takes HTTP's token characters (NATS headers follow
// HTTP's form). The headers NATS acts on (Nats-Msg-Id, Nats-Rollup, ...)
// are the binding's to set, never a file's: a rollup header would purge a
// stream. For Redis, "message" is the field of the message itself.
func checkQueueHeaderName(name, provider string) error {
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return fmt.Errorf("%q is not a header name (letters, digits and !#$%%&'*+-.^_`|~)", name)
		}
	}
	switch {
	case name == "":
		return errors.New("a header has a name")
	case provider == "nats" && len(name) >= 5 && strings.EqualFold(name[:5], "nats-"):
		return fmt.Errorf("%q: headers starting with Nats- direct the server; the binding sets those it needs", name)
	case provider == "redis" && name == "message":
		return errors.New(`"message" is the stream field of the message itself`)
	}
	return nil
}

// placeQueueHeaders renders the headers of a call; an absent argument
// leaves its header out. With redact, credentials are written as their
// ${NAME} references (still checked to be set).
func placeQueueHeaders(hs []queueHeader, req *Request, redact bool) ([][2]string, error) {
	out := make([][2]string, 0, len(hs))
	for _, h := range hs {
		v, ok, err := h.t.render(req.Args, req.Env, redact, renderHeader)
		if err != nil {
			return nil, fmt.Errorf("queue: header %s: %w", h.name, err)
		}
		if !ok {
			continue
		}
		if len(v) > queueMaxHeader {
			return nil, fmt.Errorf("queue: header %s: the value is %d bytes, over the limit of %d", h.name, len(v), queueMaxHeader)
		}
		out = append(out, [2]string{h.name, v})
	}
	return out, nil
}
