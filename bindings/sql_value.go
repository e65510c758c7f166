package bindings

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
)

// sqlOutput is the output of a SQL tool.
type sqlOutput struct {
	// Shadow: the statement ran in a transaction that was rolled back.
	Shadow     bool           `json:"shadow,omitempty"`
	RolledBack bool           `json:"rolled_back,omitempty"`
	Statement  string         `json:"statement,omitempty"`
	Params     map[string]any `json:"params,omitempty"`

	Columns []string `json:"columns,omitempty"`
	Rows    []sqlRow `json:"rows,omitzero"` // [] for a query with no rows
	// RowCount is len(Rows); Truncated says more rows came than MaxRows.
	RowCount  *int `json:"row_count,omitempty"`
	Truncated bool `json:"truncated,omitempty"`
	MaxRows   int  `json:"max_rows,omitempty"` // set when truncated
	// RowsAffected is what a write changed (or would have, in shadow mode).
	RowsAffected *int64 `json:"rows_affected,omitempty"`

	seen int // rows read, beyond MaxRows for a write's RETURNING
	size int // bytes of the values read, for the ledger
}

// sqlRow is one row: column → value, encoded in the columns' order.
type sqlRow struct {
	cols []string
	vals []any
}

// MarshalJSON writes the row as an object with its columns in order.
func (r sqlRow) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 16*len(r.vals)+2)
	b = append(b, '{')
	for i, c := range r.cols {
		if i > 0 {
			b = append(b, ',')
		}
		k, err := json.Marshal(c)
		if err != nil {
			return nil, err
		}
		b = append(b, k...)
		b = append(b, ':')
		v, err := json.Marshal(r.vals[i])
		if err != nil {
			return nil, err
		}
		b = append(b, v...)
	}
	return append(b, '}'), nil
}

func (o *sqlOutput) status() string {
	var s string
	switch {
	case o.RowsAffected != nil && (o.RowCount == nil || o.Shadow):
		s = plural(int(*o.RowsAffected), "row") + " affected"
		if o.Shadow {
			s = plural(int(*o.RowsAffected), "row") + " would change"
		}
	case o.RowCount != nil:
		s = plural(*o.RowCount, "row")
		if o.Truncated {
			s += " (cut at max_rows)"
		}
	}
	if o.Shadow {
		return "shadow: " + s
	}
	return s
}

// scan reads rows into out, up to the binding's max_rows; a write with
// RETURNING counts the rows past it too, for rows_affected.
func (b *sqlBinding) scan(rows *sql.Rows, out *sqlOutput) error {
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	cts, err := rows.ColumnTypes()
	if err != nil {
		return err
	}
	kinds := make([]string, len(cts))
	for i, ct := range cts {
		kinds[i] = strings.ToUpper(ct.DatabaseTypeName())
	}
	out.Columns = cols
	out.Rows = []sqlRow{}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		out.seen++
		if len(out.Rows) == b.maxRows {
			out.Truncated, out.MaxRows = true, b.maxRows
			if !b.st.returning {
				break
			}
			continue
		}
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		row := sqlRow{cols: cols, vals: make([]any, len(cols))}
		for i, v := range vals {
			row.vals[i] = b.value(v, kinds[i], &out.size)
		}
		out.Rows = append(out.Rows, row)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	n := len(out.Rows)
	out.RowCount = &n
	return rows.Close()
}

// value is a column's value as JSON will show it: integers as numbers, NULL
// as null, times in RFC 3339 (UTC), JSON columns as JSON, bytes (BLOB, bytea)
// in base64 and other bytes as text when they are UTF-8.
func (b *sqlBinding) value(v any, kind string, size *int) any {
	switch v := v.(type) {
	case nil:
		*size += 4
		return nil
	case int64, bool:
		*size += 8
		return v
	case float64:
		*size += 8
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return strconv.FormatFloat(v, 'g', -1, 64)
		}
		return v
	case string:
		*size += len(v)
		return v
	case []byte:
		*size += len(v)
		switch {
		case (kind == "JSON" || kind == "JSONB") && json.Valid(v):
			return json.RawMessage(v)
		case kind != "BLOB" && kind != "BYTEA" && utf8.Valid(v):
			return string(v)
		}
		return base64.StdEncoding.EncodeToString(v)
	case time.Time:
		*size += 8
		return v.UTC().Format(time.RFC3339Nano)
	default:
		s := fmt.Sprint(v)
		*size += len(s)
		return s
	}
}

// bindValue is an argument as the driver receives it.
func bindValue(v any, typ string) (any, error) {
	switch v := v.(type) {
	case nil, string, bool:
		return v, nil
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i, nil
		}
		if typ == "integer" {
			// Larger than int64: as text, which the database converts.
			return v.String(), nil
		}
		return v.Float64()
	case float64, int64, int:
		return v, nil
	default:
		bs, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		return string(bs), nil
	}
}

// sqlError is the error of a call: a *TransientError for what another
// attempt may get past (a connection lost or refused, a timeout, a busy
// database, a serialization failure), else the database's message. Values
// of the DSN's ${NAME} references are replaced by the references.
func sqlError(err error, redact secrets) error {
	msg := redact.redact(err.Error())
	var pe *pgconn.PgError
	var le *sqlite.Error
	transient := false
	switch {
	case errors.Is(err, context.Canceled):
		return err
	case errors.Is(err, context.DeadlineExceeded):
		return &TransientError{Err: err}
	case errors.As(err, &pe):
		msg = "sql: " + pe.Message
		if pe.Detail != "" {
			msg += " (" + pe.Detail + ")"
		}
		msg = redact.redact(msg + " [SQLSTATE " + pe.Code + "]")
		switch pe.Code[:2] {
		case "08", "40", "53", "57":
			// connection exception, transaction rollback (serialization,
			// deadlock), insufficient resources, operator intervention
			transient = true
		}
	case errors.As(err, &le):
		msg = "sql: " + redact.redact(le.Error())
		switch le.Code() & 0xff {
		case 5, 6: // SQLITE_BUSY, SQLITE_LOCKED
			transient = true
		}
	default:
		var ne net.Error
		var ce *pgconn.ConnectError
		transient = errors.As(err, &ce) || errors.As(err, &ne) || pgconn.SafeToRetry(err) || pgconn.Timeout(err) ||
			errors.Is(err, driver.ErrBadConn) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
			errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET)
		if !strings.HasPrefix(msg, "sql: ") {
			msg = "sql: " + msg
		}
	}
	e := &sqlFailure{msg: msg, err: err}
	if transient {
		return &TransientError{Err: e}
	}
	return e
}

// sqlFailure is a failed statement: its message, with no secret, and the
// driver's error for errors.Is and errors.As.
type sqlFailure struct {
	msg string
	err error
}

func (e *sqlFailure) Error() string { return e.msg }
func (e *sqlFailure) Unwrap() error { return e.err }
