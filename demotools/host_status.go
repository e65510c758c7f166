package demotools

import (
	"context"
	"encoding/json"
	"math"
	"runtime"
	"time"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// initialised is when the package was initialised: the zero of uptime.
var initialised = time.Now()

var hostStatusOutput = json.RawMessage(`{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "title": "Host status",
  "properties": {
    "uptime_seconds": {
      "type": "number",
      "title": "Uptime (seconds)",
      "description": "Seconds since the tools were initialised, to the millisecond.",
      "minimum": 0
    },
    "uptime": {
      "type": "string",
      "title": "Uptime",
      "description": "The uptime for people, like \"1h2m3s\"."
    },
    "goroutines": {
      "type": "integer",
      "title": "Goroutines",
      "description": "Goroutines that exist now.",
      "minimum": 1
    },
    "go_version": {
      "type": "string",
      "title": "Go version",
      "description": "The Go release the host was built with."
    },
    "os": {
      "type": "string",
      "title": "Operating system",
      "description": "The GOOS of the host."
    },
    "arch": {
      "type": "string",
      "title": "Architecture",
      "description": "The GOARCH of the host."
    },
    "num_cpu": {
      "type": "integer",
      "title": "CPUs",
      "description": "Logical CPUs usable by the host process.",
      "minimum": 1
    }
  },
  "required": ["uptime_seconds", "uptime", "goroutines", "go_version", "os", "arch", "num_cpu"],
  "additionalProperties": false
}`)

type hostStatus struct {
	UptimeSeconds float64 `json:"uptime_seconds"`
	Uptime        string  `json:"uptime"`
	Goroutines    int     `json:"goroutines"`
	GoVersion     string  `json:"go_version"`
	OS            string  `json:"os"`
	Arch          string  `json:"arch"`
	NumCPU        int     `json:"num_cpu"`
}

func init() {
	tooling.Register(tooling.Tool{
		Name:        "demo.host_status",
		Title:       "Host status",
		Description: "Reports on the host process: uptime since the tools were initialised, goroutine count, Go version, operating system, architecture and CPU count. Reads host state and changes nothing.",
		Output:      hostStatusOutput,
		Meta: tooling.Meta{
			Concurrency: tooling.ReadOnly,
			Effects:     tooling.EffectRead,
			Tags:        []string{"demo", "host"},
			Version:     "1.0.0",
		},
		Run: runHostStatus,
	})
}

func runHostStatus(context.Context, tooling.Call) (any, error) {
	up := time.Since(initialised)
	return hostStatus{
		UptimeSeconds: math.Round(up.Seconds()*1000) / 1000,
		Uptime:        humanDuration(up),
		Goroutines:    runtime.NumGoroutine(),
		GoVersion:     runtime.Version(),
		OS:            runtime.GOOS,
		Arch:          runtime.GOARCH,
		NumCPU:        runtime.NumCPU(),
	}, nil
}

// humanDuration rounds d to the second, or to the millisecond under a
// second, so that a fresh host does not report "0s".
func humanDuration(d time.Duration) string {
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}
