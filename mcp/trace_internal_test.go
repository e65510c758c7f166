package mcp

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// pristineEnv, set in a process of this test binary, makes
// TestServerTracerRecords check the global provider as a program finds it,
// before any provider was set.
const pristineEnv = "TOOLEXPLORER_TEST_PRISTINE_OTEL"

// TestServerTracerRecords: the global provider records nothing until a
// provider is set, and records from then on, even once the program sets
// the global provider it found back (it forwards to the first one set); a
// no-op provider records nothing. Checked in a process of its own, where
// no test set a provider before.
func TestServerTracerRecords(t *testing.T) {
	if os.Getenv(pristineEnv) == "" {
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(exe, "-test.run", "^TestServerTracerRecords$", "-test.count", "1")
		cmd.Env = append(os.Environ(), pristineEnv+"=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return
	}
	if _, records := serverTracer(); records {
		t.Error("the global provider records before any provider was set")
	}
	found := otel.GetTracerProvider()
	tp := sdktrace.NewTracerProvider()
	defer tp.Shutdown(context.Background())
	otel.SetTracerProvider(tp)
	if _, records := serverTracer(); !records {
		t.Error("an SDK provider records nothing")
	}
	otel.SetTracerProvider(noop.NewTracerProvider())
	if _, records := serverTracer(); records {
		t.Error("a no-op provider records")
	}
	otel.SetTracerProvider(found)
	if _, records := serverTracer(); !records {
		t.Error("the global provider the program found records nothing once it forwards to a provider set")
	}
}
