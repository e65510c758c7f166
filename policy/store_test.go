package policy_test

import (
	"testing"

	"github.com/toolexplorer/toolexplorer/policy"
	"github.com/toolexplorer/toolexplorer/policy/storetest"
)

func TestMemoryStore(t *testing.T) {
	storetest.Run(t, func(*testing.T) storetest.Store { return policy.NewMemoryStore(nil) })
}
