package sleeppoll_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/schedoctor/schedoctor/lint/internal/linttest"
	"github.com/schedoctor/schedoctor/lint/sleeppoll"
)

func Test(t *testing.T) {
	diags := linttest.Run(t, analysistest.TestData(), sleeppoll.Analyzer, "SD102", false, "sleeppoll", "notime")
	linttest.WantEvidence(t, diags, "sleep", 5)
	linttest.WantEvidence(t, diags, "sleep", 100)     // const poll = clock.Millisecond / 10
	linttest.WantEvidence(t, diags, "sleep", 999.999) // 999999ns
	linttest.WantEvidence(t, diags, "threshold", 1000)
	linttest.WantEvidence(t, diags, "sleep", 20) // worker.idle, set in newWorker
	linttest.WantEvidence(t, diags, "queue.pop never blocks (per-function facts)", 1)
	linttest.WantEvidence(t, diags, "mutexes taken and released on the idle path", 1) // pool.worker
	linttest.WantEvidence(t, diags, "lockedQueue.pop only waits for a mutex it releases (per-function facts)", 1)
}
