package jsonschema

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// metaCompiled reports whether any draft's meta-schema has been compiled.
func metaCompiled() bool {
	for _, d := range []*Draft{Draft4, Draft6, Draft7, Draft2019, Draft2020} {
		if compilations(d) > 0 {
			return true
		}
	}
	return false
}

// compilations is how many times d's meta-schemas were compiled.
func compilations(d *Draft) int {
	d.metaMu.Lock()
	defer d.metaMu.Unlock()
	return d.compilations
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
		if compilations(d) == 0 {
			t.Errorf("draft %v: no meta-schema after the first compilations", d)
		}
		m := d.loadMeta()
		if m.sch == nil {
			t.Errorf("draft %v: no meta-schema", d)
		}
		for name := range d.allVocabs {
			if m.vocabSchemas[name] == nil {
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
		if compilations(Draft2020) == 0 {
			t.Fatal("draft 2020-12's meta-schema is not compiled after a schema of it was checked")
		}
		for _, d := range []*Draft{Draft4, Draft6, Draft7, Draft2019} {
			if compilations(d) != 0 {
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

// TestMetaSchemasFreedWhenUnused: a draft's compiled meta-schemas are not
// kept once no compilation uses them (a garbage collection frees them),
// and schemas compiled afterwards are checked against them all the same:
// they are compiled again.
func TestMetaSchemasFreedWhenUnused(t *testing.T) {
	compile := func(minLength any) error {
		c := NewCompiler()
		c.DefaultDraft(Draft2020)
		if err := c.AddResource("http://example.com/freed.json", map[string]any{"type": "string", "minLength": minLength}); err != nil {
			return err
		}
		_, err := c.Compile("http://example.com/freed.json")
		return err
	}
	if err := compile(1); err != nil {
		t.Fatal(err)
	}
	freed := false
	for range 10 { // a weak pointer is cleared by the collection after the last use; a few, in case one is under way
		runtime.GC()
		Draft2020.metaMu.Lock()
		freed = Draft2020.meta.Value() == nil
		Draft2020.metaMu.Unlock()
		if freed {
			break
		}
	}
	if !freed {
		t.Fatal("draft 2020-12's meta-schemas are kept after the compilations that used them")
	}
	before := compilations(Draft2020)
	if err := compile("one"); err == nil {
		t.Fatal("a schema with minLength \"one\" compiled once the meta-schemas were freed: no meta-schema checked it")
	}
	if err := compile(2); err != nil {
		t.Fatal(err)
	}
	if compilations(Draft2020) == before {
		t.Error("the meta-schemas, freed, were not compiled again")
	}
}
