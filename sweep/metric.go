package sweep

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// MetricSpec is a -metric NAME=REGEXP: the first capture group of the last
// line of the command's output (stdout or stderr) that matches is the
// run's value of NAME.
type MetricSpec struct {
	Name string
	RE   *regexp.Regexp
}

func (m MetricSpec) String() string { return m.Name + "=" + m.RE.String() }

// ParseMetricSpec parses NAME=REGEXP. The regexp must have a capture group.
func ParseMetricSpec(s string) (MetricSpec, error) {
	name, expr, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" || expr == "" {
		return MetricSpec{}, fmt.Errorf("%q: want NAME=REGEXP, e.g. 'ops/s=ops/s ([0-9.]+)'", s)
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return MetricSpec{}, fmt.Errorf("%q: %w", s, err)
	}
	if re.NumSubexp() < 1 {
		return MetricSpec{}, fmt.Errorf("%q: the regexp needs a capture group around the number, e.g. ([0-9.]+)", s)
	}
	return MetricSpec{Name: name, RE: re}, nil
}

// BenchValue is one measurement of a benchmark result line.
type BenchValue struct {
	Value float64
	Unit  string // "ns/op", "B/op", or a b.ReportMetric unit
}

// ParseBenchLine parses one result line of `go test -bench` output:
//
//	BenchmarkHash-8   	  123456	      9713 ns/op	  32 B/op	   1 allocs/op	  105.3 MB/s
//
// It returns the benchmark's name without the -GOMAXPROCS suffix that go
// test appends (so that results at different GOMAXPROCS compare), and its
// values. ok is false for any other line.
func ParseBenchLine(line string) (name string, vals []BenchValue, ok bool) {
	f := strings.Fields(line)
	if len(f) < 4 || len(f)%2 != 0 || !strings.HasPrefix(f[0], "Benchmark") {
		return "", nil, false
	}
	if _, err := strconv.ParseUint(f[1], 10, 64); err != nil {
		return "", nil, false
	}
	for i := 2; i < len(f); i += 2 {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil || v != v { // NaN is not a measurement
			return "", nil, false
		}
		vals = append(vals, BenchValue{Value: v, Unit: f[i+1]})
	}
	return stripProcs(f[0]), vals, true
}

// stripProcs removes a trailing "-N" (digits) from a benchmark name.
func stripProcs(name string) string {
	i := strings.LastIndexByte(name, '-')
	if i <= 0 || i == len(name)-1 {
		return name
	}
	for _, c := range name[i+1:] {
		if c < '0' || c > '9' {
			return name
		}
	}
	return name[:i]
}

// outputScanner reads one output stream of a run line by line: it keeps
// the last tailLines lines (for error messages), the benchmark results and
// the -metric matches. Memory stays bounded whatever the command prints.
// It is an io.Writer for exec; one per stream, not shared.
type outputScanner struct {
	specs []MetricSpec

	partial []byte
	tail    []string

	// bench holds each benchmark metric's values in the order seen,
	// keyed "BenchmarkName unit"; benchOrder keeps first-seen order.
	bench      map[string][]float64
	benchOrder []string
	// metrics holds each -metric's last match; metricErr the first
	// capture that was not a number.
	metrics   map[string]float64
	metricErr error
}

const (
	tailLines   = 10
	maxLineSize = 64 << 10 // longer lines are cut
)

func newOutputScanner(specs []MetricSpec) *outputScanner {
	return &outputScanner{specs: specs, bench: map[string][]float64{}, metrics: map[string]float64{}}
}

func (s *outputScanner) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			if len(s.partial) < maxLineSize {
				s.partial = append(s.partial, p[:min(len(p), maxLineSize-len(s.partial))]...)
			}
			break
		}
		if len(s.partial) > 0 {
			s.partial = append(s.partial, p[:min(i, max(0, maxLineSize-len(s.partial)))]...)
			s.line(string(s.partial))
			s.partial = s.partial[:0]
		} else {
			s.line(string(p[:min(i, maxLineSize)]))
		}
		p = p[i+1:]
	}
	return n, nil
}

// flush handles a last line without a newline.
func (s *outputScanner) flush() {
	if len(s.partial) > 0 {
		s.line(string(s.partial))
		s.partial = nil
	}
}

func (s *outputScanner) line(l string) {
	l = strings.TrimRight(l, "\r")
	s.tail = append(s.tail, l)
	if len(s.tail) > tailLines {
		s.tail = s.tail[1:]
	}
	if name, vals, ok := ParseBenchLine(l); ok {
		for _, v := range vals {
			k := name + " " + v.Unit
			if _, seen := s.bench[k]; !seen {
				s.benchOrder = append(s.benchOrder, k)
			}
			s.bench[k] = append(s.bench[k], v.Value)
		}
	}
	for _, m := range s.specs {
		sub := m.RE.FindStringSubmatch(l)
		if sub == nil {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(sub[1]), 64)
		if err != nil {
			if s.metricErr == nil {
				s.metricErr = fmt.Errorf("the metric %s matched %q but %q is not a number", m.Name, l, sub[1])
			}
			continue
		}
		s.metrics[m.Name] = v
	}
}

// Tail returns the last lines of the stream, joined.
func (s *outputScanner) Tail() string { return strings.Join(s.tail, "\n") }
