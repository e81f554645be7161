package viz

// The pictures' colours: one palette, and the slot of every name the
// module's sources draw (a CPU cause, a wait reason, a P state), so that a
// name has one colour in every picture and every report — a trace's, a
// check's, a profile's, the live monitor's — whichever other names the
// picture holds. A wait reason or state that means what a cause means has
// the cause's colour: a goroutine woken from a channel, CPU spent in
// channel operations. The HTML report draws with these; another renderer
// of a Set can too.

// palette is the colours, slot by slot, as CSS hex; they read on a light
// and a dark background.
var palette = [...]string{
	"#5b8def", "#e6a23c", "#2e9e6b", "#5cc98b", "#1f7a55", "#e0564f", "#f08a5d",
	"#b37feb", "#36a3b5", "#d4b106", "#c41d7f", "#eb2f96", "#8c6d4f", "#fa541c",
	"#ad4e00", "#7c8798", "#9254de", "#597ef7", "#cf1322", "#a0a7b4", "#b8bec8",
	"#7cb305", "#87e8de",
}

// Palette returns the colours (CSS hex), slot by slot.
func Palette() []string { return append([]string(nil), palette[:]...) }

// slots gives each name the sources draw its slot. The CPU causes
// (profile/classify.Causes) have the slots of their order; the wait
// reasons (exectrace) and P states the slot of the cause they mean, or
// one of their own. The P timeline's idle state is no slot: it is drawn
// as the background grey (Slot says false).
var slots = map[string]int{
	// CPU causes.
	"user": 0, "alloc": 1, "gc-mark": 2, "gc-assist": 3, "gc-sweep": 4, "thread-churn": 5,
	"idle-spin": 6, "timers": 7, "netpoll": 8, "channel": 9, "runtime-lock": 10, "mutex": 11,
	"syscall": 12, "preempt": 13, "yield": 14, "sysmon": 15, "thread-create": 16, "cgo": 17,
	"scheduler": 18, "runtime": 19, "unknown": 20,
	// Why a goroutine became runnable (the latency histogram).
	"created":                                21,
	"preempted":                              13,
	"yielded (Gosched)":                      14,
	"syscall returned without P":             12,
	"channel or select":                      9,
	"sleep or timer":                         7,
	"sync (Mutex, RWMutex, WaitGroup, Cond)": 11,
	"network":                                8,
	"other wait":                             19,
	"runnable at trace start":                22,
	// P states (the timeline); "syscall" and "scheduler" are the causes'.
	"running": 0,
	"gc":      2,
}

// Slot returns the palette slot of a name the module's sources draw; ok
// is false for any other name (a program's own Provider names its causes
// as it likes: a renderer picks their colours, see htmlreport).
func Slot(name string) (slot int, ok bool) {
	slot, ok = slots[name]
	return slot, ok
}
