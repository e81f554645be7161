package exectrace

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/schedoctor/schedoctor/finding"
)

// TestEventLoopIsNotBusy reads recordings of healthy event loops that
// wait in a raw epoll_wait(-1) (testdata/epollloop; recorded on the shared
// 2-CPU machine), with the process CPU given as check gives it. A P whose
// goroutine waits in a syscall runs no Go code: the Ps are not busy, so
// there is no SD302/SD303 and no "the host withheld CPU"; the loop that
// yields once after an empty zero-timeout poll, then blocks in the
// syscall, is no yield spin (no SD308), even at 2,000 yields/s; and the
// waits that lose their P are said at info. The old code said "1.35 Ps
// running on average while the process got 0.02 cores" (SD303 warning)
// and "spin on runtime.Gosched instead of waiting" (SD308 warning).
// The close positives stay: the gosched and overprocs goldens.
func TestEventLoopIsNotBusy(t *testing.T) {
	for _, name := range []string{"epollloop", "epollloop-yield", "epollloop-yield-busy"} {
		t.Run(name, func(t *testing.T) {
			f, err := os.Open(filepath.Join("testdata", name+".trace"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			res, err := readAnalyze(context.Background(), f, Options{CPUs: 2, ProcessCPU: 20 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			if b := res.Summary.Procs.BusyMean; b > 0.15 {
				t.Errorf("busy Ps %.2f, want under 0.15: the loops wait in epoll_wait", b)
			}
			for _, f := range res.Findings {
				msg := f.Rule + " " + f.Severity.String() + ": " + f.Text()
				switch {
				case f.Rule == "SD302" || f.Rule == "SD303" || strings.Contains(f.Text(), "withheld"):
					t.Errorf("an idle event loop called busy: %s", msg)
				case f.Rule == "SD308":
					t.Errorf("a yield before a blocking syscall called a spin: %s", msg)
				case f.Rule == "SD305" && len(f.Locations) > 0 && f.Locations[0].Function == "main.wait" && f.Severity > finding.Info:
					t.Errorf("the loops' waits told to batch: %s", msg)
				}
			}
			if name == "epollloop-yield-busy" {
				var yields, waits int
				for _, s := range res.Summary.Sites {
					if s.Function == "main.main.func1" {
						yields, waits = s.Yields, s.SyscallWaits
					}
				}
				if yields < 1500 || waits < 1000 {
					t.Errorf("loops' sites: %d yields, %d syscall waits; want the recording's ~2,000 and ~1,600", yields, waits)
				}
			}
		})
	}
}

// TestRecordedIdleSpinAndItsWorkTwin reads testdata/idlespin recordings
// with a source that reads every hot line as a select with a default: the
// handler's wait is SD308 at warning or above; its twin whose default
// hashes a buffer gets no warning (its CPU samples are in SHA-256).
func TestRecordedIdleSpinAndItsWorkTwin(t *testing.T) {
	for _, c := range []struct {
		name string
		warn bool
	}{{"idlespin-select", true}, {"idlespin-work", false}} {
		t.Run(c.name, func(t *testing.T) {
			f, err := os.Open(filepath.Join("testdata", c.name+".trace"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			res, err := readAnalyze(context.Background(), f, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var warned bool
			for _, f := range Findings(res.Summary, Options{}, spinJudge) {
				if f.Rule == "SD308" && f.Severity >= finding.Warning {
					warned = true
				}
			}
			if warned != c.warn {
				t.Errorf("SD308 warning %v, want %v\n%+v", warned, c.warn, res.Summary.Spinning)
			}
		})
	}
}

// TestSD308DocQuotesTheThresholds: SD308's docs quote the severity
// thresholds the code uses (finding.SpinSeverity's constants) through
// RuleThresholds, which internal/ruledocs renders into the page.
func TestSD308DocQuotesTheThresholds(t *testing.T) {
	th := RuleThresholds()["SD308"]
	for _, want := range []float64{finding.SpinWarningCores, finding.SpinCriticalCores, finding.SpinCriticalShare} {
		if !slices.ContainsFunc(th, func(t finding.Threshold) bool { return t.Value == want }) {
			t.Errorf("SD308's thresholds lack %v: %+v", want, th)
		}
	}
}
