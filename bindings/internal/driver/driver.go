package driver

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"sync"
)

// SQL is what a SQL driver package registers under the name a tools file
// gives as driver ("sqlite", "postgres").
type SQL struct {
	// Name is the database/sql driver name the package registered.
	Name string
	// Error reads an error of the driver: its message (the database's own
	// words, before redaction) and whether another attempt may get past it
	// (a busy database, a lost connection, a serialization failure). ok is
	// false for an error that is not the driver's.
	Error func(err error) (msg string, transient, ok bool)
	// Transient reports whether an error that no driver recognised as its
	// own is one of the driver's connection failures (nil: none).
	Transient func(err error) bool
}

// Message is one queue message, built from a call's arguments.
type Message struct {
	Stream, Subject string
	MaxLen          int64
	Body            []byte      // the JSON message
	Headers         [][2]string // name, value; in a stable order
	// ID is the caller's idempotency key, "" when none.
	ID string
}

// Published is what a publish did: bindings.Outcome's shape.
type Published struct {
	Output        any
	Status        string
	ResponseBytes int
}

// TransientError is a failure another attempt may get past; package
// bindings reports it as its own TransientError.
type TransientError struct{ Err error }

func (e *TransientError) Error() string { return e.Err.Error() }
func (e *TransientError) Unwrap() error { return e.Err }

// Publisher is a connection to one queue server, safe for concurrent use.
type Publisher interface {
	Publish(ctx context.Context, m *Message) (Published, error)
	// Broken reports a client that will not work again.
	Broken() bool
	Close() error
}

// Queue is what a queue client package registers under the name a tools
// file gives as provider ("redis", "nats").
type Queue struct {
	// Schemes are the URL schemes it takes ("redis://").
	Schemes []string
	// Dial makes a client for url (resolved, credentials included).
	Dial func(ctx context.Context, url string) (Publisher, error)
}

var (
	mu     sync.RWMutex
	sqls   = map[string]SQL{}
	queues = map[string]Queue{}
)

// RegisterSQL makes a SQL driver available under name. It panics on a
// duplicate, or when d.Name is not a registered database/sql driver.
func RegisterSQL(name string, d SQL) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := sqls[name]; dup {
		panic(fmt.Sprintf("bindings: SQL driver %q registered twice", name))
	}
	found := false
	for _, n := range sql.Drivers() {
		found = found || n == d.Name
	}
	if !found {
		panic(fmt.Sprintf("bindings: SQL driver %q: no database/sql driver named %q", name, d.Name))
	}
	sqls[name] = d
}

// RegisterQueue makes a queue provider available under name. It panics on
// a duplicate.
func RegisterQueue(name string, q Queue) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := queues[name]; dup {
		panic(fmt.Sprintf("bindings: queue provider %q registered twice", name))
	}
	queues[name] = q
}

// LookupSQL returns the SQL driver registered under name.
func LookupSQL(name string) (SQL, bool) {
	mu.RLock()
	defer mu.RUnlock()
	d, ok := sqls[name]
	return d, ok
}

// SQLs returns every registered SQL driver, sorted by name.
func SQLs() []SQL {
	mu.RLock()
	defer mu.RUnlock()
	names := make([]string, 0, len(sqls))
	for n := range sqls {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]SQL, len(names))
	for i, n := range names {
		out[i] = sqls[n]
	}
	return out
}

// LookupQueue returns the queue provider registered under name.
func LookupQueue(name string) (Queue, bool) {
	mu.RLock()
	defer mu.RUnlock()
	q, ok := queues[name]
	return q, ok
}
