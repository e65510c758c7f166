package bindings

import (
	"context"
	"time"
)

// This file is the contract between the loader (which reads tools files,
// resolves sources and credentials, and wraps each binding in a governed
// tooling.Tool with shadow mode, retries and the ledger) and the three kinds
// of binding (http.go, sql.go, queue.go), each of which turns its part of a
// file into a binding.

// Pos is where something was declared: the file and its 1-based line.
type Pos struct {
	File string
	Line int
}

// Input is what a binding may know of its tool's input schema when it is
// compiled: the top-level properties, each with its JSON Schema type ("" when
// the schema gives none or several), and the required ones.
type Input struct {
	Properties map[string]string
	Required   []string
}

// Env resolves a credential's variable, as os.LookupEnv does. The loader
// gives bindings an Env that also reads the env file named in config.
type Env func(name string) (string, bool)

// Request is one call of a file tool as its binding sees it, after the
// registry has validated the arguments (numbers are json.Number, defaults
// filled).
type Request struct {
	Tool string
	Args map[string]any
	// Shadow: build everything the binding would send and return it as the
	// output, without sending it (SQL: run in a transaction rolled back).
	Shadow bool
	// IdempotencyKey is the caller's key, "" when none; HTTP sends it as
	// Idempotency-Key, NATS as the message id.
	IdempotencyKey string
	// Env resolves the ${NAME} references of the binding and its source at
	// call time. A reference with no value and no default fails the call
	// with a *MissingEnvError.
	Env Env
}

// Outcome is what one attempt of a binding did.
type Outcome struct {
	// Output is the tool's output: the mapped response, the rows, the
	// published message's id, or in shadow mode what would have been sent
	// (secrets shown as ${NAME}, never their values).
	Output any
	// Status says how it ended in the binding's terms: "200 OK", "3 rows",
	// "published 1-0", "shadow".
	Status string
	// ResponseBytes is the size of what came back, for the ledger.
	ResponseBytes int
	// Effects are the side effects of the call as the binding saw them,
	// for the ledger (its record's effects): "host" (host:port called),
	// "method" and "bytes_sent" of a request; "statement_sha256" (of the
	// statement's text) and "rows" (rows read or changed) of a statement;
	// "stream" or "subject", and "bytes" of a published message. Never
	// content. Nil for a shadow call, which sends nothing.
	Effects map[string]string
}

// A kind of binding provides, in its own file:
//
//	type XSource struct{ ... }   // the source's fields in a tools file (yaml tags)
//	type XBinding struct{ ... }  // the binding's fields, with Source string `yaml:"source"`
//	func openX(name string, s *XSource) (xSource, error)
//	    // checks the source; no I/O (credentials are resolved at call time,
//	    // connections made on first use); the result has close() error
//	func compileX(b *XBinding, src xSource, in Input) (binding, error)
//	    // checks the binding against its source and the tool's input; an
//	    // error names the field ("path: {id} is not a property of the input"),
//	    // the loader adds the file and line
//
// BindingSpec and SourceSpec (spec.go) hold one pointer per kind.

// binding is a compiled binding of one tool.
type binding interface {
	// kind is "http", "sql" or "queue".
	kind() string
	// source is the name of the source it uses.
	source() string
	// writes reports whether a call changes state: an HTTP method other
	// than GET, HEAD or OPTIONS, a statement that is not read-only, a
	// publish. A tool whose binding writes cannot declare only read effects.
	writes() bool
	// do makes one attempt. An error the loader may retry (connection
	// refused or reset, a timeout, HTTP 429 or 5xx) is a *TransientError.
	do(ctx context.Context, req *Request) (Outcome, error)
	// close releases what the binding holds of its own (connections are the
	// source's).
	close() error
}

// TransientError is a failure worth another attempt: the loader retries it
// with exponential backoff and jitter, within the call's deadline, when
// the call may be repeated (a read, an idempotent tool, or a call with an
// idempotency key), waiting at least After (a Retry-After) when set.
type TransientError struct {
	Err   error
	After time.Duration
}

func (e *TransientError) Error() string { return e.Err.Error() }
func (e *TransientError) Unwrap() error { return e.Err }

// MissingEnvError is a ${NAME} reference with no value and no default: the
// call fails as unavailable, naming the variable and never a value.
type MissingEnvError struct{ Name string }

func (e *MissingEnvError) Error() string {
	return "environment variable " + e.Name + " is not set"
}
