package exectrace

import (
	"fmt"
	"time"

	"github.com/schedoctor/schedoctor/finding"
)

// lockQueue is SD309: goroutines queue on one lock.
func lockQueue(r *ruleCtx) {
	s := r.s
	for _, l := range s.Locks {
		if l.Count < lockMinimum || l.Waiting < lockWaiting {
			continue
		}
		r.add("SD309", finding.MustLookup("SD309").Severity,
			fmt.Sprintf("%.2f goroutines wait on average", l.Waiting),
			fmt.Sprintf("%d goroutines queue on one lock (%d waits, %v in total, p99 %v)",
				l.Goroutines, l.Count, l.Wait.Total.Round(time.Millisecond), dur(l.Wait.P99)),
			[]finding.Location{l.Location},
			[]finding.Evidence{
				evid("goroutines waiting (mean)", l.Waiting, "goroutines"),
				evid("waits", float64(l.Count), "waits"),
				evid("total wait", ms(l.Wait.Total), "ms"),
				evid("p99 wait", ms(l.Wait.P99), "ms"),
			},
			finding.MustLookup("SD309").Fix)
	}
}
