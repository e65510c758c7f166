package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"unsafe"
)

// stdDecodeUseNumber is the reference parseJSON must equal: encoding/json's Decoder with
// UseNumber, and nothing but white space after the value.
func stdDecodeUseNumber(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if rest := b[d.InputOffset():]; len(bytes.TrimLeft(rest, " \t\r\n")) != 0 {
		return nil, errors.New("unexpected data after the value")
	}
	return v, nil
}

// checkParseJSON compares parseJSON on b with encoding/json: the same inputs accepted (also
// by json.Valid), deeply equal values (also after the input was overwritten), and the error
// json.Unmarshal reports, in parseJSON's terms (see parseJSON).
func checkParseJSON(t *testing.T, b []byte) {
	t.Helper()
	in := bytes.Clone(b)
	got, err := parseJSON(in)
	for i := range in {
		in[i] = '"' // the result must not change with the input
	}
	want, werr := stdDecodeUseNumber(b)
	if (err == nil) != (werr == nil) || (err == nil) != json.Valid(b) {
		t.Fatalf("%q: parseJSON error %v, encoding/json error %v, json.Valid %v", b, err, werr, json.Valid(b))
	}
	if err == nil {
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\nparseJSON     %#v\nencoding/json %#v", b, got, want)
		}
		return
	}
	var se *jsonSyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("%q: error %T %v, want a *jsonSyntaxError", b, err, err)
	}
	if se.Error() != se.Msg {
		t.Fatalf("%q: Error() = %q, want Msg %q", b, se.Error(), se.Msg)
	}
	var std *json.SyntaxError
	if uerr := json.Unmarshal(b, new(any)); !errors.As(uerr, &std) {
		t.Fatalf("%q: json.Unmarshal error %T %v, want a *json.SyntaxError", b, uerr, uerr)
	}
	wantMsg, wantOff := std.Error(), std.Offset-1
	switch {
	case wantMsg == "unexpected end of JSON input":
		wantOff = std.Offset
	case strings.HasPrefix(wantMsg, "invalid character ' ' ") && std.Offset == int64(len(b)) && !bytes.HasSuffix(b, []byte(" ")):
		// encoding/json ends the input with a space: that space is what it complains about
		// when the input stops inside a number, a literal or an escape.
		wantMsg, wantOff = "unexpected end of JSON input", std.Offset
	case strings.HasSuffix(wantMsg, " after top-level value"):
		wantMsg = "unexpected data after the value"
	case strings.HasSuffix(wantMsg, " exceeded max depth"):
		wantMsg = "nesting deeper than 10000 levels"
	}
	if se.Msg != wantMsg || se.Offset != wantOff {
		t.Fatalf("%q: error %q at %d, want %q at %d (encoding/json: %q at %d)", b, se.Msg, se.Offset, wantMsg, wantOff, std.Error(), std.Offset)
	}
}

func nestedJSON(open, close string, n int) string {
	return strings.Repeat(open, n) + strings.Repeat(close, n)
}

// jsonSeeds are the tricky inputs: every one is checked against encoding/json by
// TestParseJSONMatchesStd and seeds FuzzParseJSON.
var jsonSeeds = []string{
	// values and white space
	``, ` `, " \t\r\n", `null`, `true`, `false`, ` null `, "\n{}\n", `{}`, `[]`, `[ ]`, `{ }`, `""`,
	`{"a":1}`, ` { "a" : [ 1 , 2 ] , "b" : { } } `, `[null,true,false,"x",1,{},[]]`,
	`{"query":"governed tool execution","limit":20,"filter":{"since":"2026-01-31","author":"ada_l"},"tags":["go","api"]}`,
	`{"a":1,"a":2}`, `{"a":{"b":1},"a":[2]}`, `{"":0,"":""}`, `{"a\u0062":1,"ab":2}`, `[[[]],[{}],{"":[]}]`,
	`[1,1,1,"1","1",1.0,"x","x"]`, `{"k":"k","v":"k"}`,
	// numbers
	`0`, `-0`, `1`, `-1`, `0.5`, `-0.5e-10`, `1e5`, `1E+5`, `1e-5`, `1.5E005`, `123456789012345678901234567890`,
	`1e999`, `-1e-999`, `0.000000000000000000000000000000000000001`, `9007199254740993`, `18446744073709551616`,
	`01`, `-01`, `00`, `+1`, `.5`, `1.`, `1.e5`, `1e`, `1e+`, `1e+x`, `-`, `-x`, `--1`, `0x10`, `1x`, `[01]`,
	`{"a":01}`, `[1.]`, `[-]`, `1 2`, `[1e]`, `Infinity`, `NaN`, `-Infinity`, `1.5.5`, `1e5e5`, `[0,-0,0.0]`,
	// literals
	`t`, `tr`, `tru`, `truE`, `trUe`, `True`, `nul`, `nulll`, `nil`, `fals`, `falsy`, `[true false]`, `[truex]`,
	// strings: escapes
	`"\"\\\/\b\f\n\r\t"`, `"\u0000"`, `"\u001f"`, `"\u00e9"`, `"\u00E9"`, `"\uffff"`, `"\uFFFD"`, `"a\u20acb"`,
	`"\x"`, `"\'"`, `"\a"`, `"\U0041"`, `"\u"`, `"\u12"`, `"\u12g4"`, `"\u123"`, `"\`, `"\u`, `"\u00`,
	// strings: surrogates
	`"\ud83d\ude00"`, `"\uD83D\uDE00"`, `"\ud83d"`, `"\ude00"`, `"\ude00\ud83d"`, `"\ud83d\ud83d\ude00"`,
	`"\ud83dx"`, `"\ud83d\u0041"`, `"\ud83d\n"`, `"\ud83d\\"`, `"\ud83d\u"`, `"\ud83d\uzzzz"`, `"\ud83d\ude0"`,
	`"\ud800\udc00\udbff\udfff"`, `"\udbff\ue000"`, `"\ud7ff\udc00"`, `"x\ud800"`, `"\ud800\ud800\udc00\udc00"`,
	`{"\ud83d":"\ude00"}`,
	// strings: UTF-8
	"\"é€😀\"", "\"\xff\"", "\"\xc3\"", "\"\xc3(\"", "\"a\xe2\x82b\"", "\"\xf0\x9f\x98\"", "\"\xed\xa0\x80\"",
	"\"\xc0\xaf\"", "\"\xf4\x90\x80\x80\"", "\"\xef\xbf\xbd\"", "\"\x80\x80\x80\"", "{\"\xff\":\"\xfe\"}",
	"\"\xff\\n\xff\"", "\"\xe2\x82\"", "\"\xe2\x82", "\xff", "[\"\xff\"]", "\"\xc3\xa9\xff\\u00e9\"",
	// strings: control characters and ends
	"\"\x00\"", "\"\x01\"", "\"\x1f\"", "\"\t\"", "\"\n\"", "\"\x7f\"", "\"a\x00b\"", `"abc`, `"`, `"\"`,
	`"` + strings.Repeat("x", 40) + `"`, `"` + strings.Repeat("é", 40) + `\n"`, `{"` + strings.Repeat("k", 40) + `":1}`,
	// strings: a special byte at each place of an eight-byte word and after it
	"\"0123456\\n89abcdef\"", "\"01234567\\n9abcdef\"", "\"012345678\x01abcdef\"", "\"0123456789abcde\xff\"",
	"\"0123456789abcdef\"", "\"0123456789abcdefg", "\"0123456\"", "\"01234567\"", "[\"01234567\",\"89abcdef\"]",
	"\"0123456\xc3\xa9abcdefgh\"", "\"01234567\x7f\x20\x1f\"",
	// structure
	`{`, `[`, `]`, `}`, `{"a"`, `{"a":`, `{"a":1`, `{"a":1,`, `{"a" 1}`, `{"a":1 "b":2}`, `{"a":1,}`, `{,}`,
	`{1:2}`, `{a:1}`, `{'a':1}`, `{"a":1}}`, `[1,]`, `[,1]`, `[1 2]`, `[1,,2]`, `[1}`, `{"a":1]`, `[1]]`,
	`{} {}`, `{}x`, "{}\x00", `[] ,`, "{\"a\":1}\n\n ", `/*c*/{}`, `{}//`, "\ufeff{}", "\xef\xbb\xbf{}",
	"\x00", "[\v]", "[\f]", "\u00a0{}", `{"a":[1,{"b":[2,{"c":[3]}]}]}`,
	// nesting
	nestedJSON("[", "]", 100), nestedJSON(`[{"a":`, "}]", 40), nestedJSON(`{"":[`, "]}", 40), nestedJSON("[", "]", 10000), nestedJSON("[", "]", 10001), strings.Repeat(`{"a":`, 9999) + "{}" + strings.Repeat("}", 9999),
	`{"a":` + nestedJSON("[", "]", 9999) + `}`, `{"a":` + nestedJSON("[", "]", 10000) + `}`, strings.Repeat("[", 10000),
	strings.Repeat("[", 20000), strings.Repeat(`{"":`, 10001), strings.Repeat(`{"a":`, 10000) + "{}" + strings.Repeat("}", 10000),
}

func TestParseJSONMatchesStd(t *testing.T) {
	for _, s := range jsonSeeds {
		checkParseJSON(t, []byte(s))
	}
	checkParseJSON(t, jsonArray100KB)
	for _, b := range jsonVariedArgs {
		checkParseJSON(t, b)
	}
}

func TestParseJSONValues(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want any
	}{
		{`null`, nil},
		{` true `, true},
		{"\t\r\nfalse\n", false},
		{`"a\"b\\c\/d\be\ff\ng\rh\ti"`, "a\"b\\c/d\be\ff\ng\rh\ti"},
		{`"\u00e9\u20AC"`, "é€"},
		{`"\ud83d\ude00"`, "😀"},
		{`"\ud83d"`, "\uFFFD"},
		{`"\ude00\ud83d"`, "\uFFFD\uFFFD"},
		{`"\ud83d\u0041"`, "\uFFFDA"},
		{`"\ud83d\ud83d\ude00"`, "\uFFFD😀"},
		{"\"a\xffb\"", "a\uFFFDb"},
		{"\"\xed\xa0\x80\"", "\uFFFD\uFFFD\uFFFD"},
		{"\"\xe2\x82\"", "\uFFFD\uFFFD"},
		{"\"é\"", "é"},
		{`"\u0000"`, "\x00"},
		{`0`, json.Number("0")},
		{`-1.50e+007`, json.Number("-1.50e+007")},
		{`123456789012345678901234567890`, json.Number("123456789012345678901234567890")},
		{`[]`, []any{}},
		{`{}`, map[string]any{}},
		{`[1,"1",[],{}]`, []any{json.Number("1"), "1", []any{}, map[string]any{}}},
		{`{"a":1,"b":{"a":2},"a":3}`, map[string]any{"a": json.Number("3"), "b": map[string]any{"a": json.Number("2")}}},
		{`{"\u0061":1,"a":2}`, map[string]any{"a": json.Number("2")}},
		{`{"query":"governed tool execution","limit":20,"filter":{"since":"2026-01-31","author":"ada_l"},"tags":["go","api"]}`,
			map[string]any{"query": "governed tool execution", "limit": json.Number("20"),
				"filter": map[string]any{"since": "2026-01-31", "author": "ada_l"}, "tags": []any{"go", "api"}}},
	} {
		got, err := parseJSON([]byte(tc.in))
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: got %#v, want %#v", tc.in, got, tc.want)
		}
	}
}

func TestParseJSONErrors(t *testing.T) {
	for _, tc := range []struct {
		in  string
		off int64
		msg string
	}{
		{``, 0, "unexpected end of JSON input"},
		{"  \n", 3, "unexpected end of JSON input"},
		{`x`, 0, "invalid character 'x' looking for beginning of value"},
		{`{"a":1,}`, 7, "invalid character '}' looking for beginning of object key string"},
		{`{'a':1}`, 1, `invalid character '\'' looking for beginning of object key string`},
		{`{"a" 1}`, 5, "invalid character '1' after object key"},
		{`{"a":1 "b":2}`, 7, `invalid character '"' after object key:value pair`},
		{`[1 2]`, 3, "invalid character '2' after array element"},
		{`[1,]`, 3, "invalid character ']' looking for beginning of value"},
		{`{"a":1} {}`, 8, "unexpected data after the value"},
		{"{}\n\nx", 4, "unexpected data after the value"},
		{`01`, 1, "unexpected data after the value"},
		{`{"n":`, 5, "unexpected end of JSON input"},
		{`"abc`, 4, "unexpected end of JSON input"},
		{"\"a\x01\"", 2, `invalid character '\x01' in string literal`},
		{"\"a\n\"", 2, `invalid character '\n' in string literal`},
		{`"\x"`, 2, "invalid character 'x' in string escape code"},
		{`"\u12g4"`, 5, `invalid character 'g' in \u hexadecimal character escape`},
		{`"\ud83d\uzzzz"`, 9, `invalid character 'z' in \u hexadecimal character escape`},
		{`-x`, 1, "invalid character 'x' in numeric literal"},
		{`+1`, 0, "invalid character '+' looking for beginning of value"},
		{`1.e5`, 2, "invalid character 'e' after decimal point in numeric literal"},
		{`1e+x`, 3, "invalid character 'x' in exponent of numeric literal"},
		{`1.`, 2, "unexpected end of JSON input"},
		{`trux`, 3, "invalid character 'x' in literal true (expecting 'e')"},
		{`fAlse`, 1, "invalid character 'A' in literal false (expecting 'a')"},
		{`nul`, 3, "unexpected end of JSON input"},
		{"\xff", 0, "invalid character 'ÿ' looking for beginning of value"},
		{nestedJSON("[", "]", 10001), 10000, "nesting deeper than 10000 levels"},
		{`{"a":` + strings.Repeat(`{"b":`, 10000), 5 + 5*9999, "nesting deeper than 10000 levels"},
	} {
		_, err := parseJSON([]byte(tc.in))
		se, ok := err.(*jsonSyntaxError)
		if !ok {
			t.Errorf("%.40q: error %v, want a *jsonSyntaxError", tc.in, err)
			continue
		}
		if se.Offset != tc.off || se.Msg != tc.msg {
			t.Errorf("%.40q: %q at %d, want %q at %d", tc.in, se.Msg, se.Offset, tc.msg, tc.off)
		}
		checkParseJSON(t, []byte(tc.in))
	}
}

// TestParseJSONIndependent: a result owns its maps and slices, does not alias the input, and
// does not change when the parser is used again, also from many goroutines at once.
func TestParseJSONIndependent(t *testing.T) {
	in := []byte(`{"k":"v","a":["x",1,{"k":"w"}],"e":[],"o":{}}`)
	want, _ := stdDecodeUseNumber(in)
	v, err := parseJSON(in)
	if err != nil {
		t.Fatal(err)
	}
	for i := range in {
		in[i] = ' '
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				b := fmt.Appendf(nil, `{"k":"%d","a":["x%d",%d,{"k":"w"}],"e":[],"o":{}}`, g, i, i)
				w, err := parseJSON(b)
				if err != nil {
					t.Error(err)
					return
				}
				w.(map[string]any)["a"].([]any)[0] = "changed"
				w.(map[string]any)["o"].(map[string]any)["new"] = true
			}
		})
	}
	wg.Wait()
	if !reflect.DeepEqual(v, want) {
		t.Fatalf("result changed: %#v, want %#v", v, want)
	}
	// Every empty array is non-nil and has no room to grow in place.
	a := v.(map[string]any)["e"].([]any)
	if a == nil || cap(a) != 0 {
		t.Fatalf("empty array %#v has cap %d", a, cap(a))
	}
	// Arrays of one input do not share room: appending to one leaves its neighbours alone.
	w, err := parseJSON([]byte(`[[1,2],[3],[4,5,6],[]]`))
	if err != nil {
		t.Fatal(err)
	}
	outer := w.([]any)
	for i, e := range outer {
		outer[i] = append(e.([]any), "appended")
	}
	want = []any{
		[]any{json.Number("1"), json.Number("2"), "appended"},
		[]any{json.Number("3"), "appended"},
		[]any{json.Number("4"), json.Number("5"), json.Number("6"), "appended"},
		[]any{"appended"},
	}
	if !reflect.DeepEqual(w, want) {
		t.Fatalf("after appending: %#v, want %#v", w, want)
	}
	if e, _ := parseJSON([]byte(`[]`)); len(e.([]any)) != 0 {
		t.Fatalf("[] is now %#v", e)
	}
}

// FuzzParseJSON: on any bytes, parseJSON and encoding/json agree (see checkParseJSON).
func FuzzParseJSON(f *testing.F) {
	for _, s := range jsonSeeds {
		if len(s) <= 1024 { // the deeply nestedJSON ones are checked above; they would slow the fuzzer down
			f.Add([]byte(s))
		}
	}
	f.Add([]byte(benchArgs))
	f.Add(jsonVariedArgs[1])
	f.Fuzz(func(t *testing.T, b []byte) {
		checkParseJSON(t, b)
	})
}

// jsonArray100KB is about 100 KB of a typical array of records.
var jsonArray100KB = func() []byte {
	var b bytes.Buffer
	b.WriteByte('[')
	for i := 0; b.Len() < 100<<10; i++ {
		if i > 0 {
			b.WriteString(",\n  ")
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"user_%d","email":"user%d@example.com","active":%t,"score":%d.%d,`+
			`"role":%q,"tags":["go","api","t%d"],"address":{"city":"Zürich","zip":"80%02d","note":"line \"%d\"\nnext"},"manager":null}`,
			i, i, i, i%3 == 0, i*7%100, i%10, []string{"admin", "editor", "viewer"}[i%3], i%5, i%100, i)
	}
	b.WriteByte(']')
	return b.Bytes()
}()

// jsonVariedArgs are tool arguments that differ in every key and value, so that no call gains
// from what an earlier one decoded.
var jsonVariedArgs = func() [][]byte {
	var out [][]byte
	for i := range 64 {
		out = append(out, fmt.Appendf(nil, `{"query%d":"governed tool execution %d","limit%d":%d,"filter%d":{"since%d":"2026-01-%02d","author%d":"ada_%d"},"tags%d":["go%d","api%d"]}`,
			i, i, i, 20+i, i, i, i%28+1, i, i, i, i, i))
	}
	return out
}()

// benchSchema is a realistic tool input: strings with bounds and a pattern,
// an integer with bounds and a default, an enum, a nested object with a
// format, and an array of enums.
var benchSchema = []byte(`{
	"type": "object",
	"properties": {
		"query": {"type": "string", "minLength": 1, "maxLength": 200, "description": "What to search for"},
		"limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 10},
		"sort": {"enum": ["relevance", "date", "title"], "default": "relevance"},
		"filter": {
			"type": "object",
			"properties": {
				"since": {"type": "string", "format": "date"},
				"author": {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"}
			},
			"additionalProperties": false
		},
		"tags": {"type": "array", "items": {"enum": ["go", "rust", "docs", "api"]}, "uniqueItems": true, "maxItems": 4}
	},
	"required": ["query"],
	"additionalProperties": false
}`)

// benchArgs are the arguments of the registry's benchmarks.
var benchArgs = []byte(`{"query":"governed tool execution","limit":20,"filter":{"since":"2026-01-31","author":"ada_l"},"tags":["go","api"]}`)

var jsonBenchInputs = []struct {
	name string
	in   [][]byte
}{
	{"args", [][]byte{benchArgs}},
	{"args-varied", jsonVariedArgs},
	{"array-100KB", [][]byte{jsonArray100KB}},
}

func benchmarkJSONDecode(b *testing.B, decode func([]byte) (any, error)) {
	for _, in := range jsonBenchInputs {
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(len(in.in[0])))
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := decode(in.in[i%len(in.in)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

func BenchmarkParseJSON(b *testing.B) { benchmarkJSONDecode(b, parseJSON) }

func BenchmarkStdDecodeUseNumber(b *testing.B) {
	benchmarkJSONDecode(b, func(in []byte) (any, error) {
		d := json.NewDecoder(bytes.NewReader(in))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			return nil, err
		}
		if _, err := d.Token(); err != io.EOF {
			return nil, fmt.Errorf("unexpected data after the value: %v", err)
		}
		return v, nil
	})
}

// TestParseJSONKeepsOnlyWhatIsKept: a short string, key, number or array kept from a large
// input keeps neither the input nor its other parts alive.
func TestParseJSONKeepsOnlyWhatIsKept(t *testing.T) {
	pad := strings.Repeat("x", 1<<20)
	in := []byte(`{"small":"v","n":12,"tags":["a","b"],"pad":"` + pad + `","list":[["c"],["` + pad + `"]]}`)
	v, err := parseJSON(in)
	if err != nil {
		t.Fatal(err)
	}
	obj := v.(map[string]any)
	var key string
	for k := range obj {
		if k == "small" {
			key = k
		}
	}
	kept := []any{key, obj["small"], obj["n"], obj["tags"], obj["list"].([]any)[0]}
	// The large strings are the ones that must go: one directly in the object, one inside an
	// array next to a kept one.
	freed := make(chan string, 2)
	runtime.AddCleanup(unsafe.StringData(obj["pad"].(string)), func(s string) { freed <- s }, "the object's large string")
	runtime.AddCleanup(unsafe.StringData(obj["list"].([]any)[1].([]any)[0].(string)), func(s string) { freed <- s }, "the array's large string")
	v, obj, in = nil, nil, nil
	rounds := 0
	for n := 0; n < 2; {
		select {
		case <-freed:
			n++
		default:
			if rounds++; rounds > 1000 {
				t.Fatalf("after %d collections, %d of 2 large strings were freed while a few short parts are kept", rounds, n)
			}
			runtime.GC()
			runtime.Gosched()
		}
	}
	runtime.KeepAlive(kept)
	if !reflect.DeepEqual(kept, []any{"small", "v", json.Number("12"), []any{"a", "b"}, []any{"c"}}) {
		t.Fatalf("kept %#v", kept)
	}
}
