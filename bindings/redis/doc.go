// Package redis links a Redis client (github.com/redis/go-redis/v9) into a
// program for the tools files whose queue sources say provider: redis
// (Redis Streams, XADD). Its import, for its side effect, is all a program
// needs:
//
//	import _ "github.com/toolexplorer/toolexplorer/bindings/redis"
//
// A program without it refuses such a tools file when it loads, naming this
// package. Imports: the standard library, go-redis and
// bindings/internal/driver.
package redis
