// Changed from upstream (github.com/santhosh-tekuri/jsonschema/v6 v6.0.3): see doc.go.

package jsonschema

import (
	"strconv"
	"strings"
)

// Position tells possible tokens in json.
type Position interface {
	// collect appends to out the subschemas that rest finds in the values
	// at this position of v (at ptr).
	collect(v any, ptr jsonPointer, rest SchemaPath, out *[]subschema)
}

// subschema is a value that a SchemaPath found, and where.
type subschema struct {
	ptr jsonPointer
	v   any
}

// --

type AllProp struct{}

func (AllProp) collect(v any, ptr jsonPointer, rest SchemaPath, out *[]subschema) {
	obj, ok := v.(map[string]any)
	if !ok {
		return
	}
	for pname, pvalue := range obj {
		rest.collect(pvalue, ptr.append(pname), out)
	}
}

// --

type AllItem struct{}

func (AllItem) collect(v any, ptr jsonPointer, rest SchemaPath, out *[]subschema) {
	arr, ok := v.([]any)
	if !ok {
		return
	}
	for i, item := range arr {
		rest.collect(item, ptr.append(strconv.Itoa(i)), out)
	}
}

// --

type Prop string

func (p Prop) collect(v any, ptr jsonPointer, rest SchemaPath, out *[]subschema) {
	obj, ok := v.(map[string]any)
	if !ok {
		return
	}
	pvalue, ok := obj[string(p)]
	if !ok {
		return
	}
	rest.collect(pvalue, ptr.append(string(p)), out)
}

// --

type Item int

func (i Item) collect(v any, ptr jsonPointer, rest SchemaPath, out *[]subschema) {
	arr, ok := v.([]any)
	if !ok {
		return
	}
	if i < 0 || int(i) >= len(arr) {
		return
	}
	rest.collect(arr[int(i)], ptr.append(strconv.Itoa(int(i))), out)
}

// --

// SchemaPath tells where to look for subschema inside keyword.
type SchemaPath []Position

func schemaPath(path string) SchemaPath {
	var sp SchemaPath
	for _, tok := range strings.Split(path, "/") {
		var pos Position
		switch tok {
		case "*":
			pos = AllProp{}
		case "[]":
			pos = AllItem{}
		default:
			if i, err := strconv.Atoi(tok); err == nil {
				pos = Item(i)
			} else {
				pos = Prop(tok)
			}
		}
		sp = append(sp, pos)
	}
	return sp
}

// collect appends to out the subschemas that sp finds in v (at ptr).
func (sp SchemaPath) collect(v any, ptr jsonPointer, out *[]subschema) {
	if len(sp) == 0 {
		*out = append(*out, subschema{ptr, v})
		return
	}
	sp[0].collect(v, ptr, sp[1:], out)
}

func (sp SchemaPath) String() string {
	var sb strings.Builder
	for _, pos := range sp {
		if sb.Len() != 0 {
			sb.WriteByte('/')
		}
		switch pos := pos.(type) {
		case AllProp:
			sb.WriteString("*")
		case AllItem:
			sb.WriteString("[]")
		case Prop:
			sb.WriteString(string(pos))
		case Item:
			sb.WriteString(strconv.Itoa(int(pos)))
		}
	}
	return sb.String()
}
