// Package driver is where the packages that link a database or a queue
// client into a program (bindings/sqlite, bindings/postgres, bindings/redis,
// bindings/nats) register what package bindings needs of them, from their
// init, as database/sql drivers register: a program links only the ones it
// imports. It imports only the standard library; the driver packages import
// it and never package bindings, so that bindings' own tests may import them.
package driver
