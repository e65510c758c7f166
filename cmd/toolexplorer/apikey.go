package main

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"

	"github.com/toolexplorer/toolexplorer/mcp"
)

var apikeyCommand = &command{
	name:     "apikey",
	args:     "NAME [flags]",
	summary:  "make an API key for serve --http and the config entry that accepts it",
	noConfig: true,
	help: `Makes a random API key (256 bits) and prints it, then the entry of the
config's serve.api_keys that accepts it: its SHA-256 digest, never the
key, and who calls with it (--subject, default NAME; --tenant, on whose behalf;
--role).
Give the key to the client, which sends 'Authorization: Bearer KEY'; the
key is not kept anywhere and cannot be printed again.

The digest of a key made otherwise: printf %s "$KEY" | sha256sum.

Example:

  $ toolexplorer apikey ci --tenant acme --role reader

Exit status: 0 on success, 2 for a usage error.
`,
	setup: func(fs *flag.FlagSet) func(a *app, args []string) int {
		var (
			subject string
			roles   stringList
		)
		fs.StringVar(&subject, "subject", "", "who calls with the key, `S` (default NAME)")
		fs.Var(&roles, "role", "a role `R` of the key's caller (repeat or separate with commas)")
		return func(a *app, args []string) int {
			if len(args) != 1 || args[0] == "" {
				return a.usageError("apikey", "want one NAME, the key's name in serve.api_keys")
			}
			var b [32]byte
			_, _ = rand.Read(b[:]) // never fails (crypto/rand)
			key := "tx_" + base64.RawURLEncoding.EncodeToString(b[:])
			entry := map[string]any{"sha256": mcp.APIKeyDigest(key)}
			if subject != "" {
				entry["subject"] = subject
			}
			if tenant := a.flagTenant; tenant != "" {
				entry["tenant"] = tenant
			}
			if len(roles) > 0 {
				entry["roles"] = []string(roles)
			}
			out, _ := json.MarshalIndent(map[string]any{"serve": map[string]any{"api_keys": map[string]any{args[0]: entry}}}, "", "  ")
			fmt.Fprintf(a.stdout, "key: %s\n\nconfig:\n%s\n", key, out)
			return exitOK
		}
	},
}
