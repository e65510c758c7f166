package choice

import "testing"

func TestStream(t *testing.T) {
	s := New([]byte{7, 200})
	if got := s.Intn(5); got != 2 {
		t.Errorf("first choice: got %d, want 7 %% 5 = 2", got)
	}
	if got := s.Intn(1); got != 0 {
		t.Errorf("a choice among one: got %d, want 0", got)
	}
	if got := s.Intn(100); got != 0 {
		t.Errorf("second byte: got %d, want 200 %% 100 = 0", got)
	}
	a, b := New([]byte{1, 2}), New([]byte{1, 2})
	a.Intn(256)
	a.Intn(256)
	b.Intn(256)
	b.Intn(256)
	for range 100 {
		if x, y := a.Intn(1000), b.Intn(1000); x != y || x < 0 || x >= 1000 {
			t.Fatalf("after the bytes, two streams of one input differ or leave the range: %d, %d", x, y)
		}
	}
	if got := Pick(New([]byte{1}), "a", "b", "c"); got != "b" {
		t.Errorf("Pick: got %q, want b", got)
	}
}
