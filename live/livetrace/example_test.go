package livetrace_test

import (
	"context"
	"log"

	"github.com/schedoctor/schedoctor/live"
	"github.com/schedoctor/schedoctor/live/livetrace"
)

// Diagnose each snapshot with schedoctor's trace analysis: its SD3xx
// findings join the monitor's, naming the snapshot.
func ExampleDiagnose() {
	m, err := live.Start(context.Background(), live.Options{Dir: "/var/tmp/schedoctor", Diagnose: livetrace.Diagnose})
	if err != nil {
		log.Fatal(err)
	}
	defer m.Stop()
}
