package finding

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestThresholdShown(t *testing.T) {
	for _, tt := range []struct {
		th   Threshold
		want string
	}{
		{Percent("share", 0.05, "m"), "5%"}, // 0.05*100 is 5.000000000000001
		{Percent("share", 0.1, "m"), "10%"},
		{Threshold{Value: 0.05, Unit: "cores"}, "0.05 cores"},
		{Threshold{Value: 100_000, Unit: "/s"}, "100,000 /s"},
		{Threshold{Value: 1000}, "1000"},
		{Threshold{Value: 1.25, Unit: "×"}, "1.25×"},
		{Duration("d", time.Millisecond, "m"), "1 ms"},
		{Duration("d", 500*time.Microsecond, "m"), "500 µs"},
		{Duration("d", 10*time.Minute, "m"), "10 min"},
		{Duration("d", 90*time.Second, "m"), "90 s"},
		{Seconds("d", 100e-6, "m"), "100 µs"},
		{Seconds("d", 0.010, "m"), "10 ms"},
		{Threshold{Value: -2.5}, "-2.5"},
	} {
		if got := tt.th.Shown(); got != tt.want {
			t.Errorf("Shown(%+v) = %q, want %q", tt.th, got, tt.want)
		}
	}
}

// The catalog's invariants on the fields of issue 21: a date for Since,
// a short Detection, no thresholds typed into the catalog.
func TestValidateNewFields(t *testing.T) {
	load()
	saved := catalog
	defer func() { catalog = saved }()
	catalog = slices.Clone(saved)
	catalog[0].Since = "2026-11"
	catalog[1].Detection = strings.Repeat("word ", MaxDetectionWords+1)
	catalog[2].Thresholds = []Threshold{{Name: "n", Value: 1, Meaning: "m"}}
	err := Validate()
	if err == nil {
		t.Fatal("Validate passed a catalog with a bad Since, a long Detection and thresholds")
	}
	for _, want := range []string{"since \"2026-11\"", "detection has", "thresholds come from"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Validate's error lacks %q: %v", want, err)
		}
	}
}
