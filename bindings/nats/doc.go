// Package nats links a NATS client (github.com/nats-io/nats.go, JetStream)
// into a program for the tools files whose queue sources say provider:
// nats. Its import, for its side effect, is all a program needs:
//
//	import _ "github.com/toolexplorer/toolexplorer/bindings/nats"
//
// A program without it refuses such a tools file when it loads, naming this
// package. Imports: the standard library, nats.go and
// bindings/internal/driver.
package nats
