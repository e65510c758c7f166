package mcp

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// BenchmarkVerify is the authentication of one request alone: an OAuth
// token checked from scratch with the issuer's keys cached (check), the
// same token checked again (verify: its times only), and an API key.
func BenchmarkVerify(b *testing.B) {
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		b.Fatal(err)
	}
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		b.Fatal(err)
	}
	const iss, aud = "https://as.example", "https://rs.example/mcp"
	a, err := newAuthenticator(HTTPOptions{
		APIKeys: []APIKey{{SHA256: APIKeyDigest("bench-key"), Principal: tooling.Principal{Subject: "bench"}}},
		OAuth:   &OAuth{Issuer: iss, Resource: aud, Scopes: []string{"tools:call"}, RolesClaim: "roles"},
	})
	if err != nil {
		b.Fatal(err)
	}
	a.oauth.keys.cur.Store(&fetchedKeys{at: time.Now(), keys: []jose.JSONWebKey{
		{Key: &rsaKey.PublicKey, KeyID: "rsa", Algorithm: "RS256", Use: "sig"},
		{Key: &ecKey.PublicKey, KeyID: "ec", Algorithm: "ES256", Use: "sig"},
	}})
	token := func(alg jose.SignatureAlgorithm, kid string, key any) string {
		sig, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: jose.JSONWebKey{Key: key, KeyID: kid}}, nil)
		if err != nil {
			b.Fatal(err)
		}
		now := time.Now()
		s, err := jwt.Signed(sig).Claims(map[string]any{"iss": iss, "aud": aud, "sub": "alice", "roles": []string{"support"},
			"scope": "tools:call", "iat": now.Unix(), "exp": now.Add(time.Hour).Unix()}).Serialize()
		if err != nil {
			b.Fatal(err)
		}
		return s
	}
	ctx := context.Background()
	for _, c := range []struct {
		name  string
		token string
		f     func(string) error
	}{
		{"jwt-rs256/check", token(jose.RS256, "rsa", rsaKey), func(t string) error { _, err := a.oauth.check(ctx, t); return err }},
		{"jwt-es256/check", token(jose.ES256, "ec", ecKey), func(t string) error { _, err := a.oauth.check(ctx, t); return err }},
		{"jwt-rs256/verify", token(jose.RS256, "rsa", rsaKey), func(t string) error { _, err := a.verify(ctx, t, nil); return err }},
		{"api_key/verify", "bench-key", func(t string) error { _, err := a.verify(ctx, t, nil); return err }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := c.f(c.token); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
