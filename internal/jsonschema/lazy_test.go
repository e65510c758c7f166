package jsonschema

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// metaCompiled reports whether any draft's meta-schema has been compiled.
func metaCompiled() bool {
	for _, d := range []*Draft{Draft4, Draft6, Draft7, Draft2019, Draft2020} {
		if d.sch != nil || d.vocabSchemas != nil {
			return true
		}
	}
	return false
}

// lazyChildEnv makes the test binary, started again by
// TestMetaSchemasCompileOnFirstNeed, check a fresh process.
const lazyChildEnv = "JSONSCHEMA_LAZY_CHILD"

// TestMetaSchemasCompileOnFirstNeed starts the test binary again, so that the
// package is fresh: there, after every package init, no meta-schema is
// compiled; then many goroutines compile their first schemas at once (under
// -race when the test runs with it), each sees its schema validated against
// its meta-schema, and afterwards every draft's meta-schemas are compiled.
func TestMetaSchemasCompileOnFirstNeed(t *testing.T) {
	if os.Getenv(lazyChildEnv) == "1" {
		lazyChild(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestMetaSchemasCompileOnFirstNeed$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), lazyChildEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the fresh process failed: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "lazy child: ok") {
		t.Fatalf("the fresh process did not run the check:\n%s", out)
	}
}

func lazyChild(t *testing.T) {
	if metaCompiled() {
		t.Fatal("a meta-schema was compiled before the first Compile: the package's init compiles them")
	}
	drafts := []*Draft{Draft4, Draft6, Draft7, Draft2019, Draft2020}
	const perDraft = 8
	var wg sync.WaitGroup
	errs := make([]error, len(drafts)*perDraft)
	for i := range errs {
		d := drafts[i%len(drafts)]
		wg.Go(func() {
			c := NewCompiler()
			c.DefaultDraft(d)
			loc := fmt.Sprintf("http://example.com/s%d.json", i)
			// A valid schema compiles, and an invalid one is refused: the
			// meta-schema is there for each compiler, whichever came first.
			if err := c.AddResource(loc, map[string]any{"type": "string", "minLength": 1}); err != nil {
				errs[i] = err
				return
			}
			sch, err := c.Compile(loc)
			if err != nil {
				errs[i] = err
				return
			}
			if sch.Validate("") == nil || sch.Validate("x") != nil {
				errs[i] = fmt.Errorf("draft %v: the compiled schema does not check minLength", d)
				return
			}
			bad := loc + ".bad"
			if err := c.AddResource(bad, map[string]any{"type": "string", "minLength": "one"}); err == nil {
				if _, err := c.Compile(bad); err == nil {
					errs[i] = fmt.Errorf("draft %v: a schema with minLength \"one\" compiled: no meta-schema checked it", d)
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	for _, d := range drafts {
		if d.sch == nil {
			t.Errorf("draft %v: no meta-schema after the first compilations", d)
		}
		for name := range d.allVocabs {
			if d.vocabSchemas[name] == nil {
				t.Errorf("draft %v: vocabulary %s not compiled", d, name)
			}
		}
	}
	if !t.Failed() {
		fmt.Println("lazy child: ok")
	}
}

// unusedChildEnv makes the test binary, started again by
// TestUnusedDraftsStayUncompiled, check a fresh process.
const unusedChildEnv = "JSONSCHEMA_UNUSED_CHILD"

// TestUnusedDraftsStayUncompiled starts the test binary again, so that the
// package is fresh: there a schema of draft 2020-12 is compiled and checked
// against its meta-schema, and no other draft's meta-schema is compiled (a
// long-lived program keeps what is compiled for its life).
func TestUnusedDraftsStayUncompiled(t *testing.T) {
	if os.Getenv(unusedChildEnv) == "1" {
		c := NewCompiler()
		if err := c.AddResource("http://example.com/s.json", map[string]any{"type": "string", "minLength": "one"}); err == nil {
			if _, err := c.Compile("http://example.com/s.json"); err == nil {
				t.Fatal("a schema with minLength \"one\" compiled: no meta-schema checked it")
			}
		}
		if Draft2020.sch == nil {
			t.Fatal("draft 2020-12's meta-schema is not compiled after a schema of it was checked")
		}
		for _, d := range []*Draft{Draft4, Draft6, Draft7, Draft2019} {
			if d.sch != nil || d.vocabSchemas != nil {
				t.Errorf("draft %v: its meta-schema was compiled, though no schema of it was", d)
			}
		}
		if !t.Failed() {
			fmt.Println("unused child: ok")
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestUnusedDraftsStayUncompiled$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), unusedChildEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the fresh process failed: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "unused child: ok") {
		t.Fatalf("the fresh process did not run the check:\n%s", out)
	}
}
