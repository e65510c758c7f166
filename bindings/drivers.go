package bindings

import (
	"errors"
	"fmt"

	"github.com/toolexplorer/toolexplorer/bindings/internal/driver"
)

// driverPackage is the import path of the package that links a SQL driver
// or a queue client into a program: bindings/sqlite, bindings/postgres,
// bindings/redis, bindings/nats.
const driverPackage = "github.com/toolexplorer/toolexplorer/bindings/"

// notLinked says that the program was built without the driver or client
// a tools file names, and how to link it.
func notLinked(what, name string) error {
	return fmt.Errorf("%s: %s is not linked into this program: its main package imports _ %q", what, name, driverPackage+name)
}

// fromDriver reports a driver's transient failure as a *TransientError.
func fromDriver(err error) error {
	var te *driver.TransientError
	if errors.As(err, &te) {
		return &TransientError{Err: te.Err}
	}
	return err
}
