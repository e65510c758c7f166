package tooltest

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/toolexplorer/toolexplorer/tooling/idempotency"
)

// TestIdempotencyStore checks that the stores open returns keep the
// promises of idempotency.Store: claims, waits, conflicts, giving up,
// leases, time to live and one winner among concurrent claims. open is
// called once per subtest and returns an empty store. A subtest waits for
// a lease or a time to live of 200ms to end, as the store's clock says.
func TestIdempotencyStore(t *testing.T, open func(t *testing.T) idempotency.Store) {
	const long = time.Hour
	ctx := t.Context()
	claim := func(t *testing.T, s idempotency.Store, key, digest string) *idempotency.Record {
		t.Helper()
		rec, err := s.Claim(ctx, key, digest, long)
		if err != nil {
			t.Fatalf("Claim(%q, %q): %v", key, digest, err)
		}
		return rec
	}
	complete := func(t *testing.T, s idempotency.Store, key string, rec *idempotency.Record, ttl time.Duration) {
		t.Helper()
		if err := s.Complete(ctx, key, rec, ttl); err != nil {
			t.Fatalf("Complete(%q): %v", key, err)
		}
	}
	get := func(t *testing.T, s idempotency.Store, key string) *idempotency.Record {
		t.Helper()
		rec, err := s.Get(ctx, key)
		if err != nil {
			t.Fatalf("Get(%q): %v", key, err)
		}
		return rec
	}
	outcome := []byte(`{"status":"ok","output":"a"}`)

	t.Run("claim, complete, replay", func(t *testing.T) {
		s := open(t)
		if rec := get(t, s, "k"); rec != nil {
			t.Fatalf("Get of an unknown key = %+v, want nil", rec)
		}
		if rec := claim(t, s, "k", "d1"); rec != nil {
			t.Fatalf("first Claim = %+v, want nil (claimed)", rec)
		}
		if rec := get(t, s, "k"); rec == nil || !rec.Pending || rec.Digest != "d1" || rec.Outcome != nil {
			t.Fatalf("Get of a claimed key = %+v, want pending with digest d1", rec)
		}
		complete(t, s, "k", &idempotency.Record{Digest: "d1", Outcome: outcome}, long)
		for _, d := range []string{"d1", "d2"} {
			rec := claim(t, s, "k", d)
			if rec == nil || rec.Pending || rec.Digest != "d1" || !bytes.Equal(rec.Outcome, outcome) {
				t.Fatalf("Claim(%s) of a completed key = %+v, want its record (digest d1, outcome %s)", d, rec, outcome)
			}
			if rec.Expires.Before(time.Now().Add(long / 2)) {
				t.Errorf("Claim(%s): Expires %v, want about an hour from now", d, rec.Expires)
			}
		}
		if rec := claim(t, s, "other", "d1"); rec != nil {
			t.Fatalf("Claim of another key = %+v, want nil: keys are independent", rec)
		}
	})

	t.Run("another digest while claimed is answered at once", func(t *testing.T) {
		s := open(t)
		claim(t, s, "k", "d1")
		rec := claim(t, s, "k", "d2")
		if rec == nil || !rec.Pending || rec.Digest != "d1" {
			t.Fatalf("Claim with another digest = %+v, want the pending claim of d1", rec)
		}
	})

	t.Run("same digest while claimed waits for the outcome", func(t *testing.T) {
		s := open(t)
		claim(t, s, "k", "d1")
		got := make(chan *idempotency.Record, 1)
		go func() {
			rec, err := s.Claim(ctx, "k", "d1", long)
			if err != nil {
				t.Errorf("waiting Claim: %v", err)
			}
			got <- rec
		}()
		complete(t, s, "k", &idempotency.Record{Digest: "d1", Outcome: outcome}, long)
		if rec := <-got; rec == nil || !bytes.Equal(rec.Outcome, outcome) {
			t.Fatalf("waiting Claim = %+v, want the outcome", rec)
		}
	})

	t.Run("giving up a claim hands it on", func(t *testing.T) {
		s := open(t)
		claim(t, s, "k", "d1")
		got := make(chan *idempotency.Record, 1)
		go func() {
			rec, err := s.Claim(ctx, "k", "d1", long)
			if err != nil {
				t.Errorf("waiting Claim: %v", err)
			}
			got <- rec
		}()
		complete(t, s, "k", nil, 0)
		if rec := <-got; rec != nil {
			t.Fatalf("Claim after the claim was given up = %+v, want nil (claimed)", rec)
		}
		if rec := get(t, s, "k"); rec == nil || !rec.Pending {
			t.Fatalf("Get = %+v, want the new pending claim", rec)
		}
	})

	t.Run("a canceled wait returns the context's error", func(t *testing.T) {
		s := open(t)
		claim(t, s, "k", "d1")
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if rec, err := s.Claim(cctx, "k", "d1", long); err == nil {
			t.Fatalf("Claim with a canceled ctx on a claimed key = %+v, nil; want ctx's error", rec)
		}
	})

	t.Run("an abandoned claim is claimed again after its lease", func(t *testing.T) {
		s := open(t)
		if rec, err := s.Claim(ctx, "k", "d1", 200*time.Millisecond); err != nil || rec != nil {
			t.Fatalf("Claim = %+v, %v", rec, err)
		}
		dctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		rec, err := s.Claim(dctx, "k", "d1", long)
		if err != nil || rec != nil {
			t.Fatalf("Claim past the lease = %+v, %v; want nil (claimed)", rec, err)
		}
	})

	t.Run("an outcome expires after its time to live", func(t *testing.T) {
		s := open(t)
		claim(t, s, "k", "d1")
		complete(t, s, "k", &idempotency.Record{Digest: "d1", Outcome: outcome}, 200*time.Millisecond)
		deadline := time.Now().Add(time.Minute)
		for get(t, s, "k") != nil {
			if time.Now().After(deadline) {
				t.Fatal("the outcome is still there a minute after its time to live of 200ms")
			}
			time.Sleep(20 * time.Millisecond)
		}
		if rec := claim(t, s, "k", "d2"); rec != nil {
			t.Fatalf("Claim of an expired key = %+v, want nil (claimed)", rec)
		}
	})

	t.Run("one winner among concurrent claims", func(t *testing.T) {
		s := open(t)
		const n = 50
		var wg sync.WaitGroup
		start := make(chan struct{})
		won := make(chan int, n)
		recs := make(chan *idempotency.Record, n)
		for i := range n {
			wg.Go(func() {
				<-start
				rec, err := s.Claim(ctx, "k", "d1", long)
				if err != nil {
					t.Errorf("Claim %d: %v", i, err)
					return
				}
				if rec == nil {
					won <- i
					if err := s.Complete(ctx, "k", &idempotency.Record{Digest: "d1", Outcome: []byte(fmt.Sprint(i))}, long); err != nil {
						t.Errorf("Complete: %v", err)
					}
					return
				}
				recs <- rec
			})
		}
		close(start)
		wg.Wait()
		close(won)
		close(recs)
		if len(won) != 1 {
			t.Fatalf("%d claims won, want exactly 1", len(won))
		}
		w := fmt.Sprint(<-won)
		for rec := range recs {
			if string(rec.Outcome) != w {
				t.Fatalf("a losing Claim got %+v, want the winner's outcome %s", rec, w)
			}
		}
	})
}
