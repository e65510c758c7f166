package state_test

import (
	"testing"

	"github.com/toolexplorer/toolexplorer/internal/redistest"
)

// The proof with real processes, three replicas of a small host sharing
// one redis-server, is in examples/replicas.

// redisServer is a redis-server the test started.
type redisServer = redistest.Server

// startRedis starts a redis-server of the test's own.
func startRedis(t *testing.T) *redisServer { return redistest.Start(t) }
