package live_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"time"

	"github.com/schedoctor/schedoctor/live"
)

// Start a monitor and mount its page on a mux served on loopback only.
func ExampleStart() {
	ctx := context.Background()
	m, err := live.Start(ctx, live.Options{Interval: 100 * time.Millisecond}) // snapshots to $TMPDIR/schedoctor-live-UID
	if err != nil {
		log.Fatal(err)
	}
	defer m.Stop()

	// A mux of its own, served on loopback only (or behind authentication).
	mux := http.NewServeMux()
	mux.Handle("/debug/schedoctor/", m.Handler())
	srv := &http.Server{Addr: "127.0.0.1:6061", Handler: mux}
	_ = srv // go srv.ListenAndServe()

	time.Sleep(300 * time.Millisecond)
	st := m.State()
	fmt.Println(st.GOMAXPROCS > 0, st.Readings >= 2)
	_ = m.Findings() // []finding.Finding: SD701–SD704 now, and the snapshots' diagnoses
	// Output: true true
}

// Tag a handler so that snapshot findings are broken down by endpoint.
func ExampleDo() {
	http.HandleFunc("/v1/pay", func(w http.ResponseWriter, r *http.Request) {
		live.Do(r.Context(), func(ctx context.Context) {
			fmt.Fprintln(w, "paid")
		}, "endpoint", "/v1/pay")
	})
}
