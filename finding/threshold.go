package finding

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// Threshold is one number a rule's detection compares a measurement with,
// as the rule docs show it. A source builds its thresholds from the very
// constants or defaults its code compares with (see internal/ruledocs), so
// a number is written once, in the code, and never copied into prose.
type Threshold struct {
	Name  string  `json:"name"`           // what is measured: "share of the profile's CPU"
	Value float64 `json:"value"`          // in Unit, as shown
	Unit  string  `json:"unit,omitempty"` // "%", "cores", "ms", "µs", "s", "/s"; empty for a count or a ratio
	// Meaning is what reaching the value does: "reported", "warning from
	// here, info below", "critical".
	Meaning string `json:"meaning"`
	// Source is the source whose code compares with the value, where a
	// rule has several (SD302: trace and schedtrace). internal/ruledocs
	// fills it in the join.
	Source Source `json:"source,omitempty"`
}

// Shown is the value with its unit, as a person reads it: "20%",
// "0.05 cores", "1 ms", "100,000".
func (t Threshold) Shown() string {
	v := formatNumber(t.Value)
	switch t.Unit {
	case "":
		return v
	case "%", "×":
		return v + t.Unit
	}
	return v + " " + t.Unit
}

// Percent is a threshold held in the code as a fraction (0.5), shown in
// per cent (50%).
func Percent(name string, fraction float64, meaning string) Threshold {
	return Threshold{Name: name, Value: fraction * 100, Unit: "%", Meaning: meaning}
}

// Duration is a threshold held in the code as a time.Duration, shown in the
// largest of min, s, ms and µs in which it is at least 1 (min only for
// whole minutes).
func Duration(name string, d time.Duration, meaning string) Threshold {
	switch {
	case d >= time.Minute && d%time.Minute == 0:
		return Threshold{Name: name, Value: d.Minutes(), Unit: "min", Meaning: meaning}
	case d >= time.Second:
		return Threshold{Name: name, Value: d.Seconds(), Unit: "s", Meaning: meaning}
	case d >= time.Millisecond:
		return Threshold{Name: name, Value: float64(d) / float64(time.Millisecond), Unit: "ms", Meaning: meaning}
	}
	return Threshold{Name: name, Value: float64(d) / float64(time.Microsecond), Unit: "µs", Meaning: meaning}
}

// Seconds is a threshold held in the code as seconds (a float64), shown as
// a duration.
func Seconds(name string, s float64, meaning string) Threshold {
	return Duration(name, time.Duration(math.Round(s*float64(time.Second))), meaning)
}

// formatNumber writes v with no float noise (0.05*100 is 5.000000000000001)
// and thousands grouped: "5", "0.25", "100,000".
func formatNumber(v float64) string {
	v = math.Round(v*1e9) / 1e9
	s := strconv.FormatFloat(v, 'f', -1, 64)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	intPart, frac, hasFrac := strings.Cut(s, ".")
	if len(intPart) > 4 {
		var b strings.Builder
		for i, c := range intPart {
			if i > 0 && (len(intPart)-i)%3 == 0 {
				b.WriteByte(',')
			}
			b.WriteRune(c)
		}
		intPart = b.String()
	}
	if hasFrac {
		intPart += "." + frac
	}
	if neg {
		intPart = "-" + intPart
	}
	return intPart
}
