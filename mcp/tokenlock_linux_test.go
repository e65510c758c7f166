package mcp

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/oauth2"
)

// TestRefreshWaitsForTheTokenFile: two processes keep their tokens in the
// same file and the authorization server rotates refresh tokens. While
// one refreshes (it holds the file's lock), the other, whose access token
// expired too, waits for it instead of sending the same refresh token (a
// rotating server would refuse it and the user would have to sign in
// again), then takes up the tokens the first kept, without a refresh of
// its own.
func TestRefreshWaitsForTheTokenFile(t *testing.T) {
	var refreshes atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		refreshes.Add(1)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"access_token": "mine", "token_type": "Bearer", "refresh_token": "r-mine", "expires_in": 3600})
	}))
	defer ts.Close()
	file := filepath.Join(t.TempDir(), "tokens.json")
	s := newSigner("docs", "https://mcp.example.com/mcp", OAuthClient{TokenFile: file})
	expired := kept{Endpoint: s.endpoint, ClientID: "c1", TokenURL: ts.URL,
		Token: &oauth2.Token{AccessToken: "old", RefreshToken: "r1", Expiry: time.Now().Add(-time.Hour)}}
	if err := s.save(expired); err != nil {
		t.Fatal(err)
	}
	ks := &keptSource{s: s, k: expired}

	// The other process: it holds the lock while it refreshes.
	other, err := os.OpenFile(file+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := lockFile(other); err != nil {
		t.Fatal(err)
	}
	type got struct {
		tok *oauth2.Token
		err error
	}
	done := make(chan got, 1)
	go func() {
		tok, err := ks.Token()
		done <- got{tok, err}
	}()
	var st syscall.Stat_t
	if err := syscall.Stat(file+".lock", &st); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); !waitingOn(t, st.Ino); {
		if refreshes.Load() > 0 {
			other.Close()
			<-done
			t.Fatal("refreshed while another process held the token file's lock")
		}
		if time.Now().After(deadline) {
			t.Fatal("the refresh neither waited for the lock nor reached the token endpoint in a minute")
		}
		time.Sleep(time.Millisecond)
	}
	theirs := expired
	theirs.Token = &oauth2.Token{AccessToken: "theirs", RefreshToken: "r2", Expiry: time.Now().Add(time.Hour)}
	if err := s.save(theirs); err != nil {
		t.Fatal(err)
	}
	other.Close()
	g := <-done
	if g.err != nil || g.tok.AccessToken != "theirs" {
		t.Fatalf("after the wait: %+v, %v; want the tokens the other process kept", g.tok, g.err)
	}
	if n := refreshes.Load(); n != 0 {
		t.Errorf("%d refreshes: the tokens kept by the other process were not taken up", n)
	}
}

// waitingOn reports whether a process waits for a lock of the file whose
// inode is ino (a blocked request in /proc/locks).
func waitingOn(t *testing.T, ino uint64) bool {
	b, err := os.ReadFile("/proc/locks")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) > 6 && f[1] == "->" && strings.HasSuffix(f[6], fmt.Sprintf(":%d", ino)) {
			return true
		}
	}
	return false
}
