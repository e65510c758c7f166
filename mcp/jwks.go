package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

const (
	// keysMinRefresh is the least time between two fetches of the issuer's
	// keys: a flood of tokens with unknown key ids fetches once.
	keysMinRefresh = 30 * time.Second
	// keysMaxAge is how long fetched keys are trusted before they are
	// fetched again, so that a key the issuer withdrew stops working.
	keysMaxAge = time.Hour
	// keysMaxBytes bounds a key set or metadata document.
	keysMaxBytes = 1 << 20
)

// keySet is the issuer's signing keys, fetched when first needed, again
// when a token names a key id it does not hold (a rotation) and when they
// are older than keysMaxAge; fetches are at least keysMinRefresh apart.
// Lookups of known keys take no lock.
type keySet struct {
	issuer, url string // url "": discovered from the issuer's metadata
	client      *http.Client
	now         func() time.Time

	cur atomic.Pointer[fetchedKeys]

	mu      sync.Mutex // serializes fetches
	tried   time.Time  // when a fetch was last tried
	failure error      // why it failed, nil when it did not
}

type fetchedKeys struct {
	at   time.Time
	keys []jose.JSONWebKey
}

// find returns the keys that may have signed a token naming kid (all keys
// when it names none) with alg.
func (f *fetchedKeys) find(kid, alg string) []jose.JSONWebKey {
	var out []jose.JSONWebKey
	for _, k := range f.keys {
		if (kid == "" || k.KeyID == kid) && (k.Algorithm == "" || k.Algorithm == alg) {
			out = append(out, k)
		}
	}
	return out
}

// lookup returns the keys to check a token signed with kid and alg, and
// the set they are from.
func (ks *keySet) lookup(ctx context.Context, kid, alg string) ([]jose.JSONWebKey, *fetchedKeys, error) {
	if f := ks.cur.Load(); f != nil && ks.now().Sub(f.at) < keysMaxAge {
		if keys := f.find(kid, alg); len(keys) > 0 {
			return keys, f, nil
		}
	}
	return ks.refresh(ctx, kid, alg)
}

// refresh is lookup when the keys at hand do not do: it fetches them
// again unless the last try is too recent.
func (ks *keySet) refresh(ctx context.Context, kid, alg string) ([]jose.JSONWebKey, *fetchedKeys, error) {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	now := ks.now()
	f := ks.cur.Load()
	var keys []jose.JSONWebKey
	if f != nil {
		keys = f.find(kid, alg)
		if len(keys) > 0 && now.Sub(f.at) < keysMaxAge {
			return keys, f, nil // fetched while this lookup waited
		}
	}
	if !ks.tried.IsZero() && now.Sub(ks.tried) < keysMinRefresh {
		if len(keys) > 0 {
			return keys, f, nil // old, but not to be fetched again yet
		}
		if ks.failure != nil {
			return nil, nil, ks.failure
		}
		return nil, nil, fmt.Errorf("%w: signed with key %q, which the issuer does not publish", auth.ErrInvalidToken, kid)
	}
	ks.tried = now
	// The fetch outlives a client that goes away: others wait for it.
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	fetched, err := ks.fetch(fctx)
	ks.failure = err
	if err != nil {
		if len(keys) > 0 {
			return keys, f, nil // the issuer is down: its keys stay trusted
		}
		return nil, nil, err
	}
	f = &fetchedKeys{at: now, keys: fetched}
	ks.cur.Store(f)
	if keys = f.find(kid, alg); len(keys) == 0 {
		return nil, nil, fmt.Errorf("%w: signed with key %q, which the issuer does not publish", auth.ErrInvalidToken, kid)
	}
	return keys, f, nil
}

// fetch reads the issuer's key set: its public signing keys.
func (ks *keySet) fetch(ctx context.Context) ([]jose.JSONWebKey, error) {
	u := ks.url
	if u == "" {
		meta, err := auth.GetAuthServerMetadata(ctx, ks.issuer, ks.client)
		if err != nil {
			return nil, fmt.Errorf("mcp: the metadata of issuer %s: %v", ks.issuer, err)
		}
		if meta == nil || meta.JWKSURI == "" {
			return nil, fmt.Errorf("mcp: issuer %s publishes no metadata with a jwks_uri", ks.issuer)
		}
		u = meta.JWKSURI
		ks.url = u // under ks.mu
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("mcp: the keys of issuer %s: %v", ks.issuer, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := ks.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("mcp: the keys of issuer %s: %v", ks.issuer, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("mcp: the keys of issuer %s: %s answered %s", ks.issuer, u, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, keysMaxBytes+1))
	if err == nil && len(body) > keysMaxBytes {
		err = errors.New("larger than 1 MiB")
	}
	var doc jwksDocument
	if err == nil {
		err = json.Unmarshal(body, &doc)
	}
	if err != nil {
		return nil, fmt.Errorf("mcp: the keys of issuer %s at %s: %v", ks.issuer, u, err)
	}
	var keys []jose.JSONWebKey
	for _, raw := range doc.Keys {
		var k jose.JSONWebKey
		if k.UnmarshalJSON(raw) != nil || !k.Valid() || !k.IsPublic() || (k.Use != "" && k.Use != "sig") {
			continue // a key of a kind not for signatures, or private
		}
		keys = append(keys, k)
	}
	return keys, nil
}
