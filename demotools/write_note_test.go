package demotools_test

import (
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

type noteResult struct {
	ID    string `json:"id"`
	Count int    `json:"count"`
}

func noteNumber(t *testing.T, id string) int {
	t.Helper()
	n, err := strconv.Atoi(strings.TrimPrefix(id, "note-"))
	if !strings.HasPrefix(id, "note-") || err != nil || n < 1 {
		t.Fatalf("id %q is not note-N", id)
	}
	return n
}

func TestWriteNote(t *testing.T) {
	consent := []tooling.Option{tooling.WithConsent()}
	tests := []struct {
		name   string
		args   string
		opts   []tooling.Option
		code   codes.Code
		fields []string
	}{
		{name: "without consent", args: `{"text":"buy milk"}`, code: codes.ConsentRequired},
		{name: "with consent", args: `{"text":"buy milk"}`, opts: consent},
		{name: "with tags", args: `{"text":"call Ann","tags":["home","phone"]}`, opts: consent},
		{name: "longest text", args: `{"text":"` + strings.Repeat("é", 10000) + `"}`, opts: consent},
		{name: "empty text", args: `{"text":""}`, opts: consent, code: codes.ValidationError, fields: []string{"/text"}},
		{name: "text too long", args: `{"text":"` + strings.Repeat("a", 10001) + `"}`, opts: consent, code: codes.ValidationError, fields: []string{"/text"}},
		{name: "repeated tag", args: `{"text":"x","tags":["a","a"]}`, opts: consent, code: codes.ValidationError, fields: []string{"/tags"}},
		{name: "tag not a string", args: `{"text":"x","tags":[1]}`, opts: consent, code: codes.ValidationError, fields: []string{"/tags/0"}},
		{name: "no text", args: `{"tags":["a"]}`, opts: consent, code: codes.ValidationError, fields: []string{"/text"}},
	}
	last := 0
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, _ := execute(t, "demo.write_note", tt.args, tt.code, tt.opts...)
			switch tt.code {
			case codes.OK:
				var got noteResult
				decodeOutput(t, res, &got)
				n := noteNumber(t, got.ID)
				if n <= last {
					t.Errorf("id %s does not follow note-%d", got.ID, last)
				}
				last = n
				if got.Count < 1 {
					t.Errorf("count %d", got.Count)
				}
			case codes.ConsentRequired:
				if res.Hint == "" {
					t.Error("no hint on how to give consent")
				}
			case codes.ValidationError:
				paths := fieldPaths(res)
				for _, p := range tt.fields {
					if !slices.Contains(paths, p) {
						t.Errorf("field errors %v lack %q", paths, p)
					}
				}
			}
		})
	}
}

// TestWriteNoteConcurrent writes from many goroutines: ids are unique and
// the store survives the race detector.
func TestWriteNoteConcurrent(t *testing.T) {
	const writers = 16
	ids := make([]int, writers)
	var wg sync.WaitGroup
	for i := range writers {
		wg.Go(func() {
			res, err := tooling.Default().Execute(t.Context(), "demo.write_note", []byte(`{"text":"n`+strconv.Itoa(i)+`"}`), tooling.WithConsent())
			if err != nil {
				t.Error(err)
				return
			}
			var got noteResult
			decodeOutput(t, res, &got)
			ids[i] = noteNumber(t, got.ID)
		})
	}
	wg.Wait()
	slices.Sort(ids)
	if len(slices.Compact(ids)) != writers {
		t.Errorf("ids not unique: %v", ids)
	}
}
