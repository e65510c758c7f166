package bindings

// The tests load tools files of every kind: they link every driver and
// client, as the command line does.
import (
	_ "github.com/toolexplorer/toolexplorer/bindings/nats"
	_ "github.com/toolexplorer/toolexplorer/bindings/postgres"
	_ "github.com/toolexplorer/toolexplorer/bindings/redis"
	_ "github.com/toolexplorer/toolexplorer/bindings/sqlite"
)
