package mcp

import "testing"

// The message of a failed remote call does not repeat the code tool_error
// that the call's own code says (a toolexplorer server's text starts with
// it); other codes it names stay, as do other servers' words.
func TestRemoteErrorText(t *testing.T) {
	for in, want := range map[string]string{
		"tool_error: demo failure requested":          "demo failure requested",
		"consent_required: demo.kv_put needs consent": "consent_required: demo.kv_put needs consent",
		"the disk is full":                            "the disk is full",
		"":                                            "the server reported an error and said nothing more",
	} {
		if got := remoteErrorText(in); got != want {
			t.Errorf("remoteErrorText(%q) = %q, want %q", in, got, want)
		}
	}
}
