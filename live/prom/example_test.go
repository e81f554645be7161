package prom_test

import (
	"context"
	"log"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/schedoctor/schedoctor/live"
	"github.com/schedoctor/schedoctor/live/prom"
)

// Register the monitor's derived figures beside the Go collector: the
// names do not overlap.
func ExampleNewCollector() {
	m, err := live.Start(context.Background(), live.Options{NoFlightRecorder: true})
	if err != nil {
		log.Fatal(err)
	}
	defer m.Stop()
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), prom.NewCollector(m))
	http.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
}
