package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/toolexplorer/toolexplorer/examples"
)

// The demo shop is what --demo starts for examples/tools/shop.yaml: its
// SQLite database, in the user's cache directory, and its HTTP API on
// loopback. Both exist so that every kind of file tool runs on a fresh
// machine with no network.

// demoShopAddr is where the demo API listens; shop.yaml names it.
const demoShopAddr = "127.0.0.1:7411"

// demoShopFiles is the tools directory --demo loads when the working
// directory has it (the repository's root, where its files may be edited);
// elsewhere --demo loads the copy the binary embeds (demoToolsDir).
const demoShopFiles = "examples/tools"

// startDemoShop creates the database (once), sets SHOP_DB, serves the API
// and adds the tools directory. The returned stop ends the API. What fails
// is a warning: the Go demo tools run whatever happens.
func (a *app) startDemoShop() (stop func()) {
	stop = func() {}
	dir := demoShopFiles
	if _, err := os.Stat(dir); err != nil {
		if dir, err = demoToolsDir(); err != nil {
			a.demoProblem("the demo's tools files: %v", err)
			return stop
		}
	}
	a.flagToolDirs = append(a.flagToolDirs, dir)
	a.demo = true
	path, err := demoShopDB()
	if err != nil {
		a.demoProblem("the demo shop's database: %v", err)
	} else if err := os.Setenv("SHOP_DB", path); err != nil {
		a.demoProblem("SHOP_DB: %v", err)
	}
	ln, err := net.Listen("tcp", demoShopAddr)
	if err != nil {
		a.demoProblem("the demo shop's API cannot listen on %s (its HTTP tools reach whatever does, such as another demo, or fail): %v", demoShopAddr, err)
		return stop
	}
	srv := &http.Server{Handler: demoShopAPI(), ReadHeaderTimeout: 5 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln)
	}()
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-done
	}
}

func (a *app) demoProblem(format string, args ...any) {
	msg := "demo: " + fmt.Sprintf(format, args...)
	a.toolProblems = append(a.toolProblems, msg)
	fmt.Fprintf(a.stderr, "toolexplorer: warning: %s\n", msg)
}

// demoCacheDir is toolexplorer's directory in the user's cache directory
// (or the temporary directory), made if missing.
func demoCacheDir() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	dir = filepath.Join(dir, "toolexplorer")
	return dir, os.MkdirAll(dir, 0o700)
}

// demoToolsDir writes the tools files the binary embeds to demo-tools in
// the cache directory, each replaced whole (a console starting beside
// another never reads half a file), and returns the directory.
func demoToolsDir() (string, error) {
	cache, err := demoCacheDir()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(cache, "demo-tools")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	files, err := fs.Glob(examples.Tools, "tools/*.yaml")
	if err != nil {
		return "", err
	}
	for _, name := range files {
		data, err := examples.Tools.ReadFile(name)
		if err != nil {
			return "", err
		}
		tmp, err := os.CreateTemp(dir, ".demo-*")
		if err != nil {
			return "", err
		}
		_, err = tmp.Write(data)
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(tmp.Name(), filepath.Join(dir, path.Base(name)))
		}
		if err != nil {
			os.Remove(tmp.Name())
			return "", err
		}
	}
	return dir, nil
}

// demoShopDB creates the shop's database in the cache directory unless it
// exists, and returns its path.
func demoShopDB() (string, error) {
	dir, err := demoCacheDir()
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "demo-shop.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return "", err
	}
	defer db.Close()
	_, err = db.Exec(`
CREATE TABLE IF NOT EXISTS products (id INTEGER PRIMARY KEY, name TEXT NOT NULL, price_cents INTEGER NOT NULL, stock INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS orders (id INTEGER PRIMARY KEY, product_id INTEGER NOT NULL REFERENCES products(id), quantity INTEGER NOT NULL CHECK (quantity > 0), placed_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP);
INSERT OR IGNORE INTO products (id, name, price_cents, stock) VALUES
  (1, 'Espresso cup', 650, 40), (2, 'Pour-over kettle', 3900, 12), (3, 'Burr grinder', 12900, 5),
  (4, 'Paper filters (100)', 450, 200), (5, 'Scale', 2450, 0), (6, 'Beans, 1 kg', 2200, 31);`)
	if err != nil {
		return "", err
	}
	return path, nil
}

// demoShopAPI serves GET /api/shipping/{country}?weight=GRAMS and POST
// /api/tickets; it asks for the demo bearer token.
func demoShopAPI() http.Handler {
	var tickets atomic.Int64
	mux := http.NewServeMux()
	reply := func(w http.ResponseWriter, status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(v)
	}
	authorized := func(w http.ResponseWriter, r *http.Request) bool {
		if !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") {
			reply(w, http.StatusUnauthorized, map[string]string{"error": "a bearer token is required"})
			return false
		}
		return true
	}
	mux.HandleFunc("GET /api/shipping/{country}", func(w http.ResponseWriter, r *http.Request) {
		if !authorized(w, r) {
			return
		}
		country := r.PathValue("country")
		grams, err := strconv.Atoi(r.URL.Query().Get("weight"))
		if err != nil || grams <= 0 {
			reply(w, http.StatusBadRequest, map[string]string{"error": "weight: want grams, a positive whole number"})
			return
		}
		days, base := 2, 490
		if country != "FR" {
			days, base = 5, 1290
		}
		reply(w, http.StatusOK, map[string]any{"country": country, "weight_grams": grams, "days": days, "price_cents": base + grams/100*35})
	})
	mux.HandleFunc("POST /api/tickets", func(w http.ResponseWriter, r *http.Request) {
		if !authorized(w, r) {
			return
		}
		var t struct {
			Subject string `json:"subject"`
			OrderID *int64 `json:"order_id"`
		}
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&t); err != nil || strings.TrimSpace(t.Subject) == "" {
			reply(w, http.StatusBadRequest, map[string]string{"error": errors.Join(err, errors.New("subject: required")).Error()})
			return
		}
		n := tickets.Add(1)
		reply(w, http.StatusCreated, map[string]any{"ticket": map[string]any{"id": n, "subject": t.Subject, "order_id": t.OrderID, "status": "open"}})
	})
	return mux
}
