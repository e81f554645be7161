package profile

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/schedoctor/schedoctor/finding"
	"github.com/schedoctor/schedoctor/profile/classify"
	"github.com/schedoctor/schedoctor/profile/internal/synth"
)

// Stacks of each kind, leaf first, as the Go 1.26 lab profiles show them.
var (
	stkUser     = []string{"main.work@/app/main.go:10", "runtime.main"}
	stkWake     = []string{"runtime.futex", "runtime.futexwakeup", "runtime.notewakeup", "runtime.startm", "runtime.wakep", "runtime.ready", "runtime.goroutineReady", "runtime.(*timers).run", "runtime.findRunnable", "runtime.schedule", "runtime.park_m", "runtime.mcall"}
	stkPark     = []string{"runtime.futex", "runtime.futexsleep", "runtime.notesleep", "runtime.mPark > runtime.stopm", "runtime.findRunnable", "runtime.schedule", "runtime.park_m", "runtime.mcall"}
	stkSleep    = []string{"runtime.(*timer).modify", "runtime.resetForSleep", "time.Sleep", "main.poll@/app/main.go:20", "runtime.main"}
	stkSelectNB = []string{"runtime.chanrecv", "runtime.selectnbrecv", "main.spin@/app/main.go:30"}
	stkChanSend = []string{"runtime.chansend", "runtime.chansend1", "main.ping@/app/main.go:40"}
	stkSchedule = []string{"runtime.execute", "runtime.schedule", "runtime.park_m", "runtime.mcall"}
	stkPreempt  = []string{"runtime.asyncPreempt", "crypto/sha256.block", "crypto/sha256.Sum256", "main.spin@/app/main.go:50"}
	stkMutex    = []string{"runtime.procyield", "internal/sync.runtime_doSpin", "internal/sync.(*Mutex).lockSlow", "internal/sync.(*Mutex).Lock > sync.(*Mutex).Lock", "main.count@/app/main.go:60"}
	stkLockFast = []string{"internal/sync.(*Mutex).Lock > sync.(*Mutex).Lock", "main.count@/app/main.go:60"}
	stkAssist   = []string{"runtime.scanObject", "runtime.gcDrainN", "runtime.gcAssistAlloc1", "runtime.gcAssistAlloc", "runtime.mallocgc", "runtime.newobject", "main.build@/app/main.go:70"}
	stkAlloc    = []string{"runtime.mallocgcSmallScanNoHeader", "runtime.mallocgc", "runtime.newobject", "main.build@/app/main.go:70"}
	stkBgMark   = []string{"runtime.scanObject", "runtime.gcDrain", "runtime.gcBgMarkWorker"}
	stkWrite    = []string{"internal/runtime/syscall/linux.Syscall6", "syscall.Syscall", "syscall.write", "os.(*File).Write", "main.log@/app/main.go:80"}
	stkEpoll    = []string{"internal/runtime/syscall/linux.Syscall6", "internal/runtime/syscall/linux.EpollWait", "runtime.netpoll", "runtime.findRunnable", "runtime.schedule"}
	stkTimerNew = []string{"runtime.(*timer).modify", "time.newTimer", "time.NewTimer > time.After", "main.wait@/app/main.go:90"}
	stkSteal    = []string{"runtime.runqgrab", "runtime.runqsteal", "runtime.stealWork", "runtime.findRunnable", "runtime.schedule", "runtime.park_m", "runtime.mcall"}
	stkRTLock   = []string{"runtime.osyield", "runtime.lock2", "runtime.lockWithRank > runtime.lock", "runtime.sellock", "runtime.selectgo", "main.fan@/app/main.go:100"}
)

// mix builds a profile of seconds duration holding each stack for the
// given CPU seconds.
func mix(seconds float64, parts ...any) *profile.Profile {
	var stacks []synth.Stack
	for i := 0; i < len(parts); i += 2 {
		stacks = append(stacks, synth.Stack{Locs: parts[i].([]string), Nanos: int64(parts[i+1].(float64) * 1e9)})
	}
	return synth.Build(int64(seconds*1e9), stacks...)
}

func rules(fs []finding.Finding, sev finding.Severity) []string {
	var out []string
	for _, f := range fs {
		if f.Severity >= sev {
			out = append(out, f.Rule)
		}
	}
	return out
}

// TestFindings checks each rule on a profile that shows it and on a near
// miss: the same frames below a threshold, or a look-alike that is healthy.
func TestFindings(t *testing.T) {
	for _, c := range []struct {
		name  string
		profs []*profile.Profile
		want  string // the rule, "" for no warning
		line  int    // the line the first location must name
	}{
		{"sleep polling wakes threads", []*profile.Profile{mix(2, stkWake, 0.3, stkPark, 0.2, stkSleep, 0.2, stkUser, 0.3)}, "SD201", 20},
		{"the same shares at 0.02 cores", []*profile.Profile{mix(2, stkWake, 0.012, stkPark, 0.008, stkSleep, 0.008, stkUser, 0.012)}, "", 0},
		{"a little churn under real work", []*profile.Profile{mix(2, stkWake, 0.1, stkSleep, 0.05, stkUser, 1.8)}, "", 0},
		{"busy select", []*profile.Profile{mix(2, stkSelectNB, 1.8, stkUser, 0.1)}, "SD204", 30},
		{"ping-pong parks on every exchange", []*profile.Profile{mix(2, stkChanSend, 1.0, stkSchedule, 0.5, stkPark, 0.3)}, "", 0},
		{"preemption storm", []*profile.Profile{mix(2, stkPreempt, 1.0, stkUser, 1.0)}, "SD208", 50},
		{"preemption not sustained", []*profile.Profile{mix(2, stkPreempt, 1.0, stkUser, 1.0), mix(2, stkPreempt, 0.1, stkUser, 1.9)}, "", 0},
		{"preemption in both profiles", []*profile.Profile{mix(2, stkPreempt, 1.0, stkUser, 1.0), mix(2, stkPreempt, 0.8, stkUser, 1.2)}, "SD208", 50},
		{"mutex contention", []*profile.Profile{mix(2, stkMutex, 1.0, stkUser, 1.0)}, "SD206", 60},
		{"uncontended locking", []*profile.Profile{mix(2, stkLockFast, 1.0, stkUser, 1.0)}, "", 0},
		{"GC pressure", []*profile.Profile{mix(2, stkAssist, 0.4, stkBgMark, 0.5, stkAlloc, 0.4, stkUser, 0.7)}, "SD207", 70},
		{"allocation without GC", []*profile.Profile{mix(2, stkAlloc, 0.8, stkBgMark, 0.1, stkUser, 1.1)}, "", 0},
		{"syscall per record", []*profile.Profile{mix(2, stkWrite, 1.2, stkUser, 0.6)}, "SD209", 80},
		{"an idle server in epoll", []*profile.Profile{mix(2, stkEpoll, 1.2, stkUser, 0.6)}, "", 0},
		{"time.After per iteration", []*profile.Profile{mix(2, stkTimerNew, 0.8, stkUser, 1.0)}, "SD203", 90},
		{"idle Ps stealing", []*profile.Profile{mix(2, stkSteal, 0.6, stkSleep, 0.05, stkUser, 0.8)}, "SD202", 20},
		{"runtime lock contention", []*profile.Profile{mix(2, stkRTLock, 0.6, stkUser, 1.0)}, "SD205", 100},
		{"healthy CPU-bound", []*profile.Profile{mix(2, stkUser, 2.0)}, "", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := Analyze(c.profs, Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := rules(res.Findings, finding.Warning)
			if c.want == "" {
				if len(got) > 0 {
					t.Fatalf("warnings %v, want none\n%s", got, describe(res))
				}
				return
			}
			if len(got) == 0 || got[0] != c.want {
				t.Fatalf("warnings %v, want %s first\n%s", got, c.want, describe(res))
			}
			f := res.Findings[0]
			if len(f.Locations) == 0 || f.Locations[0].Line != c.line {
				t.Errorf("locations %v, want line %d first", f.Locations, c.line)
			}
			if len(f.Evidence) < 2 || f.Fix == "" || !strings.Contains(f.Text(), "cores") {
				t.Errorf("finding lacks evidence, fix or cores: %+v", f)
			}
		})
	}
}

func describe(res *Result) string {
	var b bytes.Buffer
	res.Summary.WriteText(&b)
	for _, f := range res.Findings {
		b.WriteString(f.Rule + " " + f.Severity.String() + ": " + f.Text() + "\n")
	}
	return b.String()
}

func TestCoresAndMerge(t *testing.T) {
	a := mix(2, stkUser, 1.0)
	b := mix(3, stkUser, 2.0)
	res, err := Analyze([]*profile.Profile{a, b}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summary
	if s.Profiles != 2 || s.DurationSeconds != 5 || s.CPUSeconds != 3 || s.Cores != 0.6 {
		t.Errorf("merged summary %+v, want 2 profiles, 5s, 3s CPU, 0.6 cores", s)
	}
}

func TestNoRuntimeFrames(t *testing.T) {
	// A C++ program's profile: no Go source file, no runtime function.
	p := mix(1, []string{"Work::run@/app/work.cc:1", "main@/app/main.cc:2"}, 0.5)
	_, err := Analyze([]*profile.Profile{p}, Options{})
	if !errors.Is(err, ErrNoRuntime) {
		t.Errorf("err = %v, want ErrNoRuntime", err)
	}
	// A short profile of a Go program doing pure computation holds no
	// runtime frame (CPU profiles omit runtime.goexit), but it is Go's.
	p = mix(1, []string{"main.work@/app/main.go:1", "main.main@/app/main.go:2"}, 0.5)
	if _, err := Analyze([]*profile.Profile{p}, Options{}); err != nil {
		t.Errorf("pure-Go profile without runtime frames: %v", err)
	}
}

// TestWriteClassified reads the classified profile back: every sample has
// a cause label, and the labels add up to the summary's shares.
func TestWriteClassified(t *testing.T) {
	p := mix(2, stkWake, 0.3, stkPark, 0.2, stkSleep, 0.2, stkUser, 0.3)
	res, err := Analyze([]*profile.Profile{p}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := res.WriteClassified(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := Read(context.Background(), "classified", &buf, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	per := map[classify.Cause]int64{}
	for _, s := range back.Sample {
		c := CauseOf(s.Label)
		if c == "" {
			t.Fatalf("sample %v has no cause label", s.Location)
		}
		per[c] += s.Value[1]
	}
	if per[classify.ThreadChurn] != 5e8 || per[classify.Timers] != 2e8 || per[classify.User] != 3e8 {
		t.Errorf("labelled CPU %v, want thread-churn 0.5s, timers 0.2s, user 0.3s", per)
	}
	if len(p.Sample[0].Label) != 0 {
		t.Error("WriteClassified changed the analysed profile")
	}
}

// TestLabels breaks a cause down by pprof labels, and leaves the cause
// label of a classified profile out.
func TestLabels(t *testing.T) {
	p := synth.Build(2e9,
		synth.Stack{Nanos: 6e8, Locs: stkMutex, Labels: map[string][]string{"endpoint": {"/v1/pay"}, CauseLabel: {"x"}}},
		synth.Stack{Nanos: 2e8, Locs: stkMutex, Labels: map[string][]string{"endpoint": {"/v1/list"}}},
		synth.Stack{Nanos: 1.2e9, Locs: stkUser},
	)
	res, err := Analyze([]*profile.Profile{p}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	row := res.Summary.row(classify.Mutex)
	want := []LabelShare{{"endpoint=/v1/pay", 75}, {"endpoint=/v1/list", 25}}
	if len(row.Labels) != 2 || row.Labels[0] != want[0] || row.Labels[1] != want[1] {
		t.Errorf("labels %v, want %v", row.Labels, want)
	}
	var found bool
	for _, e := range res.Findings[0].Evidence {
		if strings.Contains(e.Label, "endpoint=/v1/pay") && e.Value == 75 {
			found = true
		}
	}
	if !found {
		t.Errorf("SD206 evidence lacks the label breakdown: %+v", res.Findings[0].Evidence)
	}
	if m := res.Findings[0].Text(); !strings.Contains(m, "75% of it in endpoint=/v1/pay") {
		t.Errorf("message %q does not name the label", m)
	}
}
