package demotools_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

type hostStatus struct {
	UptimeSeconds float64 `json:"uptime_seconds"`
	Uptime        string  `json:"uptime"`
	Goroutines    int     `json:"goroutines"`
	GoVersion     string  `json:"go_version"`
	OS            string  `json:"os"`
	Arch          string  `json:"arch"`
	NumCPU        int     `json:"num_cpu"`
}

func TestHostStatus(t *testing.T) {
	tests := []struct {
		name string
		args string
		code codes.Code
	}{
		{name: "no arguments", args: ``},
		{name: "empty object", args: `{}`},
		{name: "null", args: `null`},
		{name: "unknown argument", args: `{"verbose":true}`, code: codes.ValidationError},
	}
	var prev float64
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, _ := execute(t, "demo.host_status", tt.args, tt.code)
			if tt.code != codes.OK {
				return
			}
			var s hostStatus
			decodeOutput(t, res, &s)
			if s.UptimeSeconds < prev {
				t.Errorf("uptime went back from %v to %v", prev, s.UptimeSeconds)
			}
			prev = s.UptimeSeconds
			if s.UptimeSeconds < 0 || s.UptimeSeconds > time.Hour.Seconds() {
				t.Errorf("uptime_seconds = %v, want within the test run", s.UptimeSeconds)
			}
			if _, err := time.ParseDuration(s.Uptime); err != nil {
				t.Errorf("uptime = %q: %v", s.Uptime, err)
			}
			if s.Goroutines < 2 { // the caller and the tool at least
				t.Errorf("goroutines = %d", s.Goroutines)
			}
			if s.GoVersion != runtime.Version() || s.OS != runtime.GOOS || s.Arch != runtime.GOARCH || s.NumCPU != runtime.NumCPU() {
				t.Errorf("got %+v, want go %s on %s/%s with %d CPUs", s, runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
			}
		})
	}
}
