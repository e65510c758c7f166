package sqlite

import (
	"errors"

	msqlite "modernc.org/sqlite"

	"github.com/toolexplorer/toolexplorer/bindings/internal/driver"
)

func init() {
	driver.RegisterSQL("sqlite", driver.SQL{Name: "sqlite", Error: sqliteError})
}

// sqliteError reads a SQLite error: a busy or locked database is transient.
func sqliteError(err error) (msg string, transient, ok bool) {
	var le *msqlite.Error
	if !errors.As(err, &le) {
		return "", false, false
	}
	switch le.Code() & 0xff {
	case 5, 6: // SQLITE_BUSY, SQLITE_LOCKED
		transient = true
	}
	return le.Error(), transient, true
}
