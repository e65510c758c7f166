package claimrate

import (
	"context"
	"testing"
	"time"
)

// TestNoteDecidedOnce: a note carried by a context says what was decided,
// to the first that takes it only.
func TestNoteDecidedOnce(t *testing.T) {
	if From(context.Background()) != nil {
		t.Fatal("a plain context carries a note")
	}
	n := &Note{Tool: "t.pay"}
	ctx := With(context.Background(), n)
	if From(ctx) != n {
		t.Fatal("the note is not carried")
	}
	if _, _, _, ok := n.Take(); ok {
		t.Fatal("a note decided nothing, yet Take found a decision")
	}
	n.Decide(false, 0, time.Second)
	if allowed, _, retry, ok := n.Take(); !ok || allowed || retry != time.Second {
		t.Fatalf("Take = %v %v %v; want the refusal, retry in 1s", allowed, retry, ok)
	}
	if _, _, _, ok := n.Take(); ok {
		t.Fatal("the decision was taken twice")
	}
}
