package bindings

import (
	"context"
	"database/sql"
	sqldriver "database/sql/driver"
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

	"github.com/toolexplorer/toolexplorer/bindings/internal/driver"
)

// sqlOutput is the output of a SQL tool, written as JSON by appendJSON:
//
//	{"shadow": true, "rolled_back": true, "statement": "...", "params": {...},  (shadow calls)
//	 "columns": [...], "rows": [{column: value}], "row_count": 2,             (statements with rows)
//	 "truncated": true, "max_rows": 1000,                                    (when cut)
//	 "rows_affected": 1}                                                      (writes)
type sqlOutput struct {
	// Shadow: the statement ran in a transaction that was rolled back.
	Shadow    bool
	Statement string
	Params    map[string]any

	Columns []string
	Rows    [][]any // values in the columns' order
	// RowCount is len(Rows), nil for a statement without rows; Truncated
	// says more rows came than MaxRows.
	RowCount  *int
	Truncated bool
	MaxRows   int
	// RowsAffected is what a write changed (or would have, in shadow mode).
	RowsAffected *int64

	seen int // rows read, beyond MaxRows for a write's RETURNING
	size int // bytes of the values read, for the ledger
}

// appendJSON appends the output as JSON, rows as objects with their
// columns in order.
func (o *sqlOutput) appendJSON(b []byte) ([]byte, error) {
	b = append(b, '{')
	if o.Shadow {
		b = append(b, `"shadow":true,"rolled_back":true,"statement":`...)
		b = appendJSONString(b, o.Statement)
		params, err := json.Marshal(o.Params)
		if err != nil {
			return nil, err
		}
		b = append(b, `,"params":`...)
		b = append(b, params...)
		b = append(b, ',')
	}
	if o.RowCount != nil {
		b = append(b, `"columns":[`...)
		for i, c := range o.Columns {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, c)
		}
		b = append(b, `],"rows":[`...)
		for i, row := range o.Rows {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '{')
			for j, v := range row {
				if j > 0 {
					b = append(b, ',')
				}
				b = appendJSONString(b, o.Columns[j])
				b = append(b, ':')
				b = appendJSONValue(b, v)
			}
			b = append(b, '}')
		}
		b = append(b, `],"row_count":`...)
		b = strconv.AppendInt(b, int64(*o.RowCount), 10)
		if o.Truncated {
			b = append(b, `,"truncated":true,"max_rows":`...)
			b = strconv.AppendInt(b, int64(o.MaxRows), 10)
		}
		b = append(b, ',')
	}
	if o.RowsAffected != nil {
		b = append(b, `"rows_affected":`...)
		b = strconv.AppendInt(b, *o.RowsAffected, 10)
		b = append(b, ',')
	}
	if b[len(b)-1] == ',' {
		b = b[:len(b)-1]
	}
	return append(b, '}'), nil
}

// appendJSONValue appends a value made by sqlBinding.value.
func appendJSONValue(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case int64:
		return strconv.AppendInt(b, v, 10)
	case bool:
		return strconv.AppendBool(b, v)
	case float64:
		return appendJSONFloat(b, v)
	case string:
		return appendJSONString(b, v)
	case json.RawMessage:
		return append(b, v...)
	}
	panic(fmt.Sprintf("bindings: a SQL value of type %T", v))
}

// appendJSONFloat writes a finite float as encoding/json does.
func appendJSONFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 becomes e-9, as encoding/json writes it.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

const hexDigits = "0123456789abcdef"

// appendJSONString writes s as a JSON string the way jsonenc does (no HTML
// escaping): invalid UTF-8 as U+FFFD, U+2028 and U+2029 escaped.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
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
	out.Rows = [][]any{}
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
		row := make([]any, len(cols))
		for i, v := range vals {
			row[i] = b.value(v, kinds[i], &out.size)
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
	transient := false
	switch {
	case errors.Is(err, context.Canceled):
		return err
	case errors.Is(err, context.DeadlineExceeded):
		return &TransientError{Err: err}
	}
	known := false
	drivers := driver.SQLs()
	for _, d := range drivers {
		if m, t, ok := d.Error(err); ok {
			msg, transient, known = "sql: "+redact.redact(m), t, true
			break
		}
	}
	if !known {
		var ne net.Error
		transient = errors.As(err, &ne) || errors.Is(err, sqldriver.ErrBadConn) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
			errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET)
		for _, d := range drivers {
			transient = transient || d.Transient != nil && d.Transient(err)
		}
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

// rows is how many rows the statement read or changed.
func (o *sqlOutput) rows() int {
	switch {
	case o.RowsAffected != nil:
		return int(*o.RowsAffected)
	case o.RowCount != nil:
		return *o.RowCount
	}
	return 0
}
