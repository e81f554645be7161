package viz

import (
	"regexp"
	"testing"
)

// TestPalette: the colours are distinct CSS hex colours, every name's slot
// is one of them, and a reason that means what a cause means has the
// cause's colour while the reasons of one histogram and the states of one
// timeline each have a colour of their own.
func TestPalette(t *testing.T) {
	p := Palette()
	seen := map[string]int{}
	for i, c := range p {
		if !regexp.MustCompile(`^#[0-9a-f]{6}$`).MatchString(c) {
			t.Errorf("slot %d: %q is not a CSS hex colour", i, c)
		}
		if j, ok := seen[c]; ok {
			t.Errorf("slots %d and %d are both %s", j, i, c)
		}
		seen[c] = i
	}
	for name, s := range slots {
		if s < 0 || s >= len(p) {
			t.Errorf("%q: slot %d outside the palette of %d", name, s, len(p))
		}
	}
	p[0] = "changed"
	if Palette()[0] == "changed" {
		t.Error("Palette returns the package's own slice")
	}
	for _, same := range [][2]string{{"channel or select", "channel"}, {"sleep or timer", "timers"}, {"preempted", "preempt"},
		{"sync (Mutex, RWMutex, WaitGroup, Cond)", "mutex"}, {"network", "netpoll"}, {"running", "user"}, {"gc", "gc-mark"}} {
		a, _ := Slot(same[0])
		b, _ := Slot(same[1])
		if a != b {
			t.Errorf("%q has slot %d, %q %d: they mean the same", same[0], a, same[1], b)
		}
	}
	distinct := func(names ...string) {
		t.Helper()
		by := map[int]string{}
		for _, n := range names {
			s, ok := Slot(n)
			if !ok {
				t.Errorf("%q has no slot", n)
				continue
			}
			if o, dup := by[s]; dup {
				t.Errorf("%q and %q share slot %d", n, o, s)
			}
			by[s] = n
		}
	}
	distinct("user", "alloc", "gc-mark", "gc-assist", "gc-sweep", "thread-churn", "idle-spin", "timers", "netpoll", "channel",
		"runtime-lock", "mutex", "syscall", "preempt", "yield", "sysmon", "thread-create", "cgo", "scheduler", "runtime", "unknown")
	distinct("created", "preempted", "yielded (Gosched)", "syscall returned without P", "channel or select", "sleep or timer",
		"sync (Mutex, RWMutex, WaitGroup, Cond)", "network", "other wait", "runnable at trace start")
	distinct("running", "gc", "syscall", "scheduler")
	if _, ok := Slot("idle"); ok {
		t.Error("the idle state has a slot; it is drawn as the background grey")
	}
	if _, ok := Slot("main.myCause"); ok {
		t.Error("a name no source draws has a slot")
	}
}
