package sandbox_test

import (
	"context"
	"fmt"
	"time"

	"github.com/toolexplorer/toolexplorer/sandbox"
)

func ExampleSlots() {
	slots := sandbox.NewSlots(2) // at most two calls at once
	ctx := context.Background()

	if err := slots.Acquire(ctx); err != nil {
		return // ctx ended while waiting: nothing is held
	}
	fmt.Println(slots.TryAcquire(), slots.TryAcquire()) // the second slot, then none
	fmt.Printf("%+v\n", slots.Stats())

	slots.Resize(1) // a config reload: both holders keep their slots
	slots.Release()
	fmt.Println(slots.TryAcquire()) // still one held, and the limit is now one
	slots.Release()
	fmt.Printf("%+v\n", slots.Stats())
	// Output:
	// true false
	// {Limit:2 Used:2 Waiting:0}
	// false
	// {Limit:1 Used:0 Waiting:0}
}

func ExampleLocks() {
	locks := sandbox.NewLocks()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()

	// The keys are taken in sorted order whatever order they are named in.
	release, err := locks.Acquire(ctx, []string{"file:/b", "file:/a"}, sandbox.Holder{Name: "fs.copy", ID: "call-1"})
	if err != nil {
		fmt.Println("busy:", err)
		return
	}
	for _, s := range locks.Stats() {
		fmt.Println(s.Key, "held by", s.Holder.Name, s.Holder.ID)
	}
	release()
	release() // a second call does nothing
	fmt.Println(len(locks.Stats()), "keys held")
	// Output:
	// file:/a held by fs.copy call-1
	// file:/b held by fs.copy call-1
	// 0 keys held
}

func ExampleBuckets() {
	buckets := sandbox.NewBuckets()
	perMinute := sandbox.Rate{PerMinute: 2, Burst: 1}
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

	fmt.Println(buckets.Take("web.fetch", perMinute, now))
	fmt.Println(buckets.Take("web.fetch", perMinute, now.Add(10*time.Second)))
	buckets.Refund("web.fetch", now.Add(10*time.Second)) // the call could not run after all
	fmt.Println(buckets.Take("web.fetch", perMinute, now.Add(10*time.Second)))
	fmt.Println(buckets.Take("web.fetch", sandbox.Rate{}, now)) // zero Rate: unlimited
	// Output:
	// true 0s
	// false 20s
	// true 0s
	// true 0s
}
