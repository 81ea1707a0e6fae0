package clock

import (
	"reflect"
	"testing"
	"time"
)

func TestManual_RunsDueCallbacksInTimeOrder(t *testing.T) {
	start := time.Unix(1000, 0)
	c := NewManual(start)
	var order []string
	var seenAt []time.Duration
	c.AfterFunc(3*time.Second, func() { order = append(order, "c"); seenAt = append(seenAt, c.Now().Sub(start)) })
	c.AfterFunc(1*time.Second, func() { order = append(order, "a"); seenAt = append(seenAt, c.Now().Sub(start)) })
	stopped := c.AfterFunc(2*time.Second, func() { order = append(order, "b") })
	if !stopped.Stop() {
		t.Fatal("Stop of a pending timer reported false")
	}
	c.Advance(2 * time.Second)
	if !reflect.DeepEqual(order, []string{"a"}) {
		t.Fatalf("after 2s: %v", order)
	}
	c.Advance(5 * time.Second)
	if !reflect.DeepEqual(order, []string{"a", "c"}) || !reflect.DeepEqual(seenAt, []time.Duration{time.Second, 3 * time.Second}) {
		t.Fatalf("order %v seen at %v", order, seenAt)
	}
	if got := c.Now().Sub(start); got != 7*time.Second {
		t.Fatalf("now = +%v", got)
	}
	if c.Pending() != 0 {
		t.Fatalf("pending = %d", c.Pending())
	}
}

func TestManual_CallbackMayScheduleAnother(t *testing.T) {
	c := NewManual(time.Unix(0, 0))
	fired := 0
	c.AfterFunc(time.Second, func() {
		fired++
		c.AfterFunc(time.Second, func() { fired++ })
	})
	c.Advance(5 * time.Second)
	if fired != 2 {
		t.Fatalf("fired %d, want 2", fired)
	}
}

func TestManual_After(t *testing.T) {
	c := NewManual(time.Unix(0, 0))
	ch := c.After(time.Minute)
	select {
	case <-ch:
		t.Fatal("fired early")
	default:
	}
	c.Advance(time.Minute)
	select {
	case <-ch:
	default:
		t.Fatal("did not fire")
	}
}
