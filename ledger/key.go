package ledger

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// A key file holds "ed25519-seed BASE64" on one line (the 32-byte seed of
// the private key), mode 0600; beside it, KEY.pub holds "ed25519 BASE64"
// (the public key), which is all Verify needs.

// LoadKey reads the private key in the file at path, generating it (and
// its .pub beside it) when the file does not exist.
func LoadKey(path string) (ed25519.PrivateKey, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return generateKey(path)
	}
	if err != nil {
		return nil, fmt.Errorf("ledger: key: %w", err)
	}
	seed, err := parseKeyLine(b, "ed25519-seed", ed25519.SeedSize)
	if err != nil {
		return nil, fmt.Errorf("ledger: key %s: %w", path, err)
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("ledger: key %s: others may read it (mode %v): chmod 600 it", path, fi.Mode().Perm())
	}
	return ed25519.NewKeyFromSeed(seed), nil
}

func generateKey(path string) (ed25519.PrivateKey, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("ledger: key: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) { // another process made it first
		return LoadKey(path)
	}
	if err != nil {
		return nil, fmt.Errorf("ledger: key: %w", err)
	}
	_, err = fmt.Fprintf(f, "ed25519-seed %s\n", base64.StdEncoding.EncodeToString(priv.Seed()))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		pub := priv.Public().(ed25519.PublicKey)
		err = os.WriteFile(path+".pub", []byte("ed25519 "+base64.StdEncoding.EncodeToString(pub)+"\n"), 0o644)
	}
	if err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("ledger: key: %w", err)
	}
	return priv, nil
}

// LoadPublicKey reads a public key: a KEY.pub file ("ed25519 BASE64"), or a
// private key file, whose public half it returns.
func LoadPublicKey(path string) (ed25519.PublicKey, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("ledger: key: %w", err)
	}
	if bytes.HasPrefix(b, []byte("ed25519-seed ")) {
		priv, err := LoadKey(path)
		if err != nil {
			return nil, err
		}
		return priv.Public().(ed25519.PublicKey), nil
	}
	pub, err := parseKeyLine(b, "ed25519", ed25519.PublicKeySize)
	if err != nil {
		return nil, fmt.Errorf("ledger: key %s: %w", path, err)
	}
	return ed25519.PublicKey(pub), nil
}

func parseKeyLine(b []byte, tag string, size int) ([]byte, error) {
	kind, text, ok := strings.Cut(strings.TrimSpace(string(b)), " ")
	if !ok || kind != tag {
		return nil, fmt.Errorf("not a key file: want a line %q", tag+" BASE64")
	}
	raw, err := base64.StdEncoding.DecodeString(text)
	if err != nil || len(raw) != size {
		return nil, errors.New("the key is not " + strconv.Itoa(size) + " bytes of base64")
	}
	return raw, nil
}

// fingerprint names a public key: the first 16 hex digits of its SHA-256.
func fingerprint(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return hex.EncodeToString(sum[:8])
}

// checkpointMessage is what a checkpoint or a head signs.
func checkpointMessage(kind string, seq uint64, hash string) []byte {
	return []byte("toolexplorer-ledger-" + kind + "-v1\n" + strconv.FormatUint(seq, 10) + "\n" + hash + "\n")
}
