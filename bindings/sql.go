package bindings

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/toolexplorer/toolexplorer/bindings/internal/driver"
)

// SQLSource is a SQL database in a tools file.
type SQLSource struct {
	// Driver is "sqlite" (embedded, pure Go) or "postgres"; the program
	// links it by importing bindings/sqlite or bindings/postgres.
	Driver string `yaml:"driver" json:"driver"`
	// DSN says which database: for sqlite a file path, or "file:PATH?..."
	// with the driver's parameters; for postgres a URL or key=value
	// string. ${NAME} and ${NAME:-default} are resolved when a call needs
	// the connection, never written anywhere. An in-memory SQLite database
	// is refused: each connection would see its own.
	DSN string `yaml:"dsn" json:"dsn"`
	// MaxOpenConns caps the open connections of the source. Zero: 10 for
	// postgres; 4 readers for sqlite. A SQLite source also keeps one
	// connection for its writes: SQLite takes one writer at a time.
	MaxOpenConns int `yaml:"max_open_conns,omitempty" json:"max_open_conns,omitempty"`
	// MaxIdleConns caps the connections kept open between calls. Zero: as
	// many as MaxOpenConns.
	MaxIdleConns int `yaml:"max_idle_conns,omitempty" json:"max_idle_conns,omitempty"`
}

// SQLBinding is a tool's SQL statement in a tools file.
type SQLBinding struct {
	// Source names the source, one of the file's sources of this kind.
	Source string `yaml:"source" json:"source"`
	// Statement is one SQL statement. Values enter it only as :name
	// placeholders, each a property of the tool's input (an absent one is
	// NULL), bound by the driver; text interpolation is refused.
	Statement string `yaml:"statement" json:"statement"`
	// ReadOnly runs the statement where a write fails: in a READ ONLY
	// transaction on PostgreSQL, on a query_only connection on SQLite.
	// Zero: the statement may write, and the tool is a write.
	ReadOnly bool `yaml:"read_only,omitempty" json:"read_only,omitempty"`
	// MaxRows caps the rows returned; the output says when it cut. Zero:
	// 1000.
	MaxRows int `yaml:"max_rows,omitempty" json:"max_rows,omitempty"`
}

// defaultMaxRows is a binding's MaxRows when it gives none.
const defaultMaxRows = 1000

// sqlSource is an opened SQL source: its pools, opened on first use with
// the DSN resolved then, and shared by every tool of the source.
type sqlSource struct {
	name    string
	driver  string // "sqlite" or "postgres"
	dsn     string // with its ${NAME} references
	vars    []string
	maxOpen int
	maxIdle int

	mu     sync.Mutex
	closed bool
	cur    atomic.Pointer[sqlPools]
	old    sync.WaitGroup // pools replaced after the DSN changed, closing
}

// sqlPools are a source's connections for one resolved DSN. A SQLite source
// reads through ro, whose connections are query_only, and writes through
// rw; a PostgreSQL source uses rw for both.
type sqlPools struct {
	key    string // the resolved DSN
	rw, ro *sql.DB
	redact secrets  // the DSN's credentials, for its errors
	stmts  sync.Map // stmtKey → *sql.Stmt
}

// stmtKey names a binding's statement prepared on one of the pools.
type stmtKey struct {
	b  *sqlBinding
	db *sql.DB
}

// stmt returns the binding's statement prepared on db, preparing it on
// first use: database/sql then keeps it prepared on each connection that
// runs it, so a call does not parse the statement again.
func (p *sqlPools) stmt(ctx context.Context, b *sqlBinding, db *sql.DB) (*sql.Stmt, error) {
	k := stmtKey{b, db}
	if s, ok := p.stmts.Load(k); ok {
		return s.(*sql.Stmt), nil
	}
	s, err := db.PrepareContext(ctx, b.st.text)
	if err != nil {
		return nil, err
	}
	if prev, loaded := p.stmts.LoadOrStore(k, s); loaded {
		s.Close()
		return prev.(*sql.Stmt), nil
	}
	return s, nil
}

// openSQL checks a SQL source. It does no I/O: the pools are opened by the
// first call.
func openSQL(name string, s *SQLSource) (*sqlSource, error) {
	src := &sqlSource{name: name, driver: s.Driver, dsn: s.DSN, maxOpen: s.MaxOpenConns, maxIdle: s.MaxIdleConns}
	switch s.Driver {
	case "sqlite":
		if src.maxOpen == 0 {
			src.maxOpen = 4
		}
		lower := strings.ToLower(s.DSN)
		if lower == ":memory:" || strings.HasPrefix(lower, "file::memory:") || strings.Contains(lower, "mode=memory") {
			return nil, fmt.Errorf("dsn: an in-memory SQLite database is private to one connection: use a file")
		}
	case "postgres":
		if src.maxOpen == 0 {
			src.maxOpen = 10
		}
	}
	switch s.Driver {
	case "sqlite", "postgres":
		if _, ok := driver.LookupSQL(s.Driver); !ok {
			return nil, notLinked("driver", s.Driver)
		}
	case "":
		return nil, fmt.Errorf("driver: missing: sqlite or postgres")
	default:
		return nil, fmt.Errorf("driver: %q is not a SQL driver: sqlite or postgres", s.Driver)
	}
	if strings.TrimSpace(s.DSN) == "" {
		return nil, fmt.Errorf("dsn: missing")
	}
	if src.maxOpen < 0 || src.maxIdle < 0 {
		return nil, fmt.Errorf("max_open_conns, max_idle_conns: must not be negative")
	}
	if src.maxIdle == 0 || src.maxIdle > src.maxOpen {
		src.maxIdle = src.maxOpen
	}
	src.vars, _ = envVars(s.DSN)
	return src, nil
}

// pools returns the source's pools for the DSN as env resolves it now,
// opening them on first use; when the resolved DSN has changed (a rotated
// password), new pools replace the old, which close once their calls end.
func (s *sqlSource) pools(env Env) (*sqlPools, error) {
	if env == nil {
		env = os.LookupEnv
	}
	key, err := expand(s.dsn, env)
	if err != nil {
		return nil, err
	}
	if p := s.cur.Load(); p != nil && p.key == key {
		return p, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, fmt.Errorf("sql: source %s is closed", s.name)
	}
	if p := s.cur.Load(); p != nil && p.key == key {
		return p, nil
	}
	p := &sqlPools{key: key, redact: resolvedSecrets(s.vars, env)}
	if err := s.openPools(p); err != nil {
		return nil, err
	}
	if old := s.cur.Swap(p); old != nil {
		s.old.Go(old.close)
	}
	return p, nil
}

func (s *sqlSource) openPools(p *sqlPools) error {
	var err error
	switch s.driver {
	case "postgres":
		p.rw, err = sql.Open("pgx", p.key)
		if err != nil {
			return fmt.Errorf("sql: source %s: %s", s.name, p.redact.redact(err.Error()))
		}
		p.rw.SetMaxOpenConns(s.maxOpen)
		p.rw.SetMaxIdleConns(s.maxIdle)
	default:
		rw, err1 := sqliteDSN(p.key, false)
		ro, err2 := sqliteDSN(p.key, true)
		if err1 != nil || err2 != nil {
			return fmt.Errorf("sql: source %s: the dsn's parameters cannot be read", s.name)
		}
		// sql.Open of a registered driver fails only for an unknown
		// driver name.
		p.rw, _ = sql.Open("sqlite", rw)
		p.rw.SetMaxOpenConns(1)
		p.ro, _ = sql.Open("sqlite", ro)
		p.ro.SetMaxOpenConns(s.maxOpen)
		p.ro.SetMaxIdleConns(s.maxIdle)
	}
	return nil
}

func (p *sqlPools) close() {
	p.rw.Close()
	if p.ro != nil {
		p.ro.Close()
	}
}

// close closes the source's pools, waiting for the calls that use them.
func (s *sqlSource) close() error {
	s.mu.Lock()
	s.closed = true
	p := s.cur.Swap(nil)
	s.mu.Unlock()
	if p != nil {
		p.close()
	}
	s.old.Wait()
	return nil
}

// sqliteDSN is a SQLite DSN with a busy timeout of 5 s unless it sets one,
// and for readers with query_only set: such a connection refuses to write,
// whatever the statement (the driver does not act on a read-only
// transaction).
func sqliteDSN(dsn string, readOnly bool) (string, error) {
	base, query, _ := strings.Cut(dsn, "?")
	q, err := url.ParseQuery(query)
	if err != nil {
		return "", err
	}
	busy := q.Has("_busy_timeout") || q.Has("_timeout")
	for _, p := range q["_pragma"] {
		busy = busy || strings.HasPrefix(strings.ToLower(strings.TrimSpace(p)), "busy_timeout")
	}
	if !busy {
		q.Set("_busy_timeout", "5000")
	}
	if readOnly {
		q.Set("_query_only", "1")
	}
	return base + "?" + q.Encode(), nil
}

// sqlBinding is a compiled SQL binding.
type sqlBinding struct {
	src       *sqlSource
	statement string // as written, for shadow output
	st        *sqlStatement
	types     []string // the JSON Schema type of each parameter
	readOnly  bool
	query     bool // the statement returns rows
	maxRows   int
	digest    string // SHA-256 of statement, for the ledger
}

// compileSQL checks a SQL binding against its source and the tool's input.
func compileSQL(b *SQLBinding, src *sqlSource, in Input) (binding, error) {
	if strings.TrimSpace(b.Statement) == "" {
		return nil, fmt.Errorf("statement: missing")
	}
	st, err := parseSQL(b.Statement, src.driver)
	if err != nil {
		return nil, fmt.Errorf("statement: %v", err)
	}
	if src.driver == "sqlite" {
		if why := sqliteStateChange(b.Statement); why != "" {
			return nil, fmt.Errorf("statement: %s", why)
		}
	}
	for _, m := range sqlBrace.FindAllStringSubmatch(b.Statement, -1) {
		if _, ok := in.Properties[m[1]]; ok {
			return nil, fmt.Errorf("statement: %q is text interpolation: pass the value as a :name placeholder", m[0])
		}
	}
	types := make([]string, len(st.params))
	for i, p := range st.params {
		t, ok := in.Properties[p]
		if !ok {
			return nil, fmt.Errorf("statement: :%s is not a property of the input", p)
		}
		types[i] = t
	}
	if b.MaxRows < 0 {
		return nil, fmt.Errorf("max_rows: must be positive")
	}
	bd := &sqlBinding{
		src: src, statement: b.Statement, st: st, types: types,
		readOnly: b.ReadOnly, maxRows: b.MaxRows,
		query: b.ReadOnly || st.returning || st.rows, digest: digestOf(b.Statement),
	}
	if bd.maxRows == 0 {
		bd.maxRows = defaultMaxRows
	}
	return bd, nil
}

func (b *sqlBinding) kind() string   { return "sql" }
func (b *sqlBinding) source() string { return b.src.name }
func (b *sqlBinding) writes() bool   { return !b.readOnly }

// close closes the binding's prepared statements; the pools are the
// source's.
func (b *sqlBinding) close() error {
	if p := b.src.cur.Load(); p != nil {
		for _, db := range []*sql.DB{p.rw, p.ro} {
			if st, ok := p.stmts.LoadAndDelete(stmtKey{b, db}); ok {
				st.(*sql.Stmt).Close()
			}
		}
	}
	return nil
}

// growStack grows the calling goroutine's stack to what the SQLite driver
// needs while little of it is in use, so that it is copied once, small:
// grown inside the driver, step by step, each growth copies the deep stack
// the driver has built so far, and a registry runs every call on a new
// goroutine. (n only keeps the compiler from dropping the frame.)
//
//go:noinline
func growStack(n int) byte {
	var pad [96 << 10]byte
	pad[n%len(pad)] = byte(n)
	return pad[(n*31)%len(pad)]
}

// do runs the statement once: a read-only one in a read-only transaction,
// a write as it is or, in shadow mode, in a transaction rolled back.
func (b *sqlBinding) do(ctx context.Context, req *Request) (Outcome, error) {
	growStack(len(req.Args))
	p, err := b.src.pools(req.Env)
	if err != nil {
		return Outcome{}, err
	}
	args, err := b.bind(req.Args)
	if err != nil {
		return Outcome{}, err
	}
	var out sqlOutput
	switch {
	case b.readOnly:
		err = b.read(ctx, p, args, &out)
	case req.Shadow:
		err = b.shadow(ctx, p, args, req.Args, &out)
	default:
		var st *sql.Stmt
		if st, err = p.stmt(ctx, b, p.rw); err == nil {
			err = b.write(ctx, st, args, &out)
		}
	}
	if err != nil {
		return Outcome{}, sqlError(err, p.redact)
	}
	js, err := out.appendJSON(make([]byte, 0, 64+2*out.size))
	if err != nil {
		return Outcome{}, err
	}
	o := Outcome{Output: json.RawMessage(js), Status: out.status(), ResponseBytes: out.size}
	if !out.Shadow {
		o.Effects = map[string]string{"statement_sha256": b.digest, "rows": strconv.Itoa(out.rows())}
	}
	if out.Shadow {
		// As an object, which the loader marks shadow without wrapping.
		var m map[string]any
		d := json.NewDecoder(bytes.NewReader(js))
		d.UseNumber()
		if err := d.Decode(&m); err != nil {
			return Outcome{}, err
		}
		o.Output = m
	}
	return o, nil
}

// read runs a read-only statement: on PostgreSQL in a READ ONLY
// transaction; on SQLite on a reader, whose connections are query_only and
// refuse every write (the driver does nothing of a read-only transaction,
// and the one statement runs in SQLite's own read transaction).
func (b *sqlBinding) read(ctx context.Context, p *sqlPools, args []any, out *sqlOutput) error {
	if p.ro != nil {
		st, err := p.stmt(ctx, b, p.ro)
		if err != nil {
			return err
		}
		rows, err := st.QueryContext(ctx, args...)
		if err != nil {
			return err
		}
		return b.scan(rows, out)
	}
	st, err := p.stmt(ctx, b, p.rw)
	if err != nil {
		return err
	}
	tx, err := p.rw.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	rows, err := tx.StmtContext(ctx, st).QueryContext(ctx, args...)
	if err != nil {
		return err
	}
	if err := b.scan(rows, out); err != nil {
		return err
	}
	return tx.Commit()
}

// write runs a statement that may write.
func (b *sqlBinding) write(ctx context.Context, st *sql.Stmt, args []any, out *sqlOutput) error {
	if b.query {
		rows, err := st.QueryContext(ctx, args...)
		if err != nil {
			return err
		}
		if err := b.scan(rows, out); err != nil {
			return err
		}
		if b.st.returning {
			n := int64(out.seen)
			out.RowsAffected = &n
		}
		return nil
	}
	res, err := st.ExecContext(ctx, args...)
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	out.RowsAffected = &n
	return nil
}

// shadow runs a write in a transaction that it rolls back, so the output
// shows what the write would change and nothing changes.
func (b *sqlBinding) shadow(ctx context.Context, p *sqlPools, args []any, given map[string]any, out *sqlOutput) error {
	st, err := p.stmt(ctx, b, p.rw)
	if err != nil {
		return err
	}
	tx, err := p.rw.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := b.write(ctx, tx.StmtContext(ctx, st), args, out); err != nil {
		return err
	}
	if err := tx.Rollback(); err != nil {
		return err
	}
	out.Shadow = true
	out.Statement = b.statement
	out.Params = make(map[string]any, len(b.st.params))
	for _, name := range b.st.params {
		out.Params[name] = given[name]
	}
	return nil
}

// bind turns the arguments into the statement's values, in placeholder
// order: numbers as int64 when they are integers, else float64; arrays and
// objects as JSON text; an absent argument as NULL.
func (b *sqlBinding) bind(given map[string]any) ([]any, error) {
	args := make([]any, len(b.st.params))
	for i, name := range b.st.params {
		v, err := bindValue(given[name], b.types[i])
		if err != nil {
			return nil, fmt.Errorf("sql: argument %s: %v", name, err)
		}
		args[i] = v
	}
	return args, nil
}

// digestOf is the SHA-256 of s, in hex.
func digestOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
