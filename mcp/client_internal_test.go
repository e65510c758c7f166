package mcp

import "testing"

func TestRemoteName(t *testing.T) {
	taken := map[string]bool{"s.get_sum": true}
	for remote, want := range map[string]string{
		"echo": "s.echo", "getTinyImage": "s.get_tiny_image", "get-sum": "s.get_sum_2", "fs.read_file": "s.fs_read_file",
		"2fa": "s.t_2fa", "__x__": "s.x", "---": "s.t",
	} {
		if got := remoteName("s", remote, taken); got != want {
			t.Errorf("remoteName(%q) = %q, want %q", remote, got, want)
		}
	}
}
