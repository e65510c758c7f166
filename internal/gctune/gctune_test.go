package gctune

import (
	"runtime/debug"
	"testing"
)

func TestForServing(t *testing.T) {
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)

	restore := ForServing(func(string) string { return "" })
	if got := debug.SetGCPercent(ServingPercent); got != ServingPercent {
		t.Errorf("GOGC unset: the collector runs at %d, want %d", got, ServingPercent)
	}
	restore()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("after restore: %d, want the 100 it found", got)
	}

	// GOGC set: what it says stands.
	debug.SetGCPercent(50)
	restore = ForServing(func(k string) string {
		if k == "GOGC" {
			return "50"
		}
		return ""
	})
	if got := debug.SetGCPercent(50); got != 50 {
		t.Errorf("GOGC=50: the collector runs at %d, want 50", got)
	}
	restore()
	if got := debug.SetGCPercent(100); got != 50 {
		t.Errorf("GOGC=50, after restore: %d, want 50", got)
	}
}
