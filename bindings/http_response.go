package bindings

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// This file turns a response into the binding's outcome: the size cap,
// the content type, the data selected from the body, and the error of a
// status that is not 2xx.

// readCapped reads a body up to limit bytes; a longer one fails without
// being read further (the connection is closed, not drained).
func readCapped(resp *http.Response, limit int64) ([]byte, error) {
	if resp.ContentLength > limit {
		return nil, fmt.Errorf("http: the response is %d bytes, over max_response_bytes (%d)", resp.ContentLength, limit)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("http: reading the response: %v", err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("http: the response is over max_response_bytes (%d)", limit)
	}
	return data, nil
}

// output maps a successful response to the tool's output.
func (b *httpBinding) output(resp *http.Response, data []byte) (any, error) {
	if len(data) == 0 {
		return nil, nil
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if !b.acceptable(mt) {
		if mt == "" {
			mt = "none"
		}
		return nil, fmt.Errorf("http: the response's content type %s is not accepted (%s)", mt, b.accepted())
	}
	if b.text {
		return strings.ToValidUTF8(string(data), "\uFFFD"), nil
	}
	return selectJSON(data, b.data)
}

// selectJSON returns the part of a JSON body at path, compacted, as it
// was written (numbers keep their digits). The body is checked once, then
// walked without decoding what is not on the path.
func selectJSON(data []byte, path []string) (json.RawMessage, error) {
	if !json.Valid(data) {
		err := json.Unmarshal(data, new(any))
		return nil, fmt.Errorf("http: the response is not JSON: %v", err)
	}
	for i, step := range path {
		var ok bool
		if data, ok = jsonChild(data, step); !ok {
			return nil, fmt.Errorf("http: the response has nothing at response.data %s", pointer(path[:i+1]))
		}
	}
	var buf bytes.Buffer
	buf.Grow(len(data))
	if err := json.Compact(&buf, data); err != nil {
		return nil, fmt.Errorf("http: the response is not JSON: %v", err)
	}
	return buf.Bytes(), nil
}

// jsonChild returns the member step of a valid JSON object (the last one,
// as encoding/json decodes duplicates) or the element at index step of a
// valid JSON array.
func jsonChild(data []byte, step string) ([]byte, bool) {
	i := skipSpace(data, 0)
	if i == len(data) || data[i] != '{' && data[i] != '[' {
		return nil, false
	}
	object := data[i] == '{'
	index := -1
	if !object {
		n, err := strconv.Atoi(step)
		if err != nil || n < 0 {
			return nil, false
		}
		index = n
	}
	var found []byte
	if i = skipSpace(data, i+1); data[i] == '}' || data[i] == ']' {
		return nil, false
	}
	for k := 0; ; k++ {
		match := k == index
		if object {
			end := skipString(data, i)
			match = jsonKeyIs(data[i:end], step)
			i = skipSpace(data, end) + 1 // the colon
			i = skipSpace(data, i)
		}
		end := skipValue(data, i)
		if match {
			found = data[i:end]
			if !object {
				return found, true
			}
		}
		if i = skipSpace(data, end); data[i] != ',' {
			return found, found != nil
		}
		i = skipSpace(data, i+1)
	}
}

func jsonKeyIs(raw []byte, key string) bool {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1:len(raw)-1]) == key
	}
	var s string
	return json.Unmarshal(raw, &s) == nil && s == key
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n') {
		i++
	}
	return i
}

// skipString returns the index past the string that starts at data[i].
func skipString(data []byte, i int) int {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// skipValue returns the index past the valid JSON value at data[i].
func skipValue(data []byte, i int) int {
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for ; i < len(data); i++ {
			switch data[i] {
			case '"':
				i = skipString(data, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return i
	}
	for i < len(data) && !bytes.ContainsRune([]byte(",]} \t\r\n"), rune(data[i])) {
		i++
	}
	return i
}

func (b *httpBinding) acceptable(mt string) bool {
	if b.src.contentTypes != nil {
		for _, want := range b.src.contentTypes {
			if want == mt || strings.HasSuffix(want, "/*") && strings.HasPrefix(mt, strings.TrimSuffix(want, "*")) {
				return true
			}
		}
		return false
	}
	json := mt == "application/json" || strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json")
	return json || b.text && strings.HasPrefix(mt, "text/")
}

func (b *httpBinding) accepted() string {
	switch {
	case b.src.contentTypes != nil:
		return strings.Join(b.src.contentTypes, ", ")
	case b.text:
		return "JSON or text/*"
	}
	return "JSON"
}

// statusError is the error of a response that is not 2xx, with the message
// the response mapping finds in it.
func (b *httpBinding) statusError(resp *http.Response, data []byte) error {
	msg := ""
	if b.errPath != nil {
		if m, err := selectJSON(data, b.errPath); err == nil {
			if json.Unmarshal(m, &msg) != nil {
				msg = string(m)
			}
		}
	}
	if msg == "" {
		msg = strings.TrimSpace(strings.ToValidUTF8(string(data), ""))
	}
	msg = strings.Join(strings.Fields(msg), " ")
	if len(msg) > errorSnippet {
		msg = strings.ToValidUTF8(msg[:errorSnippet], "") + "…"
	}
	if msg == "" {
		return fmt.Errorf("http: %s", resp.Status)
	}
	return fmt.Errorf("http: %s: %s", resp.Status, msg)
}

// retryAfter parses a Retry-After header: seconds or an HTTP date.
func retryAfter(h string, now time.Time) time.Duration {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0
	}
	if n, err := strconv.ParseInt(h, 10, 64); err == nil {
		if n <= 0 {
			return 0
		}
		return time.Duration(min(n, int64(24*time.Hour/time.Second))) * time.Second
	}
	if t, err := http.ParseTime(h); err == nil && t.After(now) {
		return min(t.Sub(now), 24*time.Hour)
	}
	return 0
}
