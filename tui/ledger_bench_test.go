package tui

import (
	"fmt"
	"testing"
	"time"

	"github.com/toolexplorer/toolexplorer/ledger"
)

// ledger100k is a ledger of 50,000 calls, 100,000 records (the fixed
// calls, repeated with call ids of their own).
func ledger100k() *fixedLedger {
	base := fixedLedgerEntries()
	out := make([]ledger.Entry, 0, 50_000)
	for i := range 50_000 {
		e := base[i%len(base)]
		e.Begin.Call = fmt.Sprintf("call-%d", i)
		e.Begin.Time = fixedTime.Add(time.Duration(i-50_000) * time.Second)
		out = append(out, e)
	}
	return &fixedLedger{entries: out}
}

// BenchmarkLedgerSearchKey types one key into the ledger's search over
// 50,000 calls (100,000 records), read once off the UI goroutine: Update
// (every call is looked at) and View. A person types a key in about
// 100 ms; a frame is 16 ms.
func BenchmarkLedgerSearchKey(b *testing.B) {
	for _, q := range []string{"zq", "demo"} {
		b.Run("query="+q, func(b *testing.B) {
			h := newHarnessWith(b, newTestRegistry(b), Options{Ledger: ledger100k()}, 120, 40)
			openLedger(h)
			if n := len(h.m.ledger.data.rows); n != 50_000 {
				b.Fatalf("%d calls read", n)
			}
			h.press("/")
			h.typeText(q[:1])
			last := []rune(q)[1]
			b.ReportAllocs()
			for b.Loop() {
				h.send(keyMsg(string(last)))
				_ = h.m.render()
				h.press("backspace")
			}
		})
	}
}

// BenchmarkLedgerFilterKey is t on a call of the ledger (only its tool's
// calls) and t again (every call), over 50,000 calls.
func BenchmarkLedgerFilterKey(b *testing.B) {
	h := newHarnessWith(b, newTestRegistry(b), Options{Ledger: ledger100k()}, 120, 40)
	openLedger(h)
	b.ReportAllocs()
	for b.Loop() {
		h.press("t")
		_ = h.m.render()
	}
}
