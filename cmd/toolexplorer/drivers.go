package main

// The command line loads tools files of every kind: it links every SQL
// driver and queue client that package bindings knows.
import (
	_ "github.com/toolexplorer/toolexplorer/bindings/nats"
	_ "github.com/toolexplorer/toolexplorer/bindings/postgres"
	_ "github.com/toolexplorer/toolexplorer/bindings/redis"
	_ "github.com/toolexplorer/toolexplorer/bindings/sqlite"
)
