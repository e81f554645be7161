package perfetto_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"time"

	"github.com/schedoctor/schedoctor/exectrace/perfetto"
)

// The 40 ms of a trace from its 10 ms mark, for ui.perfetto.dev; an
// *os.File from safewrite takes the place of io.Discard.
func ExampleExportFile() {
	st, err := perfetto.ExportFile(context.Background(), io.Discard, "../testdata/mutex.trace", perfetto.Options{
		Window: perfetto.Window{Start: 10 * time.Millisecond, End: 50 * time.Millisecond},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%v: %d P tracks, %d goroutine tracks, %d flows, cut: %v\n", st.Window, st.Ps, st.Goroutines, st.Flows, st.Cut)
	// Output:
	// 10ms to 50ms: 2 P tracks, 8 goroutine tracks, 18 flows, cut: false
}
