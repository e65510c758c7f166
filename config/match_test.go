package config

import "testing"

func TestMatch(t *testing.T) {
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"demo.echo", "demo.echo", true},
		{"demo.echo", "demo.echo2", false},
		{"demo.echo", "demo", false},
		{"demo.echo", "demo.echo.x", false},
		{"demo.*", "demo.echo", true},
		{"demo.*", "demo.sub.echo", true},
		{"demo.*", "demo", false},
		{"demo.*", "demos.echo", false},
		{"demo.*", "fs.read", false},
		{"*", "demo.echo", true},
		{"*", "a.b.c", true},
		{"*.read", "fs.read", true},
		{"*.read", "net.read", true},
		{"*.read", "fs.read_file", false},
		{"*.read", "a.fs.read", false},
		{"*.*", "demo.echo", true},
		{"demo.*.get", "demo.http.get", true},
		{"demo.*.get", "demo.http.put", false},
		{"demo.e*", "demo.echo", false},
		{"demo.e*", "demo.e*", true},
		{"", "demo.echo", false},
		{"*", "", false},
		{"demo.*", "demo.", false},
		{"*", "demo..echo", false},
	}
	for _, tt := range tests {
		if got := Match(tt.pattern, tt.name); got != tt.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tt.pattern, tt.name, got, tt.want)
		}
	}
}

func TestValidNameAndPattern(t *testing.T) {
	tests := []struct {
		s             string
		name, pattern bool
	}{
		{"demo.echo", true, true},
		{"fs.read_file", true, true},
		{"net.http_get2", true, true},
		{"a.b.c", true, true},
		{"demo.*", false, true},
		{"*.read", false, true},
		{"*.*", false, true},
		{"*", false, true},
		{"demo.*.get", false, true},
		{"demo", false, false},
		{"", false, false},
		{"Demo.echo", false, false},
		{"demo.Echo", false, false},
		{"demo.read__file", false, false},
		{"demo.read_", false, false},
		{"demo._read", false, false},
		{"demo.1read", false, false},
		{"demo.", false, false},
		{".echo", false, false},
		{"demo..echo", false, false},
		{"demo.e*", false, false},
		{"**", false, false},
		{"demo.**", false, false},
		{"demo-x.echo", false, false},
		{" demo.echo", false, false},
		{"demo.echo\n", false, false},
	}
	for _, tt := range tests {
		if got := ValidName(tt.s); got != tt.name {
			t.Errorf("ValidName(%q) = %v, want %v", tt.s, got, tt.name)
		}
		if got := ValidPattern(tt.s); got != tt.pattern {
			t.Errorf("ValidPattern(%q) = %v, want %v", tt.s, got, tt.pattern)
		}
		if tt.name && !Match(tt.s, tt.s) {
			t.Errorf("Match(%q, %q) = false", tt.s, tt.s)
		}
	}
}
