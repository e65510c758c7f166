package postgres

import (
	"errors"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver

	"github.com/toolexplorer/toolexplorer/bindings/internal/driver"
)

func init() {
	driver.RegisterSQL("postgres", driver.SQL{Name: "pgx", Error: pgError, Transient: pgTransient})
}

// pgError reads a PostgreSQL error: its message, detail and SQLSTATE; a
// connection exception, a transaction rollback (serialization, deadlock),
// insufficient resources and operator intervention are transient.
func pgError(err error) (msg string, transient, ok bool) {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return "", false, false
	}
	msg = pe.Message
	if pe.Detail != "" {
		msg += " (" + pe.Detail + ")"
	}
	msg += " [SQLSTATE " + pe.Code + "]"
	switch pe.Code[:2] {
	case "08", "40", "53", "57":
		transient = true
	}
	return msg, transient, true
}

// pgTransient reports the client's connection failures and timeouts.
func pgTransient(err error) bool {
	var ce *pgconn.ConnectError
	return errors.As(err, &ce) || pgconn.SafeToRetry(err) || pgconn.Timeout(err)
}
