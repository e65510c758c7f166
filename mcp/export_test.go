package mcp

import "time"

// SetOAuthClock makes now the clock of o's key cache and claim checks.
func SetOAuthClock(o *OAuth, now func() time.Time) { o.now = now }
